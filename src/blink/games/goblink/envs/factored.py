"""Go Blink's actions as a few small parts instead of one of 31,719 numbers (the
``actions="factored"`` option of ``blink/GoBlink-v0``).

A factored action is a vector of ``3 + 60`` numbers, a ``gymnasium.spaces.MultiDiscrete`` with
``nvec = [3, players - 1, 17, 2, 2, ..., 2]``:

* part 0, the kind: ``0`` end the turn, ``1`` ask, ``2`` lay down a match;
* part 1, the target of an ask: the opponent ``k + 1`` seats clockwise;
* part 2, a value (:data:`~blink.games.goblink.envs.codec.VALUES`): the value asked for, or the
  value the laid match shares;
* parts 3 to 62, one for each card of the standard deck (in its order): ``1`` lay it.

A kind reads only its own parts (an end of turn part 0; an ask parts 0 to 2; a lay parts 0,
2 and the cards); the others are ignored. The *canonical* encoding of an action
(:meth:`FactoredActions.encode`) puts 0 in the parts it ignores, so every action has exactly
one canonical encoding and :meth:`~FactoredActions.decode` gives it back.

**Masks, one per part** (:meth:`~FactoredActions.masks`, concatenated in the order of the
parts, as sb3-contrib's MaskablePPO takes them): an entry of a part is allowed when the
canonical encoding of some legal action whose kind reads that part has it; a part that no legal
action reads allows only its entry 0 (so every part has an allowed entry, a terminal
observation included: its kind mask allows only "end", which the environment refuses,
``game_over``, as it refuses action 0 of the flat space).

**What per-part masks cannot say**: a masked ``MultiDiscrete`` policy draws each part on its
own, so neither its probabilities nor its masks can make one part depend on another. In Go
Blink asks and lays are never legal at the same time, and the legal asks are every opponent
times every value held, so an ask allowed part by part is always legal. A lay is not: the
masked card parts allow every card of some legal match, whichever value is drawn. Decoding
a lay therefore (1) keeps only the chosen cards that have the chosen value, and (2) if those are
not a legal match (fewer than three, or in the opening the whole hand), lays the legal match of
that value nearest to them (the fewest cards added or removed; a tie goes to the match first in
the flat action order). Every vector the masks allow thus decodes to a legal action, and every
legal action is the decoding of a vector they allow (its canonical encoding in the parts its
kind reads, anything allowed in the others): the masks allow exactly the legal actions. A
vector outside the masks decodes literally (the kind, target and value as given, the chosen
cards of that value) and the engine refuses it as it refuses a flat action.

The projection is part of the environment: a policy's probability is that of the vector it
drew, and several vectors reach one lay (its cards chosen with or without others of another
value, or completed by the projection).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from blink.cards import STANDARD_DECK, Card
from blink.envs.encoding import DECK_INDEX
from blink.games.goblink.actions import Ask, EndTurn, GoAction, LayDown
from blink.games.goblink.envs.codec import VALUES, GoCodec
from blink.games.goblink.values import match_value

__all__ = ["KIND_ASK", "KIND_END", "KIND_LAY", "FactoredActions"]

KIND_END: Final = 0
"""Part 0's entry for ending the turn (or the opening decision)."""
KIND_ASK: Final = 1
"""Part 0's entry for an ask."""
KIND_LAY: Final = 2
"""Part 0's entry for laying down a match."""

_KIND, _TARGET, _VALUE, _CARDS = 0, 1, 2, 3
_DECK: Final = len(STANDARD_DECK)
_VALUE_INDEX: Final[dict[object, int]] = {v: i for i, v in enumerate(VALUES)}
_PARTS_READ: Final = {
    EndTurn: (_KIND,),
    Ask: (_KIND, _TARGET, _VALUE),
    LayDown: (_KIND, _VALUE, *range(_CARDS, _CARDS + _DECK)),
}


def _card_index(card: Card) -> int:
    return card.index


