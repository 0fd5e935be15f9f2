"""The fast simulator: whole classic games compiled with numba, one after another per core.

:mod:`blink.games.classic.sim.fast_rules` states the classic rules and
:mod:`blink.games.classic.sim.fast_bots` the bots
(:class:`~blink.games.classic.bots.human.HumanBot`: its reaction-time model, incremental search,
re-judging and each strategy's choices) as compiled functions that play one game at a time in a
loop over the seeds. It is the second statement of the rules, checked against the engine of
record: every game can be replayed through :class:`~blink.games.classic.engine.ClassicGame`
(``records=True``, :func:`replay`; the tests replay thousands of games), and its statistics are
compared with the exact engine's (``benchmarks/parity_sim.py``).

Its random numbers are a counter-based stream keyed by each game's seed, and so are its deals:
a game's result depends only on its seed (never on the batch, the chunk or the worker it ran
in). The deals and draws differ from the exact engine's: the two give the same statistics, not
the same games.

Scope: 2 or 3 players, both rulesets, handicaps, hand sizes, every level and speed factor,
:class:`~blink.games.classic.sim.core.SimConfig` timings, for the strategies with a kernel form
(:data:`KERNEL_FORMS`); random-legal games (:func:`simulate_random`). Anything else is refused
with :class:`NoKernelFormError`. The kernels are compiled on first use and cached on disk
(numba's cache, beside the modules); when numba cannot be imported, :func:`unavailable` says
why, in one sentence.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt

from blink.cards import Card
from blink.games.classic.actions import ClassicEnd
from blink.games.classic.bots import BotConfigError, BotSpec, get_level, get_strategy
from blink.games.classic.bots.strategies import BLOCKER, FIRST, FLEXIBLE, RANDOM, Strategy
from blink.games.classic.engine import Choose, ClassicGame, Flip, Outcome, Play
from blink.games.classic.rules import OFFICIAL, Ruleset, deal_sizes
from blink.games.classic.sim.core import DEFAULT_CONFIG, GameResult, SimConfig
from blink.games.classic.sim.fast_tables import DECK, N_CARDS
from blink.games.classic.view import reach
from blink.sim import compiled
from blink.sim.compiled import FastUnavailableError
from blink.sim.seeds import derive_seeds_of

if TYPE_CHECKING:
    from blink.games.classic.record import GameRecord

__all__ = [
    "KERNEL_FORMS",
    "REASONS",
    "FastGame",
    "FastGames",
    "FastUnavailableError",
    "NoKernelFormError",
    "check_specs",
    "games_of",
    "replay",
    "result_columns",
    "result_rows",
    "run_bots",
    "simulate_fast",
    "simulate_random",
    "to_record",
    "unavailable",
]

Arr = npt.NDArray[Any]

KERNEL_FORMS: Final[Mapping[Strategy, int]] = MappingProxyType(
    {RANDOM: 0, FIRST: 1, BLOCKER: 2, FLEXIBLE: 3}
)
"""The strategies the fast engine plays, keyed by the registered strategy objects, with their
codes in :mod:`blink.games.classic.sim.fast_bots`."""

REASONS: Final = (ClassicEnd.OUT_OF_CARDS, ClassicEnd.STALL_PLACEMENT, ClassicEnd.FEWEST_CARDS)
"""Why a fast game ended, by the code in its counters (``C_REASON``)."""


class NoKernelFormError(BotConfigError):
    """A bot the fast engine cannot play: a strategy without a kernel form, or not a bot spec
    (a custom :class:`~blink.games.classic.bots.Bot` object)."""

    def __init__(self, what: str, strategy: Strategy | None = None) -> None:
        allowed = tuple(s.name for s in KERNEL_FORMS)
        super().__init__(
            f"the fast engine has no kernel form of {what}: it plays bot specs level:strategy "
            f"with the strategies {', '.join(allowed)} (simulate other bots with the exact "
            f"engine, --engine exact)",
            "strategy",
            allowed,
        )
        self.reason = "no_kernel_form"
        self.strategy = strategy
        """The strategy refused (``None`` for an object that is not a bot spec)."""


_KERNELS = "blink.games.classic.sim.fast_bots"


def unavailable() -> str | None:
    """Why the fast engine cannot run here (one sentence), or ``None`` when it can."""
    return compiled.unavailable(_KERNELS)


def _kernels() -> ModuleType:
    """The compiled bots' module (importing numba and loading its registries on first use)."""
    return compiled.load_kernels(_KERNELS)


