"""Go Blink's part of a game record: its actions, dealer and variant, and its engine.

The record format itself (the shared header, the deck, the action list, series, loading any
record) is :mod:`blink.model.records`; this module is the Go Blink codec (:data:`CODEC`) and the Go
Blink record class, :class:`GoRecord`. A record holds the players, the dealer, the complete deck
order (the hands are dealt from it one card at a time from the player after the dealer, the rest
is the draw pile, top first) and every accepted action in order, each with an optional time
``t`` in ms. Replaying the actions on the deal rebuilds the game exactly; :meth:`GoRecord.verify`
checks every action and the stored result. Example::

    {"format": "blink-record", "version": 1, "game": "goblink",
     "players": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bob"}],
     "dealer": 1, "variant": {"players": 2, "turn_limit": null},
     "deck": ["4YS", "1RM", ...],
     "actions": [{"type": "end", "seat": 0},
                 {"type": "ask", "seat": 0, "target": 1, "attribute": "color", "value": "yellow"},
                 {"type": "lay", "seat": 0, "cards": ["1YS", "2YM", "4YS"], "t": 5120}],
     "result": {"result": "win", "winners": [0], "reason": "blunk", "turns": 9, "asks": 9},
     "meta": {}}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple

import msgspec

from blink.cards import Card, CardError, parse_card
from blink.games.goblink.engine import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Ask,
    Drew,
    EndTurn,
    GoAction,
    GoBlinked,
    GoGame,
    IllegalAction,
    LaidDown,
    LayDown,
    Passed,
    Phase,
    Skipped,
    value_from_wire,
    value_label,
    value_to_wire,
)
from blink.model.records import (
    IMPOSSIBLE_DEAL,
    Millis,
    Record,
    RecordError,
    Refused,
    convert,
    decode_record,
    parse_json,
)

__all__ = [
    "CODEC",
    "GoCodec",
    "GoOptions",
    "GoRecord",
    "GoRecordError",
    "go_action_from_dict",
    "go_action_to_dict",
]


class GoRecordError(RecordError):
    """A Go Blink record that cannot be read, or whose actions do not replay.

    A :class:`~blink.model.records.RecordError` like every game's: ``reason`` is a machine-readable
    code (an engine reason such as ``out_of_turn`` for an illegal action, ``malformed`` for a
    bad file, ``impossible_deal``, ``time_order``, ``result_mismatch``), ``index`` the 0-based
    offending action (``None`` otherwise), ``detail`` the sentence for people.
    """


# --- actions --------------------------------------------------------------------------------


class _Seated(msgspec.Struct, kw_only=True):
    """An end of turn (or of the opening): the seat and the time."""

    seat: int
    t: Millis | None = None


class _Ask(_Seated, kw_only=True):
    target: int
    attribute: str
    value: str | int


class _Lay(_Seated, kw_only=True):
    cards: list[str]


_WIRE: Final[Mapping[str, type[_Seated]]] = {"ask": _Ask, "lay": _Lay, "end": _Seated}


def go_action_to_dict(action: GoAction, t: int | None = None) -> dict[str, Any]:
    """One action as a JSON object."""
    d: dict[str, Any] = {}
    if isinstance(action, Ask):
        attribute, value = value_to_wire(action.value)
        d.update(
            type="ask", seat=action.player, target=action.target, attribute=attribute, value=value
        )
    elif isinstance(action, LayDown):
        d.update(type="lay", seat=action.player, cards=[str(c) for c in action.cards])
    else:
        d.update(type="end", seat=action.player)
    if t is not None:
        d["t"] = t
    return d


def go_action_from_dict(d: object, index: int = 0) -> tuple[GoAction, int | None]:
    """Parse one action object; raise :class:`GoRecordError` naming the index and the problem."""
    if not isinstance(d, Mapping):
        raise GoRecordError("an action must be an object", index)
    kind = d.get("type")
    wire_type = _WIRE.get(kind) if isinstance(kind, str) else None
    if wire_type is None:
        raise GoRecordError(f"unknown action type {kind!r} ({', '.join(_WIRE)})", index)
    wire = convert(d, wire_type, GoRecordError, index, subject=f"an {kind}")
    if isinstance(wire, _Ask):
        try:
            value = value_from_wire(wire.attribute, wire.value)
        except ValueError as exc:
            raise GoRecordError(str(exc), index) from None
        return Ask(wire.seat, wire.target, value), wire.t
    if isinstance(wire, _Lay):
        try:
            cards = tuple(parse_card(c) for c in wire.cards)
        except CardError as exc:
            raise GoRecordError(str(exc), index) from None
        return LayDown(wire.seat, cards), wire.t
    return EndTurn(wire.seat), wire.t


# --- the codec ------------------------------------------------------------------------------


class GoOptions(NamedTuple):
    """A Go Blink deal's options: the dealer and the turn limit (``None``: none)."""

    dealer: int = 0
    turn_limit: int | None = None


