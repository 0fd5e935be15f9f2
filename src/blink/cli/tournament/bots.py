"""``blink tournament bots`` (and ``run``): a whole tournament of bots, played by the simulator."""

from __future__ import annotations

import importlib
import json
import random
import secrets
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Protocol

import typer

from blink.cli.tournament.common import check_outputs, fail
from blink.cli.tournament.views import bracket_view
from blink.tournament import Entrant, Match, Tournament, TournamentError

if TYPE_CHECKING:
    from rich.console import Console

__all__ = [
    "BOT_NAMES",
    "BotGames",
    "BotPlayer",
    "BotRun",
    "BotSpec",
    "bot_games",
    "bots_cmd",
    "parse_bot_player",
    "random_field",
    "run_bots",
]


class BotSpec(Protocol):
    """A game's bot as an entrant plays it (``level:strategy`` for classic Blink)."""

    @property
    def display_name(self) -> str:
        """The bot's name for people (in the bracket)."""
        ...


class BotGames(Protocol):
    """What the tournament's game offers a tournament of bots (its commands module's
    ``bot_tournament()``: classic Blink's is :mod:`blink.games.classic.sim.tournament`)."""

    SpecError: type[ValueError]
    """What :meth:`parse_spec` raises for a spec it cannot read."""

    def parse_spec(self, text: str) -> BotSpec:
        """A bot entrant's spec."""
        ...

    def rating_level(self, spec: Any) -> str:
        """The name the bot's fixed rating is read by (:func:`blink.ratings.bot_rating`)."""
        ...

    def field(self, rng: random.Random, size: int) -> list[Any]:
        """``size`` bots (that may enter tournaments) drawn from ``rng``."""
        ...

    def play(
        self, specs: Sequence[Any], seed: int, sizes: Sequence[int] | None
    ) -> tuple[list[int], dict[str, Any]]:
        """One game between these bots: the winning seats and the game's record (JSON)."""
        ...


def bot_games(game: str | None = None) -> BotGames:
    """The bots of the tournament's ``game`` (``None``: the default game) for a tournament of
    bots, through the registry (its commands module's ``bot_tournament()``); exits 2 with one
    line for a game that is not registered or has no such bots."""
    from blink.model.registry import DEFAULT_GAME, UnknownGame, front_end

    name = game or DEFAULT_GAME
    try:
        module = front_end(name).commands
    except UnknownGame as e:
        fail(str(e))
    offer = (
        None if module is None else getattr(importlib.import_module(module), "bot_tournament", None)
    )
    if offer is None:
        fail(f"the game {name!r} has no bots for a tournament of bots")
    found: BotGames = offer()
    return found


@dataclass(frozen=True)
class BotPlayer:
    """A bot entrant: a name and a bot spec (``level:strategy``)."""

    name: str
    spec: BotSpec


def parse_bot_player(text: str, game: str | None = None) -> BotPlayer:
    """Read ``"Ann=champion:blocker"`` (or just ``"champion:blocker"``, named after the spec),
    a bot of ``game`` (``None``: the default game)."""
    name, sep, spec = text.partition("=")
    if not sep:
        spec, name = text, text.strip()
    return BotPlayer(name.strip(), bot_games(game).parse_spec(spec))


def random_field(size: int, seed: int, game: str | None = None) -> list[BotPlayer]:
    """``size`` bots of ``game`` (``None``: the default game) with levels and strategies drawn
    from ``seed`` (only the levels that may enter tournaments)."""
    rng = random.Random(f"field:{seed}")
    names = rng.sample(BOT_NAMES, size)
    specs = bot_games(game).field(rng, size)
    return [BotPlayer(names[i], specs[i]) for i in range(size)]


