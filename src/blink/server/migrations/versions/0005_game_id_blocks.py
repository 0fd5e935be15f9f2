"""Game ids in blocks, unique across servers sharing one database.

Game ids were one more than ``MAX(games.id)``, counted in each server's memory, so two servers
on one database would have given the same ids. Now each server takes blocks of ids from the
database (:mod:`blink.server.ids`): on PostgreSQL from the sequence ``game_ids`` (its increment
is the block size), on SQLite from the row ``games`` of the new table ``id_blocks``. Both start
after the largest id already stored: existing games keep theirs.

Revision ID: 0005_game_id_blocks
Revises: 0004_game_bot_seeds
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_game_id_blocks"
down_revision = "0004_game_bot_seeds"
branch_labels = None
depends_on = None

BLOCK_SIZE = 100  # blink.server.ids.BLOCK_SIZE when this was written
SEQUENCE = "game_ids"


def upgrade() -> None:
    """Create the table (and on PostgreSQL the sequence), starting after the largest id."""
    table = op.create_table(
        "id_blocks",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("next_id", sa.Integer, nullable=False),
        sa.Column("step", sa.Integer, nullable=False),
    )
    bind = op.get_bind()
    first = int(bind.execute(sa.text("SELECT coalesce(max(id), 0) + 1 FROM games")).scalar_one())
    op.bulk_insert(table, [{"name": "games", "next_id": first, "step": BLOCK_SIZE}])
    if bind.dialect.name == "postgresql":
        op.execute(
            f"CREATE SEQUENCE {SEQUENCE} START WITH {first} INCREMENT BY {BLOCK_SIZE} MINVALUE 1"
        )


def downgrade() -> None:
    """Drop them (game ids are counted from ``MAX(games.id)`` again)."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP SEQUENCE IF EXISTS {SEQUENCE}")
    op.drop_table("id_blocks")
