"""A real redis-server for the tests: started on a free port on 127.0.0.1, stopped (and, for
the reconnection tests, started again on the same port) by the test, killed with it."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from srvkit import free_port

TIMEOUT = 30.0


def _preexec() -> None:  # pragma: no cover - runs in the child
    # The server dies with the test process (Linux: PR_SET_PDEATHSIG).
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)
    os.setpgrp()


class RedisServer:
    """One redis-server process on ``port`` (a free one unless given), nothing saved."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="blink-redis-test-"))
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Its URL."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start it and wait until it accepts connections."""
        exe = shutil.which("redis-server")
        assert exe is not None, "redis-server is not installed (apt-get install redis-server)"
        self.proc = subprocess.Popen(
            [
                exe,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.dir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_preexec,
        )
        deadline = time.monotonic() + TIMEOUT
        while True:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=1) as s,
            ):
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        """Stop it (at once: SIGKILL) and wait."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=TIMEOUT)
        self.proc = None

    def close(self) -> None:
        """Stop it and remove its folder."""
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def redis_url() -> Iterator[str]:
    """A Redis server: scripts/redis.sh's (``BLINK_TEST_REDIS_URL``), else one started here
    for the test."""
    url = os.environ.get("BLINK_TEST_REDIS_URL")
    if url:
        yield url
        return
    server = RedisServer()
    server.start()
    try:
        yield server.url
    finally:
        server.close()
