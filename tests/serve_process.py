"""A real ``blink serve`` in a child process for the tests of its operations (options, logs,
metrics, proxies, shutdown), and the server tests' WebSocket clients (tests/server/srvkit.py).

The child runs in its own process group and dies with the test: :meth:`ServeProcess.stop`
(SIGTERM, then SIGKILL after a generous wait) is called by the ``serve_process`` fixture of
each test module, whatever happened.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent / "server"))

from srvkit import (
    Client,
    ServerThread,
    bot_loop,
    fast_settings,
    pg_create_db,
    pg_drop_db,
    seat_clients,
)

__all__ = [
    "FAST",
    "Client",
    "ServeProcess",
    "ServerThread",
    "bot_loop",
    "fast_settings",
    "pg_create_db",
    "pg_drop_db",
    "seat_clients",
]

TIMEOUT = 60.0

FAST = (
    "--countdown",
    "0.05",
    "--stall-pause",
    "0.05",
    "--between-games",
    "0.05",
    "--deal-seed",
    "1000",
)
"""Short delays for games between test clients (as tests/server/srvkit.py's settings)."""


class ServeProcess:
    """``blink serve --port 0 --db DB ARGS`` in a child process (``env``: more environment
    variables; ``pass_db=False``: no ``--db``, the file is then for its stderr's name only);
    :meth:`start` waits for its ``Open http://...`` line."""

    def __init__(
        self, db: Path, *args: str, env: dict[str, str] | None = None, pass_db: bool = True
    ) -> None:
        self.db = db
        self.args = (("--db", str(db)) if pass_db else ()) + args
        # A stop that hangs is shown with every thread's stack: wait() aborts it (SIGABRT).
        self.env = {**os.environ, "PYTHONFAULTHANDLER": "1", **(env or {})}
        self.proc: subprocess.Popen[str] | None = None
        self.base = ""
        self.stderr_path = db.with_suffix(f".{os.getpid()}.{id(self)}.stderr")
        self._stderr: IO[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self.printed: list[str] = []
        """Every line it printed on stdout so far."""

    def start(self) -> ServeProcess:
        """Start it; return once it answers (``RuntimeError`` with its stderr if it stops)."""
        self._stderr = self.stderr_path.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "blink", "serve", "--port", "0", *self.args],
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            env=self.env,
            start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()
        while True:
            try:
                line = self._lines.get(timeout=TIMEOUT)
            except queue.Empty:
                raise RuntimeError(f"blink serve did not start: {self.stderr()}") from None
            if line is None:
                raise RuntimeError(f"blink serve stopped: {self.stderr()}")
            if line.startswith("Open "):
                self.base = line.split()[1].rstrip("/")
                return self

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            self.printed.append(line)
            self._lines.put(line)
        self._lines.put(None)

    def stderr(self) -> str:
        """What it wrote on stderr so far."""
        if self._stderr is not None:
            self._stderr.flush()
        return self.stderr_path.read_text() if self.stderr_path.exists() else ""

    @property
    def http(self) -> str:
        """Base HTTP URL."""
        return self.base

    @property
    def ws(self) -> str:
        """WebSocket URL."""
        return self.base.replace("http://", "ws://") + "/ws"

    def post(self, path: str, body: dict[str, Any] | None = None, **headers: str) -> httpx.Response:
        """A POST request."""
        return httpx.post(self.base + path, json=body or {}, timeout=TIMEOUT, headers=headers)

    def get(self, path: str, **headers: str) -> httpx.Response:
        """A GET request."""
        return httpx.get(self.base + path, timeout=TIMEOUT, headers=headers)

    def terminate(self) -> None:
        """Send SIGTERM (a graceful stop)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)

    def wait(self, timeout: float = TIMEOUT) -> int:
        """Wait for it to exit; its exit status. One that does not exit in time is aborted
        (its threads' stacks go to its stderr) and the test fails with the end of its
        stderr."""
        assert self.proc is not None
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGABRT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=TIMEOUT)
            raise AssertionError(
                f"blink serve did not exit within {timeout:g} s; its stderr ends with:\n"
                + self.stderr()[-6000:]
            ) from None

    def stop(self) -> None:
        """Stop it for sure: SIGTERM, then SIGKILL to its process group."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=TIMEOUT)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
