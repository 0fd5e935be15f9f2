"""Migration 0014_account_mail on SQLite and PostgreSQL: the accounts' address columns and
the reset tokens' table are made over 0013's, and the downgrade removes them and nothing
else."""

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


def _columns(engine: sa.Engine, table: str) -> set[str]:
    with engine.connect() as conn:
        return {c["name"] for c in sa.inspect(conn).get_columns(table)}


def test_upgrade_and_downgrade(db_url: str) -> None:
    engine = sa.create_engine(db_url)
    with engine.begin() as conn:
        command.upgrade(_config(conn), "0013_bots")
        conn.execute(
            sa.text(
                "INSERT INTO accounts (id, profile_id, password_hash, password_box, vault,"
                " created_at) VALUES ('a', 'p', 'h', 'b', 'v', 1.0)"
            )
        )
    with engine.begin() as conn:
        command.upgrade(_config(conn), "0014_account_mail")
    assert {"email", "email_key"} <= _columns(engine, "accounts")
    assert _columns(engine, "password_resets") == {
        "token_hash",
        "account_id",
        "created_at",
        "expires_at",
    }
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE accounts SET email = 'a@x.org', email_key = 'a@x.org'"))
        conn.execute(
            sa.text(
                "INSERT INTO password_resets (token_hash, account_id, created_at, expires_at)"
                " VALUES ('t', 'a', 1.0, 2.0)"
            )
        )
    with engine.begin() as conn:
        command.downgrade(_config(conn), "0013_bots")
    with engine.connect() as conn:
        tables = set(sa.inspect(conn).get_table_names())
        kept = conn.execute(sa.text("SELECT id, vault FROM accounts")).all()
    assert "password_resets" not in tables and {"accounts", "bots"} <= tables
    assert not {"email", "email_key"} & _columns(engine, "accounts")
    assert [tuple(r) for r in kept] == [("a", "v")]
    with engine.begin() as conn:
        command.upgrade(_config(conn), "head")
    assert "email" in _columns(engine, "accounts")
    engine.dispose()
