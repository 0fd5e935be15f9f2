"""``blink play --server URL --quick`` against a real ``blink serve``: the terminal waits in the
queue, is paired with another queued player and plays the game by key presses; a lone player
is offered a bot (``--queue-bot-after``), and Enter takes it."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Any

import pytest
from tests.tui.helpers import stage, wait_for
from tests.tui.test_online import play_until_over
from typer.testing import CliRunner
from websockets.asyncio.client import connect

from blink.cards import parse_card
from blink.cli import app as cli_app
from blink.games.classic.cli.play import quick_bot_seats
from blink.games.classic.tui.app import BlinkApp
from blink.games.classic.tui.online import OnlineTable
from blink.games.classic.tui.table import Stage
from blink.tui.quick import QueueState, queue_url, status_line, wait_in_queue
from serve_process import FAST, ServeProcess


async def other_player(server_url: str, paired: asyncio.Future[dict[str, Any]]) -> None:
    """Someone else in the queue (as the browser waits), who then plays its seat slowly."""
    async with connect(queue_url(server_url)) as q:
        await q.send(json.dumps({"type": "join", "name": "Web"}))
        async for frame in q:
            msg = json.loads(frame)
            if msg["type"] == "paired":
                paired.set_result(msg)
                break
    code = paired.result()["code"]
    async with connect(server_url.replace("http", "ws") + f"/ws/{code}") as ws:
        hello = {"type": "hello", "protocol": 1, "room": code, "token": paired.result()["token"]}
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
                    await ws.send(
                        json.dumps({"type": "play", "id": str(n), "card": card, "pile": fits[0]})
                    )
                    break


async def test_the_terminal_is_paired_and_plays(server_url: str) -> None:
    paired: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    seen: list[QueueState] = []
    waiting = asyncio.create_task(wait_in_queue(server_url, name="Term", on_status=seen.append))
    await asyncio.sleep(0)  # the terminal joins first (the order does not matter)
    web = asyncio.create_task(other_player(server_url, paired))
    try:
        seat = await asyncio.wait_for(waiting, 30)
        assert seat is not None and seat.token
        other = await asyncio.wait_for(paired, 30)
        assert other["code"] == seat.code and other["seat"] != seat.seat
        assert other["opponents"] == ["Term"]
        table = OnlineTable(seat, name="Term")
        player_app = BlinkApp(table, title="quick")
        async with player_app.run_test() as pilot:
            await wait_for(pilot, lambda: stage(player_app) is not Stage.WAITING, timeout=30)
            assert seat.seat is not None
            assert await play_until_over(pilot, player_app, seat.seat) > 0
        await asyncio.wait_for(web, 30)
    finally:
        web.cancel()
        waiting.cancel()


@pytest.fixture
def offering(tmp_path: Path) -> Any:
    """A server that offers a bot after 0.3 s in the queue."""
    proc = ServeProcess(tmp_path / "q.db", *FAST, "--queue-bot-after", "0.3").start()
    try:
        yield proc
    finally:
        proc.stop()


async def test_a_lone_terminal_is_offered_a_bot(offering: Any) -> None:
    accept = asyncio.Event()
    states: list[QueueState] = []

    def show(state: QueueState) -> None:
        states.append(state)
        if state.offered:
            accept.set()  # Enter on the status line

    seat = await asyncio.wait_for(
        wait_in_queue(offering.base, name="Solo", on_status=show, accept_bot=accept), 30
    )
    assert seat is None  # the queue was left for a game against a bot
    offered = [s for s in states if s.offered]
    assert offered and offered[0].waited >= 0.3
    assert "press Enter to play a bot" in status_line(offered[0])


def test_an_offered_bot_fills_the_open_seats() -> None:
    assert quick_bot_seats([None, None]) == [None, "skilled:first"]
    assert quick_bot_seats([None, "expert:blocker", None]) == [
        None,
        "expert:blocker",
        "skilled:first",
    ]


def test_quick_needs_a_server() -> None:
    result = CliRunner().invoke(cli_app, ["play", "--quick"])
    assert result.exit_code == 2
    assert "--quick waits in a server's queue" in result.stderr


class Pty:
    """``blink play ARGS`` in a pseudo-terminal of 120 x 40, its output read as it comes."""

    def __init__(self, *args: str) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "blink.cli", "play", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.master = master
        self.out = ""

    def read_until(self, text: str, timeout: float = 60.0) -> None:
        """Read until ``text`` has been shown (escape codes taken out)."""
        deadline = time.monotonic() + timeout
        while text not in ANSI.sub("", self.out):
            left = deadline - time.monotonic()
            assert left > 0, f"{text!r} never shown: {ANSI.sub('', self.out)[-400:]!r}"
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    self.out += os.read(self.master, 65536).decode(errors="replace")
                except OSError:  # the child has gone
                    assert text in ANSI.sub("", self.out), ANSI.sub("", self.out)[-400:]

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> int:
        """Quit (Ctrl+Q, then Y if asked) and return the exit status."""
        try:
            self.send("\x11")
            with contextlib.suppress(AssertionError, OSError):
                self.read_until("Y: quit", timeout=5)
                self.send("y")
            return self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            os.close(self.master)


ANSI = re.compile(r"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")


async def test_blink_play_quick_in_a_terminal(server_url: str) -> None:
    """The command itself: the status line, then the paired table's title in the terminal."""
    term = Pty("--server", server_url, "--quick", "--no-profile", "--name", "Tess")
    try:
        await asyncio.to_thread(term.read_until, "Waiting for an opponent")
        async with connect(queue_url(server_url)) as q:
            await q.send(json.dumps({"type": "join", "name": "Web"}))
            paired = json.loads(await asyncio.wait_for(_paired(q), 30))
        assert paired["opponents"] == ["Tess"]
        await asyncio.to_thread(term.read_until, f"room {paired['code']}")
    finally:
        code = await asyncio.to_thread(term.close)
        assert code == 0, ANSI.sub("", term.out)[-600:]


async def _paired(q: Any) -> str:
    async for frame in q:
        if json.loads(frame)["type"] == "paired":
            return str(frame)
    raise AssertionError("the queue closed without pairing")


def test_enter_takes_the_offered_bot_in_a_terminal(offering: Any) -> None:
    term = Pty("--server", offering.base, "--quick", "--no-profile")
    try:
        term.read_until("press Enter to play a bot")
        term.send("\r")
        term.read_until("seat 1")  # the table of the game against the bot, seat 1 is yours
    finally:
        term.close()


async def test_the_serve_options_reach_the_queue(tmp_path: Path) -> None:
    """``blink serve --queue-bot-after 0 --queue-gap 7 --queue-widen 0``: no bot is offered,
    and the gap accepted stays 7."""
    args = ("--queue-bot-after", "0", "--queue-gap", "7", "--queue-widen", "0")
    proc = await asyncio.to_thread(ServeProcess(tmp_path / "o.db", *FAST, *args).start)
    try:
        async with connect(queue_url(proc.base)) as q:
            await q.send(json.dumps({"type": "join"}))
            queued = json.loads(await q.recv())
            assert queued["type"] == "queued" and queued["bot_after"] is None
            status = json.loads(await asyncio.wait_for(q.recv(), 30))
            assert status["type"] == "queue" and status["gap"] == 7.0
    finally:
        await asyncio.to_thread(proc.stop)
