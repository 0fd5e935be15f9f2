"""Migration 0012_fair_ratings on SQLite and PostgreSQL: the table of flagged profiles is made
(a flag goes in once a profile and game), and the downgrade drops it, keeping the rest."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from blink.server import schema
from blink.server.fairness import fair_play_flags


def _config(conn: sa.Connection) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(schema.__file__).parent / "migrations"))
    cfg.attributes["connection"] = conn
    return cfg


def test_upgrade_and_downgrade(db_url: str) -> None:
    engine = sa.create_engine(db_url)
    with engine.begin() as conn:
        command.upgrade(_config(conn), "0011_players")
    with engine.connect() as conn:
        assert "fair_play_flags" not in sa.inspect(conn).get_table_names()
    with engine.begin() as conn:
        command.upgrade(_config(conn), "0012_fair_ratings")
    row = {
        "profile_id": "p1",
        "game_id": 7,
        "room_code": "ABC123",
        "at": 1.0,
        "timed": 20,
        "fast": 19,
        "median_ms": 3,
    }
    with engine.begin() as conn:
        conn.execute(sa.insert(fair_play_flags).values(**row))
    with engine.connect() as conn:
        assert [tuple(r) for r in conn.execute(sa.select(fair_play_flags))] == [tuple(row.values())]
    try:
        with engine.begin() as conn:
            conn.execute(sa.insert(fair_play_flags).values(**row))
        raise AssertionError("a second flag of the same profile and game went in")
    except sa.exc.IntegrityError:
        pass
    with engine.begin() as conn:
        command.downgrade(_config(conn), "0011_players")
    with engine.connect() as conn:
        tables = set(sa.inspect(conn).get_table_names())
    assert "fair_play_flags" not in tables and {"profiles", "accounts"} <= tables
    engine.dispose()
