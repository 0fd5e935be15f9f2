"""Go Blink's actions as numbers and a seat's view as an array, for the environments.

The action space is fixed for a number of players and holds every action the engine could
ever accept from a seat, each at one index:

* ``0``: end the opening decision or the turn (:class:`~blink.games.goblink.actions.EndTurn`);
* ``1 .. (players - 1) * 17``: ask the opponent ``k`` seats clockwise (``k`` from 1) for one of
  the 17 attribute values, ``1 + (k - 1) * 17 + v`` (:data:`VALUES` gives ``v``'s order: the
  six colours, the six shapes, the counts 1 to 5);
* the rest: lay down one match, one index for every match the standard deck holds (every set of
  three or more cards sharing a value, in the order of
  :func:`blink.games.goblink.values.matches_in`: 31,701 of them).

Which of them are legal now is the definition's answer (``legal_actions``), given as a mask.
An index is turned back into the engine's own action and judged by the engine: a refused
action comes back with the engine's code and sentence.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from functools import cache
from typing import Final

import numpy as np
from numpy.typing import NDArray

from blink.cards import COUNTS, STANDARD_DECK, Card, Color, Shape
from blink.envs.encoding import DECK_INDEX
from blink.games.goblink.actions import Ask, EndTurn, GoAction, LayDown, Phase
from blink.games.goblink.values import Value, matches_in
from blink.games.goblink.view import GoView

__all__ = ["DEFAULT_TURN_LIMIT", "VALUES", "GoCodec", "codec"]

DEFAULT_TURN_LIMIT: Final = 200
"""The environments' default ``turn_limit``: after that many turns the fewest cards win.

