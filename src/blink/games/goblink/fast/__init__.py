"""Go Blink's fast engine: whole games compiled with numba, one after another per core.

:mod:`blink.games.goblink.fast.rules` states the rules and :mod:`blink.games.goblink.fast.bots`
the ``random``, ``greedy`` and ``memory`` bots (:mod:`blink.games.goblink.bots`) as compiled
functions that play one game at a time in a loop over the seeds. It is the second statement of
the rules, checked against the engine of record: every game can be replayed through
:class:`~blink.games.goblink.engine.GoGame` (``records=True``, :func:`replay`; the tests replay
thousands of games), and its statistics are compared with the exact simulator's
(:func:`blink.games.goblink.sim.play_one`).

Its random numbers are a counter-based stream keyed by each game's seed, and so are its deals:
a game's result depends only on its seed and dealer (never on the batch, the chunk or the
worker it ran in). The deals and the bots' draws differ from the exact engine's: the two give
the same statistics, not the same games.

Scope: 2 to 6 players, the standard deck, any turn limit, the bots of :data:`KERNEL_BOTS`;
anything else is refused with :class:`NoKernelFormError`. The kernels are compiled on first use
and cached on disk (numba's cache, beside the modules); when numba cannot be imported,
:func:`unavailable` says why, in one sentence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType, ModuleType
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from blink.cards import STANDARD_DECK, Card
from blink.games.goblink.actions import Ask, EndTurn, GoAction, GoEnd, LayDown
from blink.games.goblink.engine import MAX_PLAYERS, MIN_PLAYERS, GoGame
from blink.games.goblink.values import Value
from blink.model.base import Outcome
from blink.sim import compiled
from blink.sim.compiled import FastUnavailableError

__all__ = [
    "KERNEL_BOTS",
    "FastGoGame",
    "FastRun",
    "FastUnavailableError",
    "NoKernelFormError",
    "check_bots",
    "games_of",
    "replay",
    "run",
    "unavailable",
]

Arr = npt.NDArray[Any]

KERNEL_BOTS: Final[Mapping[str, int]] = MappingProxyType({"random": 0, "greedy": 1, "memory": 2})
"""The bots the fast engine plays, by their registered names, with their codes in
:mod:`blink.games.goblink.fast.bots`."""

REASONS: Final = (GoEnd.BLUNK, GoEnd.FEWEST_CARDS, GoEnd.TURN_LIMIT)
"""Each ending's kernel code (the index) as the engine's :class:`GoEnd`."""

LOG_CAPACITY = 512
"""Actions kept per game with records; a longer game is played again with room for all."""

# The kernels' fields of a game (blink.games.goblink.fast.rules.G_*), read here without
# importing numba.
F_TURNS, F_ASKS, F_WINNERS, F_REASON, F_ACTIONS, F_MATCHES, F_FIRST, F_STATUS = (
    2, 3, 8, 9, 10, 11, 12, 15,
)  # fmt: skip
N_FIELDS: Final = 16
_ASK, _LAY = 0, 1

_KERNELS = "blink.games.goblink.fast.bots"


class NoKernelFormError(ValueError):
    """A bot the fast engine cannot play (or not a bot at all): the sentence says which it
    plays and how to run the others."""

    code = "no_kernel_form"

    def __init__(self, what: str) -> None:
        super().__init__(
            f"the fast engine has no kernel form of {what}: it plays the Go Blink bots "
            f"{', '.join(KERNEL_BOTS)} (simulate other bots with the exact engine, --engine exact)"
        )


def unavailable() -> str | None:
    """Why the fast engine cannot run here (one sentence), or ``None`` when it can."""
    return compiled.unavailable(_KERNELS)


def _kernels() -> ModuleType:
    """The compiled bots' module (importing numba and loading its registries on first use)."""
    return compiled.load_kernels(_KERNELS)


def check_bots(names: Sequence[str]) -> tuple[int, ...]:
    """Each seat's bot as its kernel code; :class:`NoKernelFormError` for a bot it cannot play
    or a table of the wrong size. The names are the registered ones (:data:`KERNEL_BOTS`), not
    aliases: the engine sits below the bots and does not read their registry
    (:func:`blink.games.goblink.sim.parse_bots` resolves aliases)."""
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise NoKernelFormError(f"a table of {len(names)} players (Go Blink is for 2 to 6)")
    codes = []
    for name in names:
        code = KERNEL_BOTS.get(name.strip().lower())
        if code is None:
            raise NoKernelFormError(f"the bot {name!r}")
        codes.append(code)
    return tuple(codes)


@dataclass(frozen=True)
class FastRun:
    """The results of a run of fast games, as arrays (row ``i``: ``seeds[i]``)."""

    bots: tuple[str, ...]
    seeds: tuple[int, ...]
    dealers: tuple[int, ...]
    turn_limit: int | None
    fields: Arr
    """(games, fields): each game's counters (``F_*``: turns, asks, winners as a bit set, ...)."""
    counts: Arr
    """(games, players): the cards left in each hand at the end."""
    logs: Arr | None
    """(games, actions, 4): kind, seat, ``target * 32 + value``, cards (with records only)."""
    perms: Arr | None
    """(games, 60): each deal, top card first, as card numbers (with records only)."""

    def winners(self, i: int) -> tuple[int, ...]:
        """The winning seats of game ``i``."""
        w = int(self.fields[i, F_WINNERS])
        return tuple(p for p in range(len(self.bots)) if w >> p & 1)

    def reason(self, i: int) -> GoEnd:
        """Why game ``i`` ended."""
        return REASONS[int(self.fields[i, F_REASON])]


