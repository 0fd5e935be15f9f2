"""Game ids unique across every server sharing one database, without a round trip per game.

Ids are taken from the database in blocks ("hi/lo"): on PostgreSQL a sequence,
``game_ids``, whose increment is the block size (``nextval`` returns the first id of a block
no other caller gets); on SQLite a row of ``id_blocks`` moved on by one block in a write
transaction (and never below ``MAX(games.id)``). A node hands out the ids of its block from
memory (:meth:`GameIds.take`, on the event loop, no I/O) and asks for the next block through
the storage writer when half of the current one is used, so creating a game does not wait on
the database. Ids are unique, not dense: the rest of a block is skipped when a node stops.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from sqlalchemy import Connection, Engine

__all__ = ["BLOCK_SIZE", "GAME_ID_SEQUENCE", "GameIds", "take_block"]

log = logging.getLogger("blink.server.ids")

BLOCK_SIZE = 100
"""Ids in one block (the migration's sequence increment and ``id_blocks.step``)."""

GAME_ID_SEQUENCE = "game_ids"
"""The PostgreSQL sequence game id blocks are taken from."""

_PG_TAKE = (
    f"SELECT nextval('{GAME_ID_SEQUENCE}'), "
    "(SELECT increment_by FROM pg_sequences "
    f"WHERE schemaname = current_schema() AND sequencename = '{GAME_ID_SEQUENCE}')"
)
_SQLITE_MOVE = (
    "UPDATE id_blocks SET next_id = max(next_id, "
    "(SELECT coalesce(max(id), 0) + 1 FROM games)) + step WHERE name = 'games'"
)
_SQLITE_READ = "SELECT next_id - step, step FROM id_blocks WHERE name = 'games'"


def take_block(conn: Connection) -> range:
    """Take the next block of game ids, in ``conn``'s transaction (on PostgreSQL the sequence
    moves on even if that transaction is undone: ids may be skipped, never given twice)."""
    if conn.dialect.name == "postgresql":
        row = conn.exec_driver_sql(_PG_TAKE).one()
    else:
        conn.exec_driver_sql(_SQLITE_MOVE)
        row = conn.exec_driver_sql(_SQLITE_READ).one()
    start, step = int(row[0]), int(row[1])
    if step < 1:
        raise ValueError(f"the game id block size must be positive, not {step}")
    return range(start, start + step)


class _Writer(Protocol):
    engine: Engine

    def submit(
        self, job: Callable[[Connection], Any], done: Callable[[Any], None] | None = None
    ) -> None: ...


class GameIds:
    """Game ids from blocks of the database: :meth:`take` on the event loop, never waiting
    on the database unless a whole block went before the next one came (then it reads one
    block at once, and says so in the log)."""

    def __init__(self, storage: _Writer) -> None:
        self._storage = storage
        self._block = range(0)
        self._pos = 0
        self._next: range | None = None
        self._asking = False
        self.blocks_taken = 0
        """Blocks taken so far (tests and the log)."""
        self.waited = 0
        """Times :meth:`take` had to read a block at once (no block was ready)."""

    def start(self) -> None:
        """Take the first block now (at start, before games are created)."""
        self._use(self._read_now())

    def take(self) -> int:
        """A game id no other node and no earlier game has."""
        if self._pos >= len(self._block):
            if self._next is not None:
                block, self._next = self._next, None
                self._use(block)
            else:
                self.waited += 1
                log.warning("no block of game ids was ready: reading one at once")
                self._use(self._read_now())
        gid = self._block[self._pos]
        self._pos += 1
        if len(self._block) - self._pos <= len(self._block) // 2:
            self._ask()
        return gid

    def _use(self, block: range) -> None:
        self._block, self._pos = block, 0
        self.blocks_taken += 1

    def _read_now(self) -> range:
        with self._storage.engine.begin() as conn:
            return take_block(conn)

    def _ask(self) -> None:
        """Ask the writer for the next block (committed with the other writes queued)."""
        if self._next is not None or self._asking:
            return
        self._asking = True

        def done(result: Any) -> None:
            self._asking = False
            if isinstance(result, BaseException):
                log.warning("could not take a block of game ids: %s", result)
            elif self._next is None:
                self._next = result

        self._storage.submit(take_block, done)
