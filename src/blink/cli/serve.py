"""``blink serve``: the real-time game server (HTTP, WebSocket and the browser client)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add ``blink serve`` to the main app."""

    @app.command()
    def serve(
        host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
        db: Annotated[
            Path | None,
            typer.Option("--db", help="SQLite database file (default: your user data folder)."),
        ] = None,
        database_url: Annotated[
            str | None,
            typer.Option(
                "--database-url",
                envvar="BLINK_DATABASE_URL",
                help="A SQLAlchemy URL instead of a file, e.g. postgresql+psycopg://user@host/db.",
            ),
        ] = None,
        allow_origin: Annotated[
            list[str] | None,
            typer.Option("--allow-origin", help="Extra browser origin allowed for WebSockets."),
        ] = None,
        countdown: Annotated[
            float, typer.Option(help="Seconds from the deal to the reveal.")
        ] = 3.0,
        stall_pause: Annotated[
            float, typer.Option(help="Seconds a stall is shown before the flip.")
        ] = 1.5,
        choice_deadline: Annotated[
            float, typer.Option(help="Seconds players have to choose a card in a stall.")
        ] = 10.0,
        between_games: Annotated[
            float, typer.Option(help="Seconds between games of a series.")
        ] = 5.0,
        deal_seed: Annotated[
            int | None, typer.Option(help="Shuffle game n with seed deal_seed+n (tests, demos).")
        ] = None,
        db_writer: Annotated[
            str,
            typer.Option(
                help="auto: inline for SQLite, thread for PostgreSQL; inline: commit on the "
                "event loop; thread: a writer thread."
            ),
        ] = "auto",
        go_turn_time: Annotated[
            float,
            typer.Option(
                "--go-turn-time",
                min=0.05,
                help="Go Blink: seconds a player has for a turn before default actions play it.",
            ),
        ] = 60.0,
        go_bot_delay: Annotated[
            float,
            typer.Option(
                "--go-bot-delay",
                min=0.0,
                help="Go Blink: seconds a bot waits before each of its actions.",
            ),
        ] = 0.8,
        gc_full_interval: Annotated[
            float,
            typer.Option(
                "--gc-full-interval",
                min=0.0,
                help="Seconds between full garbage collections (instead of Python's automatic "
                "ones). A full collection walks every live object: about 0.25 s with 1,000 "
                "live games, a few ms with tens; 0: Python's default collector.",
            ),
        ] = 600.0,
        log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "warning",
    ) -> None:
        """Start the game server; open the address it prints in a browser."""
        import uvicorn

        from blink.server.app import create_app
        from blink.server.go_rooms import GoSettings
        from blink.server.settings import default_database_path, sqlite_url

        if database_url:
            from sqlalchemy.engine import make_url

            url = database_url
            shown = make_url(url).render_as_string(hide_password=True)
        else:
            path = (db or default_database_path()).expanduser().resolve()
            path.parent.mkdir(parents=True, exist_ok=True)
            url = sqlite_url(path)
            shown = str(path)
        settings = GoSettings(
            database_url=url,
            countdown=countdown,
            stall_pause=stall_pause,
            choice_deadline=choice_deadline,
            between_games=between_games,
            allowed_origins=tuple(allow_origin or ()),
            deal_seed=deal_seed,
            db_writer=db_writer,
            gc_full_interval=gc_full_interval or None,
            go_turn_time=go_turn_time,
            go_bot_delay=go_bot_delay,
        )
        app_ = create_app(settings)
        typer.echo(f"Database: {shown}")
        shown_host = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        typer.echo(f"Open http://{shown_host}:{port}/")
        uvicorn.run(
            app_,
            host=host,
            port=port,
            log_level=log_level,
            ws_max_size=64 * 1024,
            ws_per_message_deflate=False,
            lifespan="on",
        )
