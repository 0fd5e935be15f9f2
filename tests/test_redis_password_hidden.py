"""A Redis URL's password is never shown: ``blink serve``'s start-up lines, its logs (at debug
level, while Redis is there, after it went and with a password Redis refuses), ``/metrics``,
the errors of ``--redis-url`` and ``--help`` with the URL in the environment all show the URL
with ``***`` in place of the password (``blink cluster run``: tests/test_cli_cluster.py)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from blink.cluster.local import LocalRedis, find_redis
from blink.server.redis_url import shown_redis_url
from serve_process import ServeProcess

pytestmark = pytest.mark.timeout(180)

TIMEOUT = 60.0
BLINK = (sys.executable, "-m", "blink")


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[LocalRedis]:
    """A Redis whose one user needs a password (as ``blink cluster run`` starts it)."""
    program = find_redis()
    assert program is not None, "install Debian's redis-server package (scripts/test does)"
    server = LocalRedis(program, tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _drain(proc: ServeProcess) -> list[str]:
    """Every stdout line of the process, once it has ended."""
    while proc._lines.get(timeout=TIMEOUT) is not None:
        pass
    return proc.printed


def _wait_for(proc: ServeProcess, text: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while text not in proc.stderr():
        assert proc.proc is not None and proc.proc.poll() is None, proc.stderr()
        assert time.monotonic() < deadline, proc.stderr()
        time.sleep(0.05)


def test_shown_redis_url() -> None:
    assert shown_redis_url("redis://blink:pw@h:6379/0") == "redis://blink:***@h:6379/0"
    assert shown_redis_url("redis://:pw@h:6379/0") == "redis://:***@h:6379/0"
    assert shown_redis_url("rediss://h/2?password=pw&db=1") == "rediss://h/2?password=***&db=1"
    assert shown_redis_url("unix://u:p@ss@/run/r.sock?db=1") == "unix://u:***@/run/r.sock?db=1"
    assert shown_redis_url("redis://h:6379/0") == "redis://h:6379/0"
    assert "pw" not in shown_redis_url("pw")


def test_serve_never_shows_the_redis_password(tmp_path: Path, redis_server: LocalRedis) -> None:
    password = redis_server.password
    shown = f"redis://blink:***@127.0.0.1:{redis_server.port}/0"
    proc = ServeProcess(
        tmp_path / "a.db",
        "--log-level",
        "debug",
        "--metrics-allow",
        "127.0.0.1",
        env={"BLINK_REDIS_URL": redis_server.url},
    )
    try:
        proc.start()
        metrics = proc.get("/metrics")
        assert metrics.status_code == 200
        assert password not in metrics.text
        redis_server.stop()  # the bus logs that Redis went, naming it
        _wait_for(proc, "lost Redis at")
        proc.terminate()
        assert proc.wait() == 0
        out = _drain(proc)
        err = proc.stderr()
    finally:
        proc.stop()
    assert f"Redis: {shown}\n" in out
    assert f"lost Redis at {shown}" in err
    for line in [*out, *err.splitlines()]:
        assert password not in line, line


def test_a_refused_password_is_not_shown(tmp_path: Path, redis_server: LocalRedis) -> None:
    wrong = secrets.token_urlsafe(16)
    url = f"redis://blink:{wrong}@127.0.0.1:{redis_server.port}/0"
    proc = ServeProcess(tmp_path / "b.db", "--log-level", "debug", "--redis-url", url)
    try:
        proc.start()
        _wait_for(proc, "lost Redis at")
        proc.terminate()
        proc.wait()
        out = _drain(proc)
        err = proc.stderr()
    finally:
        proc.stop()
    assert "redis://blink:***@127.0.0.1" in err
    for line in [*out, *err.splitlines()]:
        assert wrong not in line, line


@pytest.mark.parametrize(
    "url", ["http://blink:{pw}@h:6379/0", "redis://blink:{pw}@h:port/0", "{pw}"]
)
def test_a_bad_redis_url_is_refused_without_its_password(tmp_path: Path, url: str) -> None:
    pw = secrets.token_urlsafe(16)
    done = subprocess.run(
        [*BLINK, "serve", "--db", str(tmp_path / "c.db"), "--redis-url", url.format(pw=pw)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "COLUMNS": "300"},  # one line: a password is never cut in two
    )
    assert done.returncode == 2
    assert "is not a Redis URL" in done.stderr
    assert pw not in done.stdout + done.stderr


def test_help_never_shows_the_redis_url() -> None:
    pw = secrets.token_urlsafe(16)
    done = subprocess.run(
        [*BLINK, "serve", "--help"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "BLINK_REDIS_URL": f"redis://blink:{pw}@h:6379/0", "COLUMNS": "300"},
    )
    assert done.returncode == 0, done.stderr
    assert "--redis-url" in done.stdout
    assert pw not in done.stdout + done.stderr