class _Variant(msgspec.Struct):
    players: int | None = None
    turn_limit: int | None = None


class _GoPart(msgspec.Struct):
    """Go Blink's own top-level fields."""

    variant: _Variant | None = None
    dealer: int = 0


class GoCodec:
    """Go Blink's part of a record (:class:`blink.model.records.RecordCodec`)."""

    game: Final = "goblink"
    label: Final = "Go Blink"
    error: Final = GoRecordError

    def encode_action(self, action: GoAction, t: int | None) -> dict[str, Any]:
        """One action as a JSON object (:func:`go_action_to_dict`)."""
        return go_action_to_dict(action, t)

    def decode_action(self, raw: object, index: int) -> tuple[GoAction, int | None]:
        """One action object read back (:func:`go_action_from_dict`)."""
        return go_action_from_dict(raw, index)

    def encode_options(self, players: int, options: GoOptions) -> dict[str, Any]:
        """``dealer`` and ``variant`` (players, turn limit)."""
        return {
            "dealer": options.dealer,
            "variant": {"players": players, "turn_limit": options.turn_limit},
        }

    def decode_options(self, data: Mapping[str, Any], seats: int) -> tuple[int, GoOptions]:
        """The players (``variant.players``, else the seats listed), dealer and turn limit."""
        part = convert(data, _GoPart, GoRecordError)
        variant = part.variant or _Variant()
        players = variant.players if variant.players is not None else seats
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise GoRecordError(
                f"Go Blink has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}"
            )
        if not 0 <= part.dealer < players:
            raise GoRecordError(
                f"the dealer must be a seat 0 to {players - 1}, not {part.dealer!r}"
            )
        turn_limit = variant.turn_limit
        if turn_limit is not None and turn_limit < 1:
            raise GoRecordError(f"turn_limit must be a positive whole number, not {turn_limit!r}")
        return players, GoOptions(part.dealer, turn_limit)

    def deal(self, deck: Sequence[Card], players: int, options: GoOptions) -> GoGame:
        """The game at the deal (reason ``impossible_deal`` when it cannot be dealt)."""
        try:
            return GoGame(deck, players, options.dealer, options.turn_limit)
        except ValueError as exc:
            raise GoRecordError(f"the deal is impossible: {exc}", reason=IMPOSSIBLE_DEAL) from None

    def apply(self, game: GoGame, action: GoAction, t: int | None) -> None:
        """Apply one action (:class:`~blink.model.records.Refused` with the engine's reason)."""
        try:
            game.apply(action, t)
        except IllegalAction as exc:
            raise Refused(exc.code, str(exc)) from None

    def result(self, game: GoGame) -> dict[str, Any] | None:
        """``result``, ``winners``, ``reason``, ``turns`` and ``asks`` of a finished game."""
        outcome = game.outcome
        if outcome is None:
            return None
        return {
            "result": "tie" if outcome.is_tie else "win",
            "winners": list(outcome.winners),
            "reason": outcome.reason,
            "turns": game.turns,
            "asks": game.asks,
        }

    def winners(self, game: GoGame) -> tuple[int, ...] | None:
        """The winning seats, ``None`` while the game is not over."""
        return None if game.outcome is None else game.outcome.winners

    def load(self, data: Mapping[str, Any]) -> GoRecord:
        """Read a Go Blink record (:meth:`GoRecord.from_dict`)."""
        return GoRecord.from_dict(data)

    def record(
        self, game: GoGame, names: Sequence[str] = (), meta: Mapping[str, Any] | None = None
    ) -> GoRecord:
        """The record of a game as it stands (:meth:`GoRecord.from_game`)."""
        return GoRecord.from_game(game, names, meta)


CODEC: Final = GoCodec()
"""Go Blink's record codec."""


# --- the record -----------------------------------------------------------------------------


