"""Resuming with ``last_seq`` on a real server sends exactly the missed updates, not a
snapshot: a spectator who was the only one watching while it was away, and a player after the
server restarted (the updates it missed were sent by the old process: they are rebuilt from
the stored log). What the resumed client holds then is what a fresh snapshot shows."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from srvkit import TIMEOUT, Client, ServerThread, fast_settings, seat_clients

pytestmark = pytest.mark.timeout(180)


async def play_until(c: Client, seq: int) -> None:
    """Play ``c``'s legal cards (choosing when asked) until its game reaches ``seq``."""
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while c.seq < seq:
        assert asyncio.get_running_loop().time() < deadline, f"{c.name} stuck at {c.seq}"
        v = c.view
        if v is not None and c.legal():
            card, pile = c.legal()[0]
            mid = await c.play(card, pile)
            await c.wait(lambda m, mid=mid: m.get("id") == mid and m["type"] in ("ack", "refused"))
        elif v is not None and v["phase"] == "choosing" and v["my_choice"] is None and v["hand"]:
            mid = await c.choose(v["hand"][-1])
            await c.wait(lambda m, mid=mid: m.get("id") == mid and m["type"] in ("ack", "refused"))
        else:
            await c.wait(lambda m: True)  # the table moves by itself (a stall's flip)


def after_welcome(c: Client) -> list[dict[str, Any]]:
    """The game frames ``c`` got (``snapshot``, ``update``, ``countdown``)."""
    return [m for m in c.msgs if m["type"] in ("snapshot", "update", "countdown")]


async def same_as_a_snapshot(server: ServerThread, code: str, resumed: Client) -> None:
    """A spectator's snapshot shows what ``resumed`` holds at that sequence number (an update's
    view is a snapshot's but the parts that never change in a game)."""
    fresh = await Client("fresh").connect(server.ws, room=code, spectate=True)
    snap = await fresh.expect("snapshot")
    if resumed.seq < snap["seq"]:
        await resumed.wait(lambda m: m["type"] == "update" and m["seq"] >= snap["seq"])
    seen = [m for m in resumed.msgs if m["type"] == "update" and m["seq"] == snap["seq"]]
    assert seen, f"no update {snap['seq']}"
    assert seen[0]["view"] == {k: snap["view"][k] for k in seen[0]["view"]}
    await fresh.close()


async def test_a_lone_spectator_resumes_with_the_updates_it_missed(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(choice_deadline=0.05)
    code, clients, _ = await seat_clients(server, players=2, spectators=1)
    p0, p1, watcher = clients
    await watcher.expect("snapshot")
    await play_until(p0, 4)
    await watcher.wait(lambda m: m["type"] == "update" and m["seq"] >= 4)
    game, last = watcher.game, watcher.seq
    await watcher.close()
    # Nobody watches now: these updates have no spectator's frame.
    await play_until(p1, last + 6)
    back = await Client("back").connect(
        server.ws, room=code, spectate=True, game=game, last_seq=last
    )
    await back.wait(lambda m: m["type"] == "update" and m["seq"] >= last + 6)
    frames = after_welcome(back)
    assert frames and all(m["type"] == "update" for m in frames), [m["type"] for m in frames]
    assert [m["seq"] for m in frames] == list(range(last + 1, last + 1 + len(frames)))
    assert all(m["view"]["seat"] is None for m in frames)
    await same_as_a_snapshot(server, code, back)
    for c in (p0, p1, back):
        await c.close()


async def test_a_player_resumes_after_a_restart_with_the_updates_it_missed(
    tmp_path: Path,
) -> None:
    settings = fast_settings(f"sqlite:///{tmp_path / 'r.db'}", choice_deadline=0.05)
    server = ServerThread(settings)
    server.start()
    try:
        made = server.post("/api/rooms", {"name": "P0", "seats": [None, "casual:first@40"]})
        code, token = made.json()["code"], made.json()["token"]
        watcher = await Client("W").connect(server.ws, room=code, spectate=True)
        p0 = await Client("P0").connect(server.ws, room=code, token=token)
        await play_until(p0, 4)
        game, last = p0.game, p0.seq
        await p0.close()
        # The bot plays on while the player is away; then the server stops.
        await watcher.wait(lambda m: m["type"] == "update" and m["seq"] >= last + 5)
        stored = watcher.seq
        await watcher.close()
    finally:
        server.stop()
    again = ServerThread(fast_settings(settings.database_url, choice_deadline=0.05))
    again.start()
    try:
        back = await Client("P0").connect(
            again.ws, room=code, token=token, game=game, last_seq=last
        )
        await back.wait(lambda m: m["type"] == "update" and m["seq"] >= stored)
        frames = after_welcome(back)
        assert frames and all(m["type"] == "update" for m in frames), [m["type"] for m in frames]
        assert [m["seq"] for m in frames][: stored - last] == list(range(last + 1, stored + 1))
        assert all(m["view"]["seat"] == 0 for m in frames)
        # Its view is the player's own, as a snapshot would show it now.
        await back.send({"type": "resync"})
        snap = await back.expect("snapshot")
        held = next(m for m in reversed(back.msgs[:-1]) if m["type"] == "update")
        if held["seq"] == snap["seq"]:
            assert held["view"] == {k: snap["view"][k] for k in held["view"]}
        with contextlib.suppress(Exception):
            await back.close()
    finally:
        again.stop()
