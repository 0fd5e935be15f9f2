"""Classic Blink's part of a game record: its actions, variant and ruleset, and its engine.

The record format itself (the shared header, the deck, the action list, series, loading any
record) is :mod:`blink.model.records`; this module is the classic codec (:data:`CODEC`) and the
classic record class, :class:`GameRecord`. A classic record holds the variant (players,
draw-pile sizes) and the ruleset between the players and the deck::

    {"format": "blink-record", "version": 1, "game": "classic",
     "players": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bob"}],
     "variant": {"players": 2, "sizes": [30, 30]}, "ruleset": {"name": "official", ...},
     "deck": ["4YS", ...], "actions": [{"t": 0, "type": "reveal"}, ...],
     "result": {"result": "win", "winners": [1], "reason": "out_of_cards", "plays": 56},
     "meta": {}}

Replaying the actions on the deal rebuilds the game exactly; :meth:`GameRecord.verify` checks
that every action is legal and that the stored result is the one the actions lead to.
See docs/record-format.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple

import msgspec

from blink.cards import Card, CardError, parse_card
from blink.games.classic.engine import (
    Action,
    ChoiceMade,
    Choose,
    ClassicGame,
    Ended,
    Event,
    Flip,
    Flipped,
    IllegalAction,
    Placed,
    Play,
    Played,
    Refilled,
    Reveal,
    Revealed,
    Stalled,
    StallKind,
)
from blink.games.classic.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    OFFICIAL,
    DealError,
    Ruleset,
    RulesetError,
)
from blink.model.records import (
    FORMAT,
    IMPOSSIBLE_DEAL,
    SERIES_FORMAT,
    VERSION,
    Millis,
    Record,
    RecordError,
    Refused,
    SeriesRecord,
    convert,
    decode_record,
    seat_name,
)
from blink.model.records import loads as load_any

__all__ = [
    "CODEC",
    "FORMAT",
    "SERIES_FORMAT",
    "VERSION",
    "ClassicCodec",
    "ClassicOptions",
    "GameRecord",
    "RecordError",
    "SeriesRecord",
    "action_from_dict",
    "action_to_dict",
    "loads",
]


# --- actions --------------------------------------------------------------------------------


class _Bare(msgspec.Struct, kw_only=True):
    """A reveal or a flip: nothing but the time."""

    t: Millis | None = None


class _Choose(_Bare, kw_only=True):
    seat: int
    card: str


class _Play(_Choose, kw_only=True):
    pile: int


_WIRE: Final[Mapping[str, type[_Bare]]] = {
    "reveal": _Bare,
    "play": _Play,
    "flip": _Bare,
    "choose": _Choose,
}


def action_to_dict(action: Action, t: int | None) -> dict[str, Any]:
    """One action as a JSON object."""
    d: dict[str, Any] = {}
    if t is not None:
        d["t"] = t
    if isinstance(action, Play):
        d.update(type="play", seat=action.player, card=str(action.card), pile=action.pile)
    elif isinstance(action, Choose):
        d.update(type="choose", seat=action.player, card=str(action.card))
    elif isinstance(action, Flip):
        d["type"] = "flip"
    else:
        d["type"] = "reveal"
    return d


def action_from_dict(d: object, index: int = 0) -> tuple[Action, int | None]:
    """Parse one action object; raise :class:`RecordError` naming the index and the problem."""
    if not isinstance(d, Mapping):
        raise RecordError("an action must be an object", index)
    kind = d.get("type")
    wire_type = _WIRE.get(kind) if isinstance(kind, str) else None
    if wire_type is None:
        raise RecordError(f"unknown action type {kind!r} ({', '.join(_WIRE)})", index)
    wire = convert(d, wire_type, RecordError, index, subject=f"a {kind}")
    if not isinstance(wire, _Choose):
        return (Reveal() if kind == "reveal" else Flip()), wire.t
    try:
        card = parse_card(wire.card)
    except CardError as exc:
        raise RecordError(str(exc), index) from None
    if isinstance(wire, _Play):
        return Play(wire.seat, card, wire.pile), wire.t
    return Choose(wire.seat, card), wire.t


# --- the codec ------------------------------------------------------------------------------


class ClassicOptions(NamedTuple):
    """A classic deal's options: the ruleset and each seat's draw-pile size (``None``: equal)."""

    ruleset: Ruleset = OFFICIAL
    sizes: tuple[int, ...] | None = None


class _Variant(msgspec.Struct):
    players: int = 2
    sizes: list[int] | None = None


class _ClassicPart(msgspec.Struct):
    """Classic Blink's own top-level fields."""

    variant: _Variant | None = None
    ruleset: dict[str, Any] | None = None


