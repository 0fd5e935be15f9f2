"""``blink db``: the server's database.

- ``blink db migrate``: bring the schema to this version's newest migration (Alembic), as
  ``blink serve`` does when it starts; for an upgrade done before the servers start.
- ``blink db backup FILE``: a consistent copy while servers run (SQLite's online backup, or
  ``pg_dump``); ``blink db restore FILE``: put one back (into a new or empty database, or over
  one with ``--force`` once its servers are stopped). :mod:`blink.cli.dbcopy` does the work.
- ``blink db check [--db FILE | --database-url URL]`` replays every stored game with its game's
  engine, as a restart or a record download would, and lists each one that does not replay
  (its id, its room, the action and why). Exit status 0 when every game replays, 1 when some
  do not, 2 when the database cannot be opened (one sentence saying why).
- ``blink db flagged [--db FILE | --database-url URL]`` lists the profiles flagged for playing
  faster than a person can react (their games were not rated; :mod:`blink.server.fairness`):
  one line each, most flags first. Exit status 0, 2 when the database cannot be opened.

A game that does not replay comes from a database written outside blink or damaged; the
server answers ``409 game_unreadable`` for its record and replay (docs/protocol.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer

from blink.cli.serve import DatabaseUrl, DbFile

__all__ = ["register"]

db_app = typer.Typer(
    name="db",
    help=(
        "The server's database: migrate, back up, restore, check that every stored game "
        "replays, list the profiles flagged for inhuman reactions."
    ),
    no_args_is_help=True,
)

EXAMPLES = """\
Examples:

blink db check                      the database blink serve uses by default
blink db check --db ~/games/blink.db
blink db check --database-url postgresql+psycopg://user@host/db
"""

COPY_EXAMPLES = """\
Examples:

blink db backup backup.db                        the default SQLite file, while it serves
blink db backup nightly.db --db /srv/blink/blink.db
blink db restore nightly.db --db /srv/blink/new.db
blink db backup blink.dump --database-url postgresql+psycopg://blink@db/blink
blink db restore blink.dump --database-url postgresql+psycopg://blink@db/blink2
"""

BackupFile = Annotated[Path, typer.Argument(metavar="FILE", help="The backup file.")]
Force = Annotated[
    bool,
    typer.Option("--force", help="Replace a database that holds games (stop its servers first)."),
]


def _fail(message: str, command: str = "check") -> NoReturn:
    """One clear line on stderr and exit status 2."""
    typer.echo(f"blink db {command}: {message}", err=True)
    raise typer.Exit(2)


def _url(db: Path | None, database_url: str | None, command: str) -> tuple[str, str]:
    """The database's URL and how to show it, as blink serve reads --db and --database-url."""
    from blink.cli.serving import ServeError, database

    try:
        return database(db, database_url)
    except ServeError as exc:
        _fail(str(exc), command)


def _is_sqlite(url: str) -> bool:
    from sqlalchemy.engine import make_url

    return make_url(url).get_backend_name() == "sqlite"


def _sqlite_path(url: str) -> Path:
    from sqlalchemy.engine import make_url

    return Path(str(make_url(url).database))


@db_app.command("migrate")
def migrate_cmd(db: DbFile = None, database_url: DatabaseUrl = None) -> None:
    """Bring the database's schema to this version's newest migration (Alembic).

    blink serve does the same when it starts; run this before starting the servers of an
    upgrade, so none of them migrates while others serve. A new SQLite file is made.
    """
    from blink.cli.dbcopy import head_revision, revision_of
    from blink.cli.serving import ServeError, open_database

    url, shown = _url(db, database_url, "migrate")
    try:
        before = revision_of(url) if not _is_sqlite(url) or _sqlite_path(url).exists() else None
    except Exception:
        before = None  # open_database says why in one sentence
    try:
        open_database(url, shown)
    except ServeError as exc:
        _fail(str(exc), "migrate")
    head = head_revision()
    if before == head:
        typer.echo(f"{shown} is at the newest migration ({head}): nothing to do")
    else:
        typer.echo(f"{shown} migrated from {before or 'an empty database'} to {head}")


@db_app.command("backup", epilog=COPY_EXAMPLES)
def backup_cmd(file: BackupFile, db: DbFile = None, database_url: DatabaseUrl = None) -> None:
    """Back up the database to FILE, while servers go on using it.

    SQLite: SQLite's online backup, one consistent copy (a file blink serve --db can open).
    PostgreSQL: pg_dump's custom format (PostgreSQL's client programs must be installed).
    FILE is written beside its place and moved there whole; an existing FILE is replaced.
    """
    from blink.cli.dbcopy import DbCopyError, backup_postgres, backup_sqlite

    if not database_url:
        path = (db or default_path()).expanduser()
        if not path.exists():
            _fail(
                f"there is no database file {path}: give --db the file blink serve uses", "backup"
            )
    url, shown = _url(db, database_url, "backup")
    target = file.expanduser()
    try:
        if _is_sqlite(url):
            games = backup_sqlite(_sqlite_path(url), target)
            typer.echo(f"Backed up {shown} to {target} ({games} game{'' if games == 1 else 's'})")
        else:
            backup_postgres(url, shown, target)
            typer.echo(f"Backed up {shown} to {target} (pg_dump)")
    except DbCopyError as exc:
        _fail(str(exc), "backup")


