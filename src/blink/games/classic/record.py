"""Game records: a versioned JSON format holding everything needed to replay and verify a game.

A classic record holds the variant (players, draw-pile sizes), the ruleset, the players, the
complete deck order, and every accepted action in order with its time in milliseconds since
the reveal. Replaying the actions on the deal rebuilds the game exactly; :func:`verify` checks
that every action is legal and that the stored result is the one the actions lead to.
See docs/record-format.md.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from blink.cards import Card, CardError, parse_card
from blink.games.classic.engine import (
    Action,
    Choose,
    ClassicGame,
    Flip,
    IllegalAction,
    Outcome,
    Play,
    Reveal,
)
from blink.games.classic.rules import OFFICIAL, DealError, Ruleset, RulesetError
from blink.match import Series

__all__ = [
    "FORMAT",
    "SERIES_FORMAT",
    "VERSION",
    "GameRecord",
    "RecordError",
    "SeriesRecord",
    "action_from_dict",
    "action_to_dict",
    "loads",
]

FORMAT: Final = "blink-record"
SERIES_FORMAT: Final = "blink-series"
VERSION: Final = 1


class RecordError(ValueError):
    """A record that cannot be read, or whose actions do not replay.

    ``index`` is the 0-based index of the offending action (``None`` when the problem is not an
    action); ``reason`` is a machine-readable code: an engine
    :class:`~blink.games.classic.engine.Reason`
    value for an illegal action, or ``malformed``, ``impossible_deal``, ``result_mismatch``,
    ``time_order``, ``series``. ``game`` is the 0-based game index inside a series record.
    """

    def __init__(
        self,
        message: str,
        index: int | None = None,
        reason: str = "malformed",
        *,
        game: int | None = None,
    ) -> None:
        text = message if index is None else f"action {index}: {message}"
        super().__init__(text if game is None else f"game {game}: {text}")
        self.index = index
        self.reason = reason
        self.game = game
        self.detail = message


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


def action_from_dict(d: Mapping[str, Any], index: int = 0) -> tuple[Action, int | None]:
    """Parse one action object; raise :class:`RecordError` naming the index and the problem."""
    if not isinstance(d, Mapping):
        raise RecordError("an action must be an object", index)
    t = d.get("t")
    if t is not None and (not isinstance(t, int) or isinstance(t, bool) or t < 0):
        raise RecordError(f"time must be a non-negative whole number of ms, not {t!r}", index)
    kind = d.get("type")
    try:
        if kind == "reveal":
            return Reveal(), t
        if kind == "flip":
            return Flip(), t
        if kind in ("play", "choose"):
            seat = d.get("seat")
            if not isinstance(seat, int) or isinstance(seat, bool):
                raise RecordError(f"a {kind} needs an integer seat", index)
            card = parse_card(str(d.get("card", "")))
            if kind == "choose":
                return Choose(seat, card), t
            pile = d.get("pile")
            if not isinstance(pile, int) or isinstance(pile, bool):
                raise RecordError("a play needs an integer pile", index)
            return Play(seat, card, pile), t
    except CardError as exc:
        raise RecordError(str(exc), index) from None
    raise RecordError(f"unknown action type {kind!r} (reveal, play, flip, choose)", index)


@dataclass
class GameRecord:
    """A classic game's record: the deal, the players and every accepted action."""

    deck: list[Card]
    players: int = 2
    ruleset: Ruleset = OFFICIAL
    sizes: tuple[int, ...] | None = None
    actions: list[tuple[Action, int | None]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None

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
            result=_result_dict(game),
        )

    def replay(self) -> ClassicGame:
        """Rebuild the game; raise :class:`RecordError` at the first illegal action."""
        try:
            game = ClassicGame(self.deck, self.players, self.ruleset, self.sizes)
        except (DealError, ValueError) as exc:
            raise RecordError(f"the deal is impossible: {exc}", reason="impossible_deal") from None
        for i, (action, t) in enumerate(self.actions):
            try:
                game.apply(action, t)
            except IllegalAction as exc:
                raise RecordError(str(exc), i, exc.reason.value) from None
        return game

    def verify(self) -> ClassicGame:
        """Replay and check the record; return the final game.

        Checks every action's legality, that action times never go backwards, and that the
        stored result (if any) is the one the actions lead to.
        """
        last = 0
        for i, (_, t) in enumerate(self.actions):
            if t is not None:
                if t < last:
                    raise RecordError(
                        f"time {t} ms is earlier than the previous action's {last} ms",
                        i,
                        "time_order",
                    )
                last = t
        game = self.replay()
        if self.result is not None:
            actual = _result_dict(game)
            if actual != self.result:
                raise RecordError(
                    f"the stored result {self.result} does not match the replay's {actual}",
                    reason="result_mismatch",
                )
        return game

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-ready dict (see docs/record-format.md)."""
        ruleset = self.ruleset
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": "classic",
            "players": [{"seat": i, "name": n} for i, n in enumerate(self.names)]
            or [{"seat": i, "name": f"Player {i + 1}"} for i in range(self.players)],
            "variant": {
                "players": self.players,
                "sizes": list(self.sizes) if self.sizes is not None else None,
            },
            "ruleset": ruleset.to_dict(),
            "deck": [str(c) for c in self.deck],
            "actions": [action_to_dict(a, t) for a, t in self.actions],
            "result": self.result,
            "meta": self.meta,
        }

    def to_json(self, indent: int | None = None) -> str:
        """The record as JSON text."""
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameRecord:
        """Read a record dict; raise :class:`RecordError` saying what is wrong."""
        _check_header(data, FORMAT)
        if data.get("game", "classic") != "classic":
            raise RecordError(f"not a classic game record: game is {data.get('game')!r}")
        variant = data.get("variant") or {}
        if not isinstance(variant, Mapping):
            raise RecordError("variant must be an object")
        players = variant.get("players", 2)
        if isinstance(players, bool) or players not in (2, 3):
            raise RecordError(f"classic Blink has 2 or 3 players, not {players!r}")
        sizes = variant.get("sizes")
        if sizes is not None and (
            not isinstance(sizes, list) or not all(isinstance(n, int) for n in sizes)
        ):
            raise RecordError("variant.sizes must be a list of whole numbers")
        raw_ruleset = data.get("ruleset") or {"name": "official"}
        if not isinstance(raw_ruleset, Mapping):
            raise RecordError("ruleset must be an object")
        try:
            ruleset = Ruleset.from_dict(raw_ruleset)
        except RulesetError as exc:
            raise RecordError(f"ruleset: {exc}") from None
        raw_deck = data.get("deck")
        if not isinstance(raw_deck, list):
            raise RecordError("the record has no deck list")
        deck: list[Card] = []
        for i, code in enumerate(raw_deck):
            try:
                deck.append(parse_card(str(code)))
            except CardError as exc:
                raise RecordError(f"deck card {i}: {exc}") from None
        if len(set(deck)) != len(deck):
            raise RecordError("the deck has a duplicate card")
        raw_actions = data.get("actions")
        if not isinstance(raw_actions, list):
            raise RecordError("the record has no actions list")
        actions = [action_from_dict(a, i) for i, a in enumerate(raw_actions)]
        raw_players = data.get("players") or []
        if not isinstance(raw_players, list):
            raise RecordError("players must be a list")
        names = [str(p.get("name", "")) for p in raw_players if isinstance(p, Mapping)]
        meta = data.get("meta") or {}
        result = data.get("result")
        if not isinstance(meta, Mapping):
            raise RecordError("meta must be an object")
        if result is not None and not isinstance(result, dict):
            raise RecordError("result must be an object or null")
        return cls(
            deck=deck,
            players=players,
            ruleset=ruleset,
            sizes=tuple(sizes) if sizes is not None else None,
            actions=actions,
            names=names,
            meta=dict(meta),
            result=result,
        )


@dataclass
class SeriesRecord:
    """A best-of-N series: its games' records in order."""

    best_of: int
    games: list[GameRecord] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    def verify(self) -> list[ClassicGame]:
        """Verify every game and the series itself; return the final games.

        Each game must verify (see :meth:`GameRecord.verify`); every game but the last must be
        finished; no game may follow the one that decided the series. Errors carry ``game``.
        """
        out = []
        series = self.series_from([])
        for i, record in enumerate(self.games):
            if series.over:
                raise RecordError(
                    f"the series was decided before this game (score {series.score})",
                    reason="series",
                    game=i,
                )
            try:
                game = record.verify()
            except RecordError as exc:
                raise RecordError(exc.detail, exc.index, exc.reason, game=i) from None
            if game.outcome is None:
                if i != len(self.games) - 1:
                    raise RecordError("an unfinished game is followed by another", game=i)
            else:
                series.record(game.outcome.winners)
            out.append(game)
        return out

    def series_from(self, games: Sequence[ClassicGame]) -> Series:
        """The :class:`~blink.match.Series` state after the given finished games."""
        players = self.games[0].players if self.games else 2
        series = Series(self.best_of, players)
        for g in games:
            if g.outcome is not None:
                series.record(g.outcome.winners)
        return series

    def to_dict(self) -> dict[str, Any]:
        """The series as a JSON-ready dict."""
        return {
            "format": SERIES_FORMAT,
            "version": VERSION,
            "best_of": self.best_of,
            "games": [g.to_dict() for g in self.games],
            "meta": self.meta,
        }

    def to_json(self, indent: int | None = None) -> str:
        """The series as JSON text."""
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SeriesRecord:
        """Read a series dict."""
        _check_header(data, SERIES_FORMAT)
        best_of = data.get("best_of")
        if not isinstance(best_of, int) or best_of < 1 or best_of % 2 == 0:
            raise RecordError(f"best_of must be a positive odd number, not {best_of!r}")
        games = data.get("games")
        if not isinstance(games, list):
            raise RecordError("a series record needs a games list")
        out = []
        for i, g in enumerate(games):
            try:
                out.append(GameRecord.from_dict(g))
            except RecordError as exc:
                raise RecordError(exc.detail, exc.index, exc.reason, game=i) from None
        meta = data.get("meta") or {}
        if not isinstance(meta, Mapping):
            raise RecordError("meta must be an object")
        return cls(best_of, out, dict(meta))


def _check_header(data: Mapping[str, Any], expected: str) -> None:
    if not isinstance(data, Mapping):
        raise RecordError("a record must be a JSON object")
    if data.get("format") != expected:
        raise RecordError(f"not a {expected} file (format is {data.get('format')!r})")
    version = data.get("version")
    if version != VERSION:
        raise RecordError(f"unsupported record version {version!r}; this program reads {VERSION}")


def _result_dict(game: ClassicGame) -> dict[str, Any] | None:
    outcome: Outcome | None = game.outcome
    if outcome is None:
        return None
    return {
        "result": "tie" if outcome.is_tie else "win",
        "winners": list(outcome.winners),
        "reason": outcome.reason,
        "plays": game.plays,
    }


def loads(text: str) -> GameRecord | SeriesRecord:
    """Read a game or series record from JSON text."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if isinstance(data, dict) and data.get("format") == SERIES_FORMAT:
        return SeriesRecord.from_dict(data)
    return GameRecord.from_dict(data)
