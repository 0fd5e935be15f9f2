"""Go Blink's factored actions for many games at once (:class:`FactoredBatch`): the vector
environment's ``actions="factored"``.

The same space, masks and decoding as :class:`~blink.games.goblink.envs.factored.FactoredActions`
(its module docstring states them), computed from the compiled kernels' flat masks, one row a
game, with numpy over every game at once. A flat mask of 31,719 entries allows a few dozen
actions at most, so everything is computed from the allowed entries only (their rows and
indices, found once a step) and tables of the parts of every flat action, built once:

* the masks: each allowed action sets the entries of its kind and value (and an ask's target);
  a game's card parts come from the union and the intersection, as bit sets, of its allowed
  matches (``bitwise_or.reduceat``, ``bitwise_and.reduceat``);
* the decoding: an end or an ask is arithmetic on the parts; a lay keeps the chosen cards that
  have the chosen value, and takes the allowed match of that value nearest to them (the fewest
  cards added or removed, a popcount of a bit set; a tie goes to the lowest flat index); with
  none, the chosen cards themselves when they are a match, else a refused action (``-1``, out of
  the flat space), as a vector outside the space.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from blink.cards import STANDARD_DECK, Card
from blink.envs.encoding import DECK_INDEX
from blink.games.goblink.envs.codec import VALUES, GoCodec
from blink.games.goblink.envs.factored import KIND_ASK, KIND_LAY, FactoredActions
from blink.games.goblink.values import Value, match_value

__all__ = ["FactoredBatch"]

_DECK: Final = len(STANDARD_DECK)
_SHIFTS: Final = np.arange(_DECK, dtype=np.uint64)
_REFUSED: Final = -1  # a flat action outside the space: the kernels refuse it, changing nothing


@cache
def _lay_tables() -> tuple[NDArray[np.uint64], NDArray[np.int64], NDArray[np.uint64]]:
    """Every match's cards as a bit set and its value's index, and each value's cards."""
    value_index = {v: i for i, v in enumerate(VALUES)}
    matches = GoCodec(2).matches
    bits = np.array([sum(1 << DECK_INDEX[c] for c in m) for m in matches], dtype=np.uint64)
    values = np.array([value_index[_value(m)] for m in matches], dtype=np.int64)
    holders = np.zeros(len(VALUES), dtype=np.uint64)
    for card in STANDARD_DECK:
        for value in (card.color, card.shape, card.count):
            holders[value_index[value]] |= np.uint64(1 << DECK_INDEX[card])
    return bits, values, holders


def _value(match: tuple[Card, ...]) -> Value:
    value = match_value(match)
    assert value is not None  # every match of the codec shares a value
    return value


