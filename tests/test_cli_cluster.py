"""``blink cluster``: the HAProxy configuration it writes (checked by HAProxy itself), its
errors (one sentence, exit status 2), and ``blink cluster run`` for real: it prints the address,
the router answers, and everything it started stops with it, on SIGTERM and on SIGKILL. Its
Redis and its PostgreSQL refuse whoever lacks their passwords, which are in files of mode 0600
and the nodes' environment, never printed, logged or on a command line."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psycopg
import pytest
from typer.testing import CliRunner

from blink.cli import app
from blink.cluster import local
from blink.cluster.local import find_haproxy

pytestmark = pytest.mark.timeout(300)

TIMEOUT = 60.0


def blink(*args: str) -> subprocess.CompletedProcess[str]:
    """``blink ARGS`` to its end."""
    return subprocess.run(
        [sys.executable, "-m", "blink", *args], capture_output=True, text=True, timeout=120
    )


def test_the_haproxy_configuration_is_valid(tmp_path: Path) -> None:
    done = blink("cluster", "haproxy-config", "--node", "127.0.0.1:8001", "--node", "10.0.0.2:8000")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    for line in (
        "balance hash var(txn.room)",
        "hash-type consistent",
        "balance roundrobin",
        "timeout tunnel 1h",
        "timeout check 3000ms",
        "server node1 127.0.0.1:8001 check",
        "server node2 10.0.0.2:8000 check",
        "server node2 10.0.0.2:8000 track rooms/node2",
        "http-check send meth GET uri /api/health ver HTTP/1.1 hdr Host localhost",
        "bind 127.0.0.1:8000",
        # Each client address's open connections, capped for every node (a node's default).
        "tcp-request connection reject if { sc0_conn_cur gt 512 }",
    ):
        assert line in text, line
    uncapped = blink(
        "cluster", "haproxy-config", "--node", "127.0.0.1:8001", "--max-sockets-per-address", "0"
    )
    assert uncapped.returncode == 0 and "sc0_conn_cur" not in uncapped.stdout
    wrong = blink(
        "cluster", "haproxy-config", "--node", "127.0.0.1:8001", "--max-sockets-per-address", "-1"
    )
    assert wrong.returncode == 2 and "--max-sockets-per-address" in wrong.stderr
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(text)
    haproxy = find_haproxy()
    assert haproxy is not None, "install Debian's haproxy package (scripts/test does)"
    check = subprocess.run([haproxy, "-c", "-f", str(cfg)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def test_the_router_secret_in_the_haproxy_configuration(tmp_path: Path) -> None:
    secret = "s3cret-of-the-router_0123456789"
    done = subprocess.run(
        [sys.executable, "-m", "blink", "cluster", "haproxy-config", "--node", "127.0.0.1:8001"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "BLINK_PROXY_SECRET": secret},
    )
    assert done.returncode == 0, done.stderr
    assert f"    http-request set-header X-Blink-Proxy {secret}\n" in done.stdout
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(done.stdout)
    haproxy = find_haproxy()
    assert haproxy is not None
    check = subprocess.run([haproxy, "-c", "-f", str(cfg)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    # Without a secret, a client's X-Blink-Proxy is removed like the other headers.
    plain = blink("cluster", "haproxy-config", "--node", "127.0.0.1:8001").stdout
    assert "http-request del-header X-Blink-Proxy" in plain and secret not in plain
    # A secret that is not one: refused, without being shown.
    bad = blink("cluster", "haproxy-config", "--node", "127.0.0.1:8001", "--proxy-secret", "a b")
    assert bad.returncode == 2 and "a b" not in bad.stderr
    assert bad.stderr.startswith("blink cluster: --proxy-secret: the router's secret must be")


def test_serve_keeps_the_router_secret_to_itself(tmp_path: Path) -> None:
    secret = "s3cret-of-the-router_0123456789"
    env = {**os.environ, "BLINK_PROXY_SECRET": secret}
    run = [sys.executable, "-m", "blink", "serve"]
    helped = subprocess.run([*run, "--help"], capture_output=True, text=True, env=env)
    assert helped.returncode == 0 and "--proxy-secret" in helped.stdout
    assert secret not in helped.stdout + helped.stderr
    # Asked of forwarded headers that are not believed: refused (exit 2), never shown.
    alone = subprocess.run(
        [*run, "--db", str(tmp_path / "a.db"), "--port", "0"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert alone.returncode == 2 and "add --proxy-headers" in alone.stderr
    assert secret not in alone.stdout + alone.stderr


def test_a_bad_node_address() -> None:
    done = blink("cluster", "haproxy-config", "--node", "nowhere")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "blink cluster: 'nowhere' is not a node address HOST:PORT (127.0.0.1:8001)"
    ]


def test_serve_cluster_needs_postgresql(tmp_path: Path) -> None:
    done = blink("serve", "--cluster", "--db", str(tmp_path / "x.db"), "--port", "0")
    assert done.returncode == 2
    assert "--cluster needs the PostgreSQL database" in done.stderr
    assert "Traceback" not in done.stderr and "Open " not in done.stdout


@pytest.mark.parametrize(
    ("missing", "package"),
    [("find_haproxy", "haproxy"), ("find_postgres", "postgresql"), ("find_redis", "redis-server")],
)
def test_run_names_the_missing_package(
    monkeypatch: pytest.MonkeyPatch, missing: str, package: str
) -> None:
    monkeypatch.setattr(local, missing, lambda: None)
    result = CliRunner().invoke(app, ["cluster", "run", "--nodes", "1", "--port", "0"])
    assert result.exit_code == 2
    assert f"install Debian's {package} package" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def _start_run(printed: list[str]) -> tuple[subprocess.Popen[str], str, list[str], Path]:
    """``blink cluster run --nodes 2 --port 0``; its process, router and nodes' URLs, and its
    folder (the lines it printed until then go in ``printed``)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "blink", "cluster", "run", "--nodes", "2", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    nodes = []
    folder = Path()
    deadline = time.monotonic() + 3 * TIMEOUT  # PostgreSQL, Redis, two nodes and HAProxy
    try:
        while True:
            line = proc.stdout.readline()
            assert line, f"blink cluster run stopped ({proc.wait()})"
            printed.append(line)
            if line.startswith("Node: "):
                nodes.append(line.split()[1])
                folder = Path(line.split("(log ")[1].rstrip(")\n")).parent
            if line.startswith("Open "):
                return proc, line.split()[1].rstrip("/"), nodes, folder
            assert time.monotonic() < deadline
    except BaseException:
        proc.terminate()  # everything it started stops with it
        proc.wait(timeout=TIMEOUT)
        proc.stdout.close()
        raise


