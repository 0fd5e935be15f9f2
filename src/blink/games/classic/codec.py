"""Classic Blink's actions as numbers and a seat's view as an array, for the environments.

For a hand of ``H`` cards (the ruleset's hand size) the action space has ``1 + 3 * H``
actions:

* ``0``: wait (do nothing in this step);
* ``1 + 2 * k + j``: play the card in hand slot ``k`` on the ``j``-th pile the seat reaches
  (``j`` is 0 or 1, in the order of the definition's ``reach``);
* ``1 + 2 * H + k``: in a choosing stall, choose the card in hand slot ``k``.

Which of them are legal now is the definition's answer (``legal_actions``), given as a mask;
an index is turned into the engine's own action and judged by the engine. A seat that has only
its view (a bot, a client) finds them with :func:`legal_in_view`.

The environments use this codec (:mod:`blink.games.classic.envs.codec` re-exports it); so do
the bots of the ``trained`` level, which play a policy trained on the environments in the base
install (numpy only).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Final

import numpy as np
from numpy.typing import NDArray

from blink.games.classic.actions import Action, Choose, Phase, Play
from blink.games.classic.view import PlayerView
from blink.model.features import CARD_FEATURES, DECK_INDEX, FEATURES, Refusal

__all__ = ["WAIT", "ClassicCodec", "ClassicEncoder", "legal_in_view"]

WAIT: Final = 0
"""The action that does nothing."""

_PHASE_INDEX: Final = {p: i for i, p in enumerate(Phase)}
_DECK: Final = len(DECK_INDEX)
_F: Final = CARD_FEATURES


def legal_in_view(view: PlayerView) -> list[Play] | list[Choose]:
    """The seat's legal actions in ``view``: its plays while racing, one choice per hand card
    in a choosing stall until it has chosen (the engine's ``legal_actions``, seen from a view)."""
    if view.phase is Phase.CHOOSING:
        seat = view.seat
        if seat is None or view.my_choice is not None or view.chosen[seat]:
            return []
        return [Choose(seat, c) for c in view.hand]
    return view.legal_plays()


class ClassicCodec:
    """The action table and observation layout for ``players`` seats and a hand of ``hand``.

    ``reach[seat]`` are the piles each seat plays on (from the definition). Everything is
    seat-relative: the seat's own numbers first, then the next seats clockwise; the piles in
    the order of the seat's reach, then the piles it cannot reach.
    """

    def __init__(self, players: int, hand: int, reach: Sequence[tuple[int, ...]]) -> None:
        self.players = players
        self.hand = hand
        self.reach = [tuple(r) for r in reach]
        self.actions = 1 + 3 * hand
        """The size of the action space."""
        self.piles = [
            list(dict.fromkeys((*r, *range(players)))) for r in self.reach
        ]  # each seat's pile order
        self._tops = hand * _F
        self._seen = self._tops + players * _F
        self._counts = self._seen + _DECK
        self._phase = self._counts + 2 * players + 1
        self._chosen = self._phase + len(_PHASE_INDEX)
        self._choice = self._chosen + players
        self._plays = self._choice + _F
        self.size = self._plays + 1
        """The length of an observation."""
        self._zeros = array("f", bytes(4 * self.size))
        self._rows: dict[object, array[float]] = {}
        for card, features in FEATURES.items():
            row = array("f", bytes(4 * _F))
            for f in features:
                row[f] = 1.0
            self._rows[card] = row

    # -- actions --------------------------------------------------------------------------

    def action(self, index: int, view: PlayerView) -> Action | Refusal | None:
        """The engine's action at ``index`` in ``view`` (``None``: wait), or a refusal when the
        index names an empty hand slot or lies outside the space."""
        seat = view.seat
        if seat is None or not 0 <= index < self.actions:
            return Refusal("not_an_action", f"action {index} is outside 0 to {self.actions - 1}")
        if index == WAIT:
            return None
        i = index - 1
        k = i // 2 if i < 2 * self.hand else i - 2 * self.hand
        if k >= len(view.hand):
            return Refusal("empty_slot", f"hand slot {k} holds no card")
        card = view.hand[k]
        if i < 2 * self.hand:
            return Play(seat, card, self.reach[seat][i % 2])
        return Choose(seat, card)

    def mask(self, legal: Sequence[Action], view: PlayerView) -> NDArray[np.int8]:
        """1 for waiting and at the index of every action in ``legal``, 0 elsewhere."""
        out = bytearray(self.actions)
        out[WAIT] = 1
        if legal:
            hand = view.hand
            for a in legal:
                if type(a) is Play:
                    seat = a.player
                    out[1 + 2 * hand.index(a.card) + self.reach[seat].index(a.pile)] = 1
                elif type(a) is Choose:
                    out[1 + 2 * self.hand + hand.index(a.card)] = 1
        return np.frombuffer(out, dtype=np.int8)

    # -- observations -----------------------------------------------------------------------

    def encoder(self, seat: int) -> ClassicEncoder:
        """A fresh observation encoder for ``seat`` (one per seat and episode)."""
        return ClassicEncoder(self, seat)

    def observe(self, view: PlayerView) -> NDArray[np.float32]:
        """``view`` as an array of numbers in [0, 1] (layout: docs/envs.md), from scratch."""
        return ClassicEncoder(self, 0 if view.seat is None else view.seat).observe(view)


class ClassicEncoder:
    """Encodes one seat's successive views of one game.

    The face-up piles only grow during a game, so the encoder keeps the cards it has already
    marked as seen and adds the new ones; everything else is encoded afresh every time. The
    result is the same as encoding the view from scratch.
    """

    def __init__(self, codec: ClassicCodec, seat: int) -> None:
        self.codec = codec
        self.seat = seat
        self._base = codec._zeros[:]
        self._lens = [0] * codec.players
        self._last: tuple[PlayerView | None, array[float]] = (None, codec._zeros)

    def observe(self, view: PlayerView) -> NDArray[np.float32]:
        """``view`` (of this encoder's seat) as an array of numbers in [0, 1]."""
        last, encoded = self._last
        if view == last:  # nothing changed since the last step (waiting, a stall)
            return np.frombuffer(encoded[:], dtype=np.float32)
        c = self.codec
        seat = self.seat
        p = c.players
        base_buf = self._base
        lens = self._lens
        index = DECK_INDEX
        seen = c._seen
        for i, pile_cards in enumerate(view.piles):
            n = len(pile_cards)
            if n != lens[i]:
                if n < lens[i]:  # not this game's views: start over
                    base_buf[seen : seen + _DECK] = c._zeros[seen : seen + _DECK]
                    lens[:] = [0] * p
                for card in pile_cards[lens[i] :]:
                    base_buf[seen + index[card]] = 1.0
                lens[i] = n
        out = base_buf[:]
        rows = c._rows
        at = 0
        for card in view.hand:
            out[at : at + _F] = rows[card]
            at += _F
        tops = view.tops
        at = c._tops
        for pile in c.piles[seat]:
            card = tops[pile]
            if card is not None:
                out[at : at + _F] = rows[card]
            at += _F
        base = c._counts
        hands = view.hand_counts
        draws = view.draw_counts
        for i in range(p):
            s = (seat + i) % p
            out[base + i] = hands[s] / 5
            out[base + p + i] = draws[s] / _DECK
        out[base + 2 * p] = view.set_aside / _DECK
        out[c._phase + _PHASE_INDEX[view.phase]] = 1.0
        chosen = view.chosen
        for i in range(p):
            if chosen[(seat + i) % p]:
                out[c._chosen + i] = 1.0
        if view.my_choice is not None:
            out[c._choice : c._choice + _F] = rows[view.my_choice]
        plays = view.plays
        out[c._plays] = plays / 120 if plays < 120 else 1.0
        self._last = (view, out[:])
        return np.frombuffer(out, dtype=np.float32)
