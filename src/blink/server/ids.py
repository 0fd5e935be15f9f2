"""Game ids unique across every server sharing one database, without a round trip per game.

Ids are taken from the database in blocks ("hi/lo"): on PostgreSQL a sequence,
``game_ids``, whose increment is the block size (``nextval`` returns the first id of a block
no other caller gets); on SQLite a row of ``id_blocks`` moved on by one block in a write
transaction (and never below ``MAX(games.id)``). A node hands out the ids of its block from
memory (:meth:`GameIds.take`, on the event loop, no I/O) and asks for the next block through
the storage writer when half of the current one is used, so creating a game does not wait on
the database (after a burst that used every block before the next came, it asks for more
blocks at a time). Ids are unique, not dense: the rest of a block is skipped when a node stops.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from sqlalchemy import Connection, Engine

__all__ = ["BLOCK_SIZE", "GAME_ID_SEQUENCE", "MOST_BLOCKS", "GameIds", "take_block", "take_blocks"]

log = logging.getLogger("blink.server.ids")

BLOCK_SIZE = 100
"""Ids in one block (the migration's sequence increment and ``id_blocks.step``)."""

GAME_ID_SEQUENCE = "game_ids"
"""The PostgreSQL sequence game id blocks are taken from."""

_PG_TAKE = (
    f"SELECT nextval('{GAME_ID_SEQUENCE}'), "
    "(SELECT increment_by FROM pg_sequences "
    f"WHERE schemaname = current_schema() AND sequencename = '{GAME_ID_SEQUENCE}') "
    "FROM generate_series(1, %s)"
)
_SQLITE_MOVE = (
    "UPDATE id_blocks SET next_id = max(next_id, "
    "(SELECT coalesce(max(id), 0) + 1 FROM games)) + step * ? WHERE name = 'games'"
)
_SQLITE_READ = "SELECT next_id - step * ?, step FROM id_blocks WHERE name = 'games'"


def take_blocks(conn: Connection, count: int = 1) -> list[range]:
    """Take the next ``count`` blocks of game ids, in ``conn``'s transaction (on PostgreSQL
    the sequence moves on even if that transaction is undone: ids may be skipped, never given
    twice). Another server's blocks may come between them."""
    if conn.dialect.name == "postgresql":
        got = [(int(r[0]), int(r[1])) for r in conn.exec_driver_sql(_PG_TAKE, (count,))]
    else:
        conn.exec_driver_sql(_SQLITE_MOVE, (count,))
        start, step = conn.exec_driver_sql(_SQLITE_READ, (count,)).one()
        got = [(int(start) + i * int(step), int(step)) for i in range(count)]
    for _, step in got:
        if step < 1:
            raise ValueError(f"the game id block size must be positive, not {step}")
    return [range(start, start + step) for start, step in sorted(got)]


def take_block(conn: Connection) -> range:
    """Take the next block of game ids (:func:`take_blocks` of one)."""
    return take_blocks(conn)[0]


MOST_BLOCKS = 16
"""The most blocks asked for at once (after a burst of games used up what was asked)."""


class _Writer(Protocol):
    engine: Engine

    def submit(
        self, job: Callable[[Connection], Any], done: Callable[[Any], None] | None = None
    ) -> None: ...


class GameIds:
    """Game ids from blocks of the database: :meth:`take` on the event loop, never waiting
    on the database unless every block went before the next ones came (then it reads one
    block at once, says so in the log, and asks for twice as many blocks from then on)."""

    def __init__(self, storage: _Writer) -> None:
        self._storage = storage
        self._block = range(0)
        self._pos = 0
        self._ready: deque[range] = deque()
        self._asking = False
        self._ask_for = 1
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
            if self._ready:
                self._use(self._ready.popleft())
            else:
                self.waited += 1
                self._ask_for = min(2 * self._ask_for, MOST_BLOCKS)
                log.warning("no block of game ids was ready: reading one at once")
                self._use(self._read_now())
        gid = self._block[self._pos]
        self._pos += 1
        left = len(self._block) - self._pos + sum(len(b) for b in self._ready)
        if left <= len(self._block) // 2:
            self._ask()
        return gid

    def _use(self, block: range) -> None:
        self._block, self._pos = block, 0
        self.blocks_taken += 1

    def _read_now(self) -> range:
        with self._storage.engine.begin() as conn:
            return take_block(conn)

    def _ask(self) -> None:
        """Ask the writer for the next blocks (committed with the other writes queued)."""
        if self._asking:
            return
        self._asking = True
        count = self._ask_for

        def done(result: Any) -> None:
            self._asking = False
            if isinstance(result, BaseException):
                log.warning("could not take a block of game ids: %s", result)
            else:
                self._ready.extend(result)

        self._storage.submit(lambda conn: take_blocks(conn, count), done)
