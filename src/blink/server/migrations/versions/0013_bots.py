"""Bot accounts and their tokens.

Two tables (``blink.server.bot_accounts.store``): ``bots``, one a bot account (its own
profile, ``profile_id``, and the account that owns it, ``account_id``); and ``bot_tokens``,
every token a bot was ever given, kept only as its SHA-256 (``token_hash``), with when it was
made and when it was rotated away or revoked (``revoked_at``, null while it is the bot's
token). The bot's live token is also its profile's secret (``profiles.secret_hash``), so a
seat taken with it is the bot's profile's seat.

Revision ID: 0013_bots
Revises: 0010_accounts
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_bots"
down_revision = "0012_fair_ratings"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Make the two tables."""
    op.create_table(
        "bots",
        sa.Column("profile_id", sa.String(16), primary_key=True),
        sa.Column("account_id", sa.String(16), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_bots_account_id", "bots", ["account_id"])
    op.create_table(
        "bot_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("profile_id", sa.String(16), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("revoked_at", sa.Float, nullable=True),
    )
    op.create_index("ix_bot_tokens_profile_id", "bot_tokens", ["profile_id"])


def downgrade() -> None:
    """Drop the two tables."""
    op.drop_index("ix_bot_tokens_profile_id", table_name="bot_tokens")
    op.drop_table("bot_tokens")
    op.drop_index("ix_bots_account_id", table_name="bots")
    op.drop_table("bots")
