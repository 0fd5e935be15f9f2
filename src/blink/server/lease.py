"""Room leases: which node of a cluster serves a room.

Several ``blink serve --cluster`` nodes share one PostgreSQL database; each room is served by
one node at a time, the one that holds the room's *lease*. A lease is a PostgreSQL session
advisory lock (``pg_try_advisory_lock``) taken on a connection the node keeps for leases only,
so a lease dies with its node: when the process ends (even by ``kill -9``) its connection
closes and the server drops its locks, and the next node asked for the room takes it and
rebuilds the room from the stored log (:meth:`blink.server.hub.Hub.room`).

Two implementations of one interface (:class:`Leases`):

- :class:`LocalLeases`: a single node (SQLite, or PostgreSQL without ``--cluster``): every
  lease is held, nothing is asked of the database.
- :class:`PgLeases`: the PostgreSQL advisory locks of a cluster node.

A tournament has a lease too (:data:`TOURNAMENT_NAMESPACE`): the node that holds it organises
the tournament (:mod:`blink.server.tournaments`).

Each room's lease has an *epoch*, its fencing token (the ``room_leases`` table): a node that
takes the lease adds one to it in the same step, and remembers it (:meth:`PgLeases.fence`);
every write of the room carries that epoch and is committed only while it is still the stored
one (:class:`blink.server.jobs.Fenced`). A node whose lease went while it was cut off, and
which took writes meanwhile, can then never write them into the room: its transactions are
refused, and it drops the room (docs/cluster.md, "Fencing").

A tournament's lease has an epoch too (the ``tournament_leases`` table), taken the same way:
every store its organiser makes carries it (:mod:`blink.server.tournaments.fences`), so a node
that lost the lease while it organised can never store the tournament as its organiser again.

A room whose lease another node holds is :class:`RoomElsewhere`: the WebSocket closes with 1013
("try again"), REST answers ``503 room_elsewhere``, and the client retries (through the router,
which sends it to the node that holds it).
"""

from __future__ import annotations

import hashlib
import logging
import threading
from typing import Any, Protocol

__all__ = [
    "LEASE_NAMESPACE",
    "LOCK_TIMEOUT_MS",
    "TOURNAMENT_NAMESPACE",
    "Leases",
    "LocalLeases",
    "PgLeases",
    "RoomElsewhere",
    "lease_key",
]

log = logging.getLogger("blink.server")

LEASE_NAMESPACE = b"blink-room-lease:"
"""What a room code is hashed with into its advisory lock's key (so other users of advisory
locks on the same database do not collide with the rooms' keys)."""
TOURNAMENT_NAMESPACE = b"blink-tournament-lease:"
"""What a tournament's id is hashed with: the node holding that lease organises the tournament
(:mod:`blink.server.tournaments`)."""


LOCK_TIMEOUT_MS = 500
"""How long taking a lease waits for its epoch's row, in milliseconds: a write of the node
that held the lease before keeps the row locked until it commits (a moment), or until the
database ends that node's session when it was cut off in the middle of one. Past this the
lease is given back and the room is elsewhere for now (the client tries again)."""

_BUMP = (
    "INSERT INTO room_leases (code, epoch) VALUES (:c, 1) "
    "ON CONFLICT (code) DO UPDATE SET epoch = room_leases.epoch + 1 RETURNING epoch"
)
_BUMPS = {
    LEASE_NAMESPACE: _BUMP,
    TOURNAMENT_NAMESPACE: (
        "INSERT INTO tournament_leases (id, epoch) VALUES (:c, 1) "
        "ON CONFLICT (id) DO UPDATE SET epoch = tournament_leases.epoch + 1 RETURNING epoch"
    ),
}
"""How taking a lease adds one to its epoch, by the lease's namespace (a room's, a
tournament's)."""
_LOCK_NOT_AVAILABLE = "55P03"


class RoomElsewhere(Exception):
    """The room's lease is held by another node: it is served there (try again)."""

    def __init__(self, code: str) -> None:
        super().__init__(f"room {code} is served by another node right now: try again")
        self.code = code


