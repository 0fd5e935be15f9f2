"""Player profiles, their rating history, and online/real-cards tournaments.

Revision ID: 0002_profiles_tournaments
Revises: 0001
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_profiles_tournaments"
# The initial migration's revision id is "0001" (its file is 0001_initial.py).
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the profile, rating-history and tournament tables."""
    op.create_table(
        "profiles",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("secret_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
    )
    op.create_table(
        "profile_games",
        sa.Column("profile_id", sa.String(16), primary_key=True),
        sa.Column("game_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("room_code", sa.String(8), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("opponents", sa.Text, nullable=False),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("sigma_before", sa.Float, nullable=False),
        sa.Column("mu_after", sa.Float, nullable=False),
        sa.Column("sigma_after", sa.Float, nullable=False),
    )
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("organiser_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
    )


def downgrade() -> None:
    """Drop the tables."""
    op.drop_table("tournaments")
    op.drop_table("profile_games")
    op.drop_table("profiles")
