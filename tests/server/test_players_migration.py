"""Migration 0011_players on SQLite and PostgreSQL: ``player_games`` is made and filled from
the stored games (a seat held by a profile's secret, a rated game found by the profile's
name), and the downgrade drops it."""

from __future__ import annotations

import json
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


def _insert(conn: sa.Connection, table: str, row: dict[str, object]) -> None:
    cols = ", ".join(f'"{c}"' for c in row)
    conn.execute(
        sa.text(f"INSERT INTO {table} ({cols}) VALUES ({', '.join(':' + c for c in row)})"), row
    )


def _profile(pid: str, name: str, secret_hash: str) -> dict[str, object]:
    return {
        "id": pid,
        "name": name,
        "secret_hash": secret_hash,
        "created_at": 1.0,
        "mu": 25.0,
        "sigma": 8.3,
        "games": 0,
        "wins": 0,
        "name_key": name.casefold(),
    }


def _game(gid: int, room: str, names: list[str], winners: list[int] | None) -> dict[str, object]:
    return {
        "id": gid,
        "room_code": room,
        "series_number": 1,
        "number": gid,
        "players": len(names),
        "ruleset": json.dumps({"game": "classic"}),
        "sizes": None,
        "deck": "[]",
        "names": json.dumps(names),
        "started_at": 10.0 * gid,
        "paused": False,
        "ended_at": None if winners is None else 10.0 * gid + 5,
        "result": None if winners is None else json.dumps({"winners": winners}),
    }


def test_upgrade_and_downgrade(db_url: str) -> None:
    engine = sa.create_engine(db_url)
    with engine.begin() as conn:
        command.upgrade(_config(conn), "0010_accounts")
    with engine.begin() as conn:
        _insert(conn, "profiles", _profile("p1", "Ann", "hA"))
        _insert(conn, "profiles", _profile("p2", "Bob", "hB-new"))  # Bob's secret changed
        room = {
            "code": "ROOM",
            "created_at": 1.0,
            "players": 2,
            "best_of": 3,
            "ruleset": "{}",
            "sizes": None,
            "public": True,
            "status": "over",
            "series_number": 1,
            "game": "classic",
            "options": None,
        }
        _insert(conn, "rooms", room)
        for seat, h in ((0, "hA"), (1, "hB-old")):
            _insert(
                conn,
                "seats",
                {
                    "room_code": "ROOM",
                    "seat": seat,
                    "kind": "human",
                    "bot": None,
                    "name": None,
                    "token_hash": h,
                    "left": False,
                },
            )
        _insert(conn, "games", _game(1, "ROOM", ["Ann", "Bob"], [1]))
        _insert(conn, "games", _game(2, "ROOM", ["Ann", "Bob"], [0, 1]))
        _insert(conn, "games", _game(3, "ROOM", ["Ann", "Bob"], None))  # not finished
        _insert(
            conn,
            "profile_games",
            {
                "profile_id": "p2",
                "game_id": 1,
                "room_code": "ROOM",
                "at": 15.0,
                "place": 1,
                "players": 2,
                "opponents": '["Ann"]',
                "mu_before": 25.0,
                "sigma_before": 8.3,
                "mu_after": 27.0,
                "sigma_after": 8.0,
            },
        )
    with engine.begin() as conn:
        command.upgrade(_config(conn), "head")
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT profile_id, game_id, seat, won, tie, at FROM player_games")
        ).all()
    got = {(r.profile_id, r.game_id): (r.seat, bool(r.won), bool(r.tie), r.at) for r in rows}
    assert got == {
        ("p1", 1): (0, False, False, 15.0),
        ("p1", 2): (0, True, True, 25.0),
        ("p2", 1): (1, True, False, 15.0),  # a rated game, found by Bob's name
    }
    with engine.begin() as conn:
        command.downgrade(_config(conn), "0010_accounts")
    with engine.connect() as conn:
        assert "player_games" not in set(sa.inspect(conn).get_table_names())
    with engine.begin() as conn:
        command.upgrade(_config(conn), "head")
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM player_games")).scalar_one() == 3
    engine.dispose()
