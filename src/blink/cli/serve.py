"""``blink serve``: the real-time game server (HTTP, WebSocket and the browser client)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["register", "serve"]

Host = Annotated[str, typer.Option(help="Address to listen on.")]
Port = Annotated[
    int, typer.Option(min=0, max=65535, help="Port to listen on (0: any free port).")
]
DbFile = Annotated[
    Path | None,
    typer.Option("--db", help="SQLite database file (default: your user data folder)."),
]
DatabaseUrl = Annotated[
    str | None,
    typer.Option(
        "--database-url",
        envvar="BLINK_DATABASE_URL",
        help="A SQLAlchemy URL instead of a file: PostgreSQL, as in the examples below.",
    ),
]
AllowOrigin = Annotated[
    list[str] | None,
    typer.Option("--allow-origin", help="Extra browser origin allowed for WebSockets."),
]
AllowHost = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-host",
        help="A name the server is reached by besides its own addresses (a public name behind "
        "a proxy); '*' for any (no check against DNS rebinding).",
    ),
]
MaxSpectators = Annotated[
    int, typer.Option("--max-spectators", min=0, help="Spectators one room takes.")
]
MaxPerAddress = Annotated[
    int,
    typer.Option(
        "--max-connections-per-address",
        min=1,
        help="WebSocket connections one client address may hold at once.",
    ),
]
MaxSockets = Annotated[
    int,
    typer.Option(
        "--max-sockets-per-address",
        min=0,
        help="TCP connections of every kind (HTTP, WebSocket) one client address may hold "
        "open; the next gets 503 at once. Behind a reverse proxy every connection comes from "
        "the proxy: raise it, or 0 for no cap, and limit connections per client in the proxy.",
    ),
]
HeaderTimeout = Annotated[
    float,
    typer.Option(
        "--header-timeout",
        min=0.0,
        help="Seconds a connection has to send a complete request head (from when it opens, "
        "or from the first byte of its next request) before it gets 408 and is closed; "
        "0 for none.",
    ),
]
Countdown = Annotated[float, typer.Option(help="Seconds from the deal to the reveal.")]
StallPause = Annotated[float, typer.Option(help="Seconds a stall is shown before the flip.")]
ChoiceDeadline = Annotated[
    float, typer.Option(help="Seconds players have to choose a card in a stall.")
]
BetweenGames = Annotated[float, typer.Option(help="Seconds between games of a series.")]
DealSeed = Annotated[
    int | None, typer.Option(help="Shuffle game n with seed deal_seed+n (tests, demos).")
]
DbWriter = Annotated[
    str,
    typer.Option(
        help="auto: inline for SQLite, thread for PostgreSQL; inline: commit on the "
        "event loop; thread: a writer thread; async: PostgreSQL commits sent from the event "
        "loop (psycopg's async connection)."
    ),
]
TurnTime = Annotated[
    float,
    typer.Option(
        "--turn-time",
        "--go-turn-time",
        min=0.05,
        help="Turn-based games (Go Blink): seconds for a turn before default actions play it.",
    ),
]
BotDelay = Annotated[
    float,
    typer.Option(
        "--bot-delay",
        "--go-bot-delay",
        min=0.0,
        help="Turn-based games (Go Blink): seconds a bot waits before each of its actions.",
    ),
]
CreationRate = Annotated[
    str,
    typer.Option(
        "--creation-rate",
        help="Rooms, quick games, profiles or tournaments one client address may create, "
        "each counted apart, in a moving window (60/minute, 5/second); 0 for no limit.",
    ),
]
GcFullInterval = Annotated[
    float,
    typer.Option(
        "--gc-full-interval",
        min=0.0,
        help="Seconds between full garbage collections (instead of Python's automatic "
        "ones). A full collection walks every live object: about 0.25 s with 1,000 "
        "live games, a few ms with tens; 0: Python's default collector.",
    ),
]
TournamentIdleAfter = Annotated[
    float,
    typer.Option(
        "--tournament-idle-after",
        min=0.0,
        help="Seconds after which a tournament nobody has asked about or changed, with no "
        "match room in memory, leaves memory (it is read back from the database when asked "
        "for); 0 keeps every tournament in memory.",
    ),
]
LogLevel = Annotated[str, typer.Option(help="uvicorn log level.")]


EXAMPLES = """Examples:

blink serve --port 8080              listen on port 8080 (0: any free port)
blink serve --host 0.0.0.0           for other machines too (every interface)
blink serve --db ~/games/blink.db    keep everything in this SQLite file
blink serve --database-url postgresql+psycopg://user@host/db
                                     in PostgreSQL (pip install ".\\[postgres]")
