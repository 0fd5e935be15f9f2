"""``blink serve``: the real-time game server (HTTP, WebSocket and the browser client)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["register", "serve"]

Host = Annotated[str, typer.Option(envvar="BLINK_HOST", help="Address to listen on.")]
Port = Annotated[
    int,
    typer.Option(
        min=0, max=65535, envvar="BLINK_PORT", help="Port to listen on (0: any free port)."
    ),
]
DbFile = Annotated[
    Path | None,
    typer.Option(
        "--db", envvar="BLINK_DB", help="SQLite database file (default: your user data folder)."
    ),
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
    typer.Option(
        "--allow-origin",
        envvar="BLINK_ALLOW_ORIGIN",
        help="Extra browser origin allowed for WebSockets.",
    ),
]
AllowHost = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-host",
        envvar="BLINK_ALLOW_HOST",
        help="A name the server is reached by besides its own addresses (a public name behind "
        "a proxy); '*' for any (no check against DNS rebinding).",
    ),
]
MaxSpectators = Annotated[
    int,
    typer.Option(
        "--max-spectators", min=0, envvar="BLINK_MAX_SPECTATORS", help="Spectators one room takes."
    ),
]
MaxPerAddress = Annotated[
    int,
    typer.Option(
        "--max-connections-per-address",
        min=1,
        envvar="BLINK_MAX_CONNECTIONS_PER_ADDRESS",
        help="WebSocket connections one client address may hold at once.",
    ),
]
MaxSockets = Annotated[
    int,
    typer.Option(
        "--max-sockets-per-address",
        min=0,
        envvar="BLINK_MAX_SOCKETS_PER_ADDRESS",
        help="TCP connections of every kind (HTTP, WebSocket) one client address may hold "
        "open; the next gets 503 at once. Behind a reverse proxy every connection comes from "
        "the proxy: --proxy-headers spares the trusted proxies (or 0 for no cap); limit "
        "connections per client in the proxy.",
    ),
]
HeaderTimeout = Annotated[
    float,
    typer.Option(
        "--header-timeout",
        min=0.0,
        envvar="BLINK_HEADER_TIMEOUT",
        help="Seconds a connection has to send a complete request head (from when it opens, "
        "or from the first byte of its next request) before it gets 408 and is closed; "
        "0 for none.",
    ),
]
Countdown = Annotated[
    float, typer.Option(envvar="BLINK_COUNTDOWN", help="Seconds from the deal to the reveal.")
]
StallPause = Annotated[
    float,
    typer.Option(envvar="BLINK_STALL_PAUSE", help="Seconds a stall is shown before the flip."),
]
ChoiceDeadline = Annotated[
    float,
    typer.Option(
        envvar="BLINK_CHOICE_DEADLINE", help="Seconds players have to choose a card in a stall."
    ),
]
BetweenGames = Annotated[
    float, typer.Option(envvar="BLINK_BETWEEN_GAMES", help="Seconds between games of a series.")
]
DealSeed = Annotated[
    int | None,
    typer.Option(
        envvar="BLINK_DEAL_SEED", help="Shuffle game n with seed deal_seed+n (tests, demos)."
    ),
]
DailyBots = Annotated[
    list[str] | None,
    typer.Option(
        "--daily-bot",
        envvar="BLINK_DAILY_BOT",
        help="A bot the daily challenge may be played against (repeat for several; each day "
        "picks one). Default: casual, skilled, expert, champion.",
    ),
]
DbWriter = Annotated[
    str,
    typer.Option(
        envvar="BLINK_DB_WRITER",
        help="auto: inline for SQLite, async for PostgreSQL; inline: commit on the "
        "event loop; thread: a writer thread; async: PostgreSQL commits sent from the event "
        "loop (psycopg's async connection).",
    ),
]
QueueBotAfter = Annotated[
    float,
    typer.Option(
        "--queue-bot-after",
        min=0,
        envvar="BLINK_QUEUE_BOT_AFTER",
        help="Quick play against people: seconds in the queue before a bot is offered (0: never).",
    ),
]
QueueGap = Annotated[
    float,
    typer.Option(
        "--queue-gap",
        min=0,
        envvar="BLINK_QUEUE_GAP",
        help="Quick play: the rating gap (OpenSkill ordinal points) accepted at once.",
    ),
]
QueueWiden = Annotated[
    float,
    typer.Option(
        "--queue-widen",
        min=0,
        envvar="BLINK_QUEUE_WIDEN",
        help="Quick play: rating points a waiting player's accepted gap widens by each second.",
    ),
]
TurnTime = Annotated[
    float,
    typer.Option(
        "--turn-time",
        "--go-turn-time",
        min=0.05,
        envvar="BLINK_TURN_TIME",
        help="Turn-based games (Go Blink): seconds for a turn before default actions play it.",
    ),
]
BotDelay = Annotated[
    float,
    typer.Option(
        "--bot-delay",
        "--go-bot-delay",
        min=0.0,
        envvar="BLINK_BOT_DELAY",
        help="Turn-based games (Go Blink): seconds a bot waits before each of its actions.",
    ),
]
CreationRate = Annotated[
    str,
    typer.Option(
        "--creation-rate",
        envvar="BLINK_CREATION_RATE",
        help="Rooms, quick games, profiles or tournaments one client address may create, "
        "each counted apart, in a moving window (60/minute, 5/second); 0 for no limit.",
    ),
]
MessageRate = Annotated[
    str,
    typer.Option(
        "--message-rate",
        envvar="BLINK_MESSAGE_RATE",
        help="Messages one game connection may send in a window opened by its first message "
        "(80/2seconds: bursts of 80, 40 a second sustained); past it the connection is told "
        "rate_limited and closed. 0 for no limit.",
    ),
]
GcFullInterval = Annotated[
    float,
    typer.Option(
        "--gc-full-interval",
        min=0.0,
        envvar="BLINK_GC_FULL_INTERVAL",
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
        envvar="BLINK_TOURNAMENT_IDLE_AFTER",
        help="Seconds after which a tournament nobody has asked about or changed, with no "
        "match room in memory, leaves memory (it is read back from the database when asked "
        "for); 0 keeps every tournament in memory.",
    ),
]
TournamentCheckInterval = Annotated[
    float,
    typer.Option(
        "--tournament-check-interval",
        envvar="BLINK_TOURNAMENT_CHECK_INTERVAL",
        min=0.1,
        help="Seconds between a node's checks of the running tournaments, the backstop of "
        "their events: each is organised again and, with --cluster, a tournament whose "
        "organising node is gone is taken over.",
    ),
]
RedisUrl = Annotated[
    str | None,
    typer.Option(
        "--redis-url",
        envvar="BLINK_REDIS_URL",
        help="Redis through which the nodes of one deployment push their changes to each "
        "other's browsers (redis://host:6379/0; it needs pip install .\\[redis]); none: this "
        "process only.",
    ),
]
Cluster = Annotated[
    bool,
    typer.Option(
        "--cluster",
        envvar="BLINK_CLUSTER",
        help="One node of several on one PostgreSQL database (behind a router such as "
        "HAProxy: blink cluster haproxy-config): each room is served by the node that holds "
        "its lease, and taken over by another when that node is gone.",
    ),
]
DrainWait = Annotated[
    float,
    typer.Option(
        "--drain-wait",
        envvar="BLINK_DRAIN_WAIT",
        min=0.0,
        help="With --cluster: seconds a SIGTERM keeps serving with the health check failing "
        "(503 draining), so the router stops sending traffic here, before the node hands its "
        "rooms over to the other nodes and stops; at least the router's check interval times "
        "its failures to mark a node down.",
    ),
]
LogLevel = Annotated[
    str,
    typer.Option(
        envvar="BLINK_LOG_LEVEL",
        help="Least level logged: critical, error, warning, info, debug or trace.",
    ),
]

LogFormat = Annotated[
    str,
    typer.Option(
        "--log-format",
        envvar="BLINK_LOG_FORMAT",
        help="text: lines for people; json: one JSON object a line (time, level, logger, "
        "message and any extra fields), uvicorn's own lines too.",
    ),
]
MetricsAllow = Annotated[
    list[str] | None,
    typer.Option(
        "--metrics-allow",
        envvar="BLINK_METRICS_ALLOW",
        help="Addresses or networks (10.0.0.0/8) besides loopback that may read /metrics "
        "(comma-separated or repeated; '*' for any).",
    ),
]
ProxyHeaders = Annotated[
    bool,
    typer.Option(
        "--proxy-headers/--no-proxy-headers",
        envvar="BLINK_PROXY_HEADERS",
        help="Take the client's address and scheme from X-Forwarded-For and "
        "X-Forwarded-Proto when the connection comes from --forwarded-allow-ips (a reverse "
        "proxy); its connections are then not capped by --max-sockets-per-address.",
    ),
]
ForwardedAllowIps = Annotated[
    str,
    typer.Option(
        "--forwarded-allow-ips",
        envvar="BLINK_FORWARDED_ALLOW_IPS",
        help="The proxies trusted with --proxy-headers: addresses or networks, "
        "comma-separated; '*' for any.",
    ),
]

LOG_FORMATS = ("text", "json")
LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")
SHUTDOWN_TIMEOUT = 30.0
"""Seconds a SIGTERM waits for connections to close before it cancels what is left (the
database is flushed after that either way)."""

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
    ctx: typer.Context,
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
    daily_bot: DailyBots = None,
    db_writer: DbWriter = "auto",
    turn_time: TurnTime = 60.0,
    bot_delay: BotDelay = 0.8,
    queue_bot_after: QueueBotAfter = 20.0,
    queue_gap: QueueGap = 2.0,
    queue_widen: QueueWiden = 0.5,
    gc_full_interval: GcFullInterval = 600.0,
    creation_rate: CreationRate = "60/minute",
    message_rate: MessageRate = "80/2seconds",
    max_spectators: MaxSpectators = 500,
    max_connections_per_address: MaxPerAddress = 256,
    max_sockets_per_address: MaxSockets = 512,
    header_timeout: HeaderTimeout = 10.0,
    tournament_idle_after: TournamentIdleAfter = 600.0,
    tournament_check_interval: TournamentCheckInterval = 5.0,
    redis_url: RedisUrl = None,
    cluster: Cluster = False,
    drain_wait: DrainWait = 5.0,
    log_level: LogLevel = "warning",
    log_format: LogFormat = "text",
    metrics_allow: MetricsAllow = None,
    proxy_headers: ProxyHeaders = False,
    forwarded_allow_ips: ForwardedAllowIps = "127.0.0.1,::1",
) -> None:
    """Start the game server; open the address it prints in a browser."""
    # The server (FastAPI, uvicorn, SQLAlchemy) is imported here, not at the top: the other
    # commands of ``blink`` start without loading it.
    from blink.cli.serving import (
        ServeError,
        configure_logging,
        forwarding,
        log_config,
        prepare,
        run,
        shown_address,
        trusted,
    )

    rate = _creation_rate(ctx, creation_rate)
    messages = _rate(ctx, message_rate, "--message-rate", "80/2seconds")
    _check_db_writer(ctx, db_writer)
    _check_choice(ctx, log_format, LOG_FORMATS, "--log-format", "a log format")
    _check_choice(ctx, log_level.lower(), LOG_LEVELS, "--log-level", "a log level")
    metrics_nets = _networks(ctx, metrics_allow or [], "--metrics-allow")
    proxies = _networks(ctx, [forwarded_allow_ips], "--forwarded-allow-ips")
    configure_logging(log_format, log_level.lower())
    _check_redis_url(ctx, redis_url)
    _check_daily_bots(ctx, daily_bot or [])
    if cluster and (db is not None or not (database_url or "").startswith("postgresql")):
        typer.echo(
            "blink serve: --cluster needs the PostgreSQL database every node shares: give "
            "--database-url postgresql+psycopg://...",
            err=True,
        )
        raise typer.Exit(2)
    try:
        url, shown, sockets = prepare(db, database_url, host, port)
    except ServeError as exc:
        typer.echo(f"blink serve: {exc}", err=True)
        raise typer.Exit(2) from None
    from blink.server.app import begin_shutdown, create_app, hand_over
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
        daily_bots=tuple(daily_bot) if daily_bot else Settings.daily_bots,
        db_writer=db_writer,
        gc_full_interval=gc_full_interval or None,
        creation_rate=rate,
        miss_rate=None if rate is None else "30/minute",
        message_rate=messages,
        max_spectators=max_spectators,
        max_connections_per_address=max_connections_per_address,
        max_sockets_per_address=max_sockets_per_address or None,
        header_timeout=header_timeout or None,
        turn_time=turn_time,
        bot_delay=bot_delay,
        queue_bot_after=queue_bot_after or None,
        queue_gap=queue_gap,
        queue_widen=queue_widen,
        tournament_idle_after=tournament_idle_after or None,
        tournament_check_interval=tournament_check_interval,
        metrics_allow=tuple(metrics_nets),
        redis_url=redis_url or None,
        cluster=cluster,
    )
    typer.echo(f"Database: {shown}")
    app = create_app(settings)
    exempt = trusted(proxies) if proxy_headers else None
    started = run(
        forwarding(app, proxies, exempt),
        sockets,
        lambda: typer.echo(f"Open {shown_address(host, sockets)}"),
        lambda: begin_shutdown(app),
        (lambda: hand_over(app, drain_wait)) if cluster else None,
        http=Guard(settings.header_timeout, settings.max_sockets_per_address, exempt).protocol(),
        host=host,
        port=port,
        log_level=log_level.lower(),
        log_config=log_config(log_format, log_level.lower()),
        proxy_headers=False,  # forwarding(): uvicorn's middleware, inside the server's own
        timeout_graceful_shutdown=SHUTDOWN_TIMEOUT,
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


def _check_db_writer(ctx: typer.Context, writer: str) -> None:
    """Exit 2 when ``--db-writer`` names no writer."""
    from blink.server.storage import WRITERS

    if writer not in WRITERS:
        raise typer.BadParameter(
            f"{writer!r} is not a writer: choose {', '.join(WRITERS)}",
            param_hint=_hint(ctx, "--db-writer"),
        )


def _hint(ctx: typer.Context, option: str) -> str:
    """How an error names an option: as click names it for a value of the wrong type, with its
    environment variable when the value came from there (``'--port' (env var:
    'BLINK_PORT')``)."""
    name = option[2:].replace("-", "_")
    source = ctx.get_parameter_source(name)
    if source is not None and source.name == "ENVIRONMENT":
        return f"'{option}' (env var: 'BLINK_{name.upper()}')"
    return option


def _check_choice(
    ctx: typer.Context, value: str, choices: tuple[str, ...], option: str, what: str
) -> None:
    """Exit 2 when ``value`` is not one of ``choices``."""
    if value not in choices:
        raise typer.BadParameter(
            f"{value!r} is not {what}: choose {', '.join(choices)}", param_hint=_hint(ctx, option)
        )


def _networks(ctx: typer.Context, values: list[str], option: str) -> list[str]:
    """The addresses and networks of ``values`` (each comma-separated, ``*`` for any); exit 2
    at the first that is none."""
    from blink.server.metrics import AddressFilter

    items = [part.strip() for v in values for part in v.split(",") if part.strip()]
    problem = AddressFilter.check(items)
    if problem is not None:
        raise typer.BadParameter(problem, param_hint=_hint(ctx, option))
    return items


def _check_redis_url(ctx: typer.Context, url: str | None) -> None:
    """Exit 2 when ``--redis-url`` is not a Redis URL, or redis-py is not installed."""
    if not url:
        return
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise typer.BadParameter(
            f"{url!r} is not a Redis URL: write one such as redis://127.0.0.1:6379/0",
            param_hint=_hint(ctx, "--redis-url"),
        )
    try:
        import redis.asyncio  # noqa: F401
    except ImportError:
        raise typer.BadParameter(
            'the Redis client is not installed: pip install ".[redis]"',
            param_hint=_hint(ctx, "--redis-url"),
        ) from None


def _check_daily_bots(ctx: typer.Context, specs: list[str]) -> None:
    """Exit 2 when a ``--daily-bot`` is not a bot of classic Blink (its table says why)."""
    if not specs:
        return
    from blink.model.registry import get_table
    from blink.model.table import BadMessage

    for spec in specs:
        try:
            get_table("classic").check_bot(spec)
        except BadMessage as exc:
            raise typer.BadParameter(exc.message, param_hint=_hint(ctx, "--daily-bot")) from None


def _creation_rate(ctx: typer.Context, text: str) -> str | None:
    """The ``--creation-rate`` checked (``None`` for 0: no limit); exit 2 when malformed."""
    return _rate(ctx, text, "--creation-rate", "60/minute")


def _rate(ctx: typer.Context, text: str, option: str, example: str) -> str | None:
    """A rate option checked (``None`` for 0: no limit); exit 2 when malformed."""
    if text.strip() in ("0", ""):
        return None
    from limits import parse  # here, like the server: other commands do not load it

    try:
        parse(text)
    except ValueError:
        raise typer.BadParameter(
            f"{text!r} is not a rate: write a count per period, such as {example}",
            param_hint=_hint(ctx, option),
        ) from None
    return text
