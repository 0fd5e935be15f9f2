"""Fixtures for the terminal client's tests: a real ``blink serve`` in a subprocess."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server (``blink serve``) on a free port with a fresh SQLite file, fast delays."""
    port = free_port()
    db = Path(tmp_path_factory.mktemp("serve")) / "blink.db"
    cmd = [
        sys.executable,
        "-m",
        "blink.cli",
        "serve",
        "--port",
        str(port),
        "--db",
        str(db),
        "--countdown",
        "0.3",
        "--stall-pause",
        "0.2",
        "--choice-deadline",
        "1.0",
        "--between-games",
        "0.5",
        "--deal-seed",
        "100",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    try:
        while True:
            if proc.poll() is not None:
                out = proc.stdout.read().decode() if proc.stdout else ""
                raise RuntimeError(f"blink serve exited: {out}")
            try:
                if httpx.get(url + "/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("blink serve did not start within 60 s")
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
