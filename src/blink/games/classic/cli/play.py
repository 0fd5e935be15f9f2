"""``blink play``: classic Blink in the terminal, against bots, two or three on one keyboard,
or online; the default game's play command (its commands module's ``play_command()``).

Textual and the bots' play are imported inside the command, so ``blink`` itself starts
instantly; the help reads the levels, strategies and player range from their registries
(:mod:`blink.cli.listing`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from blink.cli.listing import (
    DEFAULT_INFO,
    DEFAULT_LEVEL,
    DEFAULT_STRATEGY,
    LEVELS_MARKED,
    STRATEGIES_MARKED,
    in_range,
    in_words,
)
from blink.cli.play import LangOpt, use_language
from blink.model.base import COUNTDOWN
from blink.tui.i18n import (
    N_,
    _,
    bot_title,
    language,
)

if TYPE_CHECKING:
    from blink.games.classic.tui.app import BlinkApp

__all__ = ["local_app", "play", "quick_bot_seats"]


def _fail(message: str) -> NoReturn:
    """One clear line on stderr and exit status 2."""
    typer.echo(f"blink play: {message}", err=True)
    raise typer.Exit(2)


BotOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--bot",
        "-b",
        help="A bot as level:strategy (e.g. expert:blocker); twice for 3 players.",
    ),
]
LevelOpt = Annotated[
    str | None,
    typer.Option(
        "--level",
        "-l",
        help=f"Bot level: {LEVELS_MARKED}.",
    ),
]
StrategyOpt = Annotated[
    str | None,
    typer.Option("--strategy", "-s", help=f"Bot strategy: {STRATEGIES_MARKED}."),
]
PlayersOpt = Annotated[
    int,
    typer.Option(
        "--players",
        "-p",
        help=f"{DEFAULT_INFO.player_range} ({DEFAULT_INFO.max_players}: you and "
        f"{in_words(DEFAULT_INFO.max_players - 1)} bots).",
    ),
]
HotseatOpt = Annotated[
    bool,
    typer.Option(
        "--hotseat/--no-hotseat",
        help="People on one keyboard: two (Q W E + A S against U I O + K L), or three with "
        "--players 3 (Z X C + F G in the middle).",
    ),
]
BestOfOpt = Annotated[int, typer.Option("--best-of", "-n", help="Play a best-of-N series (N odd).")]
HandicapOpt = Annotated[
    str,
    typer.Option("--handicap", help="Draw-pile sizes like 35:25, or extra cards for you like +5."),
]
RulesetOpt = Annotated[str, typer.Option("--ruleset", help="official or dead-end.")]
SeedOpt = Annotated[int | None, typer.Option("--seed", help="Seed for the deals and the bots.")]
CountdownOpt = Annotated[float, typer.Option("--countdown", help="Seconds before each reveal.")]
ColorblindOpt = Annotated[
    bool, typer.Option("--colorblind", help="Add each colour's letter to the cards.")
]
AsciiOpt = Annotated[
    bool,
    typer.Option("--ascii", help="Draw shapes as letters (M P S W F L) instead of symbols."),
]
ServerOpt = Annotated[
    str | None,
    typer.Option("--server", help="Play online on this server (e.g. http://localhost:8000)."),
]
JoinOpt = Annotated[str | None, typer.Option("--join", help="Take a seat in room CODE (online).")]
WatchOpt = Annotated[str | None, typer.Option("--watch", help="Watch room CODE (online).")]
NameOpt = Annotated[
    str | None,
    typer.Option("--name", help="Your name at the table (online; default: your profile's)."),
]
ProfileOpt = Annotated[
    str | None,
    typer.Option(
        "--profile",
        help="Online: make a profile NAME on the server if none is stored, and keep it "
        "(rated games).",
    ),
]
RecordOpt = Annotated[
    str | None,
    typer.Option(
        "--record",
        help="Write the record of the game (or series) to FILE as it ends, and on quitting "
        "the unfinished game so far (replay it with blink replay FILE; its folder must exist).",
        metavar="FILE",
    ),
]
PublicOpt = Annotated[
    bool,
    typer.Option(
        "--public",
        help="Online: list the room you make among the lobby's live games (default: private, "
        "joined by its code).",
    ),
]
QuickOpt = Annotated[
    bool,
    typer.Option(
        "--quick",
        help="Online: wait in the server's queue to be paired with people near your rating "
        "(a bot is offered after a while).",
    ),
]
NoProfileOpt = Annotated[
    bool, typer.Option("--no-profile", help="Online: play anonymously (not rated).")
]
DailyOpt = Annotated[
    bool,
    typer.Option(
        "--daily",
        help="Online: play the server's daily challenge (today's deal against today's bot; "
        "ranked with your profile, once a day).",
    ),
]
DateOpt = Annotated[
    str | None,
    typer.Option(
        "--date",
        help="With --daily: play a past day's deal again (YYYY-MM-DD; practice, unranked).",
        metavar="DATE",
    ),
]


def play(
    bot: BotOpt = None,
    level: LevelOpt = None,
    strategy: StrategyOpt = None,
    players: PlayersOpt = DEFAULT_INFO.default_players,
    hotseat: HotseatOpt = False,
    best_of: BestOfOpt = 1,
    handicap: HandicapOpt = "",
    ruleset: RulesetOpt = "official",
    seed: SeedOpt = None,
    countdown: CountdownOpt = COUNTDOWN,
    colorblind: ColorblindOpt = False,
    ascii_symbols: AsciiOpt = False,
    server: ServerOpt = None,
    join: JoinOpt = None,
    watch: WatchOpt = None,
    name: NameOpt = None,
    profile: ProfileOpt = None,
    no_profile: NoProfileOpt = False,
    record: RecordOpt = None,
    public: PublicOpt = False,
    lang: LangOpt = None,
    quick: QuickOpt = False,
    daily: DailyOpt = False,
    date: DateOpt = None,
) -> None:
    """Play Blink in the terminal: against bots (default), --hotseat, or online with --server
    (--quick: someone from the server's queue; --daily: the server's daily challenge)."""
    from blink.games.classic.rules import (
        RULESETS,
        DealError,
        RulesetError,
        get_ruleset,
        parse_handicap,
    )

    use_language(lang, _fail)

    bot = bot or []
    try:
        rules = get_ruleset(ruleset)
    except RulesetError as exc:
        known = ", ".join(RULESETS)
        _fail(
            _words(
                exc,
                _("unknown ruleset {name}: choose one of {names}"),
                name=repr(ruleset),
                names=known,
            )
        )
    if not in_range(DEFAULT_INFO, players):
        _fail(
            _("classic Blink is for {range} players, not {players}").format(
                range=DEFAULT_INFO.player_range, players=players
            )
        )
    if 1 < len(bot) < DEFAULT_INFO.max_players:
        players = len(bot) + 1  # one seat per --bot, and yours
    if best_of < 1 or best_of % 2 == 0:
        _fail(_("--best-of must be a positive odd number, not {n}").format(n=best_of))
    try:
        sizes = parse_handicap(handicap, players)
    except DealError as exc:
        _fail(
            _words(
                exc,
                _("handicap {text}: give draw-pile sizes like 35:25, or extra cards like +5"),
                text=repr(handicap),
            )
        )
    style: dict[str, Any] = {"colorblind": colorblind, "ascii_symbols": ascii_symbols}
    if record is not None:
        _check_record(record, online=server is not None or join is not None or watch is not None)
    if public and server is None:
        _fail(_("--public lists a room made online: give --server URL too"))
    if quick and (server is None or join is not None or watch is not None or public):
        _fail(
            _("--quick waits in a server's queue: give --server URL (no --join, --watch, --public)")
        )
    if daily or date is not None:
        if quick:
            _fail(_("give either --quick or --daily, not both"))
        _check_daily(server, daily, join, watch, public, hotseat, bot, record)
        assert server is not None
        _play_daily(server, profile, no_profile, name, date, style)
    if server is not None or join is not None or watch is not None:
        _check_online(server, join, watch, hotseat, profile, no_profile)
        if public and (join is not None or watch is not None):
            _fail(_("--public is for a room you make: a room joined or watched keeps its own"))
        assert server is not None
        _play_online(
            server,
            create=profile,
            anonymous=no_profile,
            name=name,
            join=join,
            watch=watch,
            players=players,
            seats=_online_seats(bot, level, strategy, players),
            best_of=best_of,
            handicap=handicap,
            ruleset=rules.name,
            public=public,
            quick=quick,
            **style,
        )
    deal = {
        "seed": seed,
        "ruleset": rules,
        "sizes": sizes,
        "best_of": best_of,
        "countdown": countdown,
    }
    _play_here(hotseat, bot, level, strategy, players, deal, style, record)


def _words(exc: Exception, sentence: str, **names: str) -> str:
    """An option's refusal: the engine's own sentence in English (the most precise), the
    terminal's ``sentence`` in another language."""
    return str(exc) if language() == "en" else sentence.format(**names)


