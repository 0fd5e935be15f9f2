"""The discrete-event simulator: bots race in virtual time, no sleeping.

Every bot is asked to :meth:`~blink.games.classic.bots.Bot.plan` from its own view after every
change. Each
answer is an intent due at ``now + delay``; the earliest due intent is applied (equal times are
broken at random by the game's seed), the clock jumps to it, and every bot re-plans from the new
state. A flip stall is flipped by the simulator after ``flip_pause`` seconds; in a choosing
stall the bots have until ``choice_timeout`` seconds to choose, after which the game's
default choice is used for them.
"""

from __future__ import annotations

import inspect
import operator
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from operator import itemgetter
from types import MethodType
from typing import TYPE_CHECKING, Any

from blink.cards import Card
from blink.games.classic.bots import Bot, BotSpec, Intent
from blink.games.classic.engine import (
    Choose,
    ClassicGame,
    Event,
    Flip,
    Flipped,
    IllegalAction,
    Outcome,
    Placed,
    Play,
    Played,
    PlayerView,
    Stalled,
    StallKind,
)
from blink.games.classic.rules import CHOICE_DEADLINE, OFFICIAL, Ruleset
from blink.match import Series
from blink.model.base import Pending, RefereeClock, Timer, Timings
from blink.sim.seeds import derive_seed

if TYPE_CHECKING:
    from blink.games.classic.record import GameRecord, SeriesRecord

# The definition and the records are imported where they are used: the fast engine's processes
# never need them, and importing them (with msgspec) costs a worker about 50 ms at start.

__all__ = [
    "BEHIND_MARGIN",
    "BotRace",
    "GameResult",
    "SeriesResult",
    "SimConfig",
    "play_game",
    "simulate_game",
    "simulate_series",
]

BEHIND_MARGIN = 3
"""A winner "came from behind" if it once had this many more cards left than the leader."""

MAX_SERIES_GAMES = 99
"""A series stops after this many games even if ties kept it undecided."""


@dataclass(frozen=True)
class SimConfig:
    """Timing of what the simulator does itself (virtual seconds)."""

    flip_pause: float = 1.0
    """From the stall until the flip."""
    choice_timeout: float = CHOICE_DEADLINE
    """From a choosing stall until the default choice is taken for bots that have not chosen."""
    check_views: bool = False
    """Check every view built by the simulator against ``ClassicGame.view`` (for tests)."""


DEFAULT_CONFIG = SimConfig()


@dataclass
class GameResult:
    """One simulated game."""

    seed: int
    specs: tuple[str, ...]
    outcome: Outcome
    plays: int
    plays_by_seat: tuple[int, ...]
    duration: float
    """Virtual seconds from the reveal to the end."""
    stalls: int
    flips: int
    """Stalls broken by a flip."""
    choices: int
    """Stalls broken by chosen hand cards (the game may have ended there)."""
    dead_ends: int
    """Stalls that ended the game under the dead-end ruleset."""
    defaults: int
    """Stall choices the simulator had to make for a bot at the deadline."""
    max_deficit: tuple[int, ...]
    """Per seat, the most cards it ever had left beyond the leader."""
    cards_left: tuple[int, ...]
    game: ClassicGame | None = field(default=None, repr=False, compare=False)

    @property
    def winner(self) -> int | None:
        """The single winner, or ``None`` for a tie."""
        return self.outcome.winner

    @property
    def is_tie(self) -> bool:
        """True for a tied game."""
        return self.outcome.is_tie

    @property
    def won_from_behind(self) -> bool:
        """The winner once trailed the leader by at least :data:`BEHIND_MARGIN` cards."""
        w = self.outcome.winner
        return w is not None and self.max_deficit[w] >= BEHIND_MARGIN

    @cached_property
    def record(self) -> GameRecord:
        """The game's record (replayable with ``record.verify()``)."""
        from blink.games.classic.record import GameRecord

        if self.game is None:
            raise ValueError("this result was made without its game; no record available")
        return GameRecord.from_game(
            self.game,
            names=[f"{s} (seat {i})" for i, s in enumerate(self.specs)],
            meta={"simulated": True, "seed": self.seed, "bots": list(self.specs)},
        )

    def summary(self) -> tuple[Any, ...]:
        """A compact, picklable row for statistics (see :mod:`blink.games.classic.sim.stats`)."""
        return (
            self.outcome.winners,
            self.outcome.reason,
            self.plays,
            self.duration,
            self.stalls,
            self.flips,
            self.choices,
            self.dead_ends,
            self.won_from_behind,
        )