def check_specs(specs: Sequence[object]) -> tuple[BotSpec, ...]:
    """The bot specs, checked: each one a :class:`BotSpec` whose strategy has a kernel form
    (and whose level plays the reaction-time model, not a trained policy).

    Raises :class:`NoKernelFormError` (a sentence listing what the engine plays).
    """
    out = []
    for spec in specs:
        if not isinstance(spec, BotSpec):
            raise NoKernelFormError(f"the bot {spec!r} (not a level:strategy spec)")
        if get_level(spec.level).policy:
            raise NoKernelFormError(f"the {spec.level!r} level (a trained policy)")
        strategy = get_strategy(spec.strategy)
        if strategy not in KERNEL_FORMS:
            raise NoKernelFormError(f"the {strategy.name!r} strategy", strategy)
        out.append(spec)
    return tuple(out)


@dataclass(frozen=True)
class FastGames:
    """The results of a run of fast games, as arrays (row ``i``: seed ``i``)."""

    seeds: tuple[int, ...]
    counters: Arr
    """(games, counters): the ``C_*`` counters of :mod:`blink.games.classic.sim.fast_rules`."""
    seats: Arr
    """(games, players, 3): each seat's plays, most cards behind the leader, cards left."""
    duration: Arr
    """Virtual seconds per game (0 for random-legal games)."""
    logs: Arr | None
    """(games, actions, 5): kind, seat, card, pile, ms per action (with records only)."""
    perms: Arr | None
    """(games, 60): each deal, top card first, as card numbers (with records only)."""

    def column(self, name: str) -> Arr:
        """One counter of every game (``"plays"``, ``"stalls"``, ``"winners"``, ...)."""
        fr = importlib.import_module("blink.games.classic.sim.fast_rules")
        out: Arr = self.counters[:, getattr(fr, f"C_{name.upper()}")]
        return out


class FastGame:
    """One finished fast game: its result, and with records its deal and actions, enough to
    replay it through the rules engine (:func:`replay`)."""

    __slots__ = ("_order", "actions", "result")

    def __init__(
        self,
        result: GameResult,
        order: Sequence[int],
        actions: list[tuple[Play | Flip | Choose, int]],
    ) -> None:
        self.result = result
        self._order = order
        self.actions = actions
        """Every action after the reveal with its time in ms (empty unless records were kept)."""

    @property
    def deck(self) -> tuple[Card, ...]:
        """The deal, top card first (the order :class:`~blink.games.classic.engine.ClassicGame`
        takes)."""
        return tuple(DECK[j] for j in self._order)


def replay(
    game: FastGame, ruleset: Ruleset = OFFICIAL, sizes: Sequence[int] | None = None
) -> ClassicGame:
    """Replay a fast game through the rules engine (``IllegalAction`` at a broken rule)."""
    players = len(game.result.specs)
    classic = ClassicGame(game.deck, players, ruleset, sizes)
    classic.reveal(0)
    for action, ms in game.actions:
        classic.apply(action, ms)
    return classic


def _setting(
    players: int, ruleset: Ruleset, sizes: Sequence[int] | None
) -> tuple[Arr, Arr, int, int]:
    deal = deal_sizes(players, N_CARDS, sizes)
    table = np.array([reach(players, s) for s in range(players)], dtype=np.int64)
    fr = importlib.import_module("blink.games.classic.sim.fast_rules")
    fewest: int = fr.DEAD_END_SCOPES[ruleset.dead_end]
    nlog = N_CARDS + max(deal) + 8
    return np.array(deal, dtype=np.int64), table, nlog, fewest


def _keys(seeds: Sequence[int], tag: str) -> Arr:
    """Each seed's random key. The bots' games are keyed with the tag ``"batch"``, the name of
    the engine whose deals these are, kept so that a seed plays the game it always has."""
    return np.array(derive_seeds_of(seeds, tag), dtype=np.uint64)