def _bot_error(exc: Any) -> str:
    """A bot option's refusal (``BotConfigError``) in the language spoken now."""
    allowed = ", ".join(exc.allowed)
    if exc.field == "level" and allowed:
        return _words(exc, _("unknown bot level: choose one of {names}"), names=allowed)
    if exc.field == "strategy" and allowed:
        return _words(exc, _("unknown bot strategy: choose one of {names}"), names=allowed)
    if exc.field == "players":
        return _words(exc, _("this bot plays {names}-player games only"), names=allowed)
    return _words(exc, _("write a bot as level:strategy, for example expert:blocker"))


def _check_record(record: str, *, online: bool) -> None:
    """Refuse --record online, or to a path it cannot be written to, before the game."""
    from blink.tui.record_file import RecordFileError, check_path

    if online:
        _fail(
            _("--record is for games in this terminal; online, download the record from the table")
        )
    try:
        check_path(record)
    except RecordFileError as exc:
        _fail(str(exc))


def _check_online(
    server: str | None,
    join: str | None,
    watch: str | None,
    hotseat: bool,
    profile: str | None,
    no_profile: bool,
) -> None:
    """Refuse online options that do not go together."""
    if server is None:
        _fail(_("--join and --watch need --server URL"))
    if join is not None and watch is not None:
        _fail(_("give either --join CODE or --watch CODE, not both"))
    if hotseat:
        _fail(_("--hotseat is for one keyboard; online, each player runs their own client"))
    if profile is not None and no_profile:
        _fail(_("give either --profile NAME or --no-profile, not both"))


