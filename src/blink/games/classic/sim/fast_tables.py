"""The fast simulator's tables: cards as small integers and bit sets, and the bots' comparison
counts, compiled into :mod:`blink.games.classic.sim.fast_rules`'s functions as constants.

Card ``i`` is ``DECK[i]`` and ``NONE`` (60) is "no card"; ``MATCH[i]`` is the bit set of the cards
that share a colour, shape or count with card ``i``; ``COST`` the bots' comparison counts.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from blink.cards import STANDARD_DECK, Card
from blink.games.classic.bots.tables import CMP, NO_MATCH

__all__ = [
    "BIT",
    "COLOR",
    "COST",
    "DECK",
    "EXP_F",
    "EXP_K",
    "EXP_R",
    "EXP_W",
    "MATCH",
    "NONE",
    "NORMAL_F",
    "NORMAL_K",
    "NORMAL_R",
    "NORMAL_W",
    "N_CARDS",
    "SHAPE_ONLY",
]

Arr = npt.NDArray[Any]

DECK: tuple[Card, ...] = STANDARD_DECK
"""Card ``i`` of the fast simulator is ``DECK[i]``; ``NONE`` (60) is "no card"."""
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

COST: Arr = np.full((N_CARDS + 1, N_CARDS + 1), NO_MATCH, dtype=np.int64)
"""``COST[top, card]``: comparisons to see that ``card`` goes on ``top`` (``NO_MATCH``: none), as
:data:`blink.games.classic.bots.tables.CMP`."""
COST[:N_CARDS, :N_CARDS] = [[CMP[top.index][card.index] for card in DECK] for top in DECK]


def _ziggurat(f: Any, finv: Any, r: float, v: float, bits: int) -> tuple[Arr, Arr, Arr]:
    """Marsaglia and Tsang's ziggurat of 256 layers for a decreasing density ``f`` on
    [0, inf) (``finv`` its inverse, ``r`` where the tail starts, ``v`` each layer's area),
    for uniform integers of ``bits`` bits: ``k`` (below ``k[i]`` a point of layer ``i`` is
    accepted at once), ``w`` (``x = integer * w[i]``) and ``f`` at each layer's edge."""
    n, m = _LAYERS, float(2**bits)
    k = np.zeros(n, dtype=np.uint64)
    w = np.zeros(n)
    fx = np.zeros(n)
    q = v / f(r)
    k[0] = int(r / q * m)
    w[0] = q / m
    w[n - 1] = r / m
    fx[0] = 1.0
    fx[n - 1] = f(r)
    x = r
    for i in range(n - 2, 0, -1):
        inner = finv(v / x + f(x))
        k[i + 1] = int(inner / x * m)
        x = inner
        w[i] = x / m
        fx[i] = f(x)
    return k, w, fx


_LAYERS = 256
NORMAL_R = 3.6541528853610088
"""Where the standard normal ziggurat's tail starts (256 layers)."""
EXP_R = 7.69711747013104972
"""Where the standard exponential ziggurat's tail starts (256 layers)."""
NORMAL_K, NORMAL_W, NORMAL_F = _ziggurat(
    lambda x: math.exp(-0.5 * x * x),
    lambda y: math.sqrt(-2.0 * math.log(y)),
    NORMAL_R,
    NORMAL_R * math.exp(-0.5 * NORMAL_R**2)
    + math.sqrt(math.pi / 2) * math.erfc(NORMAL_R / math.sqrt(2)),
    52,
)
"""The standard normal distribution's ziggurat (52-bit integers, and a sign bit)."""
EXP_K, EXP_W, EXP_F = _ziggurat(
    lambda x: math.exp(-x), lambda y: -math.log(y), EXP_R, (EXP_R + 1) * math.exp(-EXP_R), 53
)
"""The standard exponential distribution's ziggurat (53-bit integers)."""
