"""``blink serve``: the real-time game server (HTTP, WebSocket and the browser client)."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    """Add ``blink serve`` to the main app."""

    @app.command()
    def serve(
        host: str = typer.Option("127.0.0.1", help="Address to listen on."),
        port: int = typer.Option(8000, help="Port to listen on."),
        db: Path | None = typer.Option(
            None, "--db", help="SQLite database file (default: in your user data folder)."
        ),
        database_url: str | None = typer.Option(
            None,
            "--database-url",
            envvar="BLINK_DATABASE_URL",
            help="A SQLAlchemy URL instead of a file, e.g. postgresql+psycopg://user@host/db.",
        ),
        allow_origin: list[str] = typer.Option(
            [], "--allow-origin", help="Extra browser origin allowed to open WebSockets."
        ),
        countdown: float = typer.Option(3.0, help="Seconds from the deal to the reveal."),
        stall_pause: float = typer.Option(1.5, help="Seconds a stall is shown before the flip."),
        choice_deadline: float = typer.Option(
            10.0, help="Seconds players have to choose a card in a stall."
        ),
        between_games: float = typer.Option(5.0, help="Seconds between games of a series."),
        deal_seed: int | None = typer.Option(
            None, help="Shuffle game n with seed deal_seed+n (for tests and demos)."
        ),
        log_level: str = typer.Option("warning", help="uvicorn log level."),
    ) -> None:
        """Start the game server; open the address it prints in a browser."""
        import uvicorn

        from blink.server.app import create_app
        from blink.server.settings import Settings, default_database_path, sqlite_url

        if database_url:
            url = database_url
            from sqlalchemy.engine import make_url

            shown = make_url(url).render_as_string(hide_password=True)
        else:
            path = (db or default_database_path()).expanduser().resolve()
            path.parent.mkdir(parents=True, exist_ok=True)
            url = sqlite_url(path)
            shown = str(path)
        settings = Settings(
            database_url=url,
            countdown=countdown,
            stall_pause=stall_pause,
            choice_deadline=choice_deadline,
            between_games=between_games,
            allowed_origins=tuple(allow_origin),
            deal_seed=deal_seed,
        )
        app_ = create_app(settings)
        typer.echo(f"Database: {shown}")
        shown_host = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        typer.echo(f"Open http://{shown_host}:{port}/", color=False)
        uvicorn.run(
            app_,
            host=host,
            port=port,
            log_level=log_level,
            ws_max_size=64 * 1024,
            ws_ping_interval=20.0,
            lifespan="on",
        )
