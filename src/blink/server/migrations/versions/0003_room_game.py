"""Each room names its game and keeps its options: ``rooms.game`` and ``rooms.options``.

Before, a Go Blink room was told apart by ``ruleset = "goblink"`` and a classic room's options
were its ruleset and sizes columns. Existing rows are filled in: rooms with ``ruleset`` of a
game's name (``goblink``) play that game, every other room the default game (classic), with
its options read from those columns when they are next loaded.

Revision ID: 0003_room_game
Revises: 0002_profiles_tournaments
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_room_game"
down_revision = "0002_profiles_tournaments"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the columns and fill in the game of the existing rooms."""
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("game", sa.String(16), nullable=False, server_default="classic"))
        batch.add_column(sa.Column("options", sa.Text, nullable=True))
    op.execute("UPDATE rooms SET game = 'goblink' WHERE ruleset = 'goblink'")


def downgrade() -> None:
    """Drop the columns (a Go Blink room keeps its ``ruleset = 'goblink'``)."""
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("options")
        batch.drop_column("game")
