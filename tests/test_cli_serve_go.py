"""``blink serve --turn-time/--bot-delay`` (and the older --go-turn-time/--go-bot-delay):
the options reach a real server's Go rooms."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from blink.cli import app

pytestmark = pytest.mark.timeout(120)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def serve(tmp: Path, *opts: str) -> Iterator[str]:
    """Run ``blink serve`` in a subprocess; yield its base URL; stop it at the end."""
    port = _free_port()
    tmp.mkdir(parents=True, exist_ok=True)  # the folder of a --db file must exist
    env = {**os.environ, "COLUMNS": "120"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from blink.cli import app; app()",
            "serve",
            "--port",
            str(port),
            "--db",
            str(tmp / "s.db"),
            *opts,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/api/rooms", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None, "the server exited"
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def bot_room(base: str) -> dict[str, Any]:
    """A Go Blink room of two bots (it starts after the countdown); its info."""
    r = httpx.post(
        f"{base}/api/rooms",
        json={"game": "goblink", "players": 2, "seats": ["greedy", "greedy"], "take_seat": None},
        timeout=30,
    )
    assert r.status_code == 201, r.text
    info: dict[str, Any] = r.json()["room"]
    return info


def test_help_documents_the_go_options() -> None:
    out = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200"}).output
    assert "--turn-time" in out and "--bot-delay" in out
    assert "--go-turn-time" in out and "--go-bot-delay" in out
    assert "Go Blink" in out


def test_bad_values_are_refused() -> None:
    r = CliRunner().invoke(app, ["serve", "--turn-time", "0"])
    assert r.exit_code == 2
    r = CliRunner().invoke(app, ["serve", "--go-bot-delay", "-1"])
    assert r.exit_code == 2


def test_options_reach_the_go_rooms(tmp_path: Path) -> None:
    slow = ("--turn-time", "7.5", "--go-bot-delay", "30", "--countdown", "0.5")
    with serve(tmp_path / "slow", *slow) as base:
        info = bot_room(base)
        assert info["turn_ms"] == 7500 and info["status"] == "countdown"
        time.sleep(1.0)  # past the countdown; bots wait 30 s before acting: nothing has ended
        got = httpx.get(f"{base}/api/rooms/{info['code']}", timeout=30).json()
        assert got["status"] == "playing" and got["games"][0]["status"] == "playing"
    with serve(tmp_path / "fast", "--go-bot-delay", "0") as base:
        info = bot_room(base)
        assert info["turn_ms"] == 60000  # the default
        deadline = time.monotonic() + 60
        url = f"{base}/api/rooms/{info['code']}"
        while httpx.get(url, timeout=30).json()["games"][0]["status"] != "finished":
            assert time.monotonic() < deadline, "bots without a delay did not finish"
            time.sleep(0.1)
