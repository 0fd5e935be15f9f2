"""Backing up and restoring the server's database, and its migrations run on demand: the work
of ``blink db backup``, ``blink db restore`` and ``blink db migrate``.

* SQLite: SQLite's online backup (:meth:`sqlite3.Connection.backup`), which copies a consistent
  snapshot of the file while a running server goes on writing to it (in WAL mode the server's
  commits are not blocked), into a temporary file beside the backup, moved there whole.
* PostgreSQL: ``pg_dump --format=custom`` and ``pg_restore``, PostgreSQL's own tools (from its
  client programs), with the password given in ``PGPASSWORD``, never on a command line.

Every failure is a :class:`DbCopyError`: a code, and one sentence saying what to do.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path

from blink.files import replacing

__all__ = [
    "DbCopyError",
    "Revisions",
    "backup_postgres",
    "backup_sqlite",
    "head_revision",
    "restore_postgres",
    "restore_sqlite",
    "revision_of",
]

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_DUMP_MAGIC = b"PGDMP"
BLINK_TABLES = frozenset({"alembic_version", "rooms", "games", "actions"})
"""Tables every blink database has (the first migration's and Alembic's)."""
INSTALL_PG_TOOLS = (
    "install PostgreSQL's client programs (Debian and Ubuntu: apt-get install postgresql-client)"
)


class DbCopyError(Exception):
    """Why a backup, a restore or a migration cannot be done: ``code`` for programs, ``str()``
    one sentence for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Revisions:
    """A database's migration before and after ``blink db migrate`` (``None``: no schema)."""

    before: str | None
    after: str | None