def lease_key(code: str, namespace: bytes = LEASE_NAMESPACE) -> int:
    """The advisory lock key of room ``code`` (or of another thing of ``namespace``): a signed
    64-bit integer from a hash of it."""
    digest = hashlib.blake2b(namespace + code.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class Leases(Protocol):
    """The leases of one node."""

    shared: bool
    """Whether other nodes serve rooms of the same database (a cluster node)."""

    def acquire(self, code: str, namespace: bytes = LEASE_NAMESPACE) -> bool:
        """Take the lease of room ``code`` (or of tournament ``code``, with
        :data:`TOURNAMENT_NAMESPACE`) (``True``: this node holds it now, or already did);
        ``False``: another live node holds it."""
        ...

    def release(self, code: str, namespace: bytes = LEASE_NAMESPACE) -> None:
        """Give up the lease of room ``code`` (nothing when not held)."""
        ...

    def alive(self) -> bool:
        """Whether the leases this node took are still held (``False``: its lease connection
        was lost, and with it every lease; it connects again for the next ones)."""
        ...

    def fence(self, code: str, namespace: bytes = LEASE_NAMESPACE) -> int | None:
        """The epoch room ``code``'s writes (or tournament ``code``'s organiser's, with
        :data:`TOURNAMENT_NAMESPACE`) are fenced with now: the one this node took the lease at
        (0, which is never stored, when it does not hold the lease); ``None`` when writes need
        no fence (a single node)."""
        ...

    def close(self) -> None:
        """Give up every lease (the node stops)."""
        ...


class LocalLeases:
    """A single node's leases: every room's is held (nothing is asked of the database)."""

    shared = False

    def acquire(self, code: str, namespace: bytes = LEASE_NAMESPACE) -> bool:
        """Always held."""
        return True

    def release(self, code: str, namespace: bytes = LEASE_NAMESPACE) -> None:
        """Nothing to give up."""

    def alive(self) -> bool:
        """Always held."""
        return True

    def fence(self, code: str, namespace: bytes = LEASE_NAMESPACE) -> int | None:
        """No fence: no other node writes."""
        return None

    def close(self) -> None:
        """Nothing to give up."""


class PgLeases:
    """A cluster node's leases: PostgreSQL session advisory locks on a connection of their own.

    ``url`` is the SQLAlchemy URL of the database (``postgresql+psycopg://...``). The
    connection is opened on the first lease; each call is one short round trip (from the event
    loop, like a room's primary-key read when it is brought back into memory).
    """

    shared = True

    def __init__(self, url: str) -> None:
        from sqlalchemy import create_engine
        from sqlalchemy.pool import NullPool

        from blink.server.pg_liveness import LEASE_STATEMENT_TIMEOUT_MS, libpq_options

        # Keepalives both ends: a node cut off loses its session, and its leases, in seconds
        # (blink.server.pg_liveness); a statement never holds the event loop for long.
        args = libpq_options(url, LEASE_STATEMENT_TIMEOUT_MS)
        self._engine = create_engine(url, poolclass=NullPool, connect_args=args)
        self._conn: Any = None
        self._held: set[tuple[bytes, str]] = set()
        self._epochs: dict[tuple[bytes, str], int] = {}
        """The lease epoch of each room and tournament held (:meth:`fence`)."""
        self._timed: Any = None
        """The lease connection its lock timeout was set on."""
        self._dropped = False
        """Leases were lost since :meth:`alive` last said so."""
        self._lock = threading.Lock()

    @property
    def held(self) -> frozenset[str]:
        """The codes of the rooms this node holds."""
        return frozenset(c for ns, c in self._held if ns == LEASE_NAMESPACE)

    @property
    def organised(self) -> frozenset[str]:
        """The ids of the tournaments this node organises."""
        return frozenset(c for ns, c in self._held if ns == TOURNAMENT_NAMESPACE)

    def _connection(self) -> Any:
        if self._conn is None:
            self._conn = self._engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        return self._conn

    def _scalar(self, sql: str, key: int) -> Any:
        from sqlalchemy import text

        try:
            return self._connection().execute(text(sql), {"k": key}).scalar()
        except Exception:
            self._lost()
            raise

    def _lost(self) -> None:
        """The lease connection failed: every lease went with it."""
        if self._held:
            log.warning("the lease connection was lost: %d leases with it", len(self._held))
            self._dropped = True
        self._held.clear()
        self._epochs.clear()
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.invalidate()
                conn.close()
            except Exception:
                log.debug("closing the lost lease connection failed", exc_info=True)

    def acquire(self, code: str, namespace: bytes = LEASE_NAMESPACE) -> bool:
        """``pg_try_advisory_lock`` on the key (never waits), then one more on the lease's
        epoch (:meth:`fence`)."""
        with self._lock:
            if (namespace, code) in self._held:
                return True
            key = lease_key(code, namespace)
            if not self._scalar("SELECT pg_try_advisory_lock(:k)", key):
                return False
            if namespace in _BUMPS:
                epoch = self._bump(code, key, namespace)
                if epoch is None:
                    return False
                self._epochs[namespace, code] = epoch
            self._held.add((namespace, code))
            return True

    def _bump(self, code: str, key: int, namespace: bytes = LEASE_NAMESPACE) -> int | None:
        """Add one to room (or tournament) ``code``'s lease epoch (just locked, key ``key``)
        and return it;
        ``None`` when its row stayed locked past :data:`LOCK_TIMEOUT_MS` (a write of the node
        that held the lease before is still open): the lock is given back."""
        from sqlalchemy import text

        try:
            conn = self._connection()
            if self._timed is not conn:
                conn.execute(text(f"SET lock_timeout = {LOCK_TIMEOUT_MS}"))
                self._timed = conn
            return int(conn.execute(text(_BUMPS[namespace]), {"c": code}).scalar_one())
        except Exception as exc:
            orig = getattr(exc, "orig", None)
            if getattr(orig, "sqlstate", None) != _LOCK_NOT_AVAILABLE:
                self._lost()
                raise
        what = "room" if namespace == LEASE_NAMESPACE else "tournament"
        log.warning("%s %s: a write of its last holder is still open: not taken now", what, code)
        self._scalar("SELECT pg_advisory_unlock(:k)", key)
        return None

    def fence(self, code: str, namespace: bytes = LEASE_NAMESPACE) -> int | None:
        """The epoch this node took room (or tournament) ``code``'s lease at (0 when it does
        not hold it)."""
        return self._epochs.get((namespace, code), 0)

    def release(self, code: str, namespace: bytes = LEASE_NAMESPACE) -> None:
        """``pg_advisory_unlock`` on the key."""
        with self._lock:
            if (namespace, code) not in self._held:
                return
            self._held.discard((namespace, code))
            self._epochs.pop((namespace, code), None)
            try:
                self._scalar("SELECT pg_advisory_unlock(:k)", lease_key(code, namespace))
            except Exception:
                log.warning("could not release the lease of %s", code, exc_info=True)

    def alive(self) -> bool:
        """One round trip on the lease connection (``False`` if it was lost, or is lost now)."""
        from sqlalchemy import text

        with self._lock:
            if self._conn is not None:
                try:
                    self._conn.execute(text("SELECT 1"))
                except Exception:
                    self._lost()
            dropped, self._dropped = self._dropped, False
            return not dropped

    def close(self) -> None:
        """Give up every lease, then close the lease connection. The unlock is said first: a
        closed connection's locks go only once the server has noticed it closed, which another
        node asking at once could beat."""
        from sqlalchemy import text

        with self._lock:
            self._held.clear()
            self._epochs.clear()
            if self._conn is not None:
                try:
                    self._conn.execute(text("SELECT pg_advisory_unlock_all()"))
                except Exception:
                    log.debug("giving up the leases failed", exc_info=True)
                try:
                    self._conn.close()
                except Exception:
                    log.debug("closing the lease connection failed", exc_info=True)
                self._conn = None
            self._engine.dispose()
