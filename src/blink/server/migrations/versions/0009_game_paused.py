"""A practice game's pause is kept: ``games.paused``.

A practice game's player may pause it (blink.server.practice); the pause is now stored with the
game, so a game restored after a restart is still paused. Existing rows are not paused.

Revision ID: 0009_game_paused
Revises: 0008_room_leases
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_game_paused"
down_revision = "0008_room_leases"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the column (existing games are not paused)."""
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("paused", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    """Drop the column."""
    with op.batch_alter_table("games") as batch:
        batch.drop_column("paused")
