"""Migration 0013_bots on SQLite and PostgreSQL: the bot tables are made over 0010's, and
the downgrade drops them and nothing else."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from blink.server import schema


def _config(conn: sa.Connection) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(schema.__file__).parent / "migrations"))
    cfg.attributes["connection"] = conn
    return cfg


def test_upgrade_and_downgrade(db_url: str) -> None:
    engine = sa.create_engine(db_url)
    with engine.begin() as conn:
        command.upgrade(_config(conn), "0013_bots")
    with engine.connect() as conn:
        tables = set(sa.inspect(conn).get_table_names())
        columns = {c["name"] for c in sa.inspect(conn).get_columns("bot_tokens")}
    assert {"bots", "bot_tokens", "accounts", "profiles"} <= tables
    assert columns == {"token_hash", "profile_id", "created_at", "revoked_at"}
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO bot_tokens (token_hash, profile_id, created_at) VALUES ('h', 'p', 1.0)"
            )
        )
    with engine.begin() as conn:
        command.downgrade(_config(conn), "0012_fair_ratings")
    with engine.connect() as conn:
        tables = set(sa.inspect(conn).get_table_names())
    assert "bots" not in tables and "bot_tokens" not in tables
    assert {"accounts", "profiles"} <= tables
    with engine.begin() as conn:
        command.upgrade(_config(conn), "head")
    with engine.connect() as conn:
        assert "bot_tokens" in set(sa.inspect(conn).get_table_names())
    engine.dispose()
