"""How a node and PostgreSQL notice that the other side vanished: TCP keepalives and timeouts
on every connection, both ends, in one place.

A node cut off from the network without closing its connections (a machine that froze, a
cable, a firewall that drops) leaves its sessions open on the server: its room leases are
session advisory locks (:mod:`blink.server.lease`), so until the server drops those sessions
no other node can take the node's rooms. By default an idle TCP connection is probed after two
hours. Here both ends probe an idle connection after :data:`KEEPALIVES_IDLE` seconds, then
every :data:`KEEPALIVES_INTERVAL` seconds, and give up after :data:`KEEPALIVES_COUNT`
unanswered probes; data sent and not acknowledged for :data:`TCP_USER_TIMEOUT_MS` fails the
connection too. So a vanished node's sessions end, and its leases with them, within about
:data:`DETECTED_WITHIN` seconds (docs/cluster.md: its rooms move within 15 s).

- The client side (:func:`libpq_options`): the libpq parameters of every connection a node
  opens (the leases', the storage engine's, the ``async`` writer's, the health probe's). A
  parameter the database URL sets in its query (``?keepalives_idle=10``) is left as it says.
- The server side (:data:`SERVER_SETTINGS`): what ``blink cluster run`` and the tests'
  PostgreSQL are started with; an operator sets the same in ``postgresql.conf``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import make_url

__all__ = [
    "CONNECT_TIMEOUT",
    "DETECTED_WITHIN",
    "KEEPALIVES_COUNT",
    "KEEPALIVES_IDLE",
    "KEEPALIVES_INTERVAL",
    "LEASE_STATEMENT_TIMEOUT_MS",
    "SERVER_SETTINGS",
    "TCP_USER_TIMEOUT_MS",
    "libpq_options",
    "server_flags",
]

KEEPALIVES_IDLE = 2
"""Seconds a connection may stay quiet before the first keepalive probe."""
KEEPALIVES_INTERVAL = 1
"""Seconds between two unanswered probes."""
KEEPALIVES_COUNT = 3
"""Unanswered probes after which the connection is dead."""
TCP_USER_TIMEOUT_MS = 5000
"""Milliseconds sent data may stay unacknowledged before the connection is dead (probes do
not run while data waits for its acknowledgement, so this is the bound then)."""
CONNECT_TIMEOUT = 5
"""Seconds a node waits for a new connection to the database."""
LEASE_STATEMENT_TIMEOUT_MS = 5000
"""The longest statement (and lock wait) of the lease connection, whose calls are made from
the event loop: none should ever wait (``pg_try_advisory_lock`` never does)."""
DETECTED_WITHIN = max(
    KEEPALIVES_IDLE + KEEPALIVES_INTERVAL * KEEPALIVES_COUNT, TCP_USER_TIMEOUT_MS / 1000
)
"""About how long either end takes to find the other gone (seconds)."""

SERVER_SETTINGS: dict[str, str] = {
    "tcp_keepalives_idle": str(KEEPALIVES_IDLE),
    "tcp_keepalives_interval": str(KEEPALIVES_INTERVAL),
    "tcp_keepalives_count": str(KEEPALIVES_COUNT),
    "tcp_user_timeout": str(TCP_USER_TIMEOUT_MS),
}
"""PostgreSQL's own settings for the same (the server drops a vanished client's session, and
its advisory locks, within :data:`DETECTED_WITHIN` seconds)."""


def server_flags() -> list[str]:
    """:data:`SERVER_SETTINGS` as ``postgres`` command-line flags (``-c name=value`` ...)."""
    return [arg for k, v in SERVER_SETTINGS.items() for arg in ("-c", f"{k}={v}")]


def libpq_options(url: str, statement_timeout_ms: int | None = None) -> dict[str, Any]:
    """The libpq parameters for a connection to ``url`` (for psycopg's ``connect``, or
    SQLAlchemy's ``connect_args``): keepalives, the user timeout and the connect timeout, less
    any the URL's query sets itself. ``statement_timeout_ms``: also bound every statement and
    lock wait of the connection (the ``options`` parameter), unless the URL sets ``options``."""
    options: dict[str, Any] = {
        "keepalives": 1,
        "keepalives_idle": KEEPALIVES_IDLE,
        "keepalives_interval": KEEPALIVES_INTERVAL,
        "keepalives_count": KEEPALIVES_COUNT,
        "tcp_user_timeout": TCP_USER_TIMEOUT_MS,
        "connect_timeout": CONNECT_TIMEOUT,
    }
    if statement_timeout_ms is not None:
        ms = int(statement_timeout_ms)
        options["options"] = f"-c statement_timeout={ms} -c lock_timeout={ms}"
    given = make_url(url).query
    return {k: v for k, v in options.items() if k not in given}
