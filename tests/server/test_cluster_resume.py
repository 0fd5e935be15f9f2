"""Resume on any node of a real cluster (PostgreSQL, two ``blink serve --cluster`` nodes,
HAProxy): the node holding a room is killed with SIGKILL in the middle of a game, and a
spectator who had left before, and a player, reconnect through the router with ``last_seq``.
The other node, which takes the room over from the stored log, sends each exactly the updates
it missed (the same frames the old node sent, as far as the player saw them), not a
snapshot."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from cluster_helpers import local_cluster
from srvkit import TIMEOUT, Client, bot_loop
from test_cluster import NODE_ARGS, connect, holder, seat_two, ws_url

from blink.cluster.local import LocalCluster

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    """Two nodes behind HAProxy (see :mod:`test_cluster`)."""
    yield from local_cluster(NODE_ARGS)


def game_frames(c: Client) -> list[dict[str, Any]]:
    """The game frames ``c`` got (``snapshot``, ``update``, ``countdown``)."""
    return [m for m in c.msgs if m["type"] in ("snapshot", "update", "countdown")]


def same_update(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two frames of one update alike but for the referee's deadlines (a wait's time left)."""
    keep = ("type", "game", "seq", "t", "events", "view")
    return all(a[k] == b[k] for k in keep)


async def test_resume_after_kill9_gets_the_missed_updates_from_the_new_holder(
    cluster: LocalCluster,
) -> None:
    url = ws_url(cluster)
    code, tokens = seat_two(cluster, cluster.url)
    players = [await connect(url, f"R{i}", room=code, token=t) for i, t in enumerate(tokens)]
    watcher = await connect(url, "W", room=code, spectate=True)
    loops = [asyncio.ensure_future(bot_loop(p, games=1)) for p in players]
    await watcher.wait(lambda m: m["type"] == "update" and m["seq"] >= 5)
    game, left_at = watcher.game, watcher.seq
    await watcher.close()
    # Nobody watches while the game goes on for a while; then its node dies.
    await players[0].wait(lambda m: m["type"] == "update" and m["seq"] >= left_at + 8)
    dead = holder(cluster, code)
    dead.kill9()
    for t in loops:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(t, TIMEOUT)
    for p in players:
        with contextlib.suppress(Exception):
            await p.closed()
    assert all(p.game == game for p in players)
    acked = max(m["seq"] for p in players for m in p.msgs if m["type"] == "ack")
    seen = min(p.seq for p in players)
    assert seen >= left_at + 8

    # The spectator comes back through the router, to the node that serves the room now.
    back = await connect(url, "W2", room=code, spectate=True, game=game, last_seq=left_at)
    first = await back.wait(lambda m: m["type"] in ("snapshot", "update"))
    assert first["type"] == "update" and first["seq"] == left_at + 1, first
    await back.wait(lambda m: m["type"] == "update" and m["seq"] >= max(acked, seen))
    frames = game_frames(back)
    assert all(m["type"] == "update" for m in frames), [m["type"] for m in frames]
    assert [m["seq"] for m in frames] == list(range(left_at + 1, left_at + 1 + len(frames)))
    assert all(m["view"]["seat"] is None for m in frames)
    alive = holder(cluster, code)
    assert alive is not dead

    # A player resuming from a few updates back gets them again, as the dead node sent them.
    p0 = players[0]
    since = p0.seq - 4
    again = await connect(url, "R0b", room=code, token=tokens[0], game=game, last_seq=since)
    await again.wait(lambda m: m["type"] == "update" and m["seq"] >= p0.seq)
    resumed = game_frames(again)
    assert all(m["type"] == "update" for m in resumed), [m["type"] for m in resumed]
    assert [m["seq"] for m in resumed][:4] == list(range(since + 1, since + 5))
    before = {m["seq"]: m for m in p0.msgs if m["type"] == "update" and m["game"] == game}
    for m in resumed[:4]:
        assert same_update(m, before[m["seq"]]), (m, before[m["seq"]])

    # The game goes on to its end there, the resumed spectator watching.
    other = await connect(url, "R1b", room=code, token=tokens[1])
    for c in (again, other):
        await c.send({"type": "resync"})
        await c.expect("snapshot")
    playing = asyncio.gather(*(bot_loop(c, games=1) for c in (again, other)))
    try:
        ends = await asyncio.wait_for(playing, 4 * TIMEOUT)
    except TimeoutError:
        said = {
            c.name: {
                "sent": list(c.sent)[-3:],
                "answers": [m for m in c.msgs if m["type"] in ("ack", "refused", "error")][-3:],
                "last": c.msgs[-3:],
            }
            for c in (again, other)
        }
        raise AssertionError(f"the game did not end: {said}") from None
    end = await back.expect("game_end", game=game)
    assert end["outcome"] == ends[0][0]["outcome"]
    assert not [m for m in back.msgs if m["type"] == "snapshot" and m["game"] == game]
    for c in (back, again, other):
        await c.close()