def _answers(url: str) -> bool:
    try:
        httpx.get(url + "/api/health", timeout=2)
    except httpx.HTTPError:
        return False
    return True


def _all_gone(urls: list[str]) -> None:
    deadline = time.monotonic() + TIMEOUT
    while any(_answers(u) for u in urls):
        assert time.monotonic() < deadline, [u for u in urls if _answers(u)]
        time.sleep(0.05)


def _the_redis_password_is_not_shown(printed: list[str], folder: Path) -> None:
    """The lines ``blink cluster run`` printed, and its nodes' logs, name Redis's URL without
    its password (which only Redis's own file, mode 0600, holds)."""
    conf = (folder / "redis" / "redis.conf").read_text()
    password = next(w[1:] for w in conf.split() if w.startswith(">"))
    assert [line for line in printed if line.startswith("Redis: redis://blink:***@127.0.0.1:")]
    logs = [p.read_text(errors="replace") for p in folder.glob("node-*.log")]
    assert logs
    for line in [*printed, *(x for text in logs for x in text.splitlines())]:
        assert password not in line, line


def _the_router_secret_is_private(printed: list[str], folder: Path) -> None:
    """``blink cluster run`` names the file of the router's secret (mode 0600), never the
    secret; HAProxy's configuration (mode 0600 too) sets it, and no node logs it."""
    line = next(x for x in printed if x.startswith("Router secret: "))
    assert line.startswith("Router secret: *** (in "), line
    file = Path(line.split("(in ")[1].rstrip(")\n"))
    assert file == folder / "router-secret" and file.stat().st_mode & 0o777 == 0o600
    secret = file.read_text().strip()
    assert len(secret) >= 32
    cfg = folder / "haproxy.cfg"
    assert cfg.stat().st_mode & 0o777 == 0o600
    assert f"http-request set-header X-Blink-Proxy {secret}" in cfg.read_text()
    logs = [p.read_text(errors="replace") for p in folder.glob("node-*.log")]
    for text in [*printed, *logs]:
        assert secret not in text


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # it ended meanwhile
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _postgres_needs_its_password(printed: list[str], run: int, router: str) -> None:
    """The cluster's PostgreSQL refuses a connection without its password (or with a wrong
    one); the password is in a file of mode 0600 only, not printed, not in the nodes' logs nor
    on their command lines (their database URL is in their environment); and the cluster plays
    on it (a room made and joined through the router)."""
    line = next(x for x in printed if x.startswith("PostgreSQL: "))
    shown, file = line.split()[1], Path(line.split("(password in ")[1].rstrip(")\n"))
    assert shown.startswith("postgresql+psycopg://postgres:***@127.0.0.1:"), shown
    assert file.stat().st_mode & 0o777 == 0o600
    password = file.read_text().strip()
    assert len(password) >= 24
    port = int(shown.rsplit(":", 1)[1].split("/")[0])
    where = {"host": "127.0.0.1", "port": port, "user": "postgres", "dbname": "blink"}
    for given in ({}, {"password": "not-the-password"}):
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(**where, **given, connect_timeout=10).close()
    with psycopg.connect(**where, password=password, connect_timeout=10) as conn:
        assert conn.execute("SELECT count(*) FROM rooms").fetchone() is not None
    logs = [p.read_text(errors="replace") for p in file.parent.parent.glob("node-*.log")]
    assert logs
    for text in [*printed, *logs]:
        assert password not in text
    nodes = [c for c in _children(run) if b"\0serve\0" in Path(f"/proc/{c}/cmdline").read_bytes()]
    assert len(nodes) == 2
    for pid in nodes:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        assert password.encode() not in cmdline and b"--database-url" not in cmdline
        assert b"--proxy-secret" not in cmdline
    made = httpx.post(router + "/api/rooms", json={"name": "Ann"}, timeout=TIMEOUT)
    assert made.status_code == 201, made.text
    code = made.json()["code"]
    joined = httpx.post(f"{router}/api/rooms/{code}/join", json={"name": "Bob"}, timeout=TIMEOUT)
    assert joined.status_code == 200, joined.text


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_run_starts_a_cluster_and_stops_it_all(sig: int) -> None:
    printed: list[str] = []
    proc, router, nodes, folder = _start_run(printed)
    try:
        assert len(nodes) == 2
        _the_redis_password_is_not_shown(printed, folder)
        _the_router_secret_is_private(printed, folder)
        _postgres_needs_its_password(printed, proc.pid, router)
        health = httpx.get(router + "/api/health", timeout=TIMEOUT).json()
        assert health["status"] == "ok" and health["database"] == "postgresql"
        for n in nodes:
            assert httpx.get(n + "/api/health", timeout=TIMEOUT).status_code == 200
        os.kill(proc.pid, sig)
        proc.wait(timeout=TIMEOUT)
        if sig == signal.SIGTERM:
            assert proc.returncode == 0
        _all_gone([router, *nodes])  # every child died with it (kill -9 too)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        if sig == signal.SIGKILL:  # nothing removed the folder
            shutil.rmtree(folder, ignore_errors=True)
        assert not folder.exists()
