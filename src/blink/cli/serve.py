"""``blink serve``: the real-time game server (HTTP, WebSocket and the browser client)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated

import typer

from blink.cli.serve_mail import (
    SmtpBaseUrl,
    SmtpFrom,
    SmtpHost,
    SmtpPort,
    SmtpSecurity,
    SmtpUser,
    mail_settings,
)

__all__ = ["register", "serve"]

# The options of ``blink serve --help`` sit in panels of related options (the panels show in
# the order of the serve function's parameters), each help a line or two: docs/deploy.md says
# more. The metavars are words (SECONDS, not <float range>), which leaves the help its width.
NET = "Address and database"
TABLE = "Games"
PLAY = "Quick play and the daily challenge"
LIMITS = "Limits"
PROXY = "Browsers and proxies"
CLUSTER = "Cluster"
RUN = "Running"

Host = Annotated[
    str,
    typer.Option(
        envvar="BLINK_HOST",
        metavar="ADDRESS",
        rich_help_panel=NET,
        help="Address to listen on (0.0.0.0: every interface).",
    ),
]
Port = Annotated[
    int,
    typer.Option(
        min=0,
        max=65535,
        envvar="BLINK_PORT",
        metavar="PORT",
        rich_help_panel=NET,
        help="Port to listen on (0: any free port).",
    ),
]
DbFile = Annotated[
    Path | None,
    typer.Option(
        "--db",
        envvar="BLINK_DB",
        metavar="FILE",
        rich_help_panel=NET,
        help="SQLite database file; its folder must exist (default: your user data folder, "
        "made if missing).",
    ),
]
DatabaseUrl = Annotated[
    str | None,
    typer.Option(
        "--database-url",
        envvar="BLINK_DATABASE_URL",
        metavar="URL",
        rich_help_panel=NET,
        help="A SQLAlchemy URL instead of a file: PostgreSQL, as in the examples below.",
    ),
]
DbWriter = Annotated[
    str,
    typer.Option(
        envvar="BLINK_DB_WRITER",
        metavar="WRITER",
        rich_help_panel=NET,
        help="auto (inline for SQLite, async for PostgreSQL), inline, thread or async.",
    ),
]
AllowOrigin = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-origin",
        envvar="BLINK_ALLOW_ORIGIN",
        metavar="ORIGIN",
        rich_help_panel=PROXY,
        help="Extra browser origin allowed for WebSockets.",
    ),
]
AllowHost = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-host",
        envvar="BLINK_ALLOW_HOST",
        metavar="NAME",
        rich_help_panel=PROXY,
        help="Another name the server is reached by (behind a proxy); '*': any.",
    ),
]
ProxyHeaders = Annotated[
    bool,
    typer.Option(
        "--proxy-headers/--no-proxy-headers",
        envvar="BLINK_PROXY_HEADERS",
        rich_help_panel=PROXY,
        help="Take the client's address and scheme from X-Forwarded-For and -Proto sent by "
        "--forwarded-allow-ips.",
    ),
]
ForwardedAllowIps = Annotated[
    str,
    typer.Option(
        "--forwarded-allow-ips",
        envvar="BLINK_FORWARDED_ALLOW_IPS",
        metavar="ADDRESSES",
        rich_help_panel=PROXY,
        help="The proxies trusted with --proxy-headers (comma-separated; '*': any).",
    ),
]
ProxySecret = Annotated[
    str | None,
    typer.Option(
        "--proxy-secret",
        envvar="BLINK_PROXY_SECRET",
        metavar="SECRET",
        rich_help_panel=PROXY,
        help="The router's secret in X-Blink-Proxy, without which proxy headers are not "
        "believed (never shown).",
    ),
]
MetricsAllow = Annotated[
    list[str] | None,
    typer.Option(
        "--metrics-allow",
        envvar="BLINK_METRICS_ALLOW",
        metavar="ADDRESSES",
        rich_help_panel=PROXY,
        help="Networks besides loopback that may read /metrics ('*': any).",
    ),
]
Countdown = Annotated[
    float | None,
    typer.Option(
        envvar="BLINK_COUNTDOWN",
        metavar="SECONDS",
        rich_help_panel=TABLE,
        help="Seconds from the deal to the reveal (default: each game's own).",
    ),
]
StallPause = Annotated[
    float | None,
    typer.Option(
        envvar="BLINK_STALL_PAUSE",
        metavar="SECONDS",
        rich_help_panel=TABLE,
        help="Seconds a stall is shown before the flip (default: the game's own).",
    ),
]
ChoiceDeadline = Annotated[
    float | None,
    typer.Option(
        envvar="BLINK_CHOICE_DEADLINE",
        metavar="SECONDS",
        rich_help_panel=TABLE,
        help="Seconds players have to choose a card in a stall (default: the game's own).",
    ),
]
BetweenGames = Annotated[
    float,
    typer.Option(
        envvar="BLINK_BETWEEN_GAMES",
        metavar="SECONDS",
        rich_help_panel=TABLE,
        help="Seconds between games of a series.",
    ),
]
DealSeed = Annotated[
    int | None,
    typer.Option(
        envvar="BLINK_DEAL_SEED",
        metavar="SEED",
        rich_help_panel=TABLE,
        help="Deal game n with seed SEED+n (tests).",
    ),
]
TurnTime = Annotated[
    float | None,
    typer.Option(
        "--turn-time",
        "--go-turn-time",
        min=0.05,
        envvar="BLINK_TURN_TIME",
        metavar="SECONDS",
        rich_help_panel=TABLE,
        help="Seconds for a turn of a turn-based game (default: the game's own).",
    ),
]
BotDelay = Annotated[
    float,
    typer.Option(
        "--bot-delay",
        "--go-bot-delay",
        min=0.0,
        envvar="BLINK_BOT_DELAY",
        metavar="SECONDS",
        rich_help_panel=TABLE,
        help="Go Blink: seconds a bot waits before each of its actions.",
    ),
]
WarmBots = Annotated[
    bool,
    typer.Option(
        "--warm-bots/--no-warm-bots",
        envvar="BLINK_WARM_BOTS",
        hidden=True,  # the default suits every server; tests that start many turn it off
        help="Load the bots' compiled searches in the background at start.",
    ),
]
TournamentIdleAfter = Annotated[
    float,
    typer.Option(
        "--tournament-idle-after",
        min=0.0,
        envvar="BLINK_TOURNAMENT_IDLE_AFTER",
        metavar="SECONDS",
        rich_help_panel=TABLE,
        help="Seconds before an idle tournament leaves memory (0: never).",
    ),
]
TournamentCheckInterval = Annotated[
    float,
    typer.Option(
        "--tournament-check-interval",
        envvar="BLINK_TOURNAMENT_CHECK_INTERVAL",
        min=0.1,
        metavar="SECONDS",
        rich_help_panel=TABLE,
        help="Seconds between tournament checks.",
    ),
]
DailyBots = Annotated[
    list[str] | None,
    typer.Option(
        "--daily-bot",
        envvar="BLINK_DAILY_BOT",
        metavar="BOT",
        rich_help_panel=PLAY,
        help="A bot the daily challenge may pick (repeat). Default: casual, skilled, expert, "
        "champion.",
    ),
]
ReactionFloor = Annotated[
    int,
    typer.Option(
        "--reaction-floor",
        envvar="BLINK_REACTION_FLOOR",
        min=0,
        metavar="MS",
        rich_help_panel=PLAY,
        help="Milliseconds: a person faster than this half the time plays unrated and is "
        "flagged (0: off).",
    ),
]
ProvisionalGames = Annotated[
    int,
    typer.Option(
        "--provisional-games",
        envvar="BLINK_PROVISIONAL_GAMES",
        min=1,
        metavar="N",
        rich_help_panel=PLAY,
        help="Rated games a profile needs to be ranked (listed apart before).",
    ),
]
QueueBotAfter = Annotated[
    float,
    typer.Option(
        "--queue-bot-after",
        min=0,
        envvar="BLINK_QUEUE_BOT_AFTER",
        metavar="SECONDS",
        rich_help_panel=PLAY,
        help="Seconds in the queue before a bot is offered (0: never).",
    ),
]
QueueGap = Annotated[
    float,
    typer.Option(
        "--queue-gap",
        min=0,
        envvar="BLINK_QUEUE_GAP",
        metavar="POINTS",
        rich_help_panel=PLAY,
        help="The rating gap accepted at once.",
    ),
]
QueueWiden = Annotated[
    float,
    typer.Option(
        "--queue-widen",
        min=0,
        envvar="BLINK_QUEUE_WIDEN",
        metavar="POINTS",
        rich_help_panel=PLAY,
        help="Rating points the accepted gap widens by each second.",
    ),
]
CreationRate = Annotated[
    str,
    typer.Option(
        "--creation-rate",
        envvar="BLINK_CREATION_RATE",
        metavar="RATE",
        rich_help_panel=LIMITS,
        help="Rooms (by any path, queue joins too) or profiles one address may create "
        "(0: no limit).",
    ),
]
MessageRate = Annotated[
    str,
    typer.Option(
        "--message-rate",
        envvar="BLINK_MESSAGE_RATE",
        metavar="RATE",
        rich_help_panel=LIMITS,
        help="Messages one game connection may send (0: no limit).",
    ),
]
MaxSpectators = Annotated[
    int,
    typer.Option(
        "--max-spectators",
        min=0,
        envvar="BLINK_MAX_SPECTATORS",
        metavar="N",
        rich_help_panel=LIMITS,
        help="Spectators one room takes.",
    ),
]
MaxPerAddress = Annotated[
    int,
    typer.Option(
        "--max-connections-per-address",
        min=1,
        envvar="BLINK_MAX_CONNECTIONS_PER_ADDRESS",
        metavar="N",
        rich_help_panel=LIMITS,
        help="WebSockets one client address may hold.",
    ),
]
MaxPerBot = Annotated[
    int,
    typer.Option(
        "--max-connections-per-bot",
        min=1,
        envvar="BLINK_MAX_CONNECTIONS_PER_BOT",
        metavar="N",
        hidden=True,  # as docs/deploy.md says: the help keeps to the options most change
        help="WebSockets one bot account may hold (docs/bot-api.md).",
    ),
]
BotMessageRate = Annotated[
    str,
    typer.Option(
        "--bot-message-rate",
        envvar="BLINK_BOT_MESSAGE_RATE",
        metavar="RATE",
        hidden=True,
        help="Messages all of one bot account's connections may send together (0: no limit).",
    ),
]
MaxSockets = Annotated[
    int,
    typer.Option(
        "--max-sockets-per-address",
        min=0,
        envvar="BLINK_MAX_SOCKETS_PER_ADDRESS",
        metavar="N",
        rich_help_panel=LIMITS,
        help="TCP connections one address may hold (0: no cap).",
    ),
]
HeaderTimeout = Annotated[
    float,
    typer.Option(
        "--header-timeout",
        min=0.0,
        envvar="BLINK_HEADER_TIMEOUT",
        metavar="SECONDS",
        rich_help_panel=LIMITS,
        help="Seconds to send a request head before 408 (0: none).",
    ),
]
RedisUrl = Annotated[
    str | None,
    typer.Option(
        "--redis-url",
        envvar="BLINK_REDIS_URL",
        metavar="URL",
        rich_help_panel=CLUSTER,
        help="Redis the nodes push their changes through (redis://host:6379/0).",
    ),
]
RedisWait = Annotated[
    float,
    typer.Option(
        "--redis-wait",
        envvar="BLINK_REDIS_WAIT",
        min=0.01,
        hidden=True,  # a tuning knob for slow machines and tests, not for every help page
        help="Seconds a shared limit waits for Redis before the node counts on its own.",
    ),
]
Cluster = Annotated[
    bool,
    typer.Option(
        "--cluster",
        envvar="BLINK_CLUSTER",
        rich_help_panel=CLUSTER,
        help="One node of several on one PostgreSQL database (docs/cluster.md).",
    ),
]
DrainWait = Annotated[
    float,
    typer.Option(
        "--drain-wait",
        envvar="BLINK_DRAIN_WAIT",
        min=0.0,
        metavar="SECONDS",
        rich_help_panel=CLUSTER,
        help="Seconds a SIGTERM keeps serving with the health check failing.",
    ),
]
LogLevel = Annotated[
    str,
    typer.Option(
        envvar="BLINK_LOG_LEVEL",
        metavar="LEVEL",
        rich_help_panel=RUN,
        help="critical, error, warning, info, debug or trace.",
    ),
]
LogFormat = Annotated[
    str,
    typer.Option(
        "--log-format",
        envvar="BLINK_LOG_FORMAT",
        metavar="FORMAT",
        rich_help_panel=RUN,
        help="text (for people) or json (one object a line).",
    ),
]
GcFullInterval = Annotated[
    float,
    typer.Option(
        "--gc-full-interval",
        min=0.0,
        envvar="BLINK_GC_FULL_INTERVAL",
        metavar="SECONDS",
        rich_help_panel=RUN,
        help="Seconds between full garbage collections (0: Python's own).",
    ),
]

LOG_FORMATS = ("text", "json")
LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")
SHUTDOWN_TIMEOUT = 30.0
"""Seconds a SIGTERM waits for connections to close before it cancels what is left (the
database is flushed after that either way)."""

EXAMPLES = """An option's variable (env var) sets it too; docs/deploy.md tells more.

