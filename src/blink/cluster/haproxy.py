"""The HAProxy configuration of a cluster: each room's traffic to one node, by its code.

A room's requests carry its code in the path: its WebSocket (``/ws/CODE``), its REST routes
(``/api/rooms/CODE``, ``/api/rooms/CODE/join``, ``/api/rooms/CODE/record``) and its links
(``/play/CODE``, ``/watch/CODE``). HAProxy takes the code from the path into a variable and
hashes it with consistent hashing (``balance hash var(txn.room)``, ``hash-type consistent``,
HAProxy 2.6 and later), so every request of a room reaches the same node while the set of live
nodes stays the same, and only the rooms of a node that goes down move when it does. Every
other request (the lobby, the client's files, room creation, finished games) goes to any live
node, in turn, except quick play's queue (``/api/queue``), whose connections all go to the node
the constant ``QUEUE`` hashes to, so that every waiting player can be paired, and the
challenges to bot accounts (``/api/challenges`` and below), kept in memory, on the node the
constant ``CHALLENGES`` hashes to. Health checks ask
each node for ``/api/health`` (503 while its database cannot be written); WebSockets get a long
``timeout tunnel``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from blink.server.settings import Settings

__all__ = [
    "CHALLENGES",
    "LOBBY_STREAM",
    "METRICS_ERROR",
    "PATH_ERROR",
    "PINNED_HEADER",
    "SECRET_HEADER",
    "HaproxyConfig",
    "NodeAddressError",
    "parse_node",
    "render",
    "secret_problem",
]

_NODE = re.compile(r"^(?P<host>[A-Za-z0-9.\-]+|\[[0-9A-Fa-f:.]+\]):(?P<port>\d{1,5})$")


class NodeAddressError(ValueError):
    """A node address that is not ``HOST:PORT``."""


def parse_node(text: str) -> str:
    """``HOST:PORT`` of a node, checked (:class:`NodeAddressError` otherwise)."""
    m = _NODE.match(text.strip())
    if m is None or not 0 < int(m["port"]) < 65536:
        raise NodeAddressError(f"{text!r} is not a node address HOST:PORT (127.0.0.1:8001)")
    return f"{m['host']}:{int(m['port'])}"


@dataclass(frozen=True, slots=True)
class HaproxyConfig:
    """What the configuration says: where HAProxy listens, the nodes, the health checks."""

    nodes: tuple[str, ...]
    """The nodes' ``HOST:PORT``, each a ``blink serve --cluster``."""
    bind: str = "127.0.0.1:8000"
    """Where HAProxy listens (``HOST:PORT``; ``*:80`` for every interface)."""
    check_interval_ms: int = 2000
    """How often each node's ``/api/health`` is asked."""
    fall: int = 2
    """Failed checks in a row that mark a node down (its rooms move to the others)."""
    rise: int = 2
    """Passed checks in a row that mark a node up again."""
    check_timeout_ms: int = 3000
    """How long a health check may wait for the node's answer (HAProxy's ``timeout check``;
    without it a check gets ``check_interval_ms`` in all, and a node answering a little slowly
    on a busy machine is marked down). Above ``Settings.health_db_timeout`` (2 s), so a node
    whose database is slow says so itself (503) rather than being cut off."""
    health_host: str = "localhost"
    """The ``Host`` header of the health checks (a name the nodes answer to)."""
    tunnel_timeout: str = "1h"
    """How long a WebSocket may stay quiet (the clients ping every 2 s)."""
    max_connections: int | None = None
    """HAProxy's ``maxconn`` (each connection takes two file descriptors; ``None``: what the
    open-files limit allows)."""
    max_sockets_per_address: int | None = Settings.max_sockets_per_address
    """Open TCP connections of every kind one client address may hold through the router,
    counted by HAProxy for the whole cluster (a stick table of each address's current
    connections); the next is closed before anything is read. The nodes' own cap
    (``blink serve --max-sockets-per-address``) sees only the router's address behind it and
    spares it. ``None`` (or 0): no cap."""
    proxy_secret: str | None = None
    """The secret HAProxy sets on every request it passes (:data:`SECRET_HEADER`), by which
    the nodes (``blink serve --proxy-secret``) tell its requests from anyone else's; ``None``:
    none (the nodes then trust the router's address alone). The file then holds it: keep it
    readable by HAProxy's user only."""


