"""Fixtures for the browser tests: a real `blink serve` subprocess and Debian's headless Chromium.

The server runs with short delays (countdown, stall pause, time between games) so the tests stay
fast; nothing in the tests depends on machine speed beyond generous timeouts.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Playwright, sync_playwright

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "docs" / "screenshots"


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A running `blink serve` process and its base URL."""

    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = (tmp / "server.log").open("w")
        cmd = [
            sys.executable, "-m", "blink.cli", "serve",
            "--port", str(self.port),
            "--db", str(tmp / "blink.db"),
            "--countdown", "1",
            "--stall-pause", "0.3",
            "--choice-deadline", "4",
            "--between-games", "1",
            "--deal-seed", "11",
        ]  # fmt: skip
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{self.url}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"blink serve did not start; see {tmp / 'server.log'}")
            time.sleep(0.1)

    def api(self, path: str, body: dict[str, object] | None = None) -> dict[str, object]:
        """Call the REST API (POST when a body is given) and return the JSON answer."""
        if body is None:
            r = httpx.get(self.url + path, timeout=10)
        else:
            r = httpx.post(self.url + path, json=body, timeout=10)
        r.raise_for_status()
        data: dict[str, object] = r.json()
        return data

    def stop(self) -> None:
        """Stop the process."""
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the whole browser suite (each test makes its own rooms)."""
    s = Server(tmp_path_factory.mktemp("e2e"))
    yield s
    s.stop()


@pytest.fixture(scope="session")
def playwright_instance() -> Iterator[Playwright]:
    """The Playwright driver."""
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright_instance: Playwright) -> Iterator[Browser]:
    """Debian's Chromium, headless."""
    b = playwright_instance.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield b
    b.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """A fresh browser profile in English on a desktop screen."""
    ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    yield ctx
    ctx.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """The folder the README's screenshots are written to."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
