"""Go Blink game records: the "blink-record" format, version 1, with ``"game": "goblink"``.

A record holds the players, the dealer, the complete deck order (the hands are dealt from it
one card at a time from the player after the dealer, the rest is the draw pile, top first) and
every accepted action in order, each with an optional time ``t`` in ms. Replaying the actions
on the deal rebuilds the game exactly; :meth:`GoRecord.verify` checks every action and the
stored result. Example::

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

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from blink.cards import Card, CardError, parse_card
from blink.games.classic.record import FORMAT, VERSION, RecordError
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

__all__ = ["GoRecord", "GoRecordError", "go_action_from_dict", "go_action_to_dict"]


class GoRecordError(RecordError):
    """A Go Blink record that cannot be read, or whose actions do not replay.

    ``index`` is the 0-based index of the offending action (``None`` otherwise); ``reason`` is a
    machine-readable code: an engine reason (``attribute_not_held``...) for an illegal action,
    ``malformed`` for a bad file, ``result_mismatch`` when the stored result is wrong.
    """


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


def _int(d: Mapping[str, Any], key: str, index: int) -> int:
    v = d.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise GoRecordError(f"{key!r} must be a whole number, not {v!r}", index)
    return v


def go_action_from_dict(d: Mapping[str, Any], index: int = 0) -> tuple[GoAction, int | None]:
    """Parse one action object; raise :class:`GoRecordError` naming the index and the problem."""
    if not isinstance(d, Mapping):
        raise GoRecordError("an action must be an object", index)
    t = d.get("t")
    if t is not None and (not isinstance(t, int) or isinstance(t, bool) or t < 0):
        raise GoRecordError(f"time must be a non-negative whole number of ms, not {t!r}", index)
    kind = d.get("type")
    if kind == "ask":
        try:
            value = value_from_wire(d.get("attribute"), d.get("value"))
        except ValueError as exc:
            raise GoRecordError(str(exc), index) from None
        return Ask(_int(d, "seat", index), _int(d, "target", index), value), t
    if kind == "lay":
        raw = d.get("cards")
        if not isinstance(raw, list):
            raise GoRecordError("a lay needs a list of cards", index)
        try:
            cards = tuple(parse_card(str(c)) for c in raw)
        except CardError as exc:
            raise GoRecordError(str(exc), index) from None
        return LayDown(_int(d, "seat", index), cards), t
    if kind == "end":
        return EndTurn(_int(d, "seat", index)), t
    raise GoRecordError(f"unknown action type {kind!r} (ask, lay, end)", index)


@dataclass
class GoRecord:
    """A Go Blink game's record: the deal, the players and every accepted action."""

    deck: list[Card]
    players: int = 2
    dealer: int = 0
    actions: list[tuple[GoAction, int | None]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    turn_limit: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None

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
            result=_result_dict(game),
        )

    def _names(self) -> list[str]:
        names = list(self.names)
        while len(names) < self.players:
            names.append(f"Player {len(names) + 1}")
        return names

    def replay(self) -> GoGame:
        """Rebuild the game; raise :class:`GoRecordError` at the first illegal action."""
        try:
            game = GoGame(self.deck, self.players, self.dealer, self.turn_limit)
        except ValueError as exc:
            raise GoRecordError(f"the deal is impossible: {exc}") from None
        for i, (action, t) in enumerate(self.actions):
            try:
                game.apply(action, t)
            except IllegalAction as exc:
                raise GoRecordError(str(exc), i, exc.code) from None
        return game

    def verify(self) -> GoGame:
        """Replay and check that the stored result (if any) matches; return the final game."""
        game = self.replay()
        if self.result is not None:
            actual = _result_dict(game)
            if actual != self.result:
                raise GoRecordError(
                    f"the stored result {self.result} does not match the replay's {actual}",
                    reason="result_mismatch",
                )
        return game

    def summary(self) -> dict[str, Any]:
        """What happened, in brief: result ("win", "tie" or None), winners, plays, asks, turns."""
        game = self.replay()
        outcome = game.outcome
        names = self._names()
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
        names = self._names()
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

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-ready dict."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": "goblink",
            "players": [{"seat": i, "name": n} for i, n in enumerate(self._names())],
            "dealer": self.dealer,
            "variant": {"players": self.players, "turn_limit": self.turn_limit},
            "deck": [str(c) for c in self.deck],
            "actions": [go_action_to_dict(a, t) for a, t in self.actions],
            "result": self.result,
            "meta": self.meta,
        }

    def to_json(self, indent: int | None = None) -> str:
        """The record as JSON text."""
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GoRecord:
        """Read a record dict; raise :class:`GoRecordError` saying what is wrong."""
        if not isinstance(data, Mapping):
            raise GoRecordError("a record must be a JSON object")
        if data.get("format") != FORMAT:
            raise GoRecordError(f"not a {FORMAT} file (format is {data.get('format')!r})")
        if data.get("version") != VERSION:
            raise GoRecordError(
                f"unsupported record version {data.get('version')!r}; this program reads {VERSION}"
            )
        if data.get("game") != "goblink":
            raise GoRecordError(f"not a Go Blink record: game is {data.get('game')!r}")
        variant = data.get("variant") or {}
        if not isinstance(variant, Mapping):
            raise GoRecordError("variant must be an object")
        raw_players = data.get("players")
        players = variant.get("players")
        if players is None and isinstance(raw_players, list):
            players = len(raw_players)
        if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise GoRecordError(f"Go Blink has 2 to 6 players, not {players!r}")
        dealer = data.get("dealer", 0)
        if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < players:
            raise GoRecordError(f"the dealer must be a seat 0 to {players - 1}, not {dealer!r}")
        turn_limit = variant.get("turn_limit")
        if turn_limit is not None and (not isinstance(turn_limit, int) or turn_limit < 1):
            raise GoRecordError(f"turn_limit must be a positive whole number, not {turn_limit!r}")
        raw_deck = data.get("deck")
        if not isinstance(raw_deck, list):
            raise GoRecordError("the record has no deck list")
        deck: list[Card] = []
        for i, code in enumerate(raw_deck):
            try:
                deck.append(parse_card(str(code)))
            except CardError as exc:
                raise GoRecordError(f"deck card {i}: {exc}") from None
        if len(set(deck)) != len(deck):
            raise GoRecordError("the deck has a duplicate card")
        raw_actions = data.get("actions")
        if not isinstance(raw_actions, list):
            raise GoRecordError("the record has no actions list")
        actions = [go_action_from_dict(a, i) for i, a in enumerate(raw_actions)]
        names = (
            [str(p.get("name", "")) for p in raw_players if isinstance(p, Mapping)]
            if isinstance(raw_players, list)
            else []
        )
        result = data.get("result")
        if result is not None and not isinstance(result, dict):
            raise GoRecordError("result must be an object or null")
        meta = data.get("meta") or {}
        return cls(
            deck=deck,
            players=players,
            dealer=dealer,
            actions=actions,
            names=names,
            turn_limit=turn_limit,
            meta=dict(meta) if isinstance(meta, Mapping) else {},
            result=result,
        )

    @classmethod
    def loads(cls, text: str) -> GoRecord:
        """Read a record from JSON text."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise GoRecordError(f"not valid JSON (line {exc.lineno}: {exc.msg})") from None
        return cls.from_dict(data)


def _result_dict(game: GoGame) -> dict[str, Any] | None:
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
