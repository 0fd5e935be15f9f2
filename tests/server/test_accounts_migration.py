"""Migration 0010_accounts on SQLite and PostgreSQL: the account tables are made, every
profile's name is keyed again by its look-alike skeleton (two existing look-alikes both keep
their names, the later with a key made unique), and the downgrade undoes it."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from blink.server import schema
from blink.server.names import name_key


def _config(conn: sa.Connection) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(schema.__file__).parent / "migrations"))
    cfg.attributes["connection"] = conn
    return cfg


def _profile(pid: str, name: str, at: float) -> dict[str, object]:
    return {
        "id": pid,
        "name": name,
        "secret_hash": f"h{pid}",
        "created_at": at,
        "mu": 25.0,
        "sigma": 8.3,
        "games": 0,
        "wins": 0,
        "name_key": name.casefold(),
    }


def test_upgrade_and_downgrade(db_url: str) -> None:
    engine = sa.create_engine(db_url)
    with engine.begin() as conn:
        command.upgrade(_config(conn), "0009_game_paused")
    cols = "id, name, secret_hash, created_at, mu, sigma, games, wins, name_key"
    insert = sa.text(
        f"INSERT INTO profiles ({cols}) VALUES "
        "(:id, :name, :secret_hash, :created_at, :mu, :sigma, :games, :wins, :name_key)"
    )
    with engine.begin() as conn:
        for row in (_profile("p1", "Pepe", 1.0), _profile("p2", "Рере", 2.0)):
            conn.execute(insert, row)
        conn.execute(insert, _profile("p3", "Bill", 3.0))
    with engine.begin() as conn:
        command.upgrade(_config(conn), "head")
    with engine.connect() as conn:
        keys = dict(conn.execute(sa.text("SELECT id, name_key FROM profiles")).all())
        tables = set(sa.inspect(conn).get_table_names())
    assert keys == {"p1": name_key("Pepe"), "p2": f"{name_key('Pepe')}#p2", "p3": "blll"}
    assert {"accounts", "account_sessions", "recovery_codes"} <= tables
    with engine.begin() as conn:
        command.downgrade(_config(conn), "0009_game_paused")
    with engine.connect() as conn:
        keys = dict(conn.execute(sa.text("SELECT id, name_key FROM profiles")).all())
        tables = set(sa.inspect(conn).get_table_names())
    assert keys == {"p1": "pepe", "p2": "рере", "p3": "bill"}
    assert "accounts" not in tables
    engine.dispose()


def test_two_names_keyed_alike_by_the_migration_both_log_in(tmp_path: Path) -> None:
    """After 0010 two old look-alike profiles keep their names ("Pepe" holds the key, "Рере"
    the key and its id): each account is found by its own name as written."""
    from blink.server.accounts import store

    engine = sa.create_engine(f"sqlite:///{tmp_path / 'a.db'}")
    with engine.begin() as conn:
        command.upgrade(_config(conn), "head")
    account = {"password_hash": "x", "password_box": "x", "vault": "x", "created_at": 1.0}
    with engine.begin() as conn:
        for pid, name, key in (("p1", "Pepe", "pepe"), ("p2", "Рере", "pepe#p2")):
            conn.execute(
                sa.insert(store.profiles).values(**{**_profile(pid, name, 1.0), "name_key": key})
            )
            conn.execute(sa.insert(store.accounts).values(id=f"a{pid}", profile_id=pid, **account))
    with engine.connect() as conn:
        assert store.by_name(conn, "PEPE").id == "ap1"
        assert store.by_name(conn, "рере").id == "ap2"
        assert store.by_name(conn, "Pepé") is None
    engine.dispose()
