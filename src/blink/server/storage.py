"""Durable storage: rooms, seats, games and every accepted action, in SQLite or PostgreSQL.

The schema is in :mod:`blink.server.schema` (created or migrated by the Alembic migrations at
every start) and the write jobs in :mod:`blink.server.jobs`; both are re-exported here, so
``storage.job_update_room(...)`` and ``storage.games`` read as they always did.

All writes go through one writer (:class:`Storage`): jobs are queued from the event loop,
committed in batches (one transaction for everything queued meanwhile, "group commit"), and each
job's callback runs back on the event loop only after its transaction has committed. That is
how the server keeps "appended before sent" without a database round trip per message. The
writer is ``inline`` (the commit runs on the event loop once per loop turn: the default for
SQLite, where a WAL commit is a short write with no fsync), ``thread`` (a writer thread
commits while the loop goes on: the default for PostgreSQL, where a commit is a network round
trip and an fsync) or ``async`` (PostgreSQL: the loop sends each batch on psycopg's
asynchronous connection, in one pipeline, and goes on serving until it is committed;
:mod:`blink.server.pg_writer`). Appends to the action log, the hot path, are one cached SQL
string run with the driver's ``executemany`` (no statement compilation per batch).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url

from blink.server.jobs import (
    FENCED_SQLSTATE,
    AppendJob,
    Fenced,
    FencedOut,
    SqlJob,
    job_append_action,
    job_finish_game,
    job_insert_game,
    job_insert_room,
    job_update_room,
    job_update_seat,
    refusal,
    stale_in,
    unfenced,
)
from blink.server.loaded import LoadedGame, LoadedRoom, LoadedSeat
from blink.server.pg_liveness import libpq_options
from blink.server.pg_writer import AsyncPgWriter, sendable, statements
from blink.server.schema import actions, games, metadata, migrate, rooms, seats
from blink.server.sqlite_file import DatabaseFile
from blink.server.storage_reads import Reads
from blink.server.wal import Checkpoints

__all__ = [
    "AppendJob",
    "Fenced",
    "FencedOut",
    "LoadedGame",
    "LoadedRoom",
    "LoadedSeat",
    "Storage",
    "StorageDown",
    "StorageError",
    "WriterCounts",
    "actions",
    "games",
    "job_append_action",
    "job_finish_game",
    "job_insert_game",
    "job_insert_room",
    "job_update_room",
    "job_update_seat",
    "make_engine",
    "metadata",
    "migrate",
    "resolve_writer",
    "rooms",
    "seats",
]

log = logging.getLogger("blink.server.storage")
T = TypeVar("T")


class StorageError(RuntimeError):
    """The database could not be opened or migrated."""


class StorageDown(RuntimeError):
    """The database cannot be written now (a full disk, a deleted or replaced file, a
    database server gone): ``done`` holds the results of the jobs committed before it (the
    others are kept to be committed again), ``permanent`` that retrying cannot help."""

    def __init__(self, reason: str, done: list[Any] | None = None, permanent: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.done = done or []
        self.permanent = permanent


_JOB_ERRORS = {"IntegrityError", "ProgrammingError", "DataError", "NotSupportedError"}


def is_outage(exc: BaseException) -> bool:
    """True when ``exc`` says the database cannot be written at all (an operational error of
    the driver, an I/O error), not that one job is wrong (a constraint, bad SQL)."""
    names = {c.__name__ for c in type(exc).__mro__}
    orig = getattr(exc, "orig", None) or exc
    if names & _JOB_ERRORS or getattr(orig, "sqlstate", None) == FENCED_SQLSTATE:
        return False
    return bool(names & {"OperationalError", "InterfaceError", "OSError", "DatabaseError"})


def _why(exc: BaseException) -> str:
    """One line saying why the database cannot be written."""
    orig = getattr(exc, "orig", None) or exc
    return f"{type(orig).__name__}: {str(orig).splitlines()[0] if str(orig) else ''}".strip()


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite files get WAL mode and a busy timeout."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: a commit survives the process being killed (not power loss).
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA busy_timeout=30000")
            # No checkpoint inside a commit (it fsyncs, which can take long on a busy disk):
            # Storage runs passive checkpoints from a background thread instead.
            cur.execute("PRAGMA wal_autocheckpoint=0")
            cur.close()

        return engine
    # Keepalives and a user timeout: a connection to a server that vanished fails in seconds
    # (blink.server.pg_liveness) instead of hanging a commit or a read.
    return create_engine(url, pool_pre_ping=True, connect_args=libpq_options(url))


WRITERS = ("auto", "inline", "thread", "async")
"""Values of the ``writer`` option; ``auto`` is ``inline`` for SQLite, ``async`` for
PostgreSQL through psycopg (:mod:`blink.server.pg_writer`: on a quiet machine its p99 at
1,000 games was a third to a half of the writer thread's, docs/performance.md), ``thread``
otherwise."""


def resolve_writer(writer: str, url: str) -> str:
    """The writer actually used for ``writer`` (one of :data:`WRITERS`) on database ``url``."""
    if writer not in WRITERS:
        raise StorageError(f"writer must be one of {', '.join(WRITERS)}, not {writer!r}")
    psycopg = url.split("://", 1)[0] == "postgresql+psycopg"
    if writer == "auto":
        if url.startswith("sqlite"):
            return "inline"
        return "async" if psycopg else "thread"
    if writer == "async" and not psycopg:
        raise StorageError("the async writer needs PostgreSQL with psycopg (postgresql+psycopg)")
    return writer


class WriterCounts:
    """What the writer committed, by path (``sync``: the thread, inline or worker-thread
    commit; ``async``: the ``async`` writer's pipeline): transactions, writes (jobs) and
    statements (as sent: the ``async`` writer sends a batch of plays as one; otherwise a write
    is one statement, an action row's ``INSERT`` included, and a batch with writes of a
    cluster's rooms adds its fence check). Plain integers, added to once per
    batch; read (any thread) by ``/metrics``."""

    def __init__(self) -> None:
        self.commits: dict[str, int] = {"sync": 0, "async": 0}
        self.jobs: dict[str, int] = {"sync": 0, "async": 0}
        self.statements: dict[str, int] = {"sync": 0, "async": 0}

    def add(
        self, path: str, jobs: list[Callable[[Connection], Any]], statements: int | None = None
    ) -> None:
        """One transaction of ``jobs`` committed by ``path``, in ``statements`` statements
        (``None``: one a job, and the fence check)."""
        if not jobs:
            return
        if statements is None:
            statements = len(jobs) + any(isinstance(j, Fenced) for j in jobs)
        self.commits[path] += 1
        self.jobs[path] += len(jobs)
        self.statements[path] += statements


class Storage(Reads):
    """The database: migrations at open, one writer with group commit, plain reads."""

    def __init__(self, url: str, batch: int = 512, writer: str = "auto") -> None:
        self.url = url
        self.kind = "postgresql" if url.startswith("postgres") else "sqlite"
        try:
            self.engine = make_engine(url)
            migrate(self.engine)
        except Exception as exc:
            raise StorageError(f"cannot open the database {self.safe_url}: {exc}") from exc
        self._batch = batch
        self.writer = resolve_writer(writer, url)
        mark = "?" if self.engine.dialect.paramstyle == "qmark" else "%s"
        self._append_sql = (
            "INSERT INTO actions (game_id, seq, action, seat, client_id) "
            f"VALUES ({mark}, {mark}, {mark}, {mark}, {mark})"
        )
        self._queue: queue.SimpleQueue[
            list[tuple[Callable[[Connection], Any], Callable[[Any], None] | None]] | None
        ] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._outbox: list[tuple[Callable[[Connection], Any], Callable[[Any], None] | None]] = []
        self._wconn: Connection | None = None
        self._wlock = threading.Lock()
        self.retry_every = 1.0
        """Seconds between attempts to commit the kept jobs while the database is down."""
        self.failure: str | None = None
        """Why the database cannot be written now (``None``: it can). Read on the loop."""
        self.on_commit: Callable[[float], None] | None = None
        """Called (on the writer's thread, or the loop for the ``async`` writer) with the
        seconds each group commit took."""
        self.counts = WriterCounts()
        """What the writer committed so far (read by ``/metrics``)."""
        self.on_health: Callable[[str | None], None] | None = None
        """Called on the loop when :attr:`failure` changes (the hub pauses and resumes)."""
        self.on_fenced: Callable[[str, int], None] | None = None
        """Called on the loop with a room's code and lease epoch when writes made under that
        epoch were refused because another node took the lease (the hub drops the room),
        before their callbacks run."""
        self._kept: list[tuple[Callable[[Connection], Any], Callable[[Any], None] | None]] = []
        self._permanent = False
        self._retrying = False
        self._down = threading.Event()
        path = make_url(url).database if self.kind == "sqlite" else None
        self._file = DatabaseFile(path) if path and path != ":memory:" else None
        self.checkpoints = Checkpoints(
            lambda: self.engine.connect(), self._file_usable, self._wlock
        )
        """The SQLite log's checkpoints (:mod:`blink.server.wal`; started for SQLite only)."""
        self._pg = (
            AsyncPgWriter(url, self.engine.dialect, self._append_sql)
            if self.writer == "async"
            else None
        )
        self._pending: list[tuple[Callable[[Connection], Any], Callable[[Any], None] | None]] = []
        self._flusher: asyncio.Task[None] | None = None

    @property
    def safe_url(self) -> str:
        """The URL without a password, for messages."""
        return make_url(self.url).render_as_string(hide_password=True)

    # -- the writer -------------------------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start the writer thread; callbacks run on ``loop``."""
        self._loop = loop
        if self.kind == "sqlite":
            self.checkpoints.start()
        if self.writer == "thread":
            self._thread = threading.Thread(
                target=self._writer, name="blink-db-writer", daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        """Commit what is queued and stop the writer thread (the ``async`` writer: wait for
        its batches on the loop, when called from another thread)."""
        if self._pg is not None:
            self._stop_async()
        self._hand_over()
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout=30)
            self._thread = None
        self.checkpoints.stop()
        with self._wlock:
            self._drop_writer_conn()
        self.engine.dispose()

    def _file_usable(self) -> bool:
        """Whether the database file may be opened now (see :class:`Checkpoints`)."""
        return not self._permanent and (self._file is None or self._file.moved() is None)

    def submit(
        self, job: Callable[[Connection], Any], done: Callable[[Any], None] | None = None
    ) -> None:
        """Queue a write; ``done(result_or_exception)`` runs on the loop after the commit.

        Jobs submitted during one turn of the event loop reach the writer thread together (one
        hand-over per turn, not one per job).
        """
        if self.failure is not None:
            self._kept.append((job, done))  # committed, in order, once writes succeed again
            return
        if not self._outbox and self._loop is not None:
            self._loop.call_soon(self._hand_over)
        self._outbox.append((job, done))
        if self._loop is None:
            self._hand_over()

    def _hand_over(self) -> None:
        box, self._outbox = self._outbox, []
        if not box:
            return
        if self.failure is not None:
            self._kept.extend(box)
            return
        if self._pg is not None and self._loop is not None:
            self._pending.extend(box)
            if self._flusher is None:
                self._flusher = self._loop.create_task(self._flush())
        elif self._thread is None:
            # Inline writer: commit right here, on the loop, once per loop turn. No thread
            # hand-off, no lock contention; the loop pauses for one commit per turn.
            self._settle(box, *self._commit(box))
        else:
            self._queue.put(box)

    async def _flush(self) -> None:
        """The ``async`` writer: commit the pending jobs, a batch at a time, in order, until
        none are left (those queued during a commit form the next batch)."""
        pg, loop = self._pg, self._loop
        assert pg is not None and loop is not None
        try:
            while self._pending:
                box, self._pending = self._pending, []
                jobs = [job for job, _ in box]
                outcome: tuple[list[Any], StorageDown | None]
                if self._down.is_set():
                    outcome = [], StorageDown(self.failure or "the database cannot be written")
                elif sendable(jobs):
                    try:
                        started = time.perf_counter()
                        outcome = await pg.commit(jobs), None
                        self.counts.add("async", jobs, statements(jobs))
                        if self.on_commit is not None:
                            self.on_commit(time.perf_counter() - started)
                    except Exception as exc:
                        if is_outage(exc):
                            self._down.set()
                            outcome = [], StorageDown(_why(exc))
                        else:  # one job is wrong: the synchronous path finds which
                            outcome = await loop.run_in_executor(None, self._commit, box)
                else:
                    outcome = await loop.run_in_executor(None, self._commit, box)
                if outcome[1] is not None:  # down: what was queued meanwhile is kept after it
                    box, self._pending = box + self._pending, []
                self._settle(box, *outcome)
        finally:
            self._flusher = None

    def _stop_async(self) -> None:
        loop, pg = self._loop, self._pg
        assert pg is not None
        if loop is None or loop.is_closed() or not loop.is_running():
            return
        on_loop = False
        with contextlib.suppress(RuntimeError):
            on_loop = asyncio.get_running_loop() is loop
        if on_loop:  # nothing can be awaited here: what is left goes the synchronous way
            self._pg = None
            box, self._pending = self._pending, []
            if box:
                self._settle(box, *self._commit(box))
            return

        async def drain() -> None:
            self._hand_over()
            while self._flusher is not None:
                await asyncio.shield(self._flusher)
            await pg.close()

        asyncio.run_coroutine_threadsafe(drain(), loop).result(timeout=30)
        self._pg = None

    async def run(self, job: Callable[[Connection], T]) -> T:
        """Queue a write and wait for its committed result."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()

        def done(result: Any) -> None:
            if fut.done():
                return
            if isinstance(result, BaseException):
                fut.set_exception(result)
            else:
                fut.set_result(result)

        self.submit(job, done)
        result: T = await fut
        return result

    def _writer(self) -> None:
        q = self._queue
        stopping = False
        while not stopping:
            item = q.get()
            if item is None:
                break
            batch = list(item)
            while len(batch) < self._batch:
                try:
                    nxt = q.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    stopping = True
                    break
                batch.extend(nxt)
            outcome = self._commit(batch)
            loop = self._loop
            if loop is not None and not loop.is_closed():
                with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                    loop.call_soon_threadsafe(self._settle, batch, *outcome)

    # -- when the database cannot be written ------------------------------------------------

    def _commit(
        self, box: list[tuple[Callable[[Connection], Any], Callable[[Any], None] | None]]
    ) -> tuple[list[Any], StorageDown | None]:
        """Commit a batch (any thread): the results of the jobs committed, and the outage
        that stopped the others (``None``: all were)."""
        if self._down.is_set():
            return [], StorageDown(self.failure or "the database cannot be written")
        try:
            started = time.perf_counter()
            jobs = [job for job, _ in box]
            results = self._run_batch(jobs)
            self.counts.add("sync", jobs[: len(results)])
            if self.on_commit is not None:
                self.on_commit(time.perf_counter() - started)
            return results, None
        except StorageDown as down:
            self._down.set()
            return down.done, down

    def _settle(
        self,
        box: list[tuple[Callable[[Connection], Any], Callable[[Any], None] | None]],
        results: list[Any],
        down: StorageDown | None,
    ) -> None:
        """On the loop: deliver what was committed; keep the rest and go down on an outage."""
        self._fenced(results)
        _deliver([d for _, d in box[: len(results)]], results)
        if down is None:
            return
        self._kept[:0] = box[len(results) :]
        if self.failure is None:
            self.failure = down.reason
            self._permanent = down.permanent
            log.error(
                "the database cannot be written (%s): nothing more is acknowledged, games "
                "wait, and %s",
                down.reason,
                "the server must be restarted" if down.permanent else "writes are retried",
                exc_info=down.__cause__,
            )
            if self.on_health is not None:
                self.on_health(self.failure)
        self._schedule_retry()

    def _fenced(self, results: list[Any]) -> None:
        """On the loop: say which rooms' writes were refused by their leases (each room and
        how many of its writes were dropped), and tell :attr:`on_fenced`."""
        refused: Counter[tuple[str, int, int | None]] = Counter(
            (r.code, r.epoch, r.now) for r in results if isinstance(r, FencedOut)
        )
        for (code, epoch, now), count in refused.items():
            log.warning(
                "room %s: another node took its lease (epoch %s, this node's was %d): dropped "
                "%d writes made under it",
                code,
                now,
                epoch,
                count,
            )
            if self.on_fenced is not None:
                try:
                    self.on_fenced(code, epoch)
                except Exception:
                    log.exception("the fenced room %s could not be dropped", code)

    def _schedule_retry(self) -> None:
        if self._permanent or self._retrying or self._loop is None:
            return
        self._retrying = True
        self._loop.call_later(self.retry_every, self._retry)

    def _retry(self) -> None:
        """Try to commit the kept jobs again, off the loop; resume once they are all in."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        batch = list(self._kept)
        self._down.clear()
        fut = loop.run_in_executor(None, self._commit, batch)

        def done(f: asyncio.Future[tuple[list[Any], StorageDown | None]]) -> None:
            self._retrying = False
            results, down = f.result()
            del self._kept[: len(results)]
            self._fenced(results)
            _deliver([d for _, d in batch[: len(results)]], results)
            if down is not None:
                self._permanent = down.permanent
                self._schedule_retry()
                return
            self.failure = None
            fenced = sum(1 for r in results if isinstance(r, FencedOut))
            log.warning(
                "the database can be written again: %d kept writes committed, %d refused by "
                "their rooms' leases",
                len(batch) - fenced,
                fenced,
            )
            kept, self._kept = self._kept, []
            for job, cb in kept:
                self.submit(job, cb)
            if self.on_health is not None:
                self.on_health(None)

        fut.add_done_callback(done)

    def _run_batch(self, jobs: list[Callable[[Connection], Any]]) -> list[Any]:
        with self._wlock:
            results = self._run_batch_locked(jobs)
            self._check_file(results)
            return results

    def _check_file(self, results: list[Any]) -> None:
        """After a commit: the SQLite file must still be the one opened. A deleted one is put
        back from the open connection (nothing committed is lost); a replaced one stops writes
        for good (it is the operator's)."""
        f = self._file
        moved = None if f is None else f.moved()
        if f is None or moved is None:
            return
        # This batch went into the old file: unless that file is put back at the path, it
        # is lost at the next start, so none of it may be acknowledged (``done`` is empty).
        if moved == "replaced":
            self._refuse_connections(f"the database file {f.path} was replaced")
            raise StorageDown(f"the database file {f.path} was replaced", [], True)
        try:
            f.restore(self._writer_conn().connection.dbapi_connection)
            self._drop_writer_conn()
            self.engine.dispose()
            f.install()
        except Exception as exc:
            reason = f"the database file {f.path} was deleted and could not be put back: {exc}"
            raise StorageDown(reason, [], True) from exc
        log.warning("the database file %s was deleted; it was put back from the server", f.path)

    def _refuse_connections(self, reason: str) -> None:
        """From now on no connection opens the path (it names someone else's file): reads fail
        with ``reason`` until the server is restarted, and nothing is written to that file."""

        def refuse() -> Any:
            raise sqlite3.OperationalError(f"{reason}: restart the server")

        self._permanent = True
        self.checkpoints.stopping.set()  # no more checkpoints
        self._drop_writer_conn()
        old, self.engine = self.engine, create_engine("sqlite://", creator=refuse)
        old.dispose()

    def _writer_conn(self) -> Connection:
        """The writer's own connection, kept open between batches (no pool checkout per
        batch); opened again after a failure."""
        c = self._wconn
        if c is None or c.closed or c.invalidated:
            c = self._wconn = self.engine.connect()
        return c

    def _drop_writer_conn(self) -> None:
        c, self._wconn = self._wconn, None
        if c is not None:
            with contextlib.suppress(Exception):
                c.invalidate()  # closes the driver connection: an open transaction is undone
            with contextlib.suppress(Exception):
                c.close()

    def _run_batch_locked(self, jobs: list[Callable[[Connection], Any]]) -> list[Any]:
        try:
            conn = self._writer_conn()
            if all(unfenced(job).__class__ in _DRIVER_JOBS for job in jobs):
                # The common case, appends and driver SQL only (plays, a game's start and end):
                # run on the driver connection and commit once, without SQLAlchemy's
                # transaction bookkeeping.
                return self._run_driver_batch(conn, jobs)
            with conn.begin():
                cur = conn.connection.cursor()
                try:
                    stale = stale_in(cur, conn.dialect, jobs)
                finally:
                    cur.close()
                out: list[Any] = []
                rows: list[tuple[Any, ...]] = []
                for job in jobs:
                    refused = refusal(job, stale)
                    if refused is not None:
                        out.append(refused)
                        continue
                    job = unfenced(job)
                    if job.__class__ is AppendJob:
                        rows.append(job.row)
                        out.append(None)
                        continue
                    if rows:
                        self._append(conn, rows)
                        rows = []
                    out.append(job(conn))
                if rows:
                    self._append(conn, rows)
            return out
        except Exception as exc:
            self._drop_writer_conn()
            if is_outage(exc):
                raise StorageDown(_why(exc)) from exc
            log.exception("a batch of %d database jobs failed; retrying one by one", len(jobs))
        out = []
        for job in jobs:
            try:
                with self.engine.begin() as conn:
                    if job.__class__ is AppendJob:
                        self._append(conn, [job.row])
                        out.append(None)
                    else:
                        out.append(job(conn))  # a Fenced job checks its own fence
            except FencedOut as exc:
                out.append(exc)
            except Exception as exc:
                if is_outage(exc):
                    raise StorageDown(_why(exc), out) from exc
                log.exception("database job failed")
                out.append(exc)
        return out

    def _run_driver_batch(
        self, conn: Connection, jobs: list[Callable[[Connection], Any]]
    ) -> list[Any]:
        """Appends (consecutive ones in one ``executemany``) and driver SQL jobs, in order, in
        one transaction of the driver connection under ``conn``, after the fences of those of
        a cluster's rooms (a job whose room's lease moved is not run: its result is
        :class:`FencedOut`; every other result is ``None``)."""
        dbapi = conn.connection.dbapi_connection
        assert dbapi is not None
        dialect = conn.dialect
        cur = dbapi.cursor()
        out: list[Any] = []
        try:
            stale = stale_in(cur, dialect, jobs)
            rows: list[tuple[Any, ...]] = []
            for job in jobs:
                refused = refusal(job, stale)
                out.append(refused)
                if refused is not None:
                    continue
                job = unfenced(job)
                if isinstance(job, AppendJob):
                    rows.append(job.row)
                    continue
                if rows:
                    cur.executemany(self._append_sql, rows)
                    rows = []
                assert isinstance(job, SqlJob)
                cur.execute(job.sql(dialect), job.params)
            if rows:
                cur.executemany(self._append_sql, rows)
        finally:
            cur.close()
        dbapi.commit()  # on a failure the caller drops the connection, which undoes it all
        return out

    def _append(self, conn: Connection, rows: list[tuple[Any, ...]]) -> None:
        """Append action rows with the driver's ``executemany`` and one cached SQL string,
        inside ``conn``'s transaction."""
        cur = conn.connection.cursor()
        try:
            cur.executemany(self._append_sql, rows)
        finally:
            cur.close()


def _deliver(callbacks: list[Callable[[Any], None] | None], results: list[Any]) -> None:
    for cb, res in zip(callbacks, results, strict=True):
        if cb is not None:
            try:
                cb(res)
            except Exception:
                log.exception("storage callback failed")


_DRIVER_JOBS = (AppendJob, SqlJob)
"""The jobs that are plain driver SQL (the common batch: see ``_run_driver_batch``)."""