LOBBY_STREAM = "/api/rooms/events"
CHALLENGES = "/api/challenges"
"""The challenges' routes (and their event stream): every one on the node the constant
``CHALLENGES`` hashes to, as the challenges are kept in one node's memory."""
"""The lobby's event stream: under ``/api/rooms/`` but no room's, so spread like any request."""
PINNED_HEADER = "X-Blink-Room"
"""The header in which HAProxy names the room it pinned a request to (the room of its path,
from which its node was chosen); a node believes it only from a trusted proxy
(:mod:`blink.server.forwarded`)."""
SECRET_HEADER = "X-Blink-Proxy"
"""The header in which HAProxy gives the nodes the secret they share with it
(:mod:`blink.server.forwarded`): set on every request, over any value a client sent."""
_SECRET = re.compile(r"^[A-Za-z0-9._~-]{16,256}$")
_FORWARDED = ("X-Forwarded-For", "X-Forwarded-Proto")
_CODE = "[A-Za-z0-9]{1,16}"
_METRICS = r"path,url_dec -m reg -i ^/+metrics([/;].*)?$"
PATH_ERROR = (
    "bad_room_path",
    "the path of a room is /ws/CODE, /play/CODE, /watch/CODE or /api/rooms/CODE, in plain "
    "letters and digits",
)
"""The answer (400) to a room's path in another form."""
METRICS_ERROR = ("not_found", "the metrics are read on the address of each node")
"""The answer (404) to ``/metrics`` through HAProxy."""


def _json(error: tuple[str, str]) -> str:
    """HAProxy's ``content-type ... string ...`` of an error body (one quoted word: the
    messages hold no quote)."""
    code, message = error
    body = '{"error":{"code":"%s","message":"%s"}}' % (code, message)  # noqa: UP031
    return f"content-type application/json string '{body}'"


def secret_problem(secret: str) -> str | None:
    """Why ``secret`` cannot be the router's secret (``None``: it can). The sentence never
    shows the secret."""
    if _SECRET.match(secret) is None:
        return (
            "the router's secret must be 16 to 256 letters, digits or ._~- (draw one with "
            "python3 -c 'import secrets; print(secrets.token_urlsafe(32))')"
        )
    return None


def _secret_lines(cfg: HaproxyConfig) -> list[str]:
    if cfg.proxy_secret is None:
        return [f"    http-request del-header {SECRET_HEADER}"]
    problem = secret_problem(cfg.proxy_secret)
    if problem is not None:
        raise NodeAddressError(problem)
    return [
        "    # The secret the nodes know HAProxy by (--proxy-secret), over any a client sent.",
        f"    http-request set-header {SECRET_HEADER} {cfg.proxy_secret}",
    ]


def _socket_cap_lines(cfg: HaproxyConfig) -> list[str]:
    cap = cfg.max_sockets_per_address
    if cap is None or cap <= 0:
        return []
    return [
        "    # Each client address's open connections, counted here for the whole cluster (a",
        "    # node sees only this router's address): past the cap, closed before any byte is",
        "    # read.",
        "    stick-table type ipv6 size 1m expire 60s store conn_cur",
        "    tcp-request connection track-sc0 src",
        f"    tcp-request connection reject if {{ sc0_conn_cur gt {cap} }}",
    ]


def _server_lines(cfg: HaproxyConfig, track: bool) -> list[str]:
    lines = []
    for i, node in enumerate(cfg.nodes, 1):
        extra = f" track rooms/node{i}" if track else " check"
        lines.append(f"    server node{i} {node}{extra}")
    return lines