def _check_daily(
    server: str | None,
    daily: bool,
    join: str | None,
    watch: str | None,
    public: bool,
    hotseat: bool,
    bot: list[str],
    record: str | None,
) -> None:
    """Refuse options that do not go with --daily (the day's room is the server's)."""
    if not daily:
        _fail(_("--date is for --daily: give --daily too"))
    if server is None:
        _fail(_("--daily plays on a server: give --server URL too"))
    if join is not None or watch is not None or public or hotseat or bot or record is not None:
        _fail(_("--daily makes the day's own room: leave out --join, --watch, --public, "
                "--hotseat, --bot and --record"))  # fmt: skip


def _play_daily(
    server: str,
    create: str | None,
    anonymous: bool,
    name: str | None,
    date: str | None,
    style: dict[str, Any],
) -> NoReturn:
    """Play the server's daily challenge with the stored profile (see :mod:`blink.tui.daily`);
    exit with the online client's code."""
    from blink.games.classic.tui.online import OnlineError, resolve_profile
    from blink.profile_store import ProfileStoreError
    from blink.tui.daily import run_daily

    try:
        stored, note = resolve_profile(server, create=create, anonymous=anonymous)
        if note:
            typer.echo(f"blink play: {note}", err=True)
        code = run_daily(
            server,
            name=name or (stored.name if stored else "Player"),
            profile_secret=stored.secret if stored else None,
            date=date,
            **style,
        )
    except (OnlineError, ProfileStoreError) as exc:
        _fail(str(exc))
    raise typer.Exit(code)


