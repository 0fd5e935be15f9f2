"""Write jobs for the storage writer: each builds a callable run on the writer's connection.

Rooms queue these with :meth:`blink.server.storage.Storage.submit` (or ``run``); the writer
commits everything queued meanwhile in one transaction. Appends to the action log
(:class:`AppendJob`) are recognised by the writer and batched into one ``executemany``; the
other hot jobs are :class:`SqlJob`: cached driver SQL (:func:`_driver_sql`), not SQLAlchemy
compilation, which the asynchronous PostgreSQL writer sends as is.

On a cluster every write of a room is :class:`Fenced`: it carries the room's lease epoch it was
made under, and the writer commits it only in a transaction that found that epoch still the
stored one, with the lease's row locked (:func:`stale_fences`, or on the asynchronous writer
the database function ``blink_fence``): a node that lost a room's lease never writes into it
again. A write refused so has :class:`FencedOut` as its result.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import msgspec
from sqlalchemy import Connection, Dialect, Table, insert
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from blink.server import room_writes as rw
from blink.server.schema import actions, games, rooms, seats

__all__ = [
    "FENCED_SQLSTATE",
    "AppendJob",
    "Fenced",
    "FencedOut",
    "SqlJob",
    "insert_new",
    "job_append_action",
    "job_finish_game",
    "job_insert_game",
    "job_insert_room",
    "job_of",
    "job_pause_game",
    "job_update_room",
    "job_update_seat",
    "refusal",
    "stale_fences",
    "stale_in",
    "unfenced",
]

_ENCODE = msgspec.json.Encoder().encode

_SQL: dict[tuple[str, str, str, tuple[str, ...], tuple[str, ...]], str] = {}


def _driver_sql(
    dialect: Dialect, op: str, table: Table, cols: tuple[str, ...], where: tuple[str, ...] = ()
) -> str:
    """A cached INSERT or UPDATE for the driver (no SQLAlchemy compilation per call); column
    names come from the code and are checked against the table."""
    key = (dialect.name, op, table.name, cols, where)
    sql = _SQL.get(key)
    if sql is None:
        for c in cols + where:
            if c not in table.c:
                raise ValueError(f"no column {c!r} in {table.name}")
        m = "?" if dialect.paramstyle == "qmark" else "%s"
        q = dialect.identifier_preparer.quote
        if op == "insert":
            sql = (
                f"INSERT INTO {q(table.name)} ({', '.join(q(c) for c in cols)}) "
                f"VALUES ({', '.join(m for _ in cols)})"
            )
        else:
            sql = (
                f"UPDATE {q(table.name)} SET {', '.join(f'{q(c)} = {m}' for c in cols)} "
                f"WHERE {' AND '.join(f'{q(c)} = {m}' for c in where)}"
            )
        _SQL[key] = sql
    return sql


class SqlJob:
    """A write that is one INSERT or UPDATE of driver SQL with its parameters: run on a
    SQLAlchemy connection (called), or by a writer that sends the driver SQL itself
    (:meth:`sql`, ``params``: the asynchronous PostgreSQL writer)."""

    __slots__ = ("cols", "op", "params", "table", "where")

    def __init__(
        self,
        op: str,
        table: Table,
        cols: tuple[str, ...],
        params: tuple[Any, ...],
        where: tuple[str, ...] = (),
    ) -> None:
        self.op, self.table, self.cols, self.params, self.where = op, table, cols, params, where

    def sql(self, dialect: Dialect) -> str:
        """The statement, for ``dialect``'s driver."""
        return _driver_sql(dialect, self.op, self.table, self.cols, self.where)

    def __call__(self, conn: Connection) -> None:
        conn.exec_driver_sql(self.sql(conn.dialect), self.params)


def insert_new(
    conn: Connection, table: Table, row: dict[str, Any], unique: str | tuple[str, ...]
) -> bool:
    """Insert ``row`` unless a row with its ``unique`` column's value (or columns' values: a
    unique key of several) exists (then nothing is written, nor is the transaction spoilt);
    True if it went in. SQLite and PostgreSQL."""
    keys = [unique] if isinstance(unique, str) else list(unique)
    if conn.dialect.name == "postgresql":
        # (psycopg's rowcount is -1 here: RETURNING says whether the row went in.)
        stmt = pg_insert(table).values(**row).on_conflict_do_nothing(index_elements=keys)
        return conn.execute(stmt.returning(table.c[keys[0]])).first() is not None
    lite = sqlite_insert(table).values(**row).on_conflict_do_nothing(index_elements=keys)
    return conn.execute(lite).rowcount == 1