@dataclass
class GoRecord(Record[GoAction, GoOptions, GoGame]):
    """A Go Blink game's record: the deal, the players and every accepted action."""

    deck: list[Card]
    players: int = 2
    dealer: int = 0
    actions: list[tuple[GoAction, int | None]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    turn_limit: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None

    @property
    def codec(self) -> GoCodec:
        """Go Blink's codec."""
        return CODEC

    @property
    def options(self) -> GoOptions:
        """The dealer and the turn limit."""
        return GoOptions(self.dealer, self.turn_limit)

    @classmethod
    def from_game(
        cls, game: GoGame, names: Sequence[str] = (), meta: Mapping[str, Any] | None = None
    ) -> GoRecord:
        """The record of a game (finished or not) as it stands."""
        return cls(
            deck=list(game.deck),
            players=game.players,
            dealer=game.dealer,
            actions=list(game.history),
            names=list(names) or [f"Player {i + 1}" for i in range(game.players)],
            turn_limit=game.turn_limit,
            meta=dict(meta or {}),
            result=CODEC.result(game),
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GoRecord:
        """Read a record dict; raise :class:`GoRecordError` saying what is wrong."""
        parts = decode_record(CODEC, data)
        return cls(
            deck=parts.deck,
            players=parts.players,
            dealer=parts.options.dealer,
            actions=parts.actions,
            names=parts.names,
            turn_limit=parts.options.turn_limit,
            meta=parts.meta,
            result=parts.result,
        )

    @classmethod
    def loads(cls, text: str | bytes) -> GoRecord:
        """Read a record from JSON text."""
        return cls.from_dict(parse_json(text, GoRecordError))

    def summary(self, game: GoGame | None = None) -> dict[str, Any]:
        """What happened, in brief: result ("win", "tie" or None), winners, plays, asks, turns."""
        if game is None:
            game = self.replay()
        outcome = game.outcome
        names = self.seats()
        return {
            "game": "goblink",
            "players": self.players,
            "names": names,
            "dealer": self.dealer,
            "result": None if outcome is None else ("tie" if outcome.is_tie else "win"),
            "winners": [] if outcome is None else list(outcome.winners),
            "winner_names": [] if outcome is None else [names[w] for w in outcome.winners],
            "reason": None if outcome is None else outcome.reason,
            "plays": len(self.actions),
            "asks": game.asks,
            "turns": game.turns,
            "matches": len(game.discard()),
            "hand_counts": [len(game.hand(p)) for p in range(self.players)],
        }

    def describe(self) -> list[str]:
        """One readable line per action (the record holds the deck, so cards are shown)."""
        names = self.seats()
        game = GoGame(self.deck, self.players, self.dealer, self.turn_limit)
        lines: list[str] = []
        for i, (action, _t) in enumerate(self.actions):
            opening = game.phase is Phase.OPENING
            try:
                events = game.apply(action)
            except IllegalAction as exc:
                lines.append(f"{i + 1}. illegal: {exc}")
                break
            who = names[action.player]
            if isinstance(action, Ask):
                text = f"{who} asks {names[action.target]} for {value_label(action.value)}"
                for e in events:
                    if isinstance(e, Passed):
                        cards = " ".join(str(c) for c in e.cards or ())
                        text += f": {names[e.giver]} passes {e.number} ({cards})"
                    elif isinstance(e, GoBlinked):
                        text += ': "Go Blink!"'
                    elif isinstance(e, Drew):
                        text += f"; {names[e.player]} draws {e.card}"
                if not any(isinstance(e, Drew) for e in events) and any(
                    isinstance(e, GoBlinked) for e in events
                ):
                    text += " (the draw pile is empty)"
            elif isinstance(action, LayDown):
                laid = next(e for e in events if isinstance(e, LaidDown))
                text = (
                    f"{who} lays down {' '.join(str(c) for c in laid.cards)} "
                    f"({value_label(laid.value)})"
                )
                if opening:
                    text += " in the opening"
                if game.over:
                    text += ': "I Blunk!"'
            else:
                text = f"{who} ends the {'opening' if opening else 'turn'}"
                skipped = [names[e.player] for e in events if isinstance(e, Skipped)]
                if skipped:
                    text += f" ({', '.join(skipped)} skipped: empty hand)"
            if game.over and game.outcome is not None:
                winners = " and ".join(names[w] for w in game.outcome.winners)
                verb = "share the win" if game.outcome.is_tie else "wins"
                text += f"; game over ({game.outcome.reason}): {winners} {verb}"
            lines.append(f"{i + 1}. {text}")
        return lines