def _play_online(
    server: str,
    *,
    create: str | None,
    anonymous: bool,
    name: str | None,
    watch: str | None,
    quick: bool = False,
    **room: Any,
) -> NoReturn:
    """Play (or ``watch``) on a server with the stored profile (``create``: make one with that
    name if none is stored); exit with the online client's code. ``room`` goes on to
    :func:`blink.games.classic.tui.online.run_online`."""
    from blink.games.classic.tui.online import OnlineError, resolve_profile, run_online
    from blink.profile_store import ProfileStoreError

    try:
        stored, note = (None, None)
        if watch is None:
            stored, note = resolve_profile(server, create=create, anonymous=anonymous)
        if note:
            typer.echo(f"blink play: {note}", err=True)
        if quick:
            _quick(server, name or (stored.name if stored else "Player"), stored, room)
        code = run_online(
            server,
            watch=watch,
            name=name or (stored.name if stored else _("Player")),
            profile_secret=stored.secret if stored else None,
            **room,
        )
    except (OnlineError, ProfileStoreError) as exc:
        _fail(str(exc))
    raise typer.Exit(code)


def _quick(server: str, name: str, stored: Any, room: dict[str, Any]) -> NoReturn:
    """``--quick``: wait in the queue, then play; exit with the client's code."""
    from blink.tui.quick import run_quick

    code = run_quick(
        server,
        name=name,
        players=room["players"],
        profile_secret=stored.secret if stored else None,
        bot_seats=quick_bot_seats(room["seats"]),
        colorblind=room["colorblind"],
        ascii_symbols=room["ascii_symbols"],
    )
    raise typer.Exit(code)


def quick_bot_seats(seats: list[str | None]) -> list[str | None]:
    """The seats of the game against bots an offer starts: yours, then the bots asked for
    (``--bot``, ``--level``), the default bot in any seat left open."""
    default = f"{DEFAULT_LEVEL}:{DEFAULT_STRATEGY}"
    return [None, *(s if s is not None else default for s in seats[1:])]


def _play_here(
    hotseat: bool,
    bot: list[str],
    level: str | None,
    strategy: str | None,
    players: int,
    deal: dict[str, Any],
    style: dict[str, Any],
    record: str | None = None,
) -> None:
    """Play in this terminal: people at one keyboard (``hotseat``) or you against bots; print
    the score (and write the record to ``record``)."""
    from blink.games.classic.tui.table import LocalTable

    app = local_app(hotseat, bot, level, strategy, players, deal, style)
    table = app.table
    failures = record_to(table, record) if record is not None else []
    try:
        app.run()
    finally:  # also when the run is interrupted: the record so far is kept
        written = record is not None and finish_record(table, record, failures)
    if isinstance(table, LocalTable) and table.series.games_played:
        score = " – ".join(f"{n} {w}" for n, w in zip(table.names, table.series.score, strict=True))
        typer.echo(_("Games won: {score}").format(score=score))
    if written:
        typer.echo(_("Record written to {path}").format(path=record))
    if failures:
        _fail(failures[-1])


def record_to(table: Any, path: str) -> list[str]:
    """Have the table's record written to ``path`` as each game ends; the list of write
    failures (one sentence each) that this and :func:`finish_record` fill."""
    failures: list[str] = []
    table.on_game_over = lambda: save_record(table, path, failures)
    return failures


def finish_record(table: Any, path: str, failures: list[str]) -> bool:
    """The last write, on leaving (an unfinished game with its moves so far): it holds every
    game, so only its own failure counts."""
    failures.clear()
    return save_record(table, path, failures)


