"""Migration 0015_tournament_leases on SQLite and PostgreSQL: the tournaments' lease epochs'
table is made over 0014's, and the downgrade removes it and nothing else."""

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


def _tables(engine: sa.Engine) -> set[str]:
    with engine.connect() as conn:
        return set(sa.inspect(conn).get_table_names())


def test_upgrade_and_downgrade(db_url: str) -> None:
    engine = sa.create_engine(db_url)
    with engine.begin() as conn:
        command.upgrade(_config(conn), "0014_account_mail")
    before = _tables(engine)
    assert "tournament_leases" not in before
    with engine.begin() as conn:
        command.upgrade(_config(conn), "0015_tournament_leases")
    with engine.connect() as conn:
        columns = {c["name"] for c in sa.inspect(conn).get_columns("tournament_leases")}
        key = sa.inspect(conn).get_pk_constraint("tournament_leases")["constrained_columns"]
    assert columns == {"id", "epoch"} and key == ["id"]
    with engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO tournament_leases (id, epoch) VALUES ('t1', 3)"))
    with engine.begin() as conn:
        command.downgrade(_config(conn), "0014_account_mail")
    assert _tables(engine) == before
    with engine.begin() as conn:
        command.upgrade(_config(conn), "head")
    assert "tournament_leases" in _tables(engine)
    engine.dispose()
