"""A record codec for any game definition: records of a game that has no codec of its own.

Classic Blink and Go Blink have record codecs of their own (their formats predate the game
model). Any other game gets one from its definition: actions in the definition's wire form,
the deal options as one ``options`` object, the result as winners and the reason::

    class MyGame:
        ...
        @functools.cached_property
        def record_codec(self) -> DefinitionCodec:
            return DefinitionCodec(self)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from blink.cards import Card
from blink.model.base import GameDefinition, IllegalAction
from blink.model.records import (
    IMPOSSIBLE_DEAL,
    Record,
    RecordError,
    Refused,
    convert,
    decode_record,
    seat_name,
)

__all__ = ["DefinitionCodec", "DefinitionRecord"]

Options = dict[str, Any]


class DefinitionCodec:
    """The :class:`~blink.model.records.RecordCodec` of a game, made from its definition."""

    error = RecordError

    def __init__(self, definition: GameDefinition[Any, Any, Any, Any]) -> None:
        self.definition = definition

    @property
    def game(self) -> str:
        """The game's registry name."""
        return self.definition.info.name

    @property
    def label(self) -> str:
        """The game's title."""
        return self.definition.info.title

    def encode_action(self, action: Any, t: int | None) -> dict[str, Any]:
        """The definition's wire form, with ``t``."""
        d = dict(self.definition.action_to_wire(action))
        if t is not None:
            d["t"] = t
        return d

    def decode_action(self, raw: object, index: int) -> tuple[Any, int | None]:
        """An action object read back; :class:`RecordError` naming the index when malformed."""
        if not isinstance(raw, Mapping):
            raise RecordError("an action must be an object", index)
        t = raw.get("t")
        if t is not None and (not isinstance(t, int) or isinstance(t, bool) or t < 0):
            raise RecordError(f"time must be a non-negative whole number of ms, not {t!r}", index)
        body = {k: v for k, v in raw.items() if k != "t"}
        try:
            return self.definition.action_from_wire(body), t
        except (ValueError, TypeError) as exc:
            raise RecordError(str(exc), index) from None

    def encode_options(self, players: int, options: Options) -> dict[str, Any]:
        """The deal options as one ``options`` object."""
        return {"options": dict(options)}

    def decode_options(self, data: Mapping[str, Any], seats: int) -> tuple[int, Options]:
        """The players are the seats listed; the options are the ``options`` object."""
        options = convert(data.get("options") or {}, dict[str, Any], subject="options")
        return seats, options

    def deal(self, deck: Sequence[Card], players: int, options: Options) -> Any:
        """The game at the deal (reason ``impossible_deal`` when it cannot be dealt)."""
        try:
            return self.definition.new(players, deck=deck, options=options)
        except ValueError as exc:
            raise RecordError(f"the deal is impossible: {exc}", reason=IMPOSSIBLE_DEAL) from None

    def apply(self, game: Any, action: Any, t: int | None) -> None:
        """Apply one action; :class:`~blink.model.records.Refused` with the game's reason."""
        try:
            self.definition.apply(game, action, t)
        except IllegalAction as exc:
            raise Refused(exc.code, str(exc)) from None

    def result(self, game: Any) -> dict[str, Any] | None:
        """``result``, ``winners`` and ``reason`` of a finished game."""
        outcome = game.outcome
        if outcome is None:
            return None
        return {
            "result": "tie" if outcome.is_tie else "win",
            "winners": list(outcome.winners),
            "reason": str(outcome.reason),
        }

    def winners(self, game: Any) -> tuple[int, ...] | None:
        """The winning seats, ``None`` while the game is not over."""
        return None if game.outcome is None else tuple(game.outcome.winners)

    def load(self, data: Mapping[str, Any]) -> DefinitionRecord:
        """Read a record of this game."""
        parts = decode_record(self, data)
        return DefinitionRecord(
            parts.deck,
            parts.players,
            parts.actions,
            parts.names,
            parts.meta,
            parts.result,
            self,
            parts.options,
        )

    def record(
        self,
        state: Any,
        names: Sequence[str] = (),
        meta: Mapping[str, Any] | None = None,
    ) -> DefinitionRecord:
        """The record of a game (finished or not)."""
        definition = self.definition
        return DefinitionRecord(
            list(state.deck),
            state.players,
            list(definition.history(state)),
            list(names),
            dict(meta or {}),
            self.result(state),
            self,
            dict(definition.options_of(state)),
        )


@dataclass
class DefinitionRecord(Record[Any, Options, Any]):
    """A record of a game read or written through :class:`DefinitionCodec`."""

    deck: list[Card]
    players: int
    actions: list[tuple[Any, int | None]]
    names: list[str]
    meta: dict[str, Any]
    result: dict[str, Any] | None
    game_codec: DefinitionCodec = field(repr=False)
    deal_options: Options = field(default_factory=dict)

    @property
    def codec(self) -> DefinitionCodec:
        """The game's codec."""
        return self.game_codec

    @property
    def options(self) -> Options:
        """The deal options."""
        return self.deal_options

    def describe(self) -> list[str]:
        """One line per action, then the result."""
        names = self.seats()
        lines = [f"{self.codec.label}, {self.players} players"]
        for i, (action, _) in enumerate(self.actions):
            seat = self.codec.definition.seat_of(action)
            who = "table" if seat is None else seat_name(names, seat)
            lines.append(f"{i + 1:4d}. {who}:{self.action_text(i)}")
        game = self.verify()
        winners = self.codec.winners(game)
        if winners is None:
            lines.append("unfinished")
        else:
            lines.append("won by " + ", ".join(seat_name(names, w) for w in winners))
        return lines

    def summary(self, game: Any | None = None) -> dict[str, Any]:
        """The result and the winners."""
        game = self.verify() if game is None else game
        result = self.codec.result(game)
        return {
            "game": self.codec.game,
            "players": self.players,
            "actions": len(self.actions),
            "result": None if result is None else result["result"],
            "winners": [] if result is None else result["winners"],
        }
