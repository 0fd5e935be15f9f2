"""Accounts' mail: an optional address, and password reset tokens.

``accounts`` gains ``email`` (the address as given, nullable) and ``email_key`` (stripped,
lower case, indexed: what a reset request is looked up by). ``password_resets`` holds the
SHA-256 of each reset token mailed (``token_hash``), its account, and when it was made and
expires (``blink.server.accounts.reset``).

Revision ID: 0014_account_mail
Revises: 0013_bots
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_account_mail"
down_revision = "0013_bots"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the address columns and the tokens' table."""
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("email", sa.String(254), nullable=True))
        batch.add_column(sa.Column("email_key", sa.String(254), nullable=True))
    op.create_index("ix_accounts_email_key", "accounts", ["email_key"])
    op.create_table(
        "password_resets",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.String(16), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_index("ix_password_resets_account_id", "password_resets", ["account_id"])


def downgrade() -> None:
    """Drop the tokens' table and the address columns."""
    op.drop_index("ix_password_resets_account_id", table_name="password_resets")
    op.drop_table("password_resets")
    op.drop_index("ix_accounts_email_key", table_name="accounts")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("email_key")
        batch.drop_column("email")