"""
"""The end of ``blink serve --help``: lines of at most 80 columns, none cut at 80 (the backslash
keeps Rich from reading ``[postgres]`` as markup)."""


def register(app: typer.Typer) -> None:
    """Add ``blink serve`` to the main app."""
    app.command(epilog=EXAMPLES)(serve)


def serve(
    host: Host = "127.0.0.1",
    port: Port = 8000,
    db: DbFile = None,
    database_url: DatabaseUrl = None,
    allow_origin: AllowOrigin = None,
    allow_host: AllowHost = None,
    countdown: Countdown = 3.0,
    stall_pause: StallPause = 1.5,
    choice_deadline: ChoiceDeadline = 10.0,
    between_games: BetweenGames = 5.0,
    deal_seed: DealSeed = None,
    db_writer: DbWriter = "auto",
    turn_time: TurnTime = 60.0,
    bot_delay: BotDelay = 0.8,
    gc_full_interval: GcFullInterval = 600.0,
    creation_rate: CreationRate = "60/minute",
    max_spectators: MaxSpectators = 500,
    max_connections_per_address: MaxPerAddress = 256,
    max_sockets_per_address: MaxSockets = 512,
    header_timeout: HeaderTimeout = 10.0,
    tournament_idle_after: TournamentIdleAfter = 600.0,
    log_level: LogLevel = "warning",
) -> None:
    """Start the game server; open the address it prints in a browser."""
    # The server (FastAPI, uvicorn, SQLAlchemy) is imported here, not at the top: the other
    # commands of ``blink`` start without loading it.
    from blink.cli.serving import ServeError, prepare, run, shown_address

    rate = _creation_rate(creation_rate)
    _check_db_writer(db_writer)
    try:
        url, shown, sockets = prepare(db, database_url, host, port)
    except ServeError as exc:
        typer.echo(f"blink serve: {exc}", err=True)
        raise typer.Exit(2) from None
    from blink.server.app import create_app
    from blink.server.direct import WS_IMPL
    from blink.server.settings import Settings
    from blink.server.transport import Guard

    settings = Settings(
        database_url=url,
        countdown=countdown,
        stall_pause=stall_pause,
        choice_deadline=choice_deadline,
        between_games=between_games,
        allowed_origins=tuple(allow_origin or ()),
        allowed_hosts=served_hosts(host, allow_host or []),
        deal_seed=deal_seed,
        db_writer=db_writer,
        gc_full_interval=gc_full_interval or None,
        creation_rate=rate,
        miss_rate=None if rate is None else "30/minute",
        max_spectators=max_spectators,
        max_connections_per_address=max_connections_per_address,
        max_sockets_per_address=max_sockets_per_address or None,
        header_timeout=header_timeout or None,
        turn_time=turn_time,
        bot_delay=bot_delay,
        tournament_idle_after=tournament_idle_after or None,
    )
    typer.echo(f"Database: {shown}")
    started = run(
        create_app(settings),
        sockets,
        lambda: typer.echo(f"Open {shown_address(host, sockets)}"),
        http=Guard(settings.header_timeout, settings.max_sockets_per_address).protocol(),
        host=host,
        port=port,
        log_level=log_level,
        ws=WS_IMPL,
        ws_max_size=64 * 1024,
        ws_per_message_deflate=False,
        lifespan="on",
    )
    if not started:
        raise typer.Exit(3)


def served_hosts(host: str, extra: list[str]) -> tuple[str, ...]:
    """The host names a server bound to ``host`` answers to: the loopback names, and when it
    listens on every interface this machine's name and addresses, plus ``extra``; ``()`` (no
    check) when ``extra`` holds ``*``."""
    import socket

    if "*" in extra:
        return ()
    names = {"127.0.0.1", "localhost", host.lower()}
    if host in ("0.0.0.0", "::"):
        hostname = socket.gethostname()
        names |= {hostname.lower(), socket.getfqdn().lower()}
        with contextlib.suppress(OSError):
            names |= set(socket.gethostbyname_ex(hostname)[2])
        with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # no packet is sent: it picks the outward address
            names.add(s.getsockname()[0])
    names |= {e.lower() for e in extra}
    return tuple(sorted(n for n in names if n and n not in ("0.0.0.0", "::")))


def _check_db_writer(writer: str) -> None:
    """Exit 2 when ``--db-writer`` names no writer."""
    from blink.server.storage import WRITERS

    if writer not in WRITERS:
        raise typer.BadParameter(
            f"{writer!r} is not a writer: choose {', '.join(WRITERS)}", param_hint="--db-writer"
        )


def _creation_rate(text: str) -> str | None:
    """The ``--creation-rate`` checked (``None`` for 0: no limit); exit 2 when malformed."""
    if text.strip() in ("0", ""):
        return None
    from limits import parse  # here, like the server: other commands do not load it

    try:
        parse(text)
    except ValueError:
        raise typer.BadParameter(
            f"{text!r} is not a rate: write a count per period, such as 60/minute",
            param_hint="--creation-rate",
        ) from None
    return text