def run(
    bots: Sequence[str],
    seeds: Sequence[int],
    dealers: Sequence[int],
    *,
    turn_limit: int | None = None,
    records: bool = False,
) -> FastRun:
    """Play one game per seed on the compiled kernel (``dealers[i]`` deals game ``i``).

    With ``records`` every game keeps its deal and actions (:func:`games_of`, :func:`replay`).
    Raises :class:`NoKernelFormError` for a bot it cannot play, :class:`FastUnavailableError`
    without numba, ``ValueError`` for a bad dealer or turn limit.
    """
    codes = check_bots(bots)
    players = len(codes)
    if len(dealers) != len(seeds) or any(not 0 <= d < players for d in dealers):
        raise ValueError(f"give one dealer (a seat 0 to {players - 1}) per seed")
    if turn_limit is not None and turn_limit < 1:
        raise ValueError(f"the turn limit must be positive, not {turn_limit}")
    kernels = _kernels()
    n = len(seeds)
    seed_arr = np.array(seeds, dtype=np.uint64)
    dealer_arr = np.array(dealers, dtype=np.int64)
    limit = turn_limit or 0
    nlog = LOG_CAPACITY if records else 0
    fields = np.zeros((n, N_FIELDS), dtype=np.int64)
    counts = np.zeros((n, players), dtype=np.int64)
    rows = n if records else 1
    logs = np.zeros((rows, max(nlog, 1), 4), dtype=np.int64)
    perms = np.zeros((rows, len(STANDARD_DECK)), dtype=np.int64)
    code_arr = np.array(codes, dtype=np.int64)
    kernels.play_games(seed_arr, dealer_arr, code_arr, limit, nlog, fields, counts, logs, perms)
    bad = np.flatnonzero(fields[:, F_STATUS] != 0)
    if bad.size:
        raise RuntimeError(f"a fast game's bot chose an illegal action (seed {seeds[int(bad[0])]})")
    out_logs: Arr | None = None
    if records:
        longest = int(fields[:, F_ACTIONS].max()) if n else 0
        if longest > nlog:  # the few longer games again, alone, with room for every action
            logs = np.pad(logs, ((0, 0), (0, longest - nlog), (0, 0)))
            for i in np.flatnonzero(fields[:, F_ACTIONS] > nlog).tolist():
                kernels.play_games(
                    seed_arr[i : i + 1], dealer_arr[i : i + 1], code_arr, limit, longest,
                    fields[i : i + 1], counts[i : i + 1], logs[i : i + 1], perms[i : i + 1],
                )  # fmt: skip
        out_logs = logs
    return FastRun(
        tuple(bots), tuple(seeds), tuple(dealers), turn_limit, fields, counts, out_logs,
        perms if records else None,
    )  # fmt: skip


@dataclass(frozen=True)
class FastGoGame:
    """One finished fast game: its result, and with records its deal and actions, enough to
    replay it through :class:`~blink.games.goblink.engine.GoGame` (:func:`replay`)."""

    seed: int
    players: int
    dealer: int
    turn_limit: int | None
    outcome: Outcome
    turns: int
    asks: int
    matches: int
    hand_counts: tuple[int, ...]
    deck: tuple[Card, ...]
    """The deal, top card first (empty unless records were kept)."""
    actions: tuple[GoAction, ...]
    """Every action in order (empty unless records were kept)."""


def _value(code: int) -> Value:
    from blink.games.goblink.fast.rules import VALUES

    value: Value = VALUES[code]
    return value


def _cards(mask: int) -> tuple[Card, ...]:
    return tuple(STANDARD_DECK[i] for i in range(len(STANDARD_DECK)) if mask >> i & 1)


def games_of(run: FastRun) -> list[FastGoGame]:
    """Each game of ``run`` as a :class:`FastGoGame` (with records, its deal and actions)."""
    players = len(run.bots)
    out = []
    for i, seed in enumerate(run.seeds):
        f = run.fields[i].tolist()
        deck: tuple[Card, ...] = ()
        actions: list[GoAction] = []
        if run.logs is not None and run.perms is not None:
            deck = tuple(STANDARD_DECK[j] for j in run.perms[i].tolist())
            for kind, seat, arg, mask in run.logs[i, : f[F_ACTIONS]].tolist():
                if kind == _ASK:
                    actions.append(Ask(seat, arg // 32, _value(arg % 32)))
                elif kind == _LAY:
                    actions.append(LayDown(seat, _cards(mask)))
                else:
                    actions.append(EndTurn(seat))
        out.append(
            FastGoGame(
                seed=seed,
                players=players,
                dealer=run.dealers[i],
                turn_limit=run.turn_limit,
                outcome=Outcome(run.winners(i), run.reason(i)),
                turns=f[F_TURNS],
                asks=f[F_ASKS],
                matches=f[F_MATCHES],
                hand_counts=tuple(run.counts[i].tolist()),
                deck=deck,
                actions=tuple(actions),
            )
        )
    return out


def replay(game: FastGoGame) -> GoGame:
    """Replay a fast game (kept with records) through the rules engine (``IllegalAction`` at a
    broken rule)."""
    if not game.deck:
        raise ValueError("this fast game was played without records: there is nothing to replay")
    return GoGame.replay(
        game.deck, game.players, game.dealer, ((a, None) for a in game.actions), game.turn_limit
    )
