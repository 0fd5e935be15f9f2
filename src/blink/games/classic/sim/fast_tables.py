"""The fast simulator's tables: cards as small integers and bit sets, and the bots' comparison
counts, compiled into :mod:`blink.games.classic.sim.fast_rules`'s functions as constants.

Card ``i`` is ``DECK[i]`` and ``NONE`` (60) is "no card"; ``MATCH[i]`` is the bit set of the cards
that share a colour, shape or count with card ``i``; ``COST`` the bots' comparison counts.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from blink.cards import STANDARD_DECK, Card
from blink.games.classic.bots.tables import CMP, NO_MATCH

__all__ = ["BIT", "COLOR", "COST", "DECK", "MATCH", "NONE", "N_CARDS", "SHAPE_ONLY"]

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