Go Blink need not end: while the draw pile is not empty no quiet round comes, and two
deterministic players can ask for the same card and pass it back and forth for ever (a fixed
policy against the remembering bot does). Random two-player games last 34 turns (median),
at most about 100; the limit ends a loop with a winner instead of a truncation."""

VALUES: Final[tuple[Value, ...]] = (*Color, *Shape, *COUNTS)
"""The 17 attribute values a player may ask for, in the order of the ask actions."""

_VALUE_INDEX: Final[dict[Value, int]] = {v: i for i, v in enumerate(VALUES)}
# The same by identity (the values are enum members and small ints, each a single object):
# hashing an enum member runs Python code, an id does not.
_VALUE_BY_ID: Final[dict[int, int]] = {id(v): i for i, v in enumerate(VALUES)}
_PHASE_INDEX: Final = {p: i for i, p in enumerate(Phase)}
_PHASE_BY_ID: Final = {id(p): i for i, p in enumerate(Phase)}  # the same by identity
_INT8: Final = np.dtype(np.int8)
_FLOAT32: Final = np.dtype(np.float32)
_new_tuple: Final = tuple.__new__  # a named tuple from its fields in order, with no Python call
_PHASES: Final = len(_PHASE_INDEX)
_DECK: Final = len(STANDARD_DECK)
_KEEP: Final = 4_096  # the most actions a codec remembers (the engine's own: 6 * 6 * 17 + 6)


@cache
def _matches() -> tuple[tuple[Card, ...], ...]:
    return tuple(matches_in(STANDARD_DECK))


@cache
def _match_index() -> dict[tuple[Card, ...], int]:
    return {m: i for i, m in enumerate(_matches())}


class GoCodec:
    """The action table and the observation layout of Go Blink for ``players`` seats.

    ``ask_window`` is how many of the latest asks of the public log an observation holds.
    Everything is seat-relative: opponents are numbered clockwise from the viewer.
    """

    def __init__(self, players: int, ask_window: int = 16) -> None:
        self.players = players
        self.ask_window = ask_window
        self.asks = (players - 1) * len(VALUES)
        self.first_lay = 1 + self.asks
        self.matches = _matches()
        self._match_index = _match_index()
        self.actions = self.first_lay + len(self.matches)
        """The size of the action space."""
        p = players
        self._given = 2 * _DECK
        self._received = self._given + (p - 1) * _DECK
        self._counts = self._received + (p - 1) * _DECK
        self._draw = self._counts + p
        self._phase = self._draw + 1
        self._current = self._phase + _PHASES
        self._dealer = self._current + p
        self._scalars = self._dealer + p
        self._log = self._scalars + 3
        self._row = 2 * p + len(VALUES) + 3
        self.size = self._log + ask_window * self._row
        """The length of an observation."""
        self._known: dict[int, int] = {}  # an action's id -> its index (see _learn)
        self._kept: list[GoAction] = []
        self._ask_rows: dict[tuple[int, int, int, int, bool, bool], bytes] = {}

    # -- actions --------------------------------------------------------------------------

    def action(self, index: int, seat: int) -> GoAction:
        """The engine's action at ``index`` for ``seat`` (``ValueError`` outside the space)."""
        if not 0 <= index < self.actions:
            raise ValueError(f"action {index} is outside 0 to {self.actions - 1}")
        if index == 0:
            return _new_tuple(EndTurn, (seat,))
        if index < self.first_lay:
            k, v = divmod(index - 1, len(VALUES))
            return _new_tuple(Ask, (seat, (seat + k + 1) % self.players, VALUES[v]))
        return _new_tuple(LayDown, (seat, self.matches[index - self.first_lay]))

    def index(self, action: GoAction) -> int:
        """The index of one of the engine's actions (the inverse of :meth:`action`)."""
        kind = type(action)
        if kind is Ask:
            k = (action.target - action.player) % self.players  # type: ignore[union-attr]
            value = action.value  # type: ignore[union-attr]
            v = _VALUE_BY_ID.get(id(value))
            return 1 + (k - 1) * len(VALUES) + (_VALUE_INDEX[value] if v is None else v)
        if kind is EndTurn:
            return 0
        cards = tuple(action.cards)  # type: ignore[union-attr]
        found = self._match_index.get(cards)
        if found is None:
            found = self._match_index[tuple(sorted(cards))]
        return self.first_lay + found

    def mask(self, legal: Sequence[GoAction]) -> NDArray[np.int8]:
        """1 at the index of every action in ``legal``, 0 elsewhere."""
        out = bytearray(self.actions)
        known = self._known.get
        for a in legal:
            i = known(id(a))
            out[self._learn(a) if i is None else i] = 1
        return np.frombuffer(out, dtype=_INT8)

    def _learn(self, action: GoAction) -> int:
        """The index of ``action``, remembered by its identity if it is an ask or an end of turn.

        The engine hands out the same ask and end-of-turn objects every time, so the mask finds
        their indices by ``id`` (hashing an ask runs Python code for its value). An id is only
        trusted while its object is alive: ``_kept`` keeps every remembered object, so no other
        object can take its id.
        """
        index = self.index(action)
        if type(action) is not LayDown and len(self._kept) < _KEEP:
            self._kept.append(action)
            self._known[id(action)] = index
        return index

    def describe(self, index: int, seat: int) -> str:
        """The action at ``index`` in words, for logs and the text rendering."""
        action = self.action(index, seat)
        if isinstance(action, EndTurn):
            return "end the turn"
        if isinstance(action, Ask):
            return f"ask seat {action.target} for {action.value}"
        return "lay down " + " ".join(map(str, action.cards))

    # -- observations -----------------------------------------------------------------------

    def _ask_row(
        self, asker: int, target: int, value: int, passed: int, drew: bool, target_drew: bool
    ) -> bytes:
        """One ask of the log as the bytes of its row (seats relative to the viewer, ``value``
        the index of the value asked for in :data:`VALUES`)."""
        p = self.players
        values = len(VALUES)
        row = array("f", bytes(4 * self._row))
        row[asker] = 1.0
        row[p + target] = 1.0
        row[2 * p + value] = 1.0
        row[2 * p + values] = passed / 12
        row[2 * p + values + 1] = float(drew)
        row[2 * p + values + 2] = float(target_drew)
        return row.tobytes()

    def encoder(self, seat: int) -> GoEncoder:
        """A fresh observation encoder for ``seat`` (one per seat and episode)."""
        return GoEncoder(self, seat)

    def observe(self, view: GoView) -> NDArray[np.float32]:
        """``view`` as an array of numbers in [0, 1] (layout: docs/envs.md), from scratch."""
        return GoEncoder(self, 0 if view.seat is None else view.seat).observe(view)