class _Viewer:
    """Builds every seat's :class:`PlayerView` after each change, sharing the common parts.

    Equal to ``game.view(seat)`` (checked when ``SimConfig.check_views`` is on) but cheaper:
    the face-up piles are kept as tuples and extended from the events instead of copied.
    """

    __slots__ = ("game", "nobody", "nothing", "piles", "seats", "set_aside")

    def __init__(self, game: ClassicGame) -> None:
        self.game = game
        self.seats = range(game.players)
        self.piles = [game.pile(i) for i in self.seats]
        self.set_aside = len(game.set_aside)
        self.nobody = (False,) * game.players
        self.nothing: list[Card | None] = [None] * game.players

    def update(self, events: list[Event]) -> None:
        piles = self.piles
        for e in events:
            if isinstance(e, _PILE_EVENTS):
                piles[e.pile] += (e.card,)

    def views(self) -> list[PlayerView]:
        game = self.game
        piles = tuple(self.piles)
        tops = tuple(map(_last, piles))
        hands = game.hands
        hand_counts = tuple(map(len, hands))
        draw_counts = game.draw_counts
        choices = game.choices
        if choices:
            chosen = tuple(s in choices for s in self.seats)
            mine = [choices.get(s) for s in self.seats]
        else:
            chosen = self.nobody
            mine = self.nothing
        # PlayerView's fields, in order: seat, players, phase, ruleset, hand, tops, piles,
        # hand_counts, draw_counts, set_aside, chosen, my_choice, outcome, plays.
        new = _new_tuple
        players = game.players
        phase = game.phase
        ruleset = game.ruleset
        set_aside = self.set_aside
        outcome = game.outcome
        plays = game.plays
        return [
            new(
                PlayerView,
                (
                    s,
                    players,
                    phase,
                    ruleset,
                    hands[s],
                    tops,
                    piles,
                    hand_counts,
                    draw_counts,
                    set_aside,
                    chosen,
                    mine[s],
                    outcome,
                    plays,
                ),
            )
            for s in self.seats
        ]

    def checked_views(self) -> list[PlayerView]:
        views = self.views()
        for s, v in enumerate(views):
            if v != self.game.view(s):
                raise AssertionError(
                    f"simulator view of seat {s} differs: {v} != {self.game.view(s)}"
                )
        return views


_PILE_EVENTS = (Played, Flipped, Placed)
_last = itemgetter(-1)
_sub = operator.sub
_new_tuple: Callable[[type[PlayerView], tuple[object, ...]], PlayerView] = tuple.__new__


def simulate_game(
    specs: Sequence[BotSpec],
    seed: int,
    *,
    ruleset: Ruleset = OFFICIAL,
    sizes: Sequence[int] | None = None,
    config: SimConfig = DEFAULT_CONFIG,
    keep_game: bool = True,
) -> GameResult:
    """Simulate one classic game between bots, one per seat; deterministic for ``seed``.

    ``sizes`` gives each seat's draw-pile size (a handicap). The deck, the bots and the
    tie-breaks are seeded from ``seed`` by :func:`~blink.sim.seeds.derive_seed`.
    """
    from blink.games.classic.definition import CLASSIC

    players = CLASSIC.info.check_players(len(specs))
    game = ClassicGame.new(players, derive_seed(seed, "deck"), ruleset=ruleset, sizes=sizes)
    bots = [spec.build(i, derive_seed(seed, "bot", i)) for i, spec in enumerate(specs)]
    return play_game(
        game, bots, seed, config=config, keep_game=keep_game, names=[str(s) for s in specs]
    )


def play_game(
    game: ClassicGame,
    bots: Sequence[Bot],
    seed: int,
    *,
    config: SimConfig = DEFAULT_CONFIG,
    keep_game: bool = True,
    names: Sequence[str] | None = None,
) -> GameResult:
    """Play a dealt, unrevealed ``game`` to its end between ``bots`` (one per seat, in order).

    The lower level under :func:`simulate_game`, for any :class:`~blink.games.classic.bots.Bot`
    (bots whose ``plan`` takes no ``now`` are called with the view alone). What the table does
    by itself (the reveal, flips, default choices) comes from the game's referee, after the
    delays of ``config``. Equal due times are broken at random by ``seed``; a bot due exactly
    at the referee's deadline acts first.
    """
    players = game.players
    if len(bots) != players:
        raise ValueError(f"{len(bots)} bots for {players} seats")
    run = _Run(game, bots, seed, config)
    run.loop()
    outcome = game.outcome
    assert outcome is not None
    return GameResult(
        seed=seed,
        specs=tuple(names) if names is not None else tuple(repr(b) for b in bots),
        outcome=outcome,
        plays=game.plays,
        plays_by_seat=tuple(run.plays_by_seat),
        duration=run.now,
        stalls=game.stalls,
        flips=run.flips,
        choices=run.choices,
        dead_ends=run.dead_ends,
        defaults=run.defaults,
        max_deficit=tuple(run.max_deficit),
        cards_left=tuple(game.cards_left(s) for s in range(players)),
        game=game if keep_game else None,
    )