class FactoredActions:
    """The factored action space of Go Blink for the seats of ``codec``: encoding, decoding
    and masks (module docstring)."""

    def __init__(self, codec: GoCodec) -> None:
        self.codec = codec
        self.players = codec.players
        self.nvec = np.array([3, self.players - 1, len(VALUES)] + [2] * _DECK, dtype=np.int64)
        """How many entries each part has."""
        self.offsets = np.concatenate(([0], np.cumsum(self.nvec)[:-1]))
        """Where each part's mask starts in the concatenated mask."""
        self.mask_size = int(self.nvec.sum())
        """The length of the concatenated mask."""

    def space(self) -> spaces.MultiDiscrete:
        """The action space."""
        return spaces.MultiDiscrete(self.nvec)

    def encode(self, action: GoAction) -> NDArray[np.int64]:
        """The canonical encoding of one of the engine's actions (0 in the parts it ignores)."""
        out = np.zeros(len(self.nvec), dtype=np.int64)
        if isinstance(action, Ask):
            out[_KIND] = KIND_ASK
            out[_TARGET] = (action.target - action.player) % self.players - 1
            out[_VALUE] = _VALUE_INDEX[action.value]
        elif isinstance(action, LayDown):
            value = match_value(action.cards)
            if value is None:
                raise ValueError("the cards of a lay-down share no value")
            out[_KIND] = KIND_LAY
            out[_VALUE] = _VALUE_INDEX[value]
            for card in action.cards:
                out[_CARDS + DECK_INDEX[card]] = 1
        return out

    def decode(
        self, vector: Sequence[int] | NDArray[np.integer], seat: int, legal: Sequence[GoAction]
    ) -> GoAction:
        """The engine's action for ``vector`` played by ``seat`` whose legal actions are
        ``legal`` (a lay outside them is moved to the nearest legal one of its value); a
        ``ValueError`` if ``vector`` is not in the space."""
        parts = np.asarray(vector).reshape(-1)
        if parts.shape != self.nvec.shape or not ((parts >= 0) & (parts < self.nvec)).all():
            raise ValueError(f"action {parts.tolist()} is outside the factored space {self.nvec}")
        kind = int(parts[_KIND])
        if kind == KIND_END:
            return EndTurn(seat)
        value = VALUES[int(parts[_VALUE])]
        if kind == KIND_ASK:
            return Ask(seat, (seat + int(parts[_TARGET]) + 1) % self.players, value)
        chosen = {
            card
            for card, bit in zip(STANDARD_DECK, parts[_CARDS:].tolist(), strict=True)
            if bit and value in (card.color, card.shape, card.count)
        }
        lays = [a for a in legal if type(a) is LayDown and match_value(a.cards) == value]
        if not lays:
            return LayDown(seat, tuple(sorted(chosen, key=_card_index)))
        return min(lays, key=lambda a: (len(chosen.symmetric_difference(a.cards)), self._flat(a)))

    def _flat(self, action: GoAction) -> int:
        return self.codec.index(action)

    def from_flat(self, index: int, seat: int) -> NDArray[np.int64]:
        """The canonical encoding of the flat action ``index`` of ``seat``."""
        return self.encode(self.codec.action(index, seat))

    def to_flat(
        self, vector: Sequence[int] | NDArray[np.integer], seat: int, legal: Sequence[GoAction]
    ) -> int:
        """The flat action that ``vector`` decodes to (see :meth:`decode`)."""
        return self.codec.index(self.decode(vector, seat, legal))

    def masks(self, legal: Sequence[GoAction]) -> NDArray[np.int8]:
        """The masks of every part, concatenated: an entry is 1 when the canonical encoding of
        a legal action whose kind reads that part has it; a part no legal action reads allows
        only its entry 0."""
        out = np.zeros(self.mask_size, dtype=np.int8)
        off = self.offsets
        read = np.zeros(len(self.nvec), dtype=bool)
        asks = False
        lay_values: set[int] = set()
        held: set[Card] = set()  # the cards of some legal lay
        every: set[Card] | None = None  # the cards of every legal lay
        for a in legal:
            kind = type(a)
            if kind is EndTurn:
                out[KIND_END] = 1
                read[_KIND] = True
            elif kind is Ask:
                out[off[_TARGET] + (a.target - a.player) % self.players - 1] = 1  # type: ignore[union-attr]
                out[off[_VALUE] + _VALUE_INDEX[a.value]] = 1  # type: ignore[union-attr]
                asks = True
            else:
                cards = a.cards  # type: ignore[union-attr]
                lay_values.add(_VALUE_INDEX[match_value(cards)])
                held.update(cards)
                every = set(cards) if every is None else every.intersection(cards)
        if asks:
            out[KIND_ASK] = 1
            read[: _VALUE + 1] = True
        if every is not None:
            out[KIND_LAY] = 1
            read[_KIND] = read[_VALUE] = True
            read[_CARDS:] = True
            out[off[_VALUE] + np.fromiter(lay_values, dtype=np.int64)] = 1
            cards_at = off[_CARDS:]
            out[cards_at] = 1  # not laid: every card but those of every legal lay
            for card in every:
                out[cards_at[DECK_INDEX[card]]] = 0
            for card in held:
                out[cards_at[DECK_INDEX[card]] + 1] = 1
        for part in np.flatnonzero(~read):
            out[off[part]] = 1
        return out
