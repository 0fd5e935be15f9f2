"""The JavaScript example bot (examples/bots/node/bot.js) plays whole games on a real server
with Node and its WebSocket only: the protocol is enough without the Python package."""

from __future__ import annotations

import subprocess
from pathlib import Path

import httpx
from srvkit import ServerThread

BOT = Path(__file__).resolve().parents[2] / "examples" / "bots" / "node" / "bot.js"


def test_the_node_bot_plays_two_games(server: ServerThread) -> None:
    with httpx.Client(base_url=server.http, timeout=30) as c:
        c.post("/api/accounts", json={"name": "Nodie", "password": "correct horse battery"})
        made = c.post("/api/bots", json={"name": "JsBot"}).json()
    done = subprocess.run(
        ["node", "--experimental-websocket", str(BOT), server.http, made["token"], "2"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("played 2 games")
    page = server.get(f"/api/profiles/{made['id']}").json()
    assert page["bot"] is True and page["games"] >= 1


def test_a_wrong_token_is_one_sentence(server: ServerThread) -> None:
    done = subprocess.run(
        ["node", "--experimental-websocket", str(BOT), server.http, "nope"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "bad_bot_token" in done.stderr