def job_insert_room(
    row: dict[str, Any], seat_rows: list[dict[str, Any]]
) -> Callable[[Connection], bool]:
    """Insert a room and its seats; the job's result is ``False`` (and nothing is written)
    when a room with that code exists already (another server may have drawn the same code:
    the primary key decides, and the caller draws another)."""

    def job(conn: Connection) -> bool:
        if not insert_new(conn, rooms, row, "code"):
            return False
        if seat_rows:
            conn.execute(insert(seats), seat_rows)
        return True

    return job


def job_update_room(code: str, **values: Any) -> SqlJob:
    """Update a room's columns."""
    return SqlJob("update", rooms, tuple(values), (*values.values(), code), ("code",))


def job_update_seat(code: str, seat: int, **values: Any) -> SqlJob:
    """Update a seat's columns."""
    cols, where = tuple(values), ("room_code", "seat")
    return SqlJob("update", seats, cols, (*values.values(), code, seat), where)


def job_insert_game(row: dict[str, Any]) -> SqlJob:
    """Insert a game (its deal)."""
    return SqlJob("insert", games, tuple(row), tuple(row.values()))


class AppendJob:
    """Append one accepted action to a game's log (batched with its neighbours: executemany).

    ``row`` is ``(game_id, seq, action_json, seat, client_id)``.
    """

    __slots__ = ("row",)

    def __init__(self, row: tuple[int, int, str, int | None, str | None]) -> None:
        self.row = row

    def __call__(self, conn: Connection) -> None:
        conn.execute(
            insert(actions),
            [dict(zip(("game_id", "seq", "action", "seat", "client_id"), self.row, strict=True))],
        )


def job_append_action(
    game_id: int, seq: int, action: dict[str, Any], seat: int | None, client_id: str | None
) -> AppendJob:
    """Append one accepted action to a game's log."""
    # Compact JSON (no spaces): finished_games counts plays with LIKE '%"type":"play"%'.
    text = _ENCODE(action).decode()
    return AppendJob((game_id, seq, text, seat, client_id))


def job_finish_game(game_id: int, ended_at: float, result: dict[str, Any]) -> SqlJob:
    """Mark a game finished with its result."""
    params = (ended_at, json.dumps(result), game_id)
    return SqlJob("update", games, ("ended_at", "result"), params, ("id",))


def job_pause_game(game_id: int, paused: bool) -> SqlJob:
    """Keep whether a practice game is paused (a restart restores it paused)."""
    return SqlJob("update", games, ("paused",), (paused, game_id), ("id",))


def _new_room(w: rw.NewRoom) -> Callable[[Connection], bool]:
    row = {
        "code": w.code,
        "created_at": w.created_at,
        "players": w.players,
        "best_of": w.best_of,
        "public": w.public,
        "status": "waiting",
        "series_number": 1,
        "game": w.game,
        "options": _ENCODE(w.options).decode(),
    }
    seat_rows = [
        {
            "room_code": w.code,
            "seat": s.seat,
            "kind": s.kind,
            "bot": s.bot,
            "name": s.name,
            "token_hash": s.token_hash,
            "left": False,
        }
        for s in w.seats
    ]
    return job_insert_room(row, seat_rows)


def _game_dealt(w: rw.GameDealt) -> SqlJob:
    return job_insert_game(
        {
            "id": w.id,
            "room_code": w.room_code,
            "series_number": w.series_number,
            "number": w.number,
            "players": w.players,
            "deal_options": w.deal_options,
            "deck": " ".join(w.deck),
            "names": _ENCODE(w.names).decode(),
            "started_at": w.started_at,
            "bot_seeds": _ENCODE(w.bot_seeds).decode(),
        }
    )


_WRITES: dict[type[rw.RoomWrite], Callable[[Any], Callable[[Connection], Any]]] = {
    rw.NewRoom: _new_room,
    rw.RoomStatus: lambda w: job_update_room(w.code, status=w.status),
    rw.RoomSeries: lambda w: job_update_room(w.code, series_number=w.series_number),
    rw.SeatFreed: lambda w: job_update_seat(w.code, w.seat, token_hash=None, name=None),
    rw.SeatLeft: lambda w: job_update_seat(w.code, w.seat, left=True),
    rw.GameDealt: _game_dealt,
    rw.ActionAppended: lambda w: job_append_action(w.game_id, w.seq, w.action, w.seat, w.client_id),
    rw.GameFinished: lambda w: job_finish_game(w.game_id, w.ended_at, w.result),
    rw.GamePaused: lambda w: job_pause_game(w.game_id, w.paused),
}


