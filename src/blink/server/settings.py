"""Server settings: addresses, database, delays, limits and the clock, in one injectable value.

Tests build a :class:`Settings` with short delays and a private database; ``blink serve`` builds
one from its options. Nothing in the server reads the clock or a delay from anywhere else.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from blink.files import user_data_folder

__all__ = ["MailSettings", "Settings", "default_database_path", "sqlite_url"]


def default_database_path() -> Path:
    """Where ``blink serve`` keeps its SQLite file: the user's data folder
    (:func:`blink.files.user_data_folder`: ``$XDG_DATA_HOME/blink`` when that is an absolute
    path, else ``~/.local/share/blink`` on Linux), else ./blink.db."""
    try:
        folder = user_data_folder()
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".write-test"
        probe.write_text("")
        probe.unlink()
        return folder / "blink.db"
    except OSError:
        return Path("blink.db").resolve()


def sqlite_url(path: Path | str) -> str:
    """A SQLAlchemy URL for a SQLite file."""
    return f"sqlite:///{Path(path).resolve()}"


@dataclass(frozen=True)
class MailSettings:
    """The SMTP server password reset mails leave through (``blink serve --smtp-host``)."""

    host: str
    sender: str
    """The mails' From address."""
    base_url: str
    """The server's public address (``https://blink.example``): a mail's link is
    ``{base_url}/#reset=TOKEN``."""
    port: int = 587
    security: str = "starttls"
    """``starttls`` (upgrade a plain connection, port 587), ``ssl`` (TLS from the start, port
    465) or ``none`` (a local relay only)."""
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    """Read from the environment (``BLINK_SMTP_PASSWORD``), never from the command line."""
    timeout: float = 10.0
    """Seconds the SMTP server has to answer each step."""