BOT_NAMES = [
    "Ada",
    "Al",
    "Ann",
    "Ari",
    "Bea",
    "Ben",
    "Bo",
    "Cal",
    "Cy",
    "Dan",
    "Dee",
    "Di",
    "Ed",
    "Eli",
    "Eva",
    "Fay",
    "Fin",
    "Flo",
    "Gil",
    "Gus",
    "Hal",
    "Hana",
    "Ian",
    "Ida",
    "Ike",
    "Ivy",
    "Jo",
    "Jon",
    "Kai",
    "Kim",
    "Lea",
    "Leo",
    "Liv",
    "Lou",
    "Max",
    "Mei",
    "Mo",
    "Ned",
    "Nia",
    "Noa",
    "Oli",
    "Ona",
    "Pam",
    "Pia",
    "Ray",
    "Rex",
    "Ria",
    "Rob",
    "Sal",
    "Sam",
    "Sue",
    "Tad",
    "Tia",
    "Tom",
    "Una",
    "Uri",
    "Val",
    "Vic",
    "Wes",
    "Wyn",
    "Xan",
    "Yui",
    "Zac",
    "Zoe",
]
"""Short names for a random field (64 of them)."""


@dataclass
class BotRun:
    """The result of :func:`run_bots`: the tournament and where each game's record went."""

    tournament: Tournament
    bots: dict[str, str]
    games: int = 0
    records: list[str] = field(default_factory=list)
    handicaps: dict[str, str] = field(default_factory=dict)


def _game_seed(seed: int, match_id: str, index: int) -> int:
    from blink.sim.seeds import derive_seed

    return derive_seed(seed, "tournament", match_id, index)


def run_bots(
    players: Sequence[BotPlayer],
    seed: int,
    *,
    name: str = "Bot tournament",
    records: Path | None = None,
    balanced: bool = False,
    on_game: Callable[[Tournament, Match], None] | None = None,
    game: str | None = None,
) -> BotRun:
    """Play a whole tournament of bots of ``game`` (``None``: the default game) with its
    simulator (its commands module's ``bot_tournament()``); deterministic for a ``seed``.

    Experience for the byes is each bot's fixed rating by level. ``balanced`` deals each
    two-player game with the handicap suggested from the two bots' ratings (a game with deal
    rules). ``records`` is a folder for every game's record. ``on_game`` is called after every
    game (a live view).
    """
    from blink.model.registry import DEFAULT_GAME
    from blink.ratings import bot_rating, suggest_handicap
    from blink.tournament.playing import deal_rules

    games = bot_games(game)
    specs = {p.name: p.spec for p in players}
    levels = {p.name: games.rating_level(p.spec) for p in players}
    entrants = [Entrant(p.name, rating=bot_rating(levels[p.name]).mu) for p in players]
    t = Tournament.create(entrants, name, game or DEFAULT_GAME)
    deck = deal_rules(t.game).deck_size if balanced else 0
    t.draw(seed)
    run = BotRun(t, {p.name: str(p.spec) for p in players})
    if records is not None:
        records.mkdir(parents=True, exist_ok=True)
    while not t.finished:
        m = t.ready_matches()[0]
        names = [p for p in m.players if p is not None]
        if balanced and len(names) == 2 and not m.games:
            rated = (bot_rating(levels[names[0]]), bot_rating(levels[names[1]]))
            h = suggest_handicap(*rated, deck)
            if h.sizes is not None:
                m = t.set_handicap(m.id, dict(zip(names, h.sizes, strict=True)))
                run.handicaps[m.id] = h.text
        sizes = None if m.handicap is None else [size for _, size in m.handicap]
        won, data = games.play(
            [specs[n] for n in names], _game_seed(seed, m.id, len(m.games)), sizes
        )
        winners = [names[i] for i in won]
        ref = None
        if records is not None:
            path = records / f"{m.id}-game{len(m.games) + 1}.json"
            data.setdefault("meta", {})
            if isinstance(data["meta"], dict):
                data["meta"].update(tournament=name, match=m.id, players=names)
            path.write_text(json.dumps(data) + "\n", encoding="utf-8")
            ref = str(path)
            run.records.append(ref)
        m = t.record_game(m.id, winners, ref)
        run.games += 1
        if on_game is not None:
            on_game(t, m)
    return run


