"""The terminal client and a lost race: its play names the version of the pile it saw, and a
``too_slow`` answer is shown in words with the card that won the pile.

The other end is a real WebSocket server that speaks the protocol from a script (a lost race
cannot be timed on a real server without holding the client's frames back): the client is the
thing under test, as it is, with its own connection.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from websockets.asyncio.server import ServerConnection, serve

from blink.cards import parse_card
from blink.games.classic.tui.online import OnlineTable, Seat, refused_words
from blink.games.classic.tui.table import Notice

HAND = ["1RM", "2GS", "3BW"]
TOPS = ["3RS", "2YP"]


def _snapshot() -> dict[str, Any]:
    view = {
        "seat": 1,
        "phase": "playing",
        "hand": HAND,
        "fits": [[0], [0, 1], [0]],
        "tops": TOPS,
        "versions": [4, 1],
        "hand_counts": [3, 3],
        "draw_counts": [20, 20],
        "set_aside": 0,
        "chosen": [False, False],
        "my_choice": None,
        "plays": 3,
        "reach": [0, 1],
        "outcome": None,
        "piles": [["1OF", "2OF", "3OF", "3RS"], ["2YP"]],
        "players": 2,
        "ruleset": "official",
    }
    return {
        "type": "snapshot",
        "game_kind": "classic",
        "game": 1,
        "number": 1,
        "seq": 4,
        "view": view,
        "stall": None,
        "turn": None,
        "countdown_ms": None,
        "series": {},
    }


async def _until(done: Callable[[], bool], timeout: float = 30.0) -> None:
    """Wait until ``done()`` (the client's reader runs meanwhile), at most ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def test_a_play_names_its_version_and_too_slow_is_said_in_words() -> None:
    plays: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def script(ws: ServerConnection) -> None:
        hello = json.loads(await ws.recv())
        assert hello["type"] == "hello" and hello["token"] == "tok"
        await ws.send(
            json.dumps(
                {
                    "type": "welcome",
                    "protocol": 1,
                    "server": "t",
                    "room": "ABC",
                    "seat": 1,
                    "role": "player",
                    "name": "Ann",
                }
            )
        )
        await ws.send(json.dumps(_snapshot()))
        async for frame in ws:
            msg = json.loads(frame)
            if msg["type"] != "play":
                continue
            await plays.put(msg)
            top = {"pile": msg["pile"], "card": "5OF", "version": msg["version"] + 1}
            await ws.send(
                json.dumps(
                    {
                        "type": "refused",
                        "id": msg["id"],
                        "code": "too_slow",
                        "message": "too slow: pile 0 changed first",
                        "top": top,
                    }
                )
            )

    async with serve(script, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        table = OnlineTable(Seat(f"http://127.0.0.1:{port}", "ABC", 1, "tok"), name="Ann")
        await table.start()
        try:
            await asyncio.wait_for(table.connected.wait(), 10)
            await _until(lambda: table.view(1) is not None)
            view = table.view(1)
            assert view is not None and view.versions == (4, 1)
            table.play(1, parse_card("1RM"), 0)
            sent = await asyncio.wait_for(plays.get(), 10)
            assert (sent["card"], sent["pile"], sent["version"]) == ("1RM", 0, 4)
            notices: list[Notice] = []

            def refused() -> bool:
                notices.extend(n for n in table.notices() if n.refused)
                return bool(notices)

            await _until(refused)
            assert [n.text for n in notices] == [
                "Too slow: pile 1 now has five orange flowers on top"
            ]
        finally:
            await table.close()


def test_refusals_in_words() -> None:
    top = {"pile": 1, "card": "2GS", "version": 3}
    assert refused_words({"code": "too_slow", "message": "x", "top": top}) == (
        "Too slow: pile 2 now has two green stars on top"
    )
    assert refused_words({"code": "too_slow", "message": "x"}) == "Too slow: the pile changed first"
    # By code, never the server's sentence with card codes.
    assert refused_words({"code": "no_game", "message": "no game is in progress"}) == (
        "No game is in progress"
    )
    assert refused_words({"code": "no_common_attribute", "message": "5OS shares no ..."}) == (
        "No match: no shared colour, shape or count"
    )