@dataclass
class Settings:
    """Everything the server needs to know; all delays are in seconds."""

    database_url: str = field(default_factory=lambda: sqlite_url(default_database_path()))
    countdown: float | None = None
    """From a game's deal (every seat ready) to the reveal (``None``, as the four delays
    below: each game's own, :attr:`blink.model.base.GameInfo.timings`)."""
    stall_pause: float | None = None
    """How long a flip stall is shown before the server flips."""
    choice_deadline: float | None = None
    """How long players have to choose a hand card in a choosing stall."""
    turn_time: float | None = None
    """Seconds a player of a turn-based game (Go Blink) has for a turn before the default."""
    bot_delay: float = 0.8
    """Seconds a bot of a turn-based game waits before each of its actions (so people can
    follow)."""
    warm_bots: bool = True
    """Load what the games' bots load on their first decision (Go Blink's master bot: its
    compiled search, half a minute on a machine whose numba cache is empty) in a worker thread
    when the server starts, so that a live table's first bot decision does not wait for it."""
    between_games: float = 5.0
    """From the end of one game of a series to the next game's deal."""
    hello_timeout: float = 10.0
    """A connection that sends no ``hello`` in this time is closed (4008)."""
    creation_rate: str | None = None
    """How many rooms, or profiles (counted apart), one client address may create in a moving
    window (``limits`` notation, ``"60/minute"``); past it, 429. Every path that makes a room
    counts in the one window of rooms: ``POST /api/rooms``, ``/api/quick``, ``/api/daily``,
    ``/api/tournaments`` and each ``join`` of quick play's queue (refused with ``error``
    ``rate_limited``; :mod:`blink.server.creation_limits`). ``None`` (the default here): no
    limit; ``blink serve`` sets 60 a minute."""
    miss_rate: str | None = None
    """How many room codes that do not exist one client address may ask for in a moving
    window; past it every room lookup of that address gets 429 (``None`` here: no limit;
    ``blink serve`` sets 30 a minute)."""
    max_body_bytes: int = 64 * 1024
    """The longest REST request body (a record for ``POST /api/replays`` may be 2 MiB):
    longer ones are refused with 413 before they are read."""
    max_message_bytes: int = 4096
    message_rate: str | None = "80 per 2 seconds"
    chat_rate: str | None = "3 per 6 seconds"
    """Quick chat phrases one seat may send in a fixed window (:mod:`blink.server.chat`):
    a burst of three, then one every two seconds on average; past it, ``chat_too_fast``.
    ``None``: no limit."""
    """How many messages one WebSocket connection may send in a fixed window (``limits``
    notation; a window opens with a message when none is open, on ``clock``): 80 in two
    seconds by default, so 40 a second sustained and bursts of 80. Past it the connection is
    closed (``rate_limited``, 1008). ``None``: no limit."""
    max_errors: int = 50
    """Bad messages tolerated on one connection before it is closed (1008)."""
    send_queue_limit: int = 2048
    """Frames waiting for a client that does not read before it is closed (1008)."""
    send_buffer_limit: int = 4 * 1024 * 1024
    """Bytes the socket may hold for a client that does not read before it is closed (1008),
    on the direct sending path (where frames leave the queue at once)."""
    spectator_updates: float = 1.0
    """Seconds between two room frames sent because spectators came or went (at most)."""
    max_spectators: int = 500
    """Spectators one room takes; the next is refused (``too_many_spectators``, 4009)."""
    max_connections_per_address: int = 256
    """WebSocket connections from one client address at once; more are refused (1008)."""
    max_connections_per_bot: int = 8
    """WebSocket connections of one bot account at once (by its token, docs/bot-api.md); the
    next is refused (``too_many_connections``, 4012). The cluster's count when the nodes share
    a Redis (:mod:`blink.server.bot_accounts.quotas`)."""
    bot_message_rate: str | None = "320 per 2 seconds"
    """How many messages all the WebSocket connections of one bot account may send together in
    a fixed window (``limits`` notation, on ``clock``), besides each connection's own
    ``message_rate``: four connections' worth by default. Past it the connection whose message
    went over is closed (``bot_rate_limited``, 1008). The cluster's window when the nodes share
    a Redis, reserved in chunks (:mod:`blink.server.bot_accounts.quotas`). ``None``: no
    limit."""
    bot_reaction: float = 0.25
    """The minimum reaction time of a bot account in a game with people, in seconds: its
    action is held until this long after the latest frame its connection was sent before
    the action came (docs/bot-api.md). 0: none."""
    max_sockets_per_address: int | None = 512
    """Open TCP connections of every kind (HTTP, WebSocket) from one client address (the
    socket's peer: a reverse proxy's own address behind one); the next gets 503 and is closed
    before anything is read. ``None``: no cap."""
    header_timeout: float | None = 10.0
    """Seconds a connection has to send a complete request head, from when it opens (or from
    the first byte of its next request); past it, 408 and closed (slowloris). ``None``: no
    timeout. A WebSocket whose handshake request was complete is not affected."""
    resume_buffer: int = 64
    """Updates kept per game for clients that resume with ``last_seq``."""
    allowed_hosts: tuple[str, ...] = ()
    """The host names the server answers to (the ``Host`` header, without the port), against
    DNS rebinding; an Origin must name one of them (or be in ``allowed_origins``). Empty (the
    default here): any host, and an Origin must match the Host; ``blink serve`` sets the
    addresses it serves, plus ``--allow-host``."""
    allowed_origins: tuple[str, ...] = ()
    """Extra browser origins allowed on the WebSocket handshake (the own host always is)."""
    metrics_allow: tuple[str, ...] = ()
    """Networks (``10.0.0.0/8``, an address, ``*`` for any) whose clients may read
    ``/metrics``, besides loopback, which always may (:class:`blink.server.metrics.AddressFilter`;
    the client's address is the forwarded one behind a trusted proxy)."""
    deal_seed: int | None = None
    """When set, game ``n`` is shuffled with seed ``deal_seed + n`` (tests); else at random
    (a room whose options fix its deal, a daily challenge's, is dealt from its own seed)."""
    daily_bots: tuple[str, ...] = ("casual", "skilled", "expert", "champion")
    """The bots a day of the daily challenge may be played against (classic bot specs,
    checked by its table); each day's seed picks one (:mod:`blink.server.daily`)."""
    reaction_floor_ms: int = 100
    """Milliseconds: a game where a person's seat acted faster than this for a sustained share
    of its actions is not rated, and the profile is flagged (:mod:`blink.fair_play`,
    ``REACTION_FLOOR_MS``; 0: no game is judged)."""
    provisional_games: int = 10
    """Rated games after which a profile is established: before, it is listed apart on the
    leaderboard and a win over it gains nothing (:mod:`blink.fair_play`,
    ``PROVISIONAL_GAMES``)."""
    web_dir: Path | None = field(
        default_factory=lambda: Path(__file__).resolve().parent.parent / "web"
    )
    """The static browser client, served at ``/`` when the folder exists."""
    clock: Callable[[], float] = time.monotonic
    wall_clock: Callable[[], float] = time.time
    """Seconds since the epoch: when games start and end (stored)."""
    """Seconds, monotonic: engine times (ms since the reveal) are measured with it."""
    commit_batch: int = 512
    """Most database jobs committed in one transaction (thread writer)."""
    db_writer: str = "auto"
    """``inline``: commit on the event loop once per loop turn (group commit, no thread);
    ``thread``: a writer thread commits in batches while the loop goes on; ``async``
    (PostgreSQL): the loop sends each batch on psycopg's asynchronous connection and goes on
    while it commits; ``auto`` (default): ``inline`` for SQLite, ``thread`` for PostgreSQL."""
    gc_full_interval: float | None = None
    """Seconds between full garbage collections; the automatic full collections (pauses of
    100 ms and more with hundreds of live games) are then off. ``None`` (the default here):
    Python's collector as it is; ``blink serve`` sets 600."""
    evict_after: float = 300.0
    """A room whose series is over (or that is closed) and that nobody has been connected to
    for this many seconds is dropped from memory; it stays in the database and comes back when
    someone asks for it (its records stay downloadable)."""
    abandon_after: float = 120.0
    """A room still waiting for players (no game started) that nobody has been connected to
    for this many seconds (two minutes; it was an hour, when one address could fill the
    memory with empty rooms) is dropped from memory the same way; asking for it brings it
    back as it was."""
    tournament_idle_after: float | None = 600.0
    """A tournament neither asked for nor changed for this many seconds, none of whose match
    rooms is in memory, is dropped from memory (finished or not); it stays in the database
    and comes back when someone asks for it. ``None``: tournaments stay in memory."""
    sweep_interval: float = 30.0
    """How often the server looks for rooms to drop from memory."""
    tournament_check_interval: float = 5.0
    """On a cluster node: how often it looks for running tournaments whose organiser is gone
    (and whose events it may have missed), and takes their leases
    (:mod:`blink.server.tournaments`)."""
    queue_bot_after: float | None = 20.0
    """Quick play: seconds a player waits in the queue before it is offered a game against a
    bot (:mod:`blink.server.matchmaking`; it goes on waiting). ``None``: never."""
    queue_gap: float = 2.0
    """Quick play: the rating gap (OpenSkill ordinal points) two players accept at once."""
    queue_widen: float = 0.5
    """Quick play: how much a waiting player's accepted rating gap widens each second."""
    queue_tick: float = 1.0
    """Quick play: seconds between two looks at the queue (and status frames to the waiting)."""
    redis_url: str | None = field(default=None, repr=False)
    """The Redis server through which the nodes of one deployment tell each other their
    changes (``redis://host:port/db``; :mod:`blink.server.bus`). ``None``: this process only."""
    redis_wait: float = 0.5
    """Seconds a shared window's or count's call waits for Redis before the node counts on its
    own (:mod:`blink.server.shared_limits`)."""
    cluster: bool = False
    """A node of a cluster: several nodes serve the rooms of one PostgreSQL database, each room
    by the node that holds its lease (:mod:`blink.server.lease`; ``blink serve --cluster``).
    ``False``: the only node, which holds every room's lease."""
    health_db_timeout: float = 2.0
    """Seconds the database has to answer ``/api/health``'s ``SELECT 1`` (PostgreSQL): past
    it the node answers ``503 unhealthy`` (a frozen or unreachable database), so the router
    sends its players elsewhere (:mod:`blink.server.db_probe`)."""
    mail: MailSettings | None = None
    """The SMTP server password reset mails are sent through; ``None`` (the default): no
    mail, a reset is refused (``503 mail_not_configured``) and recovery codes remain."""
    reset_minutes: float = 30.0
    """How long a mailed password reset token may be used (``wall_clock``)."""
    release_after: float = 15.0
    """On a cluster node: a room nobody has been connected to for this many seconds, with
    nothing waiting to be stored, is dropped from memory and its lease given up, whatever its
    status (the node the router sends it to next takes it over)."""