def _outputs(n: int, players: int, nlog: int, records: bool) -> tuple[Arr, ...]:
    fr = importlib.import_module("blink.games.classic.sim.fast_rules")
    rows = n if records else 1
    return (
        np.zeros((n, fr.N_COUNTERS), dtype=np.int64),
        np.zeros((n, players, 3), dtype=np.int64),
        np.zeros(n, dtype=np.float64),
        np.zeros((rows, nlog if records else 1, fr.ACTION_FIELDS), dtype=np.int64),
        np.zeros((rows, N_CARDS), dtype=np.int64),
    )


def _checked(seeds: Sequence[int], outs: tuple[Arr, ...], records: bool, nlog: int) -> FastGames:
    fr = importlib.import_module("blink.games.classic.sim.fast_rules")
    counters, seats, duration, logs, perms = outs
    bad = np.flatnonzero(counters[:, fr.C_STATUS] != 0)
    if bad.size:
        raise RuntimeError(f"no bot acts in a playing game (seed {seeds[int(bad[0])]})")
    if records and counters.size and int(counters[:, fr.C_NLOG].max()) > nlog:
        raise RuntimeError("a fast game logged more actions than its record holds")
    return FastGames(
        tuple(seeds), counters, seats, duration, logs if records else None,
        perms if records else None,
    )  # fmt: skip


def run_bots(
    specs: Sequence[object],
    seeds: Sequence[int],
    *,
    ruleset: Ruleset = OFFICIAL,
    sizes: Sequence[int] | None = None,
    config: SimConfig = DEFAULT_CONFIG,
    records: bool = False,
) -> FastGames:
    """Play one bot game per seed on the compiled kernel; the results as arrays."""
    checked = check_specs(specs)
    bots = _kernels()
    players = len(checked)
    table_sizes, table, nlog, fewest = _setting(players, ruleset, sizes)
    levels = [get_level(s.level).scaled(s.speed) for s in checked]
    lv = np.array(
        [[x.floor, x.encode, x.per_comparison, x.per_bit, x.sigma, x.tau] for x in levels],
        dtype=np.float64,
    )
    strat = np.array([KERNEL_FORMS[get_strategy(s.strategy)] for s in checked], dtype=np.int64)
    outs = _outputs(len(seeds), players, nlog, records)
    bots.bot_games(
        _keys(seeds, "batch"), table_sizes, ruleset.hand_size, lv, strat, table, fewest,
        float(config.flip_pause), float(config.choice_timeout), nlog if records else 0, *outs,
    )  # fmt: skip
    return _checked(seeds, outs, records, nlog)


def simulate_random(
    players: int,
    seeds: Sequence[int],
    *,
    ruleset: Ruleset = OFFICIAL,
    sizes: Sequence[int] | None = None,
    records: bool = False,
) -> FastGames:
    """Play one random-legal game per seed: at each step one of every player's legal plays,
    uniformly; a choosing stall is broken by each player's first hand card (the default)."""
    _kernels()
    fr = importlib.import_module("blink.games.classic.sim.fast_rules")
    table_sizes, table, nlog, fewest = _setting(players, ruleset, sizes)
    outs = _outputs(len(seeds), players, nlog, records)
    counters, seats, _, logs, perms = outs
    fr.random_games(
        _keys(seeds, "random"), table_sizes, ruleset.hand_size, table, fewest,
        nlog if records else 0, counters, seats, logs, perms,
    )  # fmt: skip
    return _checked(seeds, outs, records, nlog)


def result_columns(run: FastGames, behind: int) -> tuple[Arr, ...]:
    """Each game's statistics as columns, in the order of the fields of a
    :class:`~blink.games.classic.sim.runner.GameRow`, except that the winners are a bit set of
    seats and the reason is its index in :data:`REASONS` (``behind``: the margin of a win from
    behind, :data:`~blink.games.classic.sim.core.BEHIND_MARGIN`). Each column is an array of
    its own (not a view of the counters), for pickling."""
    fr = importlib.import_module("blink.games.classic.sim.fast_rules")
    c = run.counters
    winners = np.ascontiguousarray(c[:, fr.C_WINNERS])
    single = (winners != 0) & ((winners & (winners - 1)) == 0)
    seat = np.zeros(len(winners), dtype=np.int64)
    for p in range(1, run.seats.shape[1]):
        seat[winners == 1 << p] = p
    deficit = run.seats[np.arange(len(winners)), seat, 1]
    counter = [
        np.ascontiguousarray(c[:, getattr(fr, f"C_{name}")])
        for name in ("REASON", "PLAYS", "STALLS", "FLIPS", "CHOICES", "DEAD_ENDS", "DEFAULTS")
    ]
    reason, plays, *rest = counter
    return (winners, reason, plays, run.duration.copy(), *rest, single & (deficit >= behind))