class GoEncoder:
    """Encodes one seat's successive views of one game.

    The public logs of a view only grow during a game (the matches laid down, the cards passed,
    the asks), so the encoder keeps what it has already encoded of them and adds the new
    entries; the hand and the counts are encoded afresh every time. The result is the same as
    encoding the view from scratch. (Plain Python arrays, one NumPy call: on a small machine
    each NumPy call costs microseconds.)
    """

    def __init__(self, codec: GoCodec, seat: int) -> None:
        self.codec = codec
        self.seat = seat
        self._logs = array("f", bytes(4 * codec.size))
        self._lens = [0, 0, 0]
        self._rows: list[bytes] = []
        p = codec.players
        self._rel = [(other - seat) % p for other in range(p)]
        """Each seat relative to this one (clockwise from it)."""
        self._turned = [(seat + i) % p for i in range(p)]
        """The seat ``i`` places clockwise from this one, for each ``i``."""

    def _catch_up(self, view: GoView) -> None:
        c = self.codec
        rel = self._rel
        logs = self._logs
        lens = self._lens
        index = DECK_INDEX
        if len(view.discard) != lens[0]:
            for _, cards in view.discard[lens[0] :]:
                for card in cards:
                    logs[_DECK + index[card]] = 1.0
            lens[0] = len(view.discard)
        if len(view.given) != lens[1]:
            for target, cards in view.given[lens[1] :]:
                base = c._given + (rel[target] - 1) * _DECK
                for card in cards:
                    logs[base + index[card]] = 1.0
            lens[1] = len(view.given)
        if len(view.received) != lens[2]:
            for giver, cards in view.received[lens[2] :]:
                base = c._received + (rel[giver] - 1) * _DECK
                for card in cards:
                    logs[base + index[card]] = 1.0
            lens[2] = len(view.received)
        rows = self._rows
        if len(view.asks) == len(rows):
            return
        known = c._ask_rows
        for a in view.asks[len(rows) :]:
            value = _VALUE_BY_ID.get(id(a.value))  # an index: hashing an enum member is slow
            if value is None:
                value = _VALUE_INDEX[a.value]
            key = (rel[a.player], rel[a.target], value, a.passed, a.drew, a.target_drew)
            row = known.get(key)
            if row is None:
                row = known[key] = c._ask_row(*key)
            rows.append(row)
        window = array("f", b"".join(rows[: -c.ask_window - 1 : -1]))  # the latest first
        logs[c._log : c._log + len(window)] = window

    def observe(self, view: GoView) -> NDArray[np.float32]:
        """``view`` (of this encoder's seat) as an array of numbers in [0, 1]."""
        c = self.codec
        self._catch_up(view)
        out = self._logs[:]
        index = DECK_INDEX
        for card in view.hand:
            out[index[card]] = 1.0
        phase = _PHASE_BY_ID.get(id(view.phase))
        out[c._phase + (_PHASE_INDEX[view.phase] if phase is None else phase)] = 1.0
        rel = self._rel
        if view.current is not None:
            out[c._current + rel[view.current]] = 1.0
        out[c._dealer + rel[view.dealer]] = 1.0
        counts = view.hand_counts
        base = c._counts
        for i, other in enumerate(self._turned):
            out[base + i] = counts[other] / _DECK
        out[c._draw] = view.draw_count / _DECK
        base = c._scalars
        laid = view.laid_this_turn
        out[base] = laid / 5 if laid < 5 else 1.0
        out[base + 1] = view.quiet_turns / c.players  # the game ends after a quiet round
        turns = view.turns
        out[base + 2] = turns / 1000 if turns < 1000 else 1.0
        return np.frombuffer(out, dtype=_FLOAT32)


@cache
def codec(players: int, ask_window: int = 16) -> GoCodec:
    """The (shared, read-only) codec for ``players`` seats."""
    return GoCodec(players, ask_window)