def head_revision() -> str:
    """The newest migration of this blink version."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    import blink.server.schema as schema

    cfg = Config()
    folder = Path(schema.__file__).resolve().parent / "migrations"
    cfg.set_main_option("script_location", str(folder))
    head = ScriptDirectory.from_config(cfg).get_current_head()
    assert head is not None
    return head


def revision_of(url: str) -> str | None:
    """The migration a database is at (``None``: no blink schema yet). Raises SQLAlchemy's
    errors when it cannot be opened."""
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy import create_engine

    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


# --- SQLite -----------------------------------------------------------------------------------


def _check_target_folder(target: Path, what: str) -> None:
    if target.is_dir():
        raise DbCopyError("target_folder", f"{target} is a folder: give {what} a file name")
    if not target.parent.is_dir():
        raise DbCopyError(
            "target_folder", f"there is no folder {target.parent} for {target}: make it first"
        )


def _sqlite_tables(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {str(name) for (name,) in rows}


def _open_sqlite(path: Path, what: str) -> sqlite3.Connection:
    """An existing SQLite file of blink, opened without creating anything."""
    if not path.is_file():
        raise DbCopyError("no_database", f"there is no database file {path}: give {what}")
    with path.open("rb") as f:
        if f.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
            raise DbCopyError("not_sqlite", f"{path} is not an SQLite database")
    try:
        conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=30)
        missing = BLINK_TABLES - _sqlite_tables(conn)
    except sqlite3.Error as exc:
        raise DbCopyError("unreadable", f"cannot read the SQLite file {path} ({exc})") from None
    if missing:
        conn.close()
        raise DbCopyError(
            "not_blink", f"{path} is not a blink database (it has no {min(missing)} table)"
        )
    return conn


def _copy_sqlite(source: sqlite3.Connection, target: Path) -> int:
    """Copy the database open on ``source`` to ``target`` (a consistent snapshot, made in a
    temporary file beside it, checked, flushed and moved there whole); the number of games."""
    try:
        with replacing(target) as tmp:
            dest = sqlite3.connect(tmp)
            try:
                source.backup(dest)  # all pages in one step: one snapshot of the source
                (check,) = dest.execute("PRAGMA quick_check").fetchone()
                if check != "ok":
                    raise DbCopyError("damaged", f"the copy of the database is damaged ({check})")
                (games,) = dest.execute("SELECT count(*) FROM games").fetchone()
                # One file, whole: the copy needs no -wal beside it.
                dest.execute("PRAGMA journal_mode=DELETE")
            finally:
                dest.close()
            for suffix in ("-wal", "-shm", "-journal"):
                Path(f"{target}{suffix}").unlink(missing_ok=True)
        return int(games)
    except sqlite3.Error as exc:
        raise DbCopyError(
            "copy_failed", f"copying the database to {target} failed ({exc})"
        ) from None
    except OSError as exc:
        raise DbCopyError("copy_failed", f"cannot write {target} ({exc.strerror or exc})") from None


def backup_sqlite(database: Path, target: Path) -> int:
    """Back up the SQLite database ``database`` (a running server may be writing to it) to the
    file ``target`` (replaced if it exists); the number of games in the backup."""
    _check_target_folder(target, "the backup")
    if target.resolve() == database.resolve():
        raise DbCopyError("same_file", f"{target} is the database itself: give another file")
    source = _open_sqlite(database, "--db the file blink serve uses")
    try:
        return _copy_sqlite(source, target)
    finally:
        source.close()


def restore_sqlite(backup: Path, database: Path, force: bool) -> int:
    """Restore the backup file ``backup`` to the SQLite file ``database``; the number of games.
    A database that holds games is replaced only with ``force`` (no server may be using it)."""
    _check_target_folder(database, "--db")
    if database.exists() and backup.resolve() == database.resolve():
        raise DbCopyError("same_file", f"{backup} is the database itself: give another file")
    if not force and database.exists() and database.stat().st_size:
        existing = _open_sqlite(database, "--db")
        try:
            (games,) = existing.execute("SELECT count(*) FROM games").fetchone()
        finally:
            existing.close()
        if games:
            raise DbCopyError(
                "not_empty",
                f"{database} already holds {games} game{'' if games == 1 else 's'}: stop the "
                "server that uses it and add --force to replace it, or give --db a new file",
            )
    if backup.is_file():
        with backup.open("rb") as f:
            if f.read(len(PG_DUMP_MAGIC)) == PG_DUMP_MAGIC:
                raise DbCopyError(
                    "not_sqlite",
                    f"{backup} is a PostgreSQL backup: restore it with --database-url URL",
                )
    source = _open_sqlite(backup, "a backup file made by blink db backup")
    try:
        return _copy_sqlite(source, database)
    finally:
        source.close()


# --- PostgreSQL -------------------------------------------------------------------------------


def _libpq(url: str) -> tuple[str, dict[str, str]]:
    """The libpq connection URI of a SQLAlchemy URL (no driver, no password) and the
    environment that gives the password."""
    from sqlalchemy.engine import make_url

    u = make_url(url)
    env = dict(os.environ)
    if u.password is not None:
        env["PGPASSWORD"] = str(u.password)
    plain = u.set(drivername="postgresql", password=None)
    return plain.render_as_string(hide_password=False), env


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise DbCopyError(
            "no_pg_tools",
            f"{name} is not installed, and a PostgreSQL database needs it: {INSTALL_PG_TOOLS}",
        )
    return found


def _run(args: list[str], env: dict[str, str], what: str) -> None:
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        reason = lines[0] if lines else f"exit status {done.returncode}"
        raise DbCopyError("pg_tool_failed", f"{what} failed: {reason}")


def backup_postgres(url: str, shown: str, target: Path) -> None:
    """Back up the PostgreSQL database of ``url`` to ``target`` with ``pg_dump`` (its custom
    format, for ``pg_restore``), written beside it and moved there whole."""
    _check_target_folder(target, "the backup")
    pg_dump = _tool("pg_dump")
    conninfo, env = _libpq(url)
    try:
        with replacing(target) as tmp:
            _run(
                [pg_dump, "--format=custom", "--no-owner", f"--file={tmp}", f"--dbname={conninfo}"],
                env,
                f"pg_dump of {shown}",
            )
    except OSError as exc:
        raise DbCopyError("copy_failed", f"cannot write {target} ({exc.strerror or exc})") from None


def _postgres_games(url: str) -> int | None:
    """How many games the database of ``url`` holds (``None``: no games table)."""
    from sqlalchemy import create_engine, inspect, text

    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            if not inspect(conn).has_table("games"):
                return None
            return int(conn.execute(text("SELECT count(*) FROM games")).scalar_one())
    finally:
        engine.dispose()


def restore_postgres(backup: Path, url: str, shown: str, force: bool) -> None:
    """Restore a ``pg_dump`` backup to the PostgreSQL database of ``url`` with ``pg_restore``
    in one transaction. A database that holds games is replaced only with ``force``."""
    if not backup.is_file():
        raise DbCopyError("no_backup", f"there is no backup file {backup}")
    with backup.open("rb") as f:
        head = f.read(len(SQLITE_MAGIC))
    if head == SQLITE_MAGIC:
        raise DbCopyError(
            "not_pg_dump",
            f"{backup} is an SQLite backup: restore it into an SQLite file with --db FILE",
        )
    if not head.startswith(PG_DUMP_MAGIC):
        raise DbCopyError(
            "not_pg_dump",
            f"{backup} is not a PostgreSQL backup: give a file blink db backup made from "
            "a PostgreSQL database",
        )
    pg_restore = _tool("pg_restore")
    try:
        games = _postgres_games(url)
    except Exception as exc:
        orig = getattr(exc, "orig", None) or exc
        reason = (str(orig).strip().splitlines() or [type(orig).__name__])[0]
        raise DbCopyError("db_unreachable", f"cannot connect to {shown} ({reason})") from None
    if games and not force:
        raise DbCopyError(
            "not_empty",
            f"{shown} already holds {games} game{'' if games == 1 else 's'}: stop the servers "
            "that use it and add --force to replace it, or restore into an empty database",
        )
    conninfo, env = _libpq(url)
    _run(
        [
            pg_restore,
            "--clean",
            "--if-exists",
            "--no-owner",
            "--single-transaction",
            f"--dbname={conninfo}",
            str(backup),
        ],
        env,
        f"pg_restore into {shown}",
    )
