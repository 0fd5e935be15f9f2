"""Profile names unique by the database: ``profiles.name_key`` with a unique index.

Two profiles may not have names that compare equal (:func:`blink.server.names.name_key`:
NFKC, case folded). That was checked against the names a server had read into its memory, so
two servers sharing one database could both give out one name. Now every profile row keeps its
name's key and a unique index refuses a second one. Existing rows get their key here; should
two of them already share one, the later (by creation) keeps its name with a key made unique
by its id.

Revision ID: 0006_profile_name_keys
Revises: 0005_game_id_blocks
Create Date: 2026-12-01
"""

from __future__ import annotations

import unicodedata

import sqlalchemy as sa
from alembic import op

revision = "0006_profile_name_keys"
down_revision = "0005_game_id_blocks"
branch_labels = None
depends_on = None


def _key(name: str) -> str:
    # blink.server.names.name_key when this was written (a migration keeps its own copy).
    return unicodedata.normalize("NFKC", name).casefold()


def upgrade() -> None:
    """Add the column, fill it, and index it (unique)."""
    with op.batch_alter_table("profiles") as batch:
        batch.add_column(sa.Column("name_key", sa.String(128), nullable=True))
    bind = op.get_bind()
    seen: set[str] = set()
    rows = bind.execute(sa.text("SELECT id, name FROM profiles ORDER BY created_at, id")).all()
    for pid, name in rows:
        key = _key(name)
        if key in seen:
            key = f"{key}#{pid}"
        seen.add(key)
        bind.execute(
            sa.text("UPDATE profiles SET name_key = :k WHERE id = :i"), {"k": key, "i": pid}
        )
    op.create_index("ix_profiles_name_key", "profiles", ["name_key"], unique=True)


def downgrade() -> None:
    """Drop the index and the column."""
    op.drop_index("ix_profiles_name_key", table_name="profiles")
    with op.batch_alter_table("profiles") as batch:
        batch.drop_column("name_key")
