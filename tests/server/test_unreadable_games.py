"""A stored game whose log does not replay (a damaged database, or writes of a node that had
lost its room, before leases were fenced): its record and replay answer ``409
game_unreadable``, never 500, and ``blink db check`` (run for real) lists it, exit status 1,
on SQLite and PostgreSQL."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import create_engine, insert, select
from srvkit import ServerThread, play_series, seat_clients

from blink.server.schema import actions

pytestmark = pytest.mark.timeout(600)


async def finished_game(server: ServerThread) -> tuple[str, int, int]:
    """Play a room's series to its end: the room's code, its last game's id and how many
    games were played (a tie means one more)."""
    code, clients, _ = await seat_clients(server)
    ends = await play_series(clients)
    for c in clients:
        await c.close()
    return code, int(ends[-1]["game"]), len(ends)


def add_action_after_the_end(url: str, game: int) -> int:
    """Store the game's last action again after it, as a node that had lost the room once
    did: the game is over by then. Returns its seq."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            last = conn.execute(
                select(actions)
                .where(actions.c.game_id == game)
                .order_by(actions.c.seq.desc())
                .limit(1)
            ).one()
            seq = int(last.seq) + 1
            row = {**last._asdict(), "seq": seq, "client_id": "stale-1"}
            conn.execute(insert(actions).values(**row))
        return seq
    finally:
        engine.dispose()


def blink_db(*args: str) -> subprocess.CompletedProcess[str]:
    """``blink db ARGS`` run to its end."""
    return subprocess.run(
        [sys.executable, "-m", "blink", "db", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "100"},
    )


async def test_an_unreplayable_game_is_a_clear_error(server: ServerThread) -> None:
    code, game, _ = await finished_game(server)
    assert server.get(f"/api/games/{game}/record").status_code == 200
    seq = add_action_after_the_end(server.settings.database_url, game)
    for path in (
        f"/api/games/{game}/record",
        f"/api/games/{game}/replay",
        f"/api/rooms/{code}/record",
    ):
        r = server.get(path)
        assert r.status_code == 409, (path, r.status_code, r.text)
        error = r.json()["error"]
        assert error["code"] == "game_unreadable"
        assert error["message"].startswith(f"game {game} does not replay: action {seq}: ")
        assert "\n" not in error["message"]
    assert server.get("/api/games?status=finished").status_code == 200  # the listing still works


async def test_blink_db_check_lists_the_games_that_do_not_replay(
    make_server: Callable[..., ServerThread], db_url: str
) -> None:
    server = make_server()
    _, good, first = await finished_game(server)
    code, bad, second = await finished_game(server)
    stored = f"{first + second} games"
    checked = blink_db("check", "--database-url", db_url)
    assert checked.returncode == 0, (checked.stdout, checked.stderr)
    assert checked.stdout == ""
    assert stored in checked.stderr and "every one replays" in checked.stderr
    seq = add_action_after_the_end(db_url, bad)
    checked = blink_db("check", "--database-url", db_url)
    assert checked.returncode == 1, (checked.stdout, checked.stderr)
    assert "Traceback" not in checked.stderr
    (line,) = checked.stdout.splitlines()
    assert line.startswith(f"game {bad} (room {code}): action {seq}: "), line
    assert f"game {good} " not in checked.stdout  # (its digits may be in a room code)
    assert f"1 of {stored}" in checked.stderr


def test_blink_db_check_on_a_file(tmp_path: Path) -> None:
    missing = tmp_path / "none.db"
    done = blink_db("check", "--db", str(missing))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert "there is no database file" in line and str(missing) in line
    assert not missing.exists()  # checking makes no database
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database, only some bytes" * 100)
    done = blink_db("check", "--db", str(junk))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert "not an SQLite database" in line
    empty = tmp_path / "empty.db"
    empty.touch()
    done = blink_db("check", "--db", str(empty))
    assert done.returncode == 0, done.stderr
    assert "0 games" in done.stderr


def test_blink_db_check_on_a_server_that_does_not_answer() -> None:
    done = blink_db("check", "--database-url", "postgresql+psycopg://nobody@127.0.0.1:1/none")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert "cannot connect" in line