class FactoredBatch:
    """The factored actions of ``codec``'s seats for rows of flat masks (module docstring)."""

    def __init__(self, codec: GoCodec) -> None:
        self.single = FactoredActions(codec)
        """The one-game codec (the space, the parts' offsets, the canonical encoding)."""
        self.nvec = self.single.nvec
        self.mask_size = self.single.mask_size
        self._width = codec.actions
        lay_bits, lay_values, self._holders = _lay_tables()
        n_values = len(VALUES)
        asks = np.arange(codec.asks)
        self._kind = np.concatenate(
            ([0], np.full(codec.asks, KIND_ASK), np.full(len(lay_bits), KIND_LAY))
        ).astype(np.int64)
        self._target = np.concatenate(([0], asks // n_values, np.zeros(len(lay_bits), np.int64)))
        self._value = np.concatenate(([0], asks % n_values, lay_values))
        self._bits = np.concatenate((np.zeros(codec.first_lay, np.uint64), lay_bits))
        order = np.argsort(lay_bits, kind="stable")
        self._sorted_bits, self._sorted_index = lay_bits[order], order + codec.first_lay
        self._first_lay = codec.first_lay
        off = self.single.offsets
        self._off_target, self._off_value = int(off[1]), int(off[2])
        self._card_off = off[3:]

    def allowed(self, flat_masks: NDArray[np.int8]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The allowed entries of ``flat_masks`` (``(N, k)``): their rows and flat actions, in
        row order then action order (``flatnonzero`` of the flat array: numpy's 2-D ``nonzero``
        is many times slower)."""
        flat = np.flatnonzero(flat_masks.view(np.bool_))
        return flat // self._width, flat % self._width

    def masks(
        self, n: int, allowed: tuple[NDArray[np.int64], NDArray[np.int64]]
    ) -> NDArray[np.int8]:
        """Every game's part masks, concatenated (``(n, mask_size)`` int8), from its allowed
        flat actions (:meth:`allowed`): exactly :meth:`FactoredActions.masks` of each row."""
        rows, cols = allowed
        out = np.zeros((n, self.mask_size), dtype=np.int8)
        kind = self._kind[cols]
        out[rows, kind] = 1
        ask, lay = kind == KIND_ASK, kind == KIND_LAY
        out[rows[ask], self._off_target + self._target[cols[ask]]] = 1
        reads_value = ask | lay
        out[rows[reads_value], self._off_value + self._value[cols[reads_value]]] = 1
        has_any = np.zeros(n, dtype=np.bool_)
        has_any[rows] = True
        has_ask = np.zeros(n, dtype=np.bool_)
        has_ask[rows[ask]] = True
        lay_rows = rows[lay]
        has_lay = np.zeros(n, dtype=np.bool_)
        has_lay[lay_rows] = True
        out[~has_any, 0] = 1
        out[~has_ask, self._off_target] = 1
        out[~(has_ask | has_lay), self._off_value] = 1
        out[np.ix_(~has_lay, self._card_off)] = 1
        if lay_rows.size:
            games, starts = np.unique(lay_rows, return_index=True)
            bits = self._bits[cols[lay]]
            held = _expand(np.bitwise_or.reduceat(bits, starts))
            every = _expand(np.bitwise_and.reduceat(bits, starts))
            out[games[:, None], self._card_off] = 1 - every
            out[games[:, None], self._card_off + 1] = held
        return out

    def to_flat(
        self, vectors: Any, allowed: tuple[NDArray[np.int64], NDArray[np.int64]]
    ) -> NDArray[np.int64]:
        """Each game's flat action for its factored vector (``(n, parts)``), given the games'
        allowed flat actions (:meth:`allowed`): :meth:`FactoredActions.to_flat` of each row;
        a vector outside the space, or a lay that is no match, gives ``-1`` (refused)."""
        parts = np.asarray(vectors, dtype=np.int64)
        n = parts.shape[0]
        parts = parts.reshape(n, len(self.nvec))
        inside = np.asarray(((parts >= 0) & (parts < self.nvec)).all(axis=1), dtype=np.bool_)
        parts = np.where(inside[:, None], parts, 0)
        kind, value = parts[:, 0], parts[:, 2]
        out = np.where(kind == KIND_ASK, 1 + parts[:, 1] * len(VALUES) + value, 0)
        lays = np.flatnonzero(kind == KIND_LAY)
        if lays.size:
            out[lays] = self._lays(parts[lays], lays, n, allowed)
        out[~inside] = _REFUSED
        return out

    def _lays(
        self,
        parts: NDArray[np.int64],
        games: NDArray[np.int64],
        n: int,
        allowed: tuple[NDArray[np.int64], NDArray[np.int64]],
    ) -> NDArray[np.int64]:
        """The flat actions of lay vectors ``parts`` played in ``games``."""
        value = parts[:, 2]
        cards = np.bitwise_or.reduce(
            (parts[:, 3:] != 0).astype(np.uint64) << _SHIFTS, axis=1, dtype=np.uint64
        )
        chosen = cards & self._holders[value]
        # the vector's value and chosen cards, by game (-1: no lay vector in that game)
        wanted = np.full(n, -1, dtype=np.int64)
        wanted[games] = value
        chosen_of = np.zeros(n, dtype=np.uint64)
        chosen_of[games] = chosen
        rows, cols = allowed
        near = (self._kind[cols] == KIND_LAY) & (self._value[cols] == wanted[rows])
        r, c = rows[near], cols[near]
        distance = np.bitwise_count(self._bits[c] ^ chosen_of[r]).astype(np.int64)
        best = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(best, r, distance * self._width + c)
        found = best[games]
        missing = found == np.iinfo(np.int64).max
        found[~missing] %= self._width
        if missing.any():
            found[missing] = self._literal(chosen[missing])
        return found

    def _literal(self, chosen: NDArray[np.uint64]) -> NDArray[np.int64]:
        """The flat action laying exactly ``chosen`` (``-1`` when the cards are no match)."""
        at = np.searchsorted(self._sorted_bits, chosen)
        at = np.minimum(at, len(self._sorted_bits) - 1)
        hit = self._sorted_bits[at] == chosen
        return np.where(hit, self._sorted_index[at], _REFUSED)


def _expand(bits: NDArray[np.uint64]) -> NDArray[np.int8]:
    """Bit sets of the deck as rows of 0 and 1, one column a card."""
    return ((bits[:, None] >> _SHIFTS) & np.uint64(1)).astype(np.int8)
