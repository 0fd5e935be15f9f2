"""Which node HAProxy's generated configuration sends a request to, tried on a real HAProxy in
front of two small HTTP servers that answer with their own name: a room's requests always
reach one node (its code picks it), requests of no room (the lobby's event stream included,
though its path is under ``/api/rooms/``) are spread over the nodes."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from srvkit import free_port

from blink.cluster.haproxy import CHALLENGES, LOBBY_STREAM, HaproxyConfig, render
from blink.cluster.local import find_haproxy

TIMEOUT = 60.0
TRIES = 8


def named_server(name: str, health_delay: float = 0.0) -> ThreadingHTTPServer:
    """An HTTP server on a free loopback port answering every GET with ``name`` (its health
    checks ``health_delay`` seconds late)."""

    class Answer(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # the standard library's name
            if self.path == "/api/health":
                time.sleep(health_delay)
            body = name.encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        def handle_error(self, request: object, client_address: object) -> None:
            pass  # HAProxy's health checks close before reading the whole answer

    server = Server(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture(scope="module")
def router(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """HAProxy with the generated configuration in front of the nodes ``a`` and ``b``."""
    yield from run_router(
        tmp_path_factory,
        [named_server("a"), named_server("b")],
        check_interval_ms=1000,
        fall=1000,  # no node is marked down during the test, however slow the machine is
        rise=1,
    )


def run_router(
    tmp_path_factory: pytest.TempPathFactory, nodes: list[ThreadingHTTPServer], **checks: int
) -> Iterator[str]:
    """HAProxy in front of ``nodes`` with the generated configuration and ``checks``; its URL
    once both nodes serve requests."""
    program = find_haproxy()
    assert program is not None, "install Debian's haproxy package (scripts/test does)"
    port = free_port()
    cfg = HaproxyConfig(
        nodes=tuple(f"127.0.0.1:{n.server_address[1]}" for n in nodes),
        bind=f"127.0.0.1:{port}",
        **checks,
    )
    path = tmp_path_factory.mktemp("router") / "haproxy.cfg"
    path.write_text(render(cfg) + "\n")
    proc = subprocess.Popen([program, "-db", "-f", str(path)], stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + TIMEOUT
        while served(url, "/api/rooms") == set():
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "HAProxy did not start"
            time.sleep(0.05)
        # Both nodes up (each checked healthy twice in a row): round robin reaches both.
        while served(url, "/api/rooms") != {"a", "b"}:
            assert time.monotonic() < deadline, "the nodes did not come up"
            time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=TIMEOUT)
        for n in nodes:
            n.shutdown()


def served(url: str, path: str) -> set[str]:
    """The nodes that answered ``TRIES`` requests for ``path`` (each on a new connection)."""
    names = set()
    for _ in range(TRIES):
        try:
            r = httpx.get(url + path, timeout=TIMEOUT)
        except httpx.TransportError:
            continue
        if r.status_code == 200:
            names.add(r.text)
    return names


def test_a_rooms_requests_reach_one_node(router: str) -> None:
    for code in ("ABCDEF", "XYZ234", "events2"):
        assert len(served(router, f"/api/rooms/{code}")) == 1, code
        assert served(router, f"/api/rooms/{code}") == served(router, f"/ws/{code}"), code


def test_the_lobbys_event_stream_is_spread_like_any_request(router: str) -> None:
    assert served(router, LOBBY_STREAM) == {"a", "b"}
    assert served(router, "/api/leaderboard/events") == {"a", "b"}


def test_every_challenge_request_reaches_one_node(router: str) -> None:
    """Challenges live in one node's memory: a bot that sends one and the bot that answers
    it, through any connection, reach the same node."""
    nodes = set().union(
        *(
            served(router, path)
            for path in (CHALLENGES, f"{CHALLENGES}/events", f"{CHALLENGES}/x1/accept")
        )
    )
    assert len(nodes) == 1


def test_a_node_answering_its_health_checks_slowly_stays_up(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Checks every 100 ms, a node down after one failed check (the cluster tests' settings):
    a node whose health answer takes 300 ms (a busy machine, a database taking its time) is
    still up, as the check waits ``timeout check`` for it, not the 100 ms between checks."""
    nodes = [named_server("a", health_delay=0.3), named_server("b", health_delay=0.3)]
    router = run_router(tmp_path_factory, nodes, check_interval_ms=100, fall=1, rise=1)
    url = next(router)
    try:
        for _ in range(10):  # about 3 s: thirty checks of each node
            assert served(url, "/api/rooms") == {"a", "b"}
    finally:
        router.close()
