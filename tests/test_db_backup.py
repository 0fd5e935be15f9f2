"""``blink db backup``, ``blink db restore`` and ``blink db migrate`` on real databases.

A real ``blink serve`` plays games in two rooms while ``blink db backup`` copies its database;
every play acknowledged and every game ended before the backup began is in the backup, and in
the database ``blink db restore`` makes from it, which ``blink db check`` replays and a new
server serves. On SQLite (the online backup) and, when ``BLINK_TEST_DATABASE_URL`` is set
(scripts/postgres.sh), on PostgreSQL (pg_dump and pg_restore). Errors are one sentence on
stderr and exit status 2.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from blink.cli.dbcopy import head_revision
from serve_process import FAST, Client, ServeProcess, bot_loop, pg_create_db, pg_drop_db

pytestmark = pytest.mark.timeout(400)

PG_URL = os.environ.get("BLINK_TEST_DATABASE_URL")


def blink(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``blink ARGS`` in a child process."""
    return subprocess.run(
        [sys.executable, "-m", "blink", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``blink ARGS`` run in this process (the same app as the command, without a new
    interpreter's start): its exit status, stdout and stderr."""
    from typer.testing import CliRunner

    from blink.cli import app

    r = CliRunner().invoke(app, list(args), env=env)
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return subprocess.CompletedProcess(list(args), r.exit_code, r.stdout, r.stderr)


def one_sentence_exit_2(done: subprocess.CompletedProcess[str], *words: str) -> None:
    """Refused as the commands refuse: one line on stderr, exit status 2, no traceback."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    for word in words:
        assert word in lines[0], lines[0]


def stored(url: str) -> tuple[set[str], set[int]]:
    """The client ids of every action stored, and the ids of the games stored as ended."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            ids = {r[0] for r in conn.execute(text("SELECT client_id FROM actions")) if r[0]}
            ended = {
                int(r[0])
                for r in conn.execute(text("SELECT id FROM games WHERE result IS NOT NULL"))
            }
    finally:
        engine.dispose()
    return ids, ended


def acknowledged(clients: list[Client]) -> tuple[set[str], set[int]]:
    """What the server has acknowledged so far: the ids of acked plays, and ended games."""
    acks = {m["id"] for c in clients for m in list(c.msgs) if m["type"] == "ack"}
    ended = {int(m["game"]) for c in clients for m in list(c.msgs) if m["type"] == "game_end"}
    return acks, ended


async def start_rooms(server: ServeProcess, rooms: int) -> list[Client]:
    """``rooms`` best-of-three rooms of two seated clients each."""
    clients: list[Client] = []
    for r in range(rooms):
        made = server.post("/api/rooms", {"players": 2, "name": f"A{r}", "best_of": 3})
        assert made.status_code == 201, made.text
        code, token_a = made.json()["code"], made.json()["token"]
        joined = server.post(f"/api/rooms/{code}/join", {"name": f"B{r}"})
        assert joined.status_code == 200, joined.text
        for name, token in ((f"A{r}", token_a), (f"B{r}", joined.json()["token"])):
            clients.append(await Client(name).connect(server.ws, room=code, token=token))
    return clients


async def backup_under_load(
    server: ServeProcess, backup: Path, where: list[str]
) -> tuple[set[str], set[int], list[Client]]:
    """Play two games in each of two rooms and back the database up once a game has ended,
    while the others go on; what had been acknowledged before the backup began."""
    clients = await start_rooms(server, 2)
    loops = [asyncio.create_task(bot_loop(c, games=2)) for c in clients]
    while not acknowledged(clients)[1]:
        done = [t for t in loops if t.done()]
        for t in done:
            t.result()  # a loop that failed says why
        await asyncio.sleep(0.05)
    acks, ended = acknowledged(clients)
    done = await asyncio.to_thread(blink, "db", "backup", str(backup), *where)
    assert done.returncode == 0, done.stderr
    assert "Backed up" in done.stdout
    # The games go on to their end meanwhile and after.
    await asyncio.wait_for(asyncio.gather(*loops), 300)
    assert acknowledged(clients)[0] > acks
    for c in clients:
        await c.close()
    return acks, ended, clients


@pytest.fixture
def started() -> Iterator[list[ServeProcess]]:
    procs: list[ServeProcess] = []
    yield procs
    for p in procs:
        p.stop()


async def test_sqlite_backup_under_load_and_restore(
    tmp_path: Path, started: list[ServeProcess]
) -> None:
    db = tmp_path / "live.db"
    server = ServeProcess(db, *FAST)
    started.append(server)
    server.start()
    backup = tmp_path / "backup.db"
    acks, ended, _ = await backup_under_load(server, backup, ["--db", str(db)])
    assert acks and ended
    # One self-contained file (no -wal needed beside it), checked and complete.
    assert not Path(f"{backup}-wal").exists()
    in_backup = stored(f"sqlite:///{backup}")
    assert acks <= in_backup[0]
    assert ended <= in_backup[1]

    fresh = tmp_path / "restored.db"
    done = cli("db", "restore", str(backup), "--db", str(fresh))
    assert done.returncode == 0, done.stderr
    assert stored(f"sqlite:///{fresh}") == in_backup
    check = cli("db", "check", "--db", str(fresh))
    assert check.returncode == 0, check.stderr
    assert "every one replays" in check.stderr

    # Restoring over a database that holds games needs --force (its servers stopped).
    again = cli("db", "restore", str(backup), "--db", str(fresh))
    one_sentence_exit_2(again, "already holds", "--force")
    forced = cli("db", "restore", str(backup), "--db", str(fresh), "--force")
    assert forced.returncode == 0, forced.stderr

    # A server on the restored file serves the rooms of the backup.
    with sqlite3.connect(fresh) as conn:
        codes = [r[0] for r in conn.execute("SELECT code FROM rooms")]
    assert len(codes) == 2
    server.stop()
    restored = ServeProcess(fresh, *FAST)
    started.append(restored)
    restored.start()
    for code in codes:
        assert restored.get(f"/api/rooms/{code}").json()["code"] == code


@pytest.mark.skipif(not PG_URL, reason="needs BLINK_TEST_DATABASE_URL (scripts/postgres.sh)")
async def test_postgres_backup_under_load_and_restore(
    tmp_path: Path, started: list[ServeProcess]
) -> None:
    assert PG_URL is not None
    names = ["blink_bk_" + secrets.token_hex(5) for _ in range(2)]
    live, target = (pg_create_db(PG_URL, n) for n in names)
    try:
        server = ServeProcess(tmp_path / "pg", *FAST, "--database-url", live, pass_db=False)
        started.append(server)
        server.start()
        backup = tmp_path / "blink.dump"
        acks, ended, _ = await backup_under_load(server, backup, ["--database-url", live])
        assert backup.read_bytes().startswith(b"PGDMP")
        server.stop()

        done = cli("db", "restore", str(backup), "--database-url", target)
        assert done.returncode == 0, done.stderr
        in_target = stored(target)
        assert acks <= in_target[0]
        assert ended <= in_target[1]
        check = cli("db", "check", "--database-url", target)
        assert check.returncode == 0, check.stderr
        again = cli("db", "restore", str(backup), "--database-url", target)
        one_sentence_exit_2(again, "already holds", "--force")
        # An SQLite backup is not restored into PostgreSQL, nor the other way round.
        sqlite_backup = tmp_path / "s.db"
        assert cli("db", "migrate", "--db", str(sqlite_backup)).returncode == 0
        wrong = cli("db", "restore", str(sqlite_backup), "--database-url", target, "--force")
        one_sentence_exit_2(wrong, "SQLite backup", "--db")
        wrong = cli("db", "restore", str(backup), "--db", str(tmp_path / "x.db"))
        one_sentence_exit_2(wrong, "PostgreSQL backup", "--database-url")
    finally:
        for name in names:
            pg_drop_db(PG_URL, name)


def test_postgres_without_its_tools_is_one_sentence(tmp_path: Path) -> None:
    # No pg_dump or pg_restore on the PATH (only the Python running the command).
    bare = tmp_path / "bin"
    bare.mkdir()
    env = {"PATH": str(bare)}
    url = "postgresql+psycopg://blink@127.0.0.1:1/blink"
    done = cli("db", "backup", str(tmp_path / "b.dump"), "--database-url", url, env=env)
    one_sentence_exit_2(done, "pg_dump is not installed", "postgresql-client")
    dump = tmp_path / "old.dump"
    dump.write_bytes(b"PGDMP" + b"\0" * 64)
    done = cli("db", "restore", str(dump), "--database-url", url, env=env)
    one_sentence_exit_2(done, "pg_restore is not installed")


def test_errors_are_one_sentence(tmp_path: Path) -> None:
    missing = tmp_path / "none.db"
    one_sentence_exit_2(cli("db", "backup", str(tmp_path / "b.db"), "--db", str(missing)), "no")
    db = tmp_path / "blink.db"
    assert cli("db", "migrate", "--db", str(db)).returncode == 0
    one_sentence_exit_2(
        cli("db", "backup", str(tmp_path / "no" / "b.db"), "--db", str(db)), "no folder"
    )
    one_sentence_exit_2(cli("db", "backup", str(db), "--db", str(db)), "database itself")
    junk = tmp_path / "junk"
    junk.write_text("not a database")
    one_sentence_exit_2(
        cli("db", "restore", str(junk), "--db", str(tmp_path / "r.db")), "not an SQLite"
    )
    one_sentence_exit_2(
        cli("db", "restore", str(tmp_path / "gone"), "--db", str(tmp_path / "r.db")),
        "no backup file",
    )
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t (x)")
    one_sentence_exit_2(
        cli("db", "restore", str(other), "--db", str(tmp_path / "r.db")), "not a blink database"
    )
    assert not (tmp_path / "r.db").exists()


def _alembic(url: str, revision: str) -> None:
    from alembic import command
    from alembic.config import Config

    import blink.server.schema as schema

    cfg = Config()
    folder = Path(schema.__file__).resolve().parent / "migrations"
    cfg.set_main_option("script_location", str(folder))
    engine = create_engine(url)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)
    engine.dispose()


def test_migrate_runs_the_migrations_explicitly(tmp_path: Path) -> None:
    head = head_revision()
    old = tmp_path / "old.db"
    _alembic(f"sqlite:///{old}", "0007_daily_challenge")
    done = cli("db", "migrate", "--db", str(old))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"{old} migrated from 0007_daily_challenge to {head}"
    with sqlite3.connect(old) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == (head,)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "room_leases" in tables
    again = cli("db", "migrate", "--db", str(old))
    assert again.stdout.strip() == f"{old} is at the newest migration ({head}): nothing to do"
    fresh = tmp_path / "fresh.db"
    made = cli("db", "migrate", "--db", str(fresh))
    assert made.stdout.strip() == f"{fresh} migrated from an empty database to {head}"
    one_sentence_exit_2(cli("db", "migrate", "--db", str(tmp_path / "no" / "x.db")), "no folder")
    not_db = tmp_path / "text.db"
    not_db.write_text("hello " * 100)
    one_sentence_exit_2(cli("db", "migrate", "--db", str(not_db)), "not an SQLite database")
