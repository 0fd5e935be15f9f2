"""``blink db``: the server's database.

- ``blink db check [--db FILE | --database-url URL]`` replays every stored game with its game's
  engine, as a restart or a record download would, and lists each one that does not replay
  (its id, its room, the action and why). Exit status 0 when every game replays, 1 when some
  do not, 2 when the database cannot be opened (one sentence saying why).

A game that does not replay comes from a database written outside blink or damaged; the
server answers ``409 game_unreadable`` for its record and replay (docs/protocol.md).
"""

from __future__ import annotations

from typing import NoReturn

import typer

from blink.cli.serve import DatabaseUrl, DbFile

__all__ = ["register"]

db_app = typer.Typer(
    name="db",
    help="The server's database: check that every stored game replays.",
    no_args_is_help=True,
)

EXAMPLES = """\
Examples:

blink db check                      the database blink serve uses by default
blink db check --db ~/games/blink.db
blink db check --database-url postgresql+psycopg://user@host/db
"""


def _fail(message: str) -> NoReturn:
    """One clear line on stderr and exit status 2."""
    typer.echo(f"blink db check: {message}", err=True)
    raise typer.Exit(2)


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


def register(app: typer.Typer) -> None:
    """Add ``blink db`` to the main app."""
    app.add_typer(db_app)