class _Outside:
    """A seat driven from outside the simulator (by :meth:`BotRace.act`): it never plans."""

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def plan(self, view: PlayerView) -> Intent | None:
        """Nothing: the seat's actions come from :meth:`BotRace.act`."""
        return None


class BotRace:
    """The simulator's race, advanced in slices of virtual time by a driver, with some seats
    played from outside it (a learning agent) and the others by ``bots`` (seat -> bot).

    The same loop as :func:`play_game`: every bot re-plans from its view after every change,
    the earliest intent is applied (equal times broken by ``seed``), the referee acts at its
    deadlines (``config``'s delays). :meth:`act` applies an outside seat's action at the
    current time; :meth:`advance` runs everything due until a later time.
    """

    def __init__(
        self,
        game: ClassicGame,
        bots: Mapping[int, Bot],
        seed: int,
        *,
        config: SimConfig = DEFAULT_CONFIG,
    ) -> None:
        seats: list[Bot] = [bots.get(s) or _Outside(s) for s in range(game.players)]
        self._run = _Run(game, seats, seed, config)
        self._run.start()

    @property
    def now(self) -> float:
        """The virtual time, in seconds since the reveal."""
        return self._run.now

    def act(self, action: Play | Choose) -> list[Event]:
        """Apply an outside seat's action now; :class:`IllegalAction` (unchanged) if refused."""
        run = self._run
        events = run.definition.apply(run.game, action, round(run.now * 1000))
        run._count(events)
        return events

    def advance(self, until: float) -> None:
        """Let the bots and the referee act until ``until`` (or the end of the game)."""
        run = self._run
        while not run.game.over and run.advance(until):
            pass


class _Run:
    """The state of one simulated game: the clock, the referee's deadline and the counts."""

    def __init__(self, game: ClassicGame, bots: Sequence[Bot], seed: int, config: SimConfig):
        from blink.games.classic.definition import CLASSIC

        self.definition = CLASSIC
        self.game = game
        self.bots = bots
        self.seed = seed
        self.tie_rng = random.Random(derive_seed(seed, "ties"))
        self.plans = [_timed_plan(b) for b in bots]
        self.referee = RefereeClock(
            CLASSIC,
            Timings(
                countdown=0.0,
                stall_pause=config.flip_pause,
                choice_deadline=config.choice_timeout,
                turn=None,
            ),
        )
        self.viewer = _Viewer(game)
        self.views = self.viewer.checked_views if config.check_views else self.viewer.views
        self.now = 0.0
        self.flips = self.choices = self.dead_ends = self.defaults = 0
        self.plays_by_seat = [0] * game.players
        self.acts: list[Any] = [None] * game.players
        self.left = [game.cards_left(s) for s in range(game.players)]
        self.max_deficit = [0] * game.players

    def loop(self) -> None:
        """Run the game to its end. The clock starts when the countdown ends."""
        self.start()
        game = self.game
        while not game.over:
            self.advance()

    def start(self) -> None:
        """The reveal, when the referee's countdown is over at once (the clock's zero)."""
        first = self.referee.update(self.game, 0.0)
        if first is not None and first.timer is Timer.COUNTDOWN:
            self._referee_acts(first, 0.0)

    def advance(self, until: float | None = None) -> bool:
        """The next thing that happens: the earliest bot's intent, or the referee's pending
        step when its deadline comes first. With ``until``, nothing due after it happens: the
        clock moves to ``until`` and the answer is False (True when something happened)."""
        game = self.game
        referee = self.referee
        pending = referee.update(game, self.now)
        best: float | None = None
        best_seats: list[int] = []
        now = self.now
        acts = self.acts
        plans = self.plans
        for s, v in enumerate(self.views()):
            intent = plans[s](v, now)
            if intent is None:
                continue
            t = now + intent.delay
            acts[s] = intent.action
            if best is None or t < best:
                best = t
                best_seats = [s]
            elif t == best:
                best_seats.append(s)
        if pending is not None:
            deadline = referee.deadline
            if (
                deadline is not None
                and (best is None or best > deadline)
                and (until is None or deadline <= until)
            ):
                self._referee_acts(pending, max(now, deadline))
                return True
        if best is None or (until is not None and best > until):
            if until is None:
                raise RuntimeError(f"no bot acts in phase {game.phase} (game seed {self.seed})")
            self.now = max(now, until)
            return False
        seat = best_seats[0] if len(best_seats) == 1 else self.tie_rng.choice(best_seats)
        self.now = best
        self._bot_acts(seat, acts[seat])
        return True

    def _referee_acts(self, pending: Pending, now: float) -> None:
        game = self.game
        self.now = now
        t = round(now * 1000)
        for seat, action in pending.actions:
            if type(action) is Flip:
                self.flips += 1
            elif seat is not None:
                self.defaults += 1
            self._count(self.definition.apply(game, action, t))
        self.left = [game.cards_left(s) for s in range(game.players)]

    def _bot_acts(self, seat: int, action: Any) -> None:
        game = self.game
        try:
            events = game.apply(action, round(self.now * 1000))
        except IllegalAction:
            reset = getattr(self.bots[seat], "reset", None)
            if reset is not None:
                reset()
            return
        self._count(events)
        if type(action) is Play:
            self.plays_by_seat[seat] += 1
            left = self.left
            left[seat] -= 1
            lead = min(left)
            deficit = self.max_deficit
            for s, n in enumerate(left):
                d = n - lead
                if d > deficit[s]:
                    deficit[s] = d
        elif not game.choices:  # the choices were placed
            self.left = [game.cards_left(s) for s in range(game.players)]

    def _count(self, events: list[Event]) -> None:
        self.viewer.update(events)
        for e in events:
            if type(e) is Stalled:
                if e.kind is StallKind.CHOOSE:
                    self.choices += 1
                elif e.kind is StallKind.DEAD_END:
                    self.dead_ends += 1