def job_of(write: rw.RoomWrite | Callable[[Connection], Any]) -> Callable[[Connection], Any]:
    """The storage job that keeps a room's record (the SQL of each kind of
    :class:`~blink.server.room_writes.RoomWrite`); a job already is one."""
    if isinstance(write, rw.RoomWrite):
        return _WRITES[type(write)](write)
    return write


FENCED_SQLSTATE = "BLF01"
"""The SQLSTATE of the error ``blink_fence`` raises (migration ``0008_room_leases``): a write
of a room whose lease another node took since."""


class FencedOut(Exception):
    """A write refused: room ``code``'s lease was taken by another node (``now``: the stored
    epoch, ``None`` when there is none) since the write was made under ``epoch``."""

    def __init__(self, code: str, epoch: int, now: int | None) -> None:
        super().__init__(
            f"room {code}: the write was made under lease epoch {epoch}, and another node "
            f"holds the lease now (epoch {now})"
        )
        self.code, self.epoch, self.now = code, epoch, now


class Fenced:
    """A write of room ``code`` made under its lease epoch ``epoch``: committed only while that
    is still the room's stored epoch (checked in the same transaction)."""

    __slots__ = ("code", "epoch", "job")

    def __init__(self, job: Callable[[Connection], Any], code: str, epoch: int) -> None:
        self.job, self.code, self.epoch = job, code, epoch

    def __call__(self, conn: Connection) -> Any:
        """Run the write alone (in ``conn``'s transaction), after the fence: raises
        :class:`FencedOut` when the lease moved."""
        cur = conn.connection.cursor()
        try:
            stale = stale_fences(cur, conn.dialect, {(self.code, self.epoch)})
        finally:
            cur.close()
        if stale:
            raise FencedOut(self.code, self.epoch, stale[self.code, self.epoch])
        return self.job(conn)


def unfenced(job: Callable[[Connection], Any]) -> Callable[[Connection], Any]:
    """The write itself, without its fence."""
    return job.job if isinstance(job, Fenced) else job


def stale_fences(
    cur: Any, dialect: Dialect, fences: set[tuple[str, int]]
) -> dict[tuple[str, int], int | None]:
    """Of ``fences`` (room code, epoch), those whose room's stored epoch is another now, with
    that epoch (``None``: none stored), read with a DB-API cursor inside the writer's
    transaction. On PostgreSQL the rows are locked ``FOR SHARE`` until the transaction ends:
    no node takes those leases meanwhile (taking one updates its row)."""
    codes = sorted({code for code, _ in fences})
    if dialect.name == "postgresql":
        cur.execute(
            "SELECT code, epoch FROM room_leases WHERE code = ANY(%s) ORDER BY code FOR SHARE",
            (codes,),
        )
    else:
        mark = "?" if dialect.paramstyle == "qmark" else "%s"
        where = ", ".join(mark for _ in codes)
        cur.execute(f"SELECT code, epoch FROM room_leases WHERE code IN ({where})", codes)
    now = {str(code): int(epoch) for code, epoch in cur.fetchall()}
    return {(c, e): now.get(c) for c, e in fences if now.get(c) != e}


def stale_in(
    cur: Any, dialect: Dialect, jobs: list[Callable[[Connection], Any]]
) -> dict[tuple[str, int], int | None]:
    """The fences of ``jobs`` (a cluster's room writes) that no longer hold, read and locked in
    the cursor's transaction (nothing is read when no job is fenced)."""
    fences = {(job.code, job.epoch) for job in jobs if isinstance(job, Fenced)}
    return stale_fences(cur, dialect, fences) if fences else {}


def refusal(
    job: Callable[[Connection], Any], stale: dict[tuple[str, int], int | None]
) -> FencedOut | None:
    """The refusal of ``job`` when it is fenced by a lease that moved (``None``: it may run)."""
    if stale and isinstance(job, Fenced) and (job.code, job.epoch) in stale:
        return FencedOut(job.code, job.epoch, stale[job.code, job.epoch])
    return None
