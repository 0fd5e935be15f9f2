"""Online play against a real server (``blink serve`` in a subprocess), by key presses."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from typing import Any

import httpx
from tests.tui.conftest import free_port
from tests.tui.helpers import press_one_move, stage, wait_for
from websockets.asyncio.client import connect

from blink.cards import parse_card
from blink.games.classic.tui.app import BlinkApp
from blink.games.classic.tui.online import OnlineTable, prepare
from blink.games.classic.tui.table import Stage


async def play_until_over(pilot: Any, app: BlinkApp, seat: int, timeout: float = 90) -> int:
    presses = 0
    deadline = time.monotonic() + timeout
    while stage(app) is not Stage.OVER:
        assert time.monotonic() < deadline, f"no end within {timeout} s: {app.table.status()}"
        if stage(app) in (Stage.PLAYING, Stage.CHOOSING) and await press_one_move(pilot, app, seat):
            presses += 1
        await pilot.pause(0.03)
    return presses


async def test_online_game_against_a_server_bot(server_url: str) -> None:
    # `blink play --server URL --bot inhuman`: the client creates the room and takes seat 0.
    seat = prepare(server_url, seats=[None, "inhuman:first"], name="Ann", best_of=1)
    assert seat.seat == 0 and seat.token
    table = OnlineTable(seat, name="Ann")
    app = BlinkApp(table, title=f"room {seat.code}")
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: stage(app) in (Stage.COUNTDOWN, Stage.PLAYING, Stage.OVER))
        while True:
            await play_until_over(pilot, app, 0)
            ended = table.game_id
            # The game's end message (figures, series score) comes after its last update; a
            # tied game decides nothing, and the best of 1 goes on with another game.
            await wait_for(pilot, lambda e=ended: table.status().series_over or table.game_id != e)
            if table.status().series_over:
                break
            await wait_for(pilot, lambda: stage(app) in (Stage.COUNTDOWN, Stage.PLAYING))
        status = table.status()
        assert status.outcome is not None and not status.outcome.is_tie
        assert status.figures is not None and status.figures.plays > 0
        assert sum(status.score) == 1
        assert status.series_over and status.can_rematch
        # The client answers the server's probes: its pongs then show the seat's lag, as
        # the server measured it, on the table's info line.
        await wait_for(pilot, lambda: table.lag_line().startswith("lag: you "))
        assert table.offset.offset is not None
        assert "lag: you " in table.status().info
        await wait_for(
            pilot, lambda: "BLINK!" in str(app.table_screen.query_one("#status").render())
        )
        # The server keeps the record of the finished game.
        room = httpx.get(f"{server_url}/api/rooms/{seat.code}", timeout=10).json()
        assert room["games"] and room["games"][0]["status"] == "finished"
        # Enter asks for a rematch; the bot always agrees, so a new series starts.
        first_game = table.game_id
        await pilot.press("enter")
        await wait_for(pilot, lambda: table.game_id != first_game)
        await wait_for(pilot, lambda: stage(app) in (Stage.COUNTDOWN, Stage.PLAYING, Stage.OVER))
        assert sum(table.status().score) <= 1


async def test_join_a_browser_room_and_watch_it(server_url: str) -> None:
    # A room made as the browser makes it: two human seats, the creator on seat 0.
    created = httpx.post(
        f"{server_url}/api/rooms", json={"players": 2, "name": "Web"}, timeout=10
    ).json()
    code = created["code"]
    # `blink play --server URL --join CODE` and `--watch CODE`.
    seat = prepare(server_url, join=code.lower(), name="Term")
    assert seat.seat == 1
    watcher = prepare(server_url, watch=code)
    assert watcher.seat is None and watcher.token is None
    player_app = BlinkApp(OnlineTable(seat, name="Term"), title="player")
    watch_app = BlinkApp(OnlineTable(watcher), title="watching")

    async def browser_player() -> None:
        # The creator plays through a plain WebSocket, slowly (one play per update at most);
        # its stall choices are left to the server's deadline.
        async with connect(server_url.replace("http", "ws") + f"/ws/{code}") as ws:
            hello = {"type": "hello", "protocol": 1, "room": code, "token": created["token"]}
            await ws.send(json.dumps(hello))
            n = 0
            view: dict[str, Any] = {}
            async for frame in ws:
                msg = json.loads(frame)
                if msg.get("type") == "game_end":
                    return
                if msg.get("type") in ("update", "snapshot") and msg.get("view"):
                    view = msg["view"]
                elif msg.get("type") != "refused":
                    continue
                if view.get("phase") != "playing":
                    continue
                await asyncio.sleep(0.05)
                for card in view["hand"]:
                    c = parse_card(card)
                    fits = [p for p in view["reach"] if c.matches(parse_card(view["tops"][p]))]
                    if fits:
                        n += 1
                        play = {"type": "play", "id": str(n), "card": card, "pile": fits[0]}
                        await ws.send(json.dumps(play))
                        break

    web = asyncio.create_task(browser_player())
    try:
        async with watch_app.run_test() as watch_pilot, player_app.run_test() as pilot:
            await wait_for(pilot, lambda: stage(player_app) is not Stage.WAITING, timeout=30)
            presses = await play_until_over(pilot, player_app, 1)
            assert presses > 0
            await wait_for(watch_pilot, lambda: stage(watch_app) is Stage.OVER)
            # The spectator sees counts only, never a hand.
            view = watch_app.table.view(None)
            assert view is not None and view.hand == () and view.seat is None
            assert watch_app.table.status().outcome == player_app.table.status().outcome
            # Keys do nothing for a spectator.
            await watch_pilot.press("1", "a", "q", "space", "enter")
        await asyncio.wait_for(web, 30)
    finally:
        web.cancel()


def _blink_play(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "blink.cli", "play", "--lang", "en", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_unreachable_server_and_wrong_code(server_url: str) -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    for args in (
        ("--server", closed),
        ("--server", server_url, "--join", "ZZZZZZ"),
        ("--server", server_url, "--watch", "ZZZZZZ"),
        ("--join", "ABCDEF"),
    ):
        r = _blink_play(*args)
        assert r.returncode != 0, args
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1, (args, r.stderr)
        assert lines[0].startswith("blink play: ")
        assert "Traceback" not in r.stderr


async def test_reconnects_after_a_dropped_connection(server_url: str) -> None:
    seat = prepare(server_url, seats=[None, "beginner:first"], name="Ann")
    table = OnlineTable(seat, name="Ann")
    app = BlinkApp(table, title="drop")
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: stage(app) is Stage.PLAYING)
        ws = table._ws
        assert ws is not None
        # The network goes away under the client (no closing handshake).
        ws.transport.abort()
        await wait_for(pilot, lambda: table._ws is not None and table._ws is not ws)
        await wait_for(pilot, lambda: table.closed_reason is None and stage(app) is Stage.PLAYING)
        # The game goes on from where it was: a play by key is accepted after the resume.
        view = table.view(0)
        assert view is not None
        before = view.plays
        deadline = time.monotonic() + 30
        while (table.view(0) or view).plays <= before and stage(app) is not Stage.OVER:
            assert time.monotonic() < deadline
            await press_one_move(pilot, app, 0)
            await pilot.pause(0.1)


async def test_quitting_while_waiting_frees_the_seat(server_url: str) -> None:
    created = httpx.post(f"{server_url}/api/rooms", json={"players": 2}, timeout=10).json()
    seat = prepare(server_url, join=created["code"], name="Term")
    table = OnlineTable(seat, name="Term")
    app = BlinkApp(table)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: table.room.get("status") == "waiting")
        assert "waiting for" in str(app.table_screen.query_one("#status").render())
        await pilot.press("ctrl+q")
    room = httpx.get(f"{server_url}/api/rooms/{created['code']}", timeout=10).json()
    assert not room["seats"][1]["taken"]


async def test_quick_chat_by_keys(server_url: str) -> None:
    # A room made as the browser makes it; the terminal takes seat 1 and chats with seat 0.
    created = httpx.post(
        f"{server_url}/api/rooms", json={"players": 2, "name": "Web"}, timeout=10
    ).json()
    code = created["code"]
    seat = prepare(server_url, join=code, name="Term")
    app = BlinkApp(OnlineTable(seat, name="Term"), title="player")
    async with connect(server_url.replace("http", "ws") + f"/ws/{code}") as ws:
        hello = {"type": "hello", "protocol": 1, "room": code, "token": created["token"]}
        await ws.send(json.dumps(hello))

        async def heard() -> dict[str, Any]:
            while True:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if msg.get("type") == "chat":
                    return msg

        async with app.run_test() as pilot:
            await wait_for(pilot, lambda: stage(app) is not Stage.WAITING, timeout=30)
            line = app.table_screen.query_one("#message")
            # C picks the next phrase (shown), V says it: the other seat hears it by id.
            await pilot.press("c", "c")
            await wait_for(pilot, lambda: "Rematch?" in str(line.render()))
            await pilot.press("v")
            assert await heard() == {"type": "chat", "seat": 1, "phrase": "rematch"}
            # What the other seat says is shown in words, with its name.
            await ws.send(json.dumps({"type": "chat", "phrase": "well_played"}))
            await wait_for(pilot, lambda: "Web: “Well played”" in str(line.render()))


def test_a_room_made_in_the_terminal_is_private_unless_asked(server_url: str) -> None:
    """``blink play --server`` makes a private room, as the browser does; ``--public`` lists
    it in the lobby."""
    private = prepare(server_url, seats=[None, "beginner:first"], name="Ann")
    public = prepare(server_url, seats=[None, "beginner:first"], name="Bo", public=True)
    rooms = [
        httpx.get(f"{server_url}/api/rooms/{s.code}", timeout=10).json() for s in (private, public)
    ]
    assert [r["public"] for r in rooms] == [False, True]