def render(cfg: HaproxyConfig) -> str:
    """The configuration file's text."""
    if not cfg.nodes:
        raise NodeAddressError("a cluster needs at least one node")
    checks = (
        f"    default-server inter {cfg.check_interval_ms}ms fastinter "
        f"{cfg.check_interval_ms}ms downinter {cfg.check_interval_ms}ms "
        f"fall {cfg.fall} rise {cfg.rise}"
    )
    lines = [
        "# Written by `blink cluster haproxy-config` (docs/cluster.md).",
        "global",
        *([f"    maxconn {cfg.max_connections}"] if cfg.max_connections else []),
        "    # no log: the nodes log",
        "",
        "defaults",
        "    mode http",
        "    option forwardfor",
        "    option redispatch",
        "    retries 3",
        "    timeout connect 5s",
        "    timeout client 60s",
        "    timeout server 60s",
        "    timeout http-request 10s",
        "    timeout http-keep-alive 10s",
        f"    timeout tunnel {cfg.tunnel_timeout}",
        f"    timeout check {cfg.check_timeout_ms}ms",
        "",
        "frontend blink",
        f"    bind {cfg.bind}",
        *_socket_cap_lines(cfg),
        "    # The nodes believe these headers from HAProxy only: a client's own never pass.",
        "    # X-Forwarded-For is then HAProxy's alone: the address the client connected from.",
        *(f"    http-request del-header {h}" for h in (*_FORWARDED, PINNED_HEADER)),
        *_secret_lines(cfg),
        "    # The metrics are each node's own, read on its own address.",
        f"    http-request return status 404 {_json(METRICS_ERROR)} if {{ {_METRICS} }}",
        "    # A room's own requests carry its code: /ws/CODE, /play/CODE, /watch/CODE,",
        "    # /api/rooms/CODE and below. The code (in capitals) picks the node. A room's path",
        "    # in any other form (percent-encoded, more after the code) is refused: it would",
        "    # reach any node, not the room's.",
        "    acl room_scope path_reg ^/(ws|play|watch|api/rooms)/",
        f"    acl room_link path_reg ^/(ws|play|watch)/{_CODE}/?$",
        f"    acl room_api path_reg ^/api/rooms/{_CODE}(/[A-Za-z0-9_-]+)*/?$",
        "    # The lobby's event stream is no room's: any node serves it.",
        f"    acl lobby path {LOBBY_STREAM}",
        f"    http-request return status 400 {_json(PATH_ERROR)} "
        "if room_scope !room_link !room_api",
        "    http-request set-var(txn.room) path,field(3,/),upper if room_link",
        "    http-request set-var(txn.room) path,field(4,/),upper if room_api !lobby",
        "    # Quick play's queue: every waiting player on one node, so that all can be paired.",
        "    http-request set-var(txn.room) str(QUEUE) if { path /api/queue }",
        "    # Challenges to bot accounts live in one node's memory: all of them on one node.",
        f"    http-request set-var(txn.room) str(CHALLENGES) if {{ path_beg {CHALLENGES} }}",
        "    # The room the request is pinned to, for the node (it asks for the room on it).",
        f"    http-request set-header {PINNED_HEADER} %[var(txn.room)] "
        "if { var(txn.room) -m found }",
        "    use_backend rooms if { var(txn.room) -m found }",
        "    default_backend any",
        "",
        "backend rooms",
        "    balance hash var(txn.room)",
        "    hash-type consistent",
        "    option httpchk",
        f"    http-check send meth GET uri /api/health ver HTTP/1.1 hdr Host {cfg.health_host}",
        "    http-check expect status 200",
        checks,
        *_server_lines(cfg, track=False),
        "",
        "backend any",
        "    balance roundrobin",
        *_server_lines(cfg, track=True),
        "",
    ]
    return "\n".join(lines)
