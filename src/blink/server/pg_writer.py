"""The ``async`` writer (``--db-writer async``, PostgreSQL's default through ``auto``):
PostgreSQL commits on the event loop, through psycopg's asynchronous connection, with no
writer thread.

With a writer thread, each round trip of a commit ends with the thread waiting for the
interpreter lock, which a busy event loop hands over only at each switch interval (5 ms).
Here the loop itself sends the batch and goes on serving while the database answers: every
statement of the batch goes out in one pipeline, the action log's rows in one ``executemany``,
and the pipeline's one Sync ends it. The connection is in autocommit mode, so no ``BEGIN`` or
``COMMIT`` is sent: PostgreSQL runs the statements before a Sync as one implicit transaction,
committed at the Sync if every one succeeded and rolled back whole otherwise (the protocol's
"Pipelining" section). A batch is one round trip and its own statements only; with a
``BEGIN`` and a separate ``COMMIT`` it was two round trips and two more statements, which
cost most where batches are small: a cluster's nodes each see a share of the plays
(docs/performance.md, "Cluster: CPU, bus and database per play"). On a machine shared with much
other work that measured slower than the thread; on a quiet one, at 1,000 games, its p99 was
a third to a half of the thread's (docs/performance.md).

A batch of plays alone (only :class:`~blink.server.jobs.AppendJob`, fenced or not: nearly
every batch while games are played) is cheaper still: one prepared statement that inserts its
rows from one array a column, behind the fence's one row (:data:`FENCED_APPEND_SQL`), with no
pipeline. psycopg's pipeline sends and polls each statement in Python; at a cluster node's
share of the plays, where a batch is one or two plays, that was about two fifths of the
node's own time (docs/performance.md, "The writer: a batch of plays is one statement"). Only
batches of
:class:`~blink.server.jobs.AppendJob` and :class:`~blink.server.jobs.SqlJob` (the jobs of a
game being played) are sent this way; a batch with any other job (a room created, a rating,
a tournament) is committed by the synchronous path in a worker thread, and batches are
committed one after the other, in order, either way.

A batch with writes of a cluster's rooms (:class:`~blink.server.jobs.Fenced`) calls
``blink_fence`` first, in the same pipeline and transaction: when a room's lease moved it
raises (SQLSTATE :data:`~blink.server.jobs.FENCED_SQLSTATE`), nothing of the batch is
committed, and the synchronous path commits the batch again, without the refused writes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, cast

from sqlalchemy import Dialect
from sqlalchemy.engine import make_url

from blink.server.jobs import AppendJob, Fenced, SqlJob, unfenced
from blink.server.pg_liveness import libpq_options

__all__ = ["APPEND_SQL", "FENCED_APPEND_SQL", "AsyncPgWriter", "sendable", "statements"]

_ROWS = (
    "unnest(%s::integer[], %s::integer[], %s::text[], %s::integer[], %s::text[])"
    " AS r(game_id, seq, action, seat, client_id)"
)
APPEND_SQL = f"INSERT INTO actions (game_id, seq, action, seat, client_id) SELECT r.* FROM {_ROWS}"
"""A batch of appended actions in one statement: each column's values as one array."""
FENCED_APPEND_SQL = (
    "WITH fence AS MATERIALIZED (SELECT blink_fence(%s::text[], %s::bigint[])) "
    f"INSERT INTO actions (game_id, seq, action, seat, client_id) SELECT r.* FROM fence, {_ROWS}"
)
"""The same behind the fence (``blink_fence``): the rows are read through the fence's one
row, so the fence runs (and raises when a lease moved) before any row is inserted, in the
same statement and so the same transaction."""


def statements(jobs: list[Callable[..., Any]]) -> int:
    """How many statements :meth:`AsyncPgWriter.commit` sends for the :func:`sendable`
    ``jobs``: one for a batch of plays, else one a job and the fence check."""
    if _plays_only(jobs):
        return 1
    return len(jobs) + any(isinstance(job, Fenced) for job in jobs)


def _plays_only(jobs: list[Callable[..., Any]]) -> bool:
    return all(unfenced(job).__class__ is AppendJob for job in jobs)


def sendable(jobs: list[Callable[..., Any]]) -> bool:
    """True when every job is plain driver SQL the asynchronous connection can send."""
    return all(unfenced(job).__class__ in (AppendJob, SqlJob) for job in jobs)


class AsyncPgWriter:
    """One psycopg ``AsyncConnection`` (opened on first use, again after a failure) that
    commits batches of :func:`sendable` jobs."""

    def __init__(self, url: str, dialect: Dialect, append_sql: str) -> None:
        self._conninfo = make_url(url).set(drivername="postgresql")
        self._options = libpq_options(url)
        """Keepalives and timeouts (:mod:`blink.server.pg_liveness`)."""
        self._dialect = dialect
        self._append_sql = append_sql
        self._conn: Any = None

    async def _connection(self) -> Any:
        import psycopg

        if self._conn is None or self._conn.closed:
            info = self._conninfo.render_as_string(hide_password=False)
            # Autocommit: no BEGIN nor COMMIT of psycopg's. A batch is one pipeline ended by
            # one Sync, which PostgreSQL runs as one implicit transaction (committed at the
            # Sync, or rolled back whole when a statement fails).
            self._conn = await psycopg.AsyncConnection.connect(
                info, autocommit=True, **self._options
            )
        return self._conn

    async def commit(self, jobs: list[Callable[..., Any]]) -> list[Any]:
        """Commit the jobs in one transaction, in order; their results (all ``None``). Raises
        the driver's error (the connection is dropped: the transaction is undone)."""
        try:
            conn = await self._connection()
            if _plays_only(jobs):
                await self._append(conn, jobs)
                return [None] * len(jobs)
            async with conn.pipeline(), conn.cursor() as cur:
                fences = sorted({(j.code, j.epoch) for j in jobs if isinstance(j, Fenced)})
                if fences:
                    await cur.execute(
                        "SELECT blink_fence(%s::text[], %s::bigint[])",
                        ([c for c, _ in fences], [e for _, e in fences]),
                    )
                rows: list[tuple[Any, ...]] = []
                for job in map(unfenced, jobs):
                    if isinstance(job, AppendJob):
                        rows.append(job.row)
                        continue
                    if rows:
                        await cur.executemany(self._append_sql, rows)
                        rows = []
                    assert isinstance(job, SqlJob)
                    await cur.execute(job.sql(self._dialect), job.params)
                if rows:
                    await cur.executemany(self._append_sql, rows)
            # Leaving the pipeline sent its one Sync and read every result: committed.
        except BaseException:
            await self.close()
            raise
        return [None] * len(jobs)

    @staticmethod
    async def _append(conn: Any, jobs: list[Callable[..., Any]]) -> None:
        """Commit a batch of appended actions (the batch of a game being played, nearly every
        one) as one statement: its rows as arrays, behind the fence when it has one."""
        rows = [cast(AppendJob, unfenced(job)).row for job in jobs]
        columns = [list(column) for column in zip(*rows, strict=True)]
        fences = sorted({(j.code, j.epoch) for j in jobs if isinstance(j, Fenced)})
        if fences:
            params = ([c for c, _ in fences], [e for _, e in fences], *columns)
            await conn.execute(FENCED_APPEND_SQL, params, prepare=True)
        else:
            await conn.execute(APPEND_SQL, columns, prepare=True)

    async def close(self) -> None:
        """Close the connection (an open transaction is undone)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()
