"""Write jobs for the storage writer: each builds a callable run on the writer's connection.

Rooms queue these with :meth:`blink.server.storage.Storage.submit` (or ``run``); the writer
commits everything queued meanwhile in one transaction. Appends to the action log
(:class:`AppendJob`) are recognised by the writer and batched into one ``executemany``; the
other hot jobs use cached driver SQL (:func:`_driver_sql`), not SQLAlchemy compilation.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import msgspec
from sqlalchemy import Connection, Table, insert, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from blink.server.schema import actions, games, rooms, seats

__all__ = [
    "AppendJob",
    "job_append_action",
    "job_finish_game",
    "job_insert_game",
    "job_insert_room",
    "job_update_room",
    "job_update_seat",
]

_ENCODE = msgspec.json.Encoder().encode

_SQL: dict[tuple[str, str, str, tuple[str, ...], tuple[str, ...]], str] = {}


def _driver_sql(
    conn: Connection, op: str, table: Table, cols: tuple[str, ...], where: tuple[str, ...] = ()
) -> str:
    """A cached INSERT or UPDATE for the driver (no SQLAlchemy compilation per call); column
    names come from the code and are checked against the table."""
    key = (conn.dialect.name, op, table.name, cols, where)
    sql = _SQL.get(key)
    if sql is None:
        for c in cols + where:
            if c not in table.c:
                raise ValueError(f"no column {c!r} in {table.name}")
        m = "?" if conn.dialect.paramstyle == "qmark" else "%s"
        q = conn.dialect.identifier_preparer.quote
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


def job_insert_room(
    row: dict[str, Any], seat_rows: list[dict[str, Any]]
) -> Callable[[Connection], bool]:
    """Insert a room and its seats; the job's result is ``False`` (and nothing is written)
    when a room with that code exists already (another server may have drawn the same code:
    the primary key decides, and the caller draws another)."""

    def job(conn: Connection) -> bool:
        if conn.dialect.name == "postgresql":
            # (psycopg's rowcount is -1 here: RETURNING says whether the row went in.)
            stmt = pg_insert(rooms).values(**row).on_conflict_do_nothing(index_elements=["code"])
            if conn.execute(stmt.returning(rooms.c.code)).first() is None:
                return False
        else:
            lite = sqlite_insert(rooms).values(**row)
            if conn.execute(lite.on_conflict_do_nothing(index_elements=["code"])).rowcount != 1:
                return False
        if seat_rows:
            conn.execute(insert(seats), seat_rows)
        return True

    return job


def job_update_room(code: str, **values: Any) -> Callable[[Connection], None]:
    """Update a room's columns."""
    cols = tuple(values)
    params = (*values.values(), code)

    def job(conn: Connection) -> None:
        conn.exec_driver_sql(_driver_sql(conn, "update", rooms, cols, ("code",)), params)

    return job


def job_update_seat(code: str, seat: int, **values: Any) -> Callable[[Connection], None]:
    """Update a seat's columns."""

    def job(conn: Connection) -> None:
        conn.execute(
            update(seats).where(seats.c.room_code == code, seats.c.seat == seat).values(**values)
        )

    return job


def job_insert_game(row: dict[str, Any]) -> Callable[[Connection], None]:
    """Insert a game (its deal)."""
    cols = tuple(row)
    params = tuple(row.values())

    def job(conn: Connection) -> None:
        conn.exec_driver_sql(_driver_sql(conn, "insert", games, cols), params)

    return job


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


def job_finish_game(
    game_id: int, ended_at: float, result: dict[str, Any]
) -> Callable[[Connection], None]:
    """Mark a game finished with its result."""
    text = json.dumps(result)

    def job(conn: Connection) -> None:
        sql = _driver_sql(conn, "update", games, ("ended_at", "result"), ("id",))
        conn.exec_driver_sql(sql, (ended_at, text, game_id))

    return job
