"""The initial schema: rooms, seats, games and their action logs.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the tables."""
    op.create_table(
        "rooms",
        sa.Column("code", sa.String(8), primary_key=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("best_of", sa.Integer, nullable=False),
        sa.Column("ruleset", sa.String(32), nullable=False),
        sa.Column("sizes", sa.Text, nullable=True),
        sa.Column("public", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("series_number", sa.Integer, nullable=False),
    )
    op.create_table(
        "seats",
        sa.Column("room_code", sa.String(8), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("bot", sa.String(64), nullable=True),
        sa.Column("name", sa.String(32), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("left", sa.Boolean, nullable=False),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("room_code", sa.String(8), nullable=False),
        sa.Column("series_number", sa.Integer, nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("ruleset", sa.Text, nullable=False),
        sa.Column("sizes", sa.Text, nullable=True),
        sa.Column("deck", sa.Text, nullable=False),
        sa.Column("names", sa.Text, nullable=False),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("ended_at", sa.Float, nullable=True),
        sa.Column("result", sa.Text, nullable=True),
    )
    op.create_index("ix_games_room_code", "games", ["room_code"])
    op.create_table(
        "actions",
        sa.Column("game_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("client_id", sa.String(64), nullable=True),
    )


def downgrade() -> None:
    """Drop the tables."""
    op.drop_table("actions")
    op.drop_index("ix_games_room_code", table_name="games")
    op.drop_table("games")
    op.drop_table("seats")
    op.drop_table("rooms")