def save_record(table: Any, path: str, failures: list[str]) -> bool:
    """Write the table's record to ``path``; note a failure (one sentence) in ``failures``."""
    from blink.games.classic.tui.table import Notice
    from blink.tui.record_file import RecordFileError, write_record

    try:
        return write_record(table, path)
    except RecordFileError as exc:
        failures.append(str(exc))
        table.notify_player(Notice(str(exc)))
        return False


HOTSEAT_HANDS = (
    (N_("Left"), "Q W E · A S"),
    (N_("Middle"), "Z X C · F G"),
    (N_("Right"), "U I O · K L"),
)
"""The people at one keyboard, left to right, with their keys (two players: Left and Right;
the names in English, translated where they are used)."""


def local_app(
    hotseat: bool,
    bot: list[str],
    level: str | None,
    strategy: str | None,
    players: int,
    deal: dict[str, Any],
    style: dict[str, Any],
) -> BlinkApp:
    """The terminal app of a game on this machine (not yet running): two or three people at
    one keyboard (``hotseat``), or you against bots named by their registry's titles."""
    from blink.games.classic.tui.app import BlinkApp
    from blink.games.classic.tui.table import LocalTable

    if hotseat:
        if bot:
            _fail(_("--hotseat is for people only; leave out --bot"))
        hands = HOTSEAT_HANDS if players == 3 else (HOTSEAT_HANDS[0], HOTSEAT_HANDS[2])
        people = tuple(_(name) for name, _keys in hands)
        table = LocalTable(players=players, humans=tuple(range(players)), names=people, **deal)
        title = _(" vs ").join(f"{_(name)} ({keys})" for name, keys in hands)
    else:
        from blink.games.classic.bots import BotConfigError

        try:
            specs = _bot_specs(bot, level, strategy, players)
        except BotConfigError as exc:
            _fail(_bot_error(exc))
        labels = [bot_title(s) for s in specs]
        if len(set(labels)) < len(labels):
            labels = [f"{label} {i + 2}" for i, label in enumerate(labels)]
        names = [_("You"), *labels]
        table = LocalTable(
            players=len(specs) + 1,
            humans=(0,),
            bots={i + 1: s for i, s in enumerate(specs)},
            names=names,
            **deal,
        )
        title = _("{you} vs {bots}").format(you=names[0], bots=_(" and ").join(names[1:]))
    return BlinkApp(table, title=title, **style)


def _bot_specs(bots: list[str], level: str | None, strategy: str | None, players: int) -> list[Any]:
    """The bots' specs: from --bot (one per bot seat) or from --level/--strategy."""
    from blink.games.classic.bots import BotConfigError, BotSpec

    if bots:
        if len(bots) > DEFAULT_INFO.max_players - 1:
            raise BotConfigError("give one --bot (two players) or two (three players)")
        specs = [BotSpec.parse(b) for b in bots]
        while len(specs) < players - 1:
            specs.append(specs[-1])
    else:
        specs = [BotSpec(level or DEFAULT_LEVEL, strategy or DEFAULT_STRATEGY)] * (players - 1)
    for spec in specs:
        spec.check_players(players)
    return specs


def _online_seats(
    bots: list[str], level: str | None, strategy: str | None, players: int
) -> list[str | None]:
    """Seats for a room created online: yours, then bots (from --bot, or --level/--strategy
    when given), and open seats for people to join."""
    seats: list[str | None] = [None] * players
    if bots:
        for i, b in enumerate(bots[: players - 1]):
            seats[i + 1] = b
    elif level is not None or strategy is not None:
        spec = f"{level or DEFAULT_LEVEL}:{strategy or DEFAULT_STRATEGY}"
        for i in range(1, players):
            seats[i] = spec
    return seats


if __name__ == "__main__":  # pragma: no cover
    typer.run(play)