_TIMED: dict[Any, bool] = {}
"""Whether a ``plan`` function takes ``now``, by function (inspecting it is slow)."""


def _takes_now(plan: Callable[..., Intent | None]) -> bool:
    func = plan.__func__ if isinstance(plan, MethodType) else None
    if func is not None:
        cached = _TIMED.get(func)
        if cached is not None:
            return cached
    try:
        timed = "now" in inspect.signature(plan).parameters
    except (TypeError, ValueError):
        timed = False
    if func is not None:
        _TIMED[func] = timed
    return timed


class _Untimed:
    """A bot's ``plan(view)`` called as ``plan(view, now)`` (a class, not a closure: a race
    in progress can be pickled, and an environment with it)."""

    __slots__ = ("plan",)

    def __init__(self, plan: Callable[..., Intent | None]) -> None:
        self.plan = plan

    def __call__(self, view: PlayerView, now: float) -> Intent | None:
        return self.plan(view)


def _timed_plan(bot: Bot) -> Callable[[PlayerView, float], Intent | None]:
    plan: Callable[..., Intent | None] = bot.plan
    timed = _takes_now(plan)
    if timed:
        return plan
    return _Untimed(plan)


@dataclass
class SeriesResult:
    """A simulated best-of-N series."""

    best_of: int
    winner: int | None
    """The seat that won the series (``None`` if ties kept it undecided to the game limit)."""
    score: tuple[int, ...]
    games: list[GameResult]

    @property
    def record(self) -> SeriesRecord:
        """The series record: every game's record in order."""
        from blink.games.classic.record import SeriesRecord

        return SeriesRecord(self.best_of, [g.record for g in self.games], {"simulated": True})


def simulate_series(
    specs: Sequence[BotSpec],
    best_of: int,
    seed: int,
    *,
    ruleset: Ruleset = OFFICIAL,
    sizes: Sequence[int] | None = None,
    config: SimConfig = DEFAULT_CONFIG,
    keep_games: bool = True,
) -> SeriesResult:
    """Simulate a best-of-``best_of`` series; game ``i`` is seeded ``derive_seed(seed, i)``."""
    series = Series(best_of, len(specs))
    games: list[GameResult] = []
    while not series.over and len(games) < MAX_SERIES_GAMES:
        g = simulate_game(
            specs,
            derive_seed(seed, "game", len(games)),
            ruleset=ruleset,
            sizes=sizes,
            config=config,
            keep_game=keep_games,
        )
        games.append(g)
        series.record(g.outcome.winners)
    return SeriesResult(best_of, series.winner, series.score, games)