class ClassicCodec:
    """Classic Blink's part of a record (:class:`blink.model.records.RecordCodec`)."""

    game: Final = "classic"
    label: Final = "classic Blink"
    error: Final = RecordError

    def encode_action(self, action: Action, t: int | None) -> dict[str, Any]:
        """One action as a JSON object (:func:`action_to_dict`)."""
        return action_to_dict(action, t)

    def decode_action(self, raw: object, index: int) -> tuple[Action, int | None]:
        """One action object read back (:func:`action_from_dict`)."""
        return action_from_dict(raw, index)

    def encode_options(self, players: int, options: ClassicOptions) -> dict[str, Any]:
        """``variant`` (players, sizes) and ``ruleset``."""
        sizes = options.sizes
        return {
            "variant": {"players": players, "sizes": list(sizes) if sizes is not None else None},
            "ruleset": options.ruleset.to_dict(),
        }

    def decode_options(self, data: Mapping[str, Any], seats: int) -> tuple[int, ClassicOptions]:
        """The players (``variant.players``, 2 when absent), sizes and ruleset of a record."""
        part = convert(data, _ClassicPart)
        variant = part.variant or _Variant()
        if not MIN_PLAYERS <= variant.players <= MAX_PLAYERS:
            raise RecordError(
                f"classic Blink has {MIN_PLAYERS} or {MAX_PLAYERS} players, not {variant.players!r}"
            )
        try:
            ruleset = Ruleset.from_dict(part.ruleset or {"name": OFFICIAL.name})
        except RulesetError as exc:
            raise RecordError(f"ruleset: {exc}") from None
        sizes = tuple(variant.sizes) if variant.sizes is not None else None
        return variant.players, ClassicOptions(ruleset, sizes)

    def deal(self, deck: Sequence[Card], players: int, options: ClassicOptions) -> ClassicGame:
        """The game at the deal (reason ``impossible_deal`` when it cannot be dealt)."""
        try:
            return ClassicGame(deck, players, options.ruleset, options.sizes)
        except (DealError, ValueError) as exc:
            raise RecordError(f"the deal is impossible: {exc}", reason=IMPOSSIBLE_DEAL) from None

    def apply(self, game: ClassicGame, action: Action, t: int | None) -> None:
        """Apply one action (:class:`~blink.model.records.Refused` with the engine's reason)."""
        try:
            game.apply(action, t)
        except IllegalAction as exc:
            raise Refused(exc.code, str(exc)) from None

    def result(self, game: ClassicGame) -> dict[str, Any] | None:
        """``result``, ``winners``, ``reason`` and ``plays`` of a finished game."""
        outcome = game.outcome
        if outcome is None:
            return None
        return {
            "result": "tie" if outcome.is_tie else "win",
            "winners": list(outcome.winners),
            "reason": outcome.reason,
            "plays": game.plays,
        }

    def winners(self, game: ClassicGame) -> tuple[int, ...] | None:
        """The winning seats, ``None`` while the game is not over."""
        return None if game.outcome is None else game.outcome.winners

    def load(self, data: Mapping[str, Any]) -> GameRecord:
        """Read a classic record (:meth:`GameRecord.from_dict`)."""
        return GameRecord.from_dict(data)

    def record(
        self, game: ClassicGame, names: Sequence[str] = (), meta: Mapping[str, Any] | None = None
    ) -> GameRecord:
        """The record of a game as it stands (:meth:`GameRecord.from_game`)."""
        return GameRecord.from_game(game, names, meta)


CODEC: Final = ClassicCodec()
"""Classic Blink's record codec."""


# --- the record -----------------------------------------------------------------------------