def result_rows(run: FastGames, behind: int) -> list[tuple[Any, ...]]:
    """Each game's statistics as the fields of a
    :class:`~blink.games.classic.sim.runner.GameRow` (``behind``: the margin of a win from
    behind, :data:`~blink.games.classic.sim.core.BEHIND_MARGIN`)."""
    players = run.seats.shape[1]
    winner_sets = [tuple(p for p in range(players) if w >> p & 1) for w in range(1 << players)]
    cols = result_columns(run, behind)
    return [
        (winner_sets[w], REASONS[why], *rest)
        for w, why, *rest in zip(*(col.tolist() for col in cols), strict=True)
    ]


def games_of(run: FastGames, names: Sequence[str]) -> list[FastGame]:
    """Each game of ``run`` as a :class:`FastGame` (its
    result, and with records its deal and actions)."""
    fr = importlib.import_module("blink.games.classic.sim.fast_rules")
    players = run.seats.shape[1]
    out = []
    for i, seed in enumerate(run.seeds):
        c = run.counters[i].tolist()
        seat = run.seats[i].tolist()
        w = c[fr.C_WINNERS]
        result = GameResult(
            seed=seed,
            specs=tuple(names),
            outcome=Outcome(
                tuple(p for p in range(players) if w >> p & 1), REASONS[c[fr.C_REASON]]
            ),
            plays=c[fr.C_PLAYS],
            plays_by_seat=tuple(x[0] for x in seat),
            duration=float(run.duration[i]),
            stalls=c[fr.C_STALLS],
            flips=c[fr.C_FLIPS],
            choices=c[fr.C_CHOICES],
            dead_ends=c[fr.C_DEAD_ENDS],
            defaults=c[fr.C_DEFAULTS],
            max_deficit=tuple(x[1] for x in seat),
            cards_left=tuple(x[2] for x in seat),
            game=None,
        )
        actions: list[tuple[Play | Flip | Choose, int]] = []
        order: Sequence[int] = ()
        if run.logs is not None and run.perms is not None:
            order = run.perms[i].tolist()
            for kind, s, card, pile, ms in run.logs[i, : c[fr.C_NLOG]].tolist():
                action: Play | Flip | Choose
                if kind == fr.PLAY:
                    action = Play(s, DECK[card], pile)
                elif kind == fr.FLIP:
                    action = Flip()
                else:
                    action = Choose(s, DECK[card])
                actions.append((action, ms))
        out.append(FastGame(result, order, actions))
    return out


def simulate_fast(
    specs: Sequence[object],
    seeds: Sequence[int],
    *,
    ruleset: Ruleset = OFFICIAL,
    sizes: Sequence[int] | None = None,
    config: SimConfig = DEFAULT_CONFIG,
    records: bool = False,
) -> list[FastGame]:
    """Simulate one game per seed between ``specs`` bots on the compiled kernel; results in
    seed order. With ``records`` each game keeps its deal and actions, for :func:`replay` and
    :func:`to_record`."""
    run = run_bots(specs, seeds, ruleset=ruleset, sizes=sizes, config=config, records=records)
    return games_of(run, [str(s) for s in specs])


def to_record(
    game: FastGame, ruleset: Ruleset = OFFICIAL, sizes: Sequence[int] | None = None
) -> GameRecord:
    """The game's record, built by replaying it through the rules engine."""
    from blink.games.classic.record import GameRecord

    res = game.result
    return GameRecord.from_game(
        replay(game, ruleset, sizes),
        names=[f"{s} (seat {i})" for i, s in enumerate(res.specs)],
        meta={"simulated": True, "engine": "fast", "seed": res.seed, "bots": list(res.specs)},
    )
