"""The database schema: rooms, seats, games and the action log (SQLAlchemy Core tables).

The tables are created or upgraded by the Alembic migrations shipped in
``blink/server/migrations`` (:func:`migrate`, run by :class:`blink.server.storage.Storage` at
every start; ``migrations/env.py`` compares against :data:`metadata`). The profile and
tournament tables are defined beside their code (:mod:`blink.server.profiles`,
:mod:`blink.server.tournaments`).
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Engine,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    false,
)

__all__ = [
    "actions",
    "games",
    "id_blocks",
    "metadata",
    "migrate",
    "room_leases",
    "rooms",
    "seats",
    "tournament_leases",
]

metadata = MetaData()

rooms = Table(
    "rooms",
    metadata,
    Column("code", String(8), primary_key=True),
    Column("created_at", Float, nullable=False),
    Column("players", Integer, nullable=False),
    Column("best_of", Integer, nullable=False),
    Column("public", Boolean, nullable=False),
    Column("status", String(16), nullable=False),
    Column("series_number", Integer, nullable=False),
    Column("game", String(16), nullable=False, server_default="classic"),
    Column("options", Text, nullable=False),
)
"""A room: ``game`` its game, ``options`` the options it was opened with (JSON, the game's own
and the room's: a classic room's ruleset and draw-pile sizes, a practice room's flag...)."""

seats = Table(
    "seats",
    metadata,
    Column("room_code", String(8), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("kind", String(8), nullable=False),
    Column("bot", String(64), nullable=True),
    Column("name", String(32), nullable=True),
    Column("token_hash", String(64), nullable=True),
    Column("left", Boolean, nullable=False),
)

games = Table(
    "games",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("room_code", String(8), nullable=False, index=True),
    Column("series_number", Integer, nullable=False),
    Column("number", Integer, nullable=False),
    Column("players", Integer, nullable=False),
    Column("deal_options", Text, nullable=False),
    Column("deck", Text, nullable=False),
    Column("names", Text, nullable=False),
    Column("started_at", Float, nullable=False),
    Column("ended_at", Float, nullable=True),
    Column("result", Text, nullable=True),
    Column("bot_seeds", Text, nullable=True),
    Column("paused", Boolean, nullable=False, server_default=false()),
)
"""A game of a room: its deal (``deck``, ``players``) and in ``deal_options`` its game's name
with the options part of its record, as JSON (``{"game": ..., **encode_options}``: a classic
game's ruleset and draw-pile sizes are there), read back by :mod:`blink.server.stored`."""

actions = Table(
    "actions",
    metadata,
    Column("game_id", Integer, primary_key=True, autoincrement=False),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("action", Text, nullable=False),
    Column("seat", Integer, nullable=True),
    Column("client_id", String(64), nullable=True),
)

id_blocks = Table(
    "id_blocks",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("next_id", Integer, nullable=False),
    Column("step", Integer, nullable=False),
)
"""The next block of ids of each kind (``games``) on SQLite: see :mod:`blink.server.ids`
(PostgreSQL takes game id blocks from the ``game_ids`` sequence instead)."""

room_leases = Table(
    "room_leases",
    metadata,
    Column("code", String(8), primary_key=True),
    Column("epoch", BigInteger, nullable=False),
)
"""Each room's lease epoch, the fencing token of a cluster's room leases
(:mod:`blink.server.lease`): one more each time a node takes the room's lease, and every
write of the room is committed only while it is still the epoch the write was made under
(:class:`blink.server.jobs.Fenced`). A single server never writes it."""

tournament_leases = Table(
    "tournament_leases",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("epoch", BigInteger, nullable=False),
)
"""Each tournament's lease epoch, the fencing token of a cluster's tournament leases
(:mod:`blink.server.lease`): one more each time a node takes the lease to organise the
tournament, and every store its organiser makes is committed only while it is still the epoch
the store was made under (:mod:`blink.server.tournaments.fences`). A single server never
writes it."""


def migrate(engine: Engine) -> None:
    """Create or upgrade the schema to the newest migration (Alembic ``upgrade head``)."""
    # Alembic is imported here, not at the top: only opening a database needs it, and
    # importing the schema (the tables) should not load it.
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).resolve().parent / "migrations"))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