@dataclass
class GameRecord(Record[Action, ClassicOptions, ClassicGame]):
    """A classic game's record: the deal, the players and every accepted action."""

    deck: list[Card]
    players: int = 2
    ruleset: Ruleset = OFFICIAL
    sizes: tuple[int, ...] | None = None
    actions: list[tuple[Action, int | None]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None

    @property
    def codec(self) -> ClassicCodec:
        """Classic Blink's codec."""
        return CODEC

    @property
    def options(self) -> ClassicOptions:
        """The ruleset and the draw-pile sizes."""
        return ClassicOptions(self.ruleset, self.sizes)

    @classmethod
    def from_game(
        cls,
        game: ClassicGame,
        names: Sequence[str] = (),
        meta: Mapping[str, Any] | None = None,
    ) -> GameRecord:
        """The record of a game (finished or not) as it stands."""
        return cls(
            deck=list(game.deck),
            players=game.players,
            ruleset=game.ruleset,
            sizes=game.sizes,
            actions=list(game.history),
            names=list(names) or [f"Player {i + 1}" for i in range(game.players)],
            meta=dict(meta or {}),
            result=CODEC.result(game),
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameRecord:
        """Read a record dict; raise :class:`RecordError` saying what is wrong."""
        parts = decode_record(CODEC, data)
        return cls(
            deck=parts.deck,
            players=parts.players,
            ruleset=parts.options.ruleset,
            sizes=parts.options.sizes,
            actions=parts.actions,
            names=parts.names,
            meta=parts.meta,
            result=parts.result,
        )

    def describe(self) -> list[str]:
        """The game of a (verified) record, move by move, as lines for people."""
        names = list(self.names)
        game = ClassicGame(self.deck, self.players, self.ruleset, self.sizes)
        sizes = " + ".join(map(str, game.sizes))
        aside = f", {len(game.set_aside)} set aside" if game.set_aside else ""
        lines = [
            f"classic Blink, {self.players} players, ruleset {self.ruleset.name}, "
            f"draw piles {sizes}{aside}",
            "players: " + ", ".join(seat_name(names, p) for p in range(self.players)),
        ]
        for p in range(self.players):
            lines.append(
                f"  {seat_name(names, p)}: center card {game.top(p)}, hand "
                f"{' '.join(map(str, game.hand(p)))}, draw pile {len(game.draw_pile(p))} cards"
            )
        for i, (action, t) in enumerate(self.actions):
            first = True
            for e in game.apply(action, t):
                text = _event_text(e, names)
                if text is None:
                    continue
                lines.append((f"{i:4d} {_time(t)}  " if first else " " * 15) + text)
                first = False
        if game.outcome is None:
            lines.append("the record ends before the game does")
        return lines

    def summary(self, game: ClassicGame | None = None) -> dict[str, Any]:
        """A machine summary (``game``: the verified game, replayed when not given)."""
        if game is None:
            game = self.replay()
        outcome = game.outcome
        times = [t for _, t in self.actions if t is not None]
        return {
            "format": FORMAT,
            "game": "classic",
            "result": None if outcome is None else ("tie" if outcome.is_tie else "win"),
            "winners": [] if outcome is None else list(outcome.winners),
            "winner_names": []
            if outcome is None
            else [self.names[w] if w < len(self.names) else "" for w in outcome.winners],
            "reason": None if outcome is None else outcome.reason,
            "plays": game.plays,
            "stalls": game.stalls,
            "actions": len(self.actions),
            "players": list(self.names),
            "ruleset": self.ruleset.name,
            "sizes": list(game.sizes),
            "duration_ms": max(times) if times else None,
        }


def _card(c: Card | None) -> str:
    return "a hidden card" if c is None else f"{c.long_name} [{c}]"


def _time(t: int | None) -> str:
    return "       -" if t is None else f"{t / 1000:7.3f}s"


_STALLS: Final = {
    StallKind.FLIP: "every player flips the top of their draw pile",
    StallKind.CHOOSE: "a draw pile is empty: every player chooses a hand card",
    StallKind.DEAD_END: "the dead-end rule ends the game: the fewest cards left wins",
}


def _event_text(e: Event, names: list[str]) -> str | None:
    """One event as a line for people (``None`` for the deal)."""
    if isinstance(e, Revealed):
        tops = ", ".join(f"pile {i}: {_card(c)}" for i, c in enumerate(e.tops))
        return f"reveal - {tops}"
    if isinstance(e, Played):
        return (
            f"{seat_name(names, e.player)} plays {_card(e.card)} on pile {e.pile}"
            f" (on {_card(e.covered)})"
        )
    if isinstance(e, Refilled):
        return f"    {seat_name(names, e.player)} draws {_card(e.card)}"
    if isinstance(e, Stalled):
        return f"stall: no one can play; {_STALLS[e.kind]}"
    if isinstance(e, Flipped):
        return f"{seat_name(names, e.player)} flips {_card(e.card)} onto pile {e.pile}"
    if isinstance(e, ChoiceMade):
        return f"{seat_name(names, e.player)} chooses {_card(e.card)} (secret until all chose)"
    if isinstance(e, Placed):
        return f"{seat_name(names, e.player)} places {_card(e.card)} on pile {e.pile}"
    if isinstance(e, Ended):
        o = e.outcome
        who = " and ".join(seat_name(names, w) for w in o.winners)
        verdict = f"tie between {who}" if o.is_tie else f"{who} wins"
        return f"game over: {verdict} ({o.reason.replace('_', ' ')})"
    return None


def loads(text: str | bytes) -> GameRecord | SeriesRecord:
    """Read a classic game or series record from JSON text.

    Records of any game: :func:`blink.model.records.loads`.
    """
    record = load_any(text)
    if isinstance(record, GameRecord):
        return record
    if isinstance(record, SeriesRecord):
        if all(isinstance(g, GameRecord) for g in record.games):
            return record
        raise RecordError(f"not a classic Blink series: its games are {record.game_name!r}")
    raise RecordError(f"not a classic Blink record: game is {record.game_name!r}")
