"""The daily challenge: ``daily_days`` (each day's deal seed and bot) and ``daily_entries``
(each profile's ranked attempt of a day and its result).

A day's row is inserted the first time the day is asked for; its primary key, the date, makes
servers sharing the database agree on one seed. An entry's primary key (date, profile) allows
one ranked attempt a day.

Revision ID: 0007_daily_challenge
Revises: 0006_profile_name_keys
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_daily_challenge"
down_revision = "0006_profile_name_keys"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the two tables."""
    op.create_table(
        "daily_days",
        sa.Column("date", sa.String(10), primary_key=True),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("bot", sa.String(64), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "daily_entries",
        sa.Column("date", sa.String(10), primary_key=True),
        sa.Column("profile_id", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("room_code", sa.String(8), nullable=True),
        sa.Column("game_id", sa.Integer, nullable=True),
        sa.Column("won", sa.Boolean, nullable=True),
        sa.Column("duration_ms", sa.Integer, nullable=True),
        sa.Column("plays", sa.Integer, nullable=True),
    )


def downgrade() -> None:
    """Drop the two tables."""
    op.drop_table("daily_entries")
    op.drop_table("daily_days")
