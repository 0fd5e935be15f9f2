"""Fair ratings: the profiles flagged for playing faster than a person, ``fair_play_flags``.

One row a flagged profile and game (primary key ``profile_id``, ``game_id``): the room, when,
the seat's timed actions, how many came under the reaction floor and their median
(blink.server.fairness; the rules are blink.fair_play). ``blink db flagged`` lists them.

Revision ID: 0012_fair_ratings
Revises: 0010_accounts
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_fair_ratings"
down_revision = "0011_players"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Make the table."""
    op.create_table(
        "fair_play_flags",
        sa.Column("profile_id", sa.String(16), primary_key=True),
        sa.Column("game_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("room_code", sa.String(8), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("timed", sa.Integer, nullable=False),
        sa.Column("fast", sa.Integer, nullable=False),
        sa.Column("median_ms", sa.Integer, nullable=True),
    )


def downgrade() -> None:
    """Drop the table."""
    op.drop_table("fair_play_flags")