Examples:

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
    db_writer: DbWriter = "auto",
    countdown: Countdown = None,
    stall_pause: StallPause = None,
    choice_deadline: ChoiceDeadline = None,
    between_games: BetweenGames = 5.0,
    deal_seed: DealSeed = None,
    turn_time: TurnTime = None,
    bot_delay: BotDelay = 0.8,
    warm_bots: WarmBots = True,
    tournament_idle_after: TournamentIdleAfter = 600.0,
    tournament_check_interval: TournamentCheckInterval = 5.0,
    daily_bot: DailyBots = None,
    reaction_floor: ReactionFloor = 100,
    provisional_games: ProvisionalGames = 10,
    queue_bot_after: QueueBotAfter = 20.0,
    queue_gap: QueueGap = 2.0,
    queue_widen: QueueWiden = 0.5,
    creation_rate: CreationRate = "60/minute",
    message_rate: MessageRate = "80/2seconds",
    max_spectators: MaxSpectators = 500,
    max_connections_per_address: MaxPerAddress = 256,
    max_connections_per_bot: MaxPerBot = 8,
    bot_message_rate: BotMessageRate = "320/2seconds",
    max_sockets_per_address: MaxSockets = 512,
    header_timeout: HeaderTimeout = 10.0,
    allow_origin: AllowOrigin = None,
    allow_host: AllowHost = None,
    metrics_allow: MetricsAllow = None,
    proxy_headers: ProxyHeaders = False,
    forwarded_allow_ips: ForwardedAllowIps = "127.0.0.1,::1",
    proxy_secret: ProxySecret = None,
    redis_url: RedisUrl = None,
    redis_wait: RedisWait = 0.5,
    cluster: Cluster = False,
    drain_wait: DrainWait = 5.0,
    log_level: LogLevel = "warning",
    log_format: LogFormat = "text",
    gc_full_interval: GcFullInterval = 600.0,
    smtp_host: SmtpHost = None,
    smtp_port: SmtpPort = None,
    smtp_security: SmtpSecurity = "starttls",
    smtp_user: SmtpUser = None,
    smtp_from: SmtpFrom = None,
    public_url: SmtpBaseUrl = None,
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
    bot_messages = _rate(ctx, bot_message_rate, "--bot-message-rate", "320/2seconds")
    _check_db_writer(ctx, db_writer)
    _check_choice(ctx, log_format, LOG_FORMATS, "--log-format", "a log format")
    _check_choice(ctx, log_level.lower(), LOG_LEVELS, "--log-level", "a log level")
    metrics_nets = _networks(ctx, metrics_allow or [], "--metrics-allow")
    proxies = _networks(ctx, [forwarded_allow_ips], "--forwarded-allow-ips")
    _check_proxy_secret(ctx, proxy_secret, proxy_headers)
    configure_logging(log_format, log_level.lower())
    _check_redis_url(ctx, redis_url)
    _check_daily_bots(ctx, daily_bot or [])
    mail = mail_settings(smtp_host, smtp_port, smtp_security, smtp_user, smtp_from, public_url)
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
        reaction_floor_ms=reaction_floor,
        provisional_games=provisional_games,
        db_writer=db_writer,
        gc_full_interval=gc_full_interval or None,
        creation_rate=rate,
        miss_rate=None if rate is None else "30/minute",
        message_rate=messages,
        max_spectators=max_spectators,
        max_connections_per_address=max_connections_per_address,
        max_connections_per_bot=max_connections_per_bot,
        bot_message_rate=bot_messages,
        max_sockets_per_address=max_sockets_per_address or None,
        header_timeout=header_timeout or None,
        turn_time=turn_time,
        bot_delay=bot_delay,
        warm_bots=warm_bots,
        queue_bot_after=queue_bot_after or None,
        queue_gap=queue_gap,
        queue_widen=queue_widen,
        tournament_idle_after=tournament_idle_after or None,
        tournament_check_interval=tournament_check_interval,
        metrics_allow=tuple(metrics_nets),
        redis_url=redis_url or None,
        redis_wait=redis_wait,
        cluster=cluster,
        mail=mail,
    )
    typer.echo(f"Database: {shown}")
    if redis_url:
        from blink.server.redis_url import shown_redis_url

        typer.echo(f"Redis: {shown_redis_url(redis_url)}")
    app = create_app(settings)
    exempt = trusted(proxies) if proxy_headers else None
    started = run(
        forwarding(app, proxies, exempt, proxy_secret or None),
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


def _check_proxy_secret(ctx: typer.Context, secret: str | None, proxy_headers: bool) -> None:
    """Exit 2 when ``--proxy-secret`` is given without ``--proxy-headers`` or is not a secret
    the router's configuration can hold. The error never shows it."""
    if not secret:
        return
    from blink.cluster.haproxy import secret_problem

    problem = secret_problem(secret)
    if problem is None and not proxy_headers:
        problem = "it asks the router's secret of forwarded headers: add --proxy-headers"
    if problem is not None:
        raise typer.BadParameter(problem, param_hint=_hint(ctx, "--proxy-secret"))


def _check_redis_url(ctx: typer.Context, url: str | None) -> None:
    """Exit 2 when ``--redis-url`` is not a Redis URL redis-py reads, or redis-py is not
    installed. The error shows the URL without its password."""
    if not url:
        return
    from blink.server.redis_url import UNREADABLE, shown_redis_url

    try:
        from redis.connection import parse_url
    except ImportError:
        raise typer.BadParameter(
            'the Redis client is not installed: pip install ".[redis]"',
            param_hint=_hint(ctx, "--redis-url"),
        ) from None
    shown = shown_redis_url(url)
    try:
        if shown == UNREADABLE:
            raise ValueError(shown)
        parse_url(url)  # type: ignore[no-untyped-call]
    except ValueError:
        value = "the value" if shown == UNREADABLE else repr(shown)
        raise typer.BadParameter(
            f"{value} is not a Redis URL: write one such as redis://127.0.0.1:6379/0 "
            "(a password is never shown)",
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
