"""The batch simulator's tables: cards as small integers and bit sets, random numbers, and the
form of a strategy written for the batch's arrays (:class:`VectorForm`).

Card ``i`` is ``DECK[i]`` and ``NONE`` (60) is "no card"; ``MATCH[i]`` is the bit set of the cards
that share a colour, shape or count with card ``i``; ``COST`` the bots' comparison counts. The
random numbers are counter-based (SplitMix64's finaliser), so a game's draws depend only on its
seed. Kept apart from :mod:`blink.games.classic.sim.batch` so the engine's module stays short;
the batch engine imports these names as its own module globals.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from blink.cards import STANDARD_DECK, Card
from blink.games.classic.bots.tables import CMP, NO_MATCH

Arr = npt.NDArray[Any]

# -- cards as small integers ------------------------------------------------------------------

DECK: tuple[Card, ...] = STANDARD_DECK
"""Card ``i`` of the batch simulator is ``DECK[i]``; ``NONE`` (60) is "no card"."""
N_CARDS = len(DECK)
NONE = N_CARDS


def _mask_table(pred: Any) -> Arr:
    rows = [sum(1 << j for j, o in enumerate(DECK) if pred(c, o)) for c in DECK]
    return np.array([*rows, 0], dtype=np.uint64)


BIT: Arr = np.array([1 << i for i in range(N_CARDS)] + [0], dtype=np.uint64)
MATCH: Arr = _mask_table(lambda c, o: c.matches(o))
"""Cards sharing a colour, shape or count with card ``i`` (as a bit set)."""
COLOR: Arr = _mask_table(lambda c, o: o.color is c.color)
SHAPE_ONLY: Arr = _mask_table(lambda c, o: o.shape is c.shape and o.color is not c.color)
DECK_MASK = (1 << N_CARDS) - 1
_DECK_U64 = np.uint64(DECK_MASK)
_MATCH_INT = [int(m) for m in MATCH]


COST: Arr = np.full((N_CARDS + 1, N_CARDS + 1), NO_MATCH, dtype=np.int64)
"""``COST[top, card]``: comparisons to see that ``card`` goes on ``top`` (``NO_MATCH``: none), as
:data:`blink.games.classic.bots.tables.CMP`."""
COST[:N_CARDS, :N_CARDS] = [[CMP[top.index][card.index] for card in DECK] for top in DECK]


def _pc(x: Arr) -> Arr:
    """Population counts of a uint64 array, as int64."""
    return np.bitwise_count(x).astype(np.int64)


# -- counter-based random numbers -------------------------------------------------------------

_GOLD = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = (np.uint64(k) for k in (30, 27, 31, 11))
_M64 = (1 << 64) - 1


def _mix(z: Arr) -> Arr:
    """SplitMix64's finaliser (a bijection of uint64 with good avalanche)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    out: Arr = z ^ (z >> _S31)
    return out


def _mix_int(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


_TWO53 = 2.0**-53
_TWOPI = 2.0 * math.pi


# -- strategies in vector form ----------------------------------------------------------------

PlayScores = Callable[..., Arr]
"""``(batch, seat, rows, hand, candidates, hand_bits) -> scores``: a method of the batch."""
ChoiceScores = Callable[[int, list[int], int], float]


@dataclass(frozen=True)
class VectorForm:
    """How the batch engine plays a strategy: its choices, written for the batch's arrays.

    The kind of search is the strategy's own (``Strategy.exhaustive``): a non-exhaustive
    strategy plays the first match its search finds, and ``play_scores`` is not used.
    """

    play_scores: PlayScores | None
    """``(batch, seat, rows, hand, candidates, hand_bits)``: a score per candidate play of the
    seat in games ``rows``, shape ``(len(rows), 2 * hand_size)`` (each hand card on the seat's
    first reachable pile, then on its second); one of the best legal plays is drawn uniformly.
    ``None``: every legal play alike."""
    choice_scores: ChoiceScores | None
    """``(card, hand, unknown)``: the score of placing ``card`` of ``hand`` in a choosing stall,
    ``unknown`` the cards the bot has not seen; one of the best is drawn uniformly. ``None``:
    the first card, without a draw."""


def _alike(card: int, hand: list[int], unknown: int) -> float:
    return 0.0


def _blocker_choice(card: int, hand: list[int], unknown: int) -> float:
    return -(unknown & _MATCH_INT[card]).bit_count()


def _flexible_choice(card: int, hand: list[int], unknown: int) -> float:
    mask = 0
    follow = 0
    for o in hand:
        if o != card:
            mask |= _MATCH_INT[o]
            follow += _MATCH_INT[card] >> o & 1
    return (mask & (unknown or DECK_MASK)).bit_count() + 0.5 * follow