@db_app.command("restore", epilog=COPY_EXAMPLES)
def restore_cmd(
    file: BackupFile, db: DbFile = None, database_url: DatabaseUrl = None, force: Force = False
) -> None:
    """Restore the backup FILE (made by blink db backup) into the database.

    Into a new SQLite file, or an empty PostgreSQL database; a database that holds games is
    replaced only with --force, once every server using it has stopped. blink serve brings a
    restored backup of an older version up to date when it starts (or blink db migrate).
    """
    from blink.cli.dbcopy import DbCopyError, restore_postgres, restore_sqlite

    source = file.expanduser()
    if not source.is_file():
        _fail(f"there is no backup file {source}", "restore")
    url, shown = _url(db, database_url, "restore")
    try:
        if _is_sqlite(url):
            games = restore_sqlite(source, _sqlite_path(url), force)
            typer.echo(f"Restored {source} to {shown} ({games} game{'' if games == 1 else 's'})")
        else:
            restore_postgres(source, url, shown, force)
            typer.echo(f"Restored {source} to {shown} (pg_restore)")
    except DbCopyError as exc:
        _fail(str(exc), "restore")


def default_path() -> Path:
    """The SQLite file blink serve uses without --db."""
    from blink.server.settings import default_database_path

    return default_database_path()


@db_app.command("check", epilog=EXAMPLES)
def check(db: DbFile = None, database_url: DatabaseUrl = None) -> None:
    """Replay every stored game and list those that do not replay (exit status 1 if any).

    The database is opened as blink serve opens it (its schema brought up to this version's).
    """
    from blink.cli.serving import ServeError, database, open_database
    from blink.cli.simrun import progress_bar
    from blink.server.settings import default_database_path
    from blink.server.storage import Storage
    from blink.server.stored import check as check_game

    if not database_url:
        path = (db or default_database_path()).expanduser()
        if not path.exists():
            _fail(f"there is no database file {path}: give --db the file blink serve uses")
    try:
        url, shown = database(db, database_url)
        open_database(url, shown)
        storage = Storage(url)
    except ServeError as exc:
        _fail(str(exc))
    except Exception as exc:  # a database that migrated but still cannot be opened
        _fail(f"cannot open the database: {exc}")
    bad = 0
    try:
        ids = storage.game_ids()
        with progress_bar(len(ids), "Replaying stored games") as advance:
            for game_id in ids:
                lg = storage.load_game(game_id)
                problem = None if lg is None else check_game(lg)
                advance(1)
                if problem is None or lg is None:
                    continue
                bad += 1
                where = "deal/record" if problem.index is None else f"action {problem.index}"
                typer.echo(
                    f"game {game_id} (room {lg.room_code}): {where}: {problem.reason}: "
                    f"{problem.detail}"
                )
    except Exception as exc:
        orig = getattr(exc, "orig", None) or exc
        _fail(f"reading the games of {shown} failed: {str(orig).strip().splitlines()[0]}")
    finally:
        storage.engine.dispose()
    games = f"{len(ids)} game{'' if len(ids) == 1 else 's'}"
    if bad:
        typer.echo(f"{bad} of {games} in {shown} do not replay", err=True)
        raise typer.Exit(1)
    typer.echo(f"{games} in {shown}: every one replays", err=True)


FLAGGED_EXAMPLES = """\
Examples:

blink db flagged                      the database blink serve uses by default
blink db flagged --database-url postgresql+psycopg://user@host/db
"""


@db_app.command("flagged", epilog=FLAGGED_EXAMPLES)
def flagged_cmd(db: DbFile = None, database_url: DatabaseUrl = None) -> None:
    """List the profiles flagged for playing faster than a person can react.

    A game where a person's seat acted, for a sustained share of its actions, under the
    reaction floor (100 ms by default) is not rated, and its profile is flagged: one line a
    profile, most flags first (its name and id, the flags, the latest game flagged, the
    lowest median reaction seen). What to do about one is the operator's call.
    """
    import datetime as dt

    from sqlalchemy import create_engine

    from blink.cli.serving import ServeError, open_database
    from blink.server.fairness import flagged
    from blink.server.profiles import profiles

    if not database_url:
        path = (db or default_path()).expanduser()
        if not path.exists():
            _fail(
                f"there is no database file {path}: give --db the file blink serve uses", "flagged"
            )
    url, shown = _url(db, database_url, "flagged")
    try:
        open_database(url, shown)
    except ServeError as exc:
        _fail(str(exc), "flagged")
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            rows = flagged(conn, profiles)
    except Exception as exc:
        orig = getattr(exc, "orig", None) or exc
        _fail(
            f"reading the flags of {shown} failed: {str(orig).strip().splitlines()[0]}", "flagged"
        )
    finally:
        engine.dispose()
    for r in rows:
        when = dt.datetime.fromtimestamp(r.last_at, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        median = "?" if r.median_ms is None else f"{r.median_ms} ms"
        flags = f"{r.flags} game{'' if r.flags == 1 else 's'}"
        typer.echo(
            f"{r.name or '(deleted)'} ({r.profile_id}): {flags} flagged, latest game "
            f"{r.last_game} at {when}, median reaction {median}"
        )
    count = len(rows)
    typer.echo(f"{count} profile{'' if count == 1 else 's'} flagged in {shown}", err=True)


def register(app: typer.Typer) -> None:
    """Add ``blink db`` to the main app."""
    app.add_typer(db_app)