def bots_cmd(
    player: Annotated[
        list[str] | None,
        typer.Option("--player", "-p", help='A bot entrant, "Name=level:strategy".'),
    ] = None,
    field_size: Annotated[
        int | None, typer.Option("--field", help="A field of N bots with random levels.")
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Seed (default: random).")] = None,
    name: Annotated[str, typer.Option("--name", help="The tournament's name.")] = "Bot tournament",
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    records: Annotated[
        Path | None, typer.Option("--records", help="Folder for every game's record.")
    ] = None,
    save: Annotated[
        Path | None, typer.Option("--save", help="Also write the tournament file here.")
    ] = None,
    balanced: Annotated[
        bool, typer.Option("--balanced", help="Deal each pairing its suggested handicap.")
    ] = False,
    delay: Annotated[
        float | None,
        typer.Option("--delay", help="Seconds to pause after each game (live view)."),
    ] = None,
    game: Annotated[
        str | None,
        typer.Option("--game", help="The game the bots play (default: classic)."),
    ] = None,
) -> None:
    """Run a whole tournament of bot players with the simulator, live in the terminal."""
    from blink.model.registry import DEFAULT_GAME

    if seed is None:
        seed = secrets.randbelow(1_000_000)
    players = _bot_field(player, field_size, seed, game)
    if balanced:
        from blink.tournament.playing import deal_rules

        try:
            deal_rules(game or DEFAULT_GAME)
        except TournamentError as e:
            fail(str(e))
    check_outputs([(save, "--save")], [(records, "--records")])
    pause = delay if delay is not None else (0.03 if sys.stdout.isatty() and not as_json else 0)
    if as_json:
        run = run_bots(players, seed, name=name, records=records, balanced=balanced, game=game)
    else:
        run = _run_live(players, seed, name, records, balanced, pause, game=game)
    if save is not None:
        from blink.tournament.organiser import save as save_file

        save_file(run.tournament, save)
    if as_json:
        out = run.tournament.to_dict()
        out["bots"] = run.bots
        out["games_played"] = run.games
        if run.handicaps:
            out["handicaps"] = run.handicaps
        typer.echo(json.dumps(out, indent=2))


def _bot_field(
    player: list[str] | None, field_size: int | None, seed: int, game: str | None = None
) -> list[BotPlayer]:
    """The bots of ``game`` of ``--player`` or ``--field``; anything wrong (a game with no
    bots for it, a bad field) fails with one line."""
    from blink.model.registry import DEFAULT_GAME

    spec_error = bot_games(game).SpecError
    try:
        if player and field_size is not None:
            fail("give either --player ... or --field N, not both")
        if player:
            players = [parse_bot_player(p, game) for p in player]
        elif field_size is not None:
            if not 2 <= field_size <= 64:
                fail(f"--field must be 2 to 64, not {field_size}")
            players = random_field(field_size, seed, game)
        else:
            fail('give the players (--player "Ann=expert:blocker" ...) or --field N')
    except spec_error as e:
        fail(str(e))
    try:
        Tournament.create([Entrant(p.name) for p in players], game=game or DEFAULT_GAME)
    except TournamentError as e:
        fail(str(e))
    return players


def _run_live(
    players: Sequence[BotPlayer],
    seed: int,
    name: str,
    records: Path | None,
    balanced: bool,
    pause: float,
    console: Console | None = None,
    game: str | None = None,
) -> BotRun:
    """Play the tournament with the bracket filling in live, then print it once and name the
    champion.

    In a terminal the live bracket takes the whole screen (the alternate screen, cropped to
    its height), so its redraws never land in the scrollback; only the final bracket and the
    champion stay once it closes. Elsewhere (a pipe, a file) only those are printed."""
    from rich.console import Console
    from rich.live import Live

    console = console or Console()
    labels = {p.name: p.spec.display_name for p in players}
    if not console.is_terminal:
        run = run_bots(players, seed, name=name, records=records, balanced=balanced, game=game)
    else:
        with Live(
            bracket_view(Tournament.create([p.name for p in players], name)),
            console=console,
            auto_refresh=False,
            screen=True,
            vertical_overflow="crop",
        ) as live:

            def show(t: Tournament, m: Match) -> None:
                live.update(bracket_view(t, labels), refresh=True)
                if pause:
                    time.sleep(pause)

            run = run_bots(
                players,
                seed,
                name=name,
                records=records,
                balanced=balanced,
                on_game=show,
                game=game,
            )
    console.print(bracket_view(run.tournament, labels))
    console.print()
    champ = run.tournament.champion or ""
    console.print(
        f"Champion: [b]{champ}[/b] ({labels.get(champ, '')}) · {run.games} games · seed {seed}"
    )
    return run
