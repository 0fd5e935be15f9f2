"""Game records of every game: one JSON format, a shared header, a codec per game.

A record holds everything needed to replay a game exactly and check it: the shared header
(``format``, ``version``, ``game``, the ``players``), the complete ``deck`` order, every accepted
action in order with its optional time ``t`` in ms, the ``result`` the actions lead to and free
``meta`` data; and, between the players and the deck, the game's own deal options (classic
Blink's ``variant`` and ``ruleset``, Go Blink's ``dealer`` and ``variant``). A series record
(``"blink-series"``) holds the records of a best-of-N series. See docs/record-format.md.

This module reads and writes the shared part; each game supplies a :class:`RecordCodec` for its
part (its actions, its deal options and its engine), listed by name in :func:`codecs`. Entry
points: :func:`load` / :func:`loads` (any record or series, dispatched on ``format`` and
``game``), :meth:`Record.to_dict` / :meth:`Record.to_json`, :meth:`Record.verify`. Every failure
is a :class:`RecordError`: a machine-readable ``reason`` code and one sentence for people.
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Annotated, Any, Final, Generic, NamedTuple, Protocol, TypeVar

import msgspec

from blink.cards import Card, CardError, parse_card
from blink.match import Series
from blink.model.registry import DEFAULT_GAME

__all__ = [
    "FORMAT",
    "IMPOSSIBLE_DEAL",
    "MALFORMED",
    "RESULT_MISMATCH",
    "SERIES",
    "SERIES_FORMAT",
    "TIME_ORDER",
    "VERSION",
    "AnyRecord",
    "Millis",
    "Record",
    "RecordCodec",
    "RecordError",
    "RecordParts",
    "Refused",
    "SeriesRecord",
    "check_header",
    "codec_for",
    "codecs",
    "convert",
    "decode_deck",
    "decode_record",
    "explain",
    "load",
    "load_game",
    "loads",
    "parse_json",
    "seat_name",
]

FORMAT: Final = "blink-record"
"""The ``format`` of a game record."""
SERIES_FORMAT: Final = "blink-series"
"""The ``format`` of a series record."""
VERSION: Final = 1
"""The format version written, and the only one read so far (see docs/record-format.md)."""

# The reasons of the format's own errors (an illegal action's reason is its engine's code).
MALFORMED: Final = "malformed"
"""Not a record, or a field of the wrong shape."""
IMPOSSIBLE_DEAL: Final = "impossible_deal"
"""The deck and the deal options cannot be dealt."""
TIME_ORDER: Final = "time_order"
"""An action's time is earlier than the one before."""
RESULT_MISMATCH: Final = "result_mismatch"
"""The stored result is not the one the actions lead to."""
SERIES: Final = "series"
"""A game after the one that decided its series."""


class RecordError(ValueError):
    """A record that cannot be read, or whose actions do not replay.

    ``reason`` is a machine-readable code: ``malformed`` (a file that is not a record, or a field
    of the wrong shape), ``impossible_deal``, ``time_order``, ``result_mismatch``, ``series``, or
    the engine's code for an illegal action (``card_not_in_hand``, ``out_of_turn``...).
    ``detail`` is one sentence for people; ``index`` the 0-based offending action (``None`` when
    the problem is not an action); ``game`` the 0-based game inside a series record. ``str()``
    is the sentence prefixed with the game and action (``game 1: action 4: ...``).
    """

    def __init__(
        self,
        message: str,
        index: int | None = None,
        reason: str = MALFORMED,
        *,
        game: int | None = None,
    ) -> None:
        text = message if index is None else f"action {index}: {message}"
        super().__init__(text if game is None else f"game {game}: {text}")
        self.index = index
        self.reason = reason
        self.game = game
        self.detail = message

    def in_game(self, game: int) -> RecordError:
        """The same error, naming the game of a series it happened in (same class)."""
        return type(self)(self.detail, self.index, self.reason, game=game)


class Refused(Exception):
    """An engine's refusal of an action, as a codec reports it: the code and the sentence."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


A = TypeVar("A")
"""A game's action type."""
O = TypeVar("O")  # noqa: E741 - the deal options
"""A game's deal options (everything but the deck and the number of players)."""
G = TypeVar("G")
"""A game's engine state."""
T = TypeVar("T")


class RecordCodec(Protocol[A, O, G]):
    """What a game gives the record format: its part of a record, and its engine.

    A codec is stateless. Errors it raises are its :attr:`error` (a :class:`RecordError`).
    """

    @property
    def game(self) -> str:
        """The name records give the game in ``game``."""

    @property
    def label(self) -> str:
        """The game's name for people ("classic Blink")."""

    @property
    def error(self) -> type[RecordError]:
        """The error raised for this game's records."""

    def encode_action(self, action: A, t: int | None) -> dict[str, Any]:
        """One action (and its time, if any) as a JSON object."""

    def decode_action(self, raw: object, index: int) -> tuple[A, int | None]:
        """One action object read back; :attr:`error` with ``index`` when it is malformed."""

    def encode_options(self, players: int, options: O) -> dict[str, Any]:
        """The game's own top-level fields, in the order they are written."""

    def decode_options(self, data: Mapping[str, Any], seats: int) -> tuple[int, O]:
        """The number of players and the deal options of a record (``seats``: players listed)."""

    def deal(self, deck: Sequence[Card], players: int, options: O) -> G:
        """The game at the deal; :attr:`error` with reason ``impossible_deal`` if it cannot be."""

    def apply(self, game: G, action: A, t: int | None) -> None:
        """Apply one action; :class:`Refused` when the engine refuses it."""

    def result(self, game: G) -> dict[str, Any] | None:
        """The ``result`` object of a game (``None`` while it is not over)."""

    def winners(self, game: G) -> tuple[int, ...] | None:
        """The winning seats of a finished game (several for a tie), ``None`` if not over."""

    def load(self, data: Mapping[str, Any]) -> Record[A, O, G]:
        """Read a record of this game (a parsed JSON object)."""

    def record(
        self, game: G, names: Sequence[str] = (), meta: Mapping[str, Any] | None = None
    ) -> Record[A, O, G]:
        """The record of a game (finished or not) as it stands."""


AnyCodec = RecordCodec[Any, Any, Any]


def codecs() -> Mapping[str, AnyCodec]:
    """Every registered game's codec, by the name records give it in ``game``.

    Read from the game definitions of :mod:`blink.model.registry` (each has a
    ``record_codec``), so a newly registered game's records load too. Imported on first use:
    the games' record modules import this one.
    """
    from blink.model.registry import all_games

    return MappingProxyType({g.name: g.rules.record_codec for g in all_games()})


def codec_for(game: object) -> AnyCodec:
    """The codec of a game by name; :class:`RecordError` naming the known games otherwise."""
    known = codecs()
    codec = known.get(game) if isinstance(game, str) else None
    if codec is None:
        raise RecordError(f"unknown game {game!r} (known: {', '.join(known)})")
    return codec


# --- reading: msgspec shapes and clear messages ---------------------------------------------

_KINDS: Final = {
    "int": "a whole number",
    "float": "a number with a fraction",
    "str": "a string",
    "bool": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}
_EXPECTED = re.compile(r"Expected `(?P<want>[^`]+)`(?:, got `(?P<got>[^`]+)`| (?P<bound>.+))?")
_MISSING = re.compile(r"Object missing required field `(?P<field>[^`]+)`")


def _kinds(spec: str) -> str:
    """msgspec's ``int | null`` in words: ``a whole number or null``."""
    return " or ".join(_KINDS.get(k.strip(), k.strip()) for k in spec.split("|"))


def explain(message: str, subject: str = "the record") -> str:
    """A msgspec validation message as a sentence: which field, what it must be, what it is."""
    text, _, at = message.partition(" - at `")
    path = at.rstrip("`").removeprefix("$").removeprefix(".")
    where = path or subject
    missing = _MISSING.fullmatch(text)
    if missing:
        return f"{where} has no {missing['field']!r}"
    expected = _EXPECTED.fullmatch(text)
    if expected:
        if expected["got"]:
            return f"{where} must be {_kinds(expected['want'])}, not {_kinds(expected['got'])}"
        if expected["bound"]:
            return f"{where} must be {_kinds(expected['want'])} {expected['bound']}"
        return f"{where} must be {_kinds(expected['want'])}"
    return f"{path}: {text}" if path else text


def convert(
    value: object,
    into: type[T],
    error: type[RecordError] = RecordError,
    index: int | None = None,
    subject: str = "the record",
) -> T:
    """``value`` (parsed JSON) as the msgspec type ``into``; ``error`` in a sentence if not."""
    try:
        return msgspec.convert(value, into)
    except msgspec.ValidationError as exc:
        raise error(explain(str(exc), subject), index) from None


Millis = Annotated[int, msgspec.Meta(ge=0)]
"""An action's time: whole milliseconds since the game began (the reveal in classic Blink)."""


class _Seat(msgspec.Struct):
    """One entry of ``players`` (``seat`` is the position in the list and is not read)."""

    name: str | None = None


class _Shared(msgspec.Struct):
    """The shared fields of a record, after ``format``, ``version`` and ``game``."""

    deck: list[str]
    actions: list[Any]
    players: list[_Seat] | None = None
    result: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None


def parse_json(text: str | bytes, error: type[RecordError] = RecordError) -> Any:
    """JSON text parsed; ``error`` saying where it is broken if it is not JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except UnicodeDecodeError as exc:
        raise error(f"not valid JSON (not UTF-8 text: {exc.reason})") from None


def check_header(data: object, expected: str, error: type[RecordError] = RecordError) -> None:
    """Check that ``data`` is a JSON object of format ``expected`` in a version this reads."""
    if not isinstance(data, Mapping):
        raise error("a record must be a JSON object")
    if data.get("format") != expected:
        raise error(f"not a {expected} file (format is {data.get('format')!r})")
    version = data.get("version")
    if version != VERSION or isinstance(version, bool):
        raise error(f"unsupported record version {version!r}; this program reads {VERSION}")


def decode_deck(codes: Sequence[str], error: type[RecordError] = RecordError) -> list[Card]:
    """A deck's card codes read back, top first; no card twice."""
    deck: list[Card] = []
    for i, code in enumerate(codes):
        try:
            deck.append(parse_card(code))
        except CardError as exc:
            raise error(f"deck card {i}: {exc}") from None
    if len(set(deck)) != len(deck):
        raise error("the deck has a duplicate card")
    return deck


class RecordParts(NamedTuple, Generic[A, O]):
    """A game record read back, before it is made the game's record class."""

    deck: list[Card]
    players: int
    options: O
    actions: list[tuple[A, int | None]]
    names: list[str]
    meta: dict[str, Any]
    result: dict[str, Any] | None


def decode_record(codec: RecordCodec[A, O, Any], data: object) -> RecordParts[A, O]:
    """Read a game record of ``codec``'s game; its :attr:`~RecordCodec.error` if it cannot."""
    error = codec.error
    check_header(data, FORMAT, error)
    assert isinstance(data, Mapping)
    game = data.get("game", DEFAULT_GAME)
    if game != codec.game:
        raise error(f"not a {codec.label} record: game is {game!r}")
    shared = convert(data, _Shared, error)
    deck = decode_deck(shared.deck, error)
    names = [s.name or "" for s in shared.players or ()]
    players, options = codec.decode_options(data, len(names))
    actions = [codec.decode_action(a, i) for i, a in enumerate(shared.actions)]
    return RecordParts(
        deck, players, options, actions, names, dict(shared.meta or {}), shared.result
    )


# --- records --------------------------------------------------------------------------------


def seat_name(names: Sequence[str], seat: int) -> str:
    """A seat for people: ``Ann (seat 0)``, or ``Player 1 (seat 0)`` when it has no name."""
    name = names[seat] if seat < len(names) and names[seat] else f"Player {seat + 1}"
    return f"{name} (seat {seat})"


class Record(ABC, Generic[A, O, G]):
    """The shared part of every game's record; each game's record class is a dataclass of these
    fields plus its deal options, with its codec.

    Fields: ``deck`` (top card first), ``players``, ``actions`` ((action, time in ms or
    ``None``) in the order the engine accepted them), ``names`` (by seat), ``meta`` (free data)
    and ``result`` (the stored result object, ``None`` for an unfinished game).
    """

    deck: list[Card]
    players: int
    actions: list[tuple[A, int | None]]
    names: list[str]
    meta: dict[str, Any]
    result: dict[str, Any] | None

    @property
    @abstractmethod
    def codec(self) -> RecordCodec[A, O, G]:
        """The codec of the record's game."""

    @property
    @abstractmethod
    def options(self) -> O:
        """The deal options (everything the deal needs besides the deck and the players)."""

    @abstractmethod
    def describe(self) -> list[str]:
        """The game move by move, as lines for people."""

    @abstractmethod
    def summary(self, game: G | None = None) -> dict[str, Any]:
        """What happened, in brief (``result``, ``winners``...); ``game``: the verified game."""

    @property
    def game_name(self) -> str:
        """The record's ``game``."""
        return self.codec.game

    def seats(self) -> list[str]:
        """A name for every seat: the record's, then ``Player N`` for seats it does not name."""
        names = list(self.names)
        while len(names) < self.players:
            names.append(f"Player {len(names) + 1}")
        return names

    def replay(self) -> G:
        """Rebuild the game; the codec's error at the first illegal action."""
        codec = self.codec
        game = codec.deal(self.deck, self.players, self.options)
        for i, (action, t) in enumerate(self.actions):
            try:
                codec.apply(game, action, t)
            except Refused as exc:
                raise codec.error(exc.message, i, exc.code) from None
        return game

    def check_times(self) -> None:
        """Check that action times never go backwards (reason ``time_order``)."""
        last = 0
        for i, (_, t) in enumerate(self.actions):
            if t is None:
                continue
            if t < last:
                raise self.codec.error(
                    f"time {t} ms is earlier than the previous action's {last} ms", i, TIME_ORDER
                )
            last = t

    def verify(self) -> G:
        """Replay and check the record; return the final game.

        Checks that action times never go backwards, every action's legality, and that the
        stored result (if any) is the one the actions lead to.
        """
        self.check_times()
        game = self.replay()
        if self.result is not None:
            actual = self.codec.result(game)
            if actual != self.result:
                raise self.codec.error(
                    f"the stored result {self.result} does not match the replay's {actual}",
                    reason=RESULT_MISMATCH,
                )
        return game

    def action_text(self, index: int | None) -> str:
        """An action in a few words for messages (`` (play, seat 1, card 4YS, pile 0, t 120)``;
        "" when there is no such action)."""
        if index is None or not 0 <= index < len(self.actions):
            return ""
        action, t = self.actions[index]
        d = self.codec.encode_action(action, None)
        words = [str(d.pop("type", "?"))]
        words += [
            f"{k} {' '.join(map(str, v)) if isinstance(v, list) else v}" for k, v in d.items()
        ]
        if t is not None:
            words.append(f"t {t}")
        return f" ({', '.join(words)})"

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-ready dict (see docs/record-format.md)."""
        codec = self.codec
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": codec.game,
            "players": [{"seat": i, "name": n} for i, n in enumerate(self.seats())],
            **codec.encode_options(self.players, self.options),
            "deck": [str(c) for c in self.deck],
            "actions": [codec.encode_action(a, t) for a, t in self.actions],
            "result": self.result,
            "meta": self.meta,
        }

    def to_json(self, indent: int | None = None) -> str:
        """The record as JSON text."""
        return json.dumps(self.to_dict(), indent=indent)


AnyRecord = Record[Any, Any, Any]
"""A record of any game."""


# --- series ---------------------------------------------------------------------------------


class _Series(msgspec.Struct):
    best_of: Annotated[int, msgspec.Meta(ge=1)]
    games: list[Any]
    meta: dict[str, Any] | None = None
    play_all: bool = False


def _legacy_series(data: Mapping[str, Any]) -> bool:
    """The Go Blink series document of ``GET /api/rooms/{code}/record`` up to version 1 of the
    format: ``game``, ``best_of``, ``games`` and ``meta``, no ``format`` or ``version``."""
    return "format" not in data and "best_of" in data and isinstance(data.get("games"), list)


@dataclass(init=False)
class SeriesRecord:
    """A best-of-N series: its games' records in order, all of one game. ``play_all``: a set
    of N decided games, every one played (:attr:`blink.match.Series.play_all`; written only
    when true)."""

    best_of: int
    games: list[AnyRecord]
    meta: dict[str, Any]
    play_all: bool

    def __init__(
        self,
        best_of: int,
        games: Iterable[AnyRecord] = (),
        meta: Mapping[str, Any] | None = None,
        play_all: bool = False,
    ) -> None:
        self.best_of = best_of
        self.games = list(games)
        self.meta = dict(meta or {})
        self.play_all = play_all

    @property
    def game_name(self) -> str:
        """The game of the series (of its first game; the default game for an empty one)."""
        return self.games[0].game_name if self.games else DEFAULT_GAME

    def verify(self) -> list[Any]:
        """Verify every game and the series itself; return the final games.

        Each game must verify (:meth:`Record.verify`); every game but the last must be
        finished; no game may follow the one that decided the series. Errors carry ``game``.
        """
        out = []
        series = self.series_from([])
        for i, record in enumerate(self.games):
            if series.over:
                raise record.codec.error(
                    f"the series was decided before this game (score {series.score})",
                    reason=SERIES,
                    game=i,
                )
            try:
                game = record.verify()
            except RecordError as exc:
                raise exc.in_game(i) from None
            winners = record.codec.winners(game)
            if winners is None:
                if i != len(self.games) - 1:
                    raise record.codec.error("an unfinished game is followed by another", game=i)
            else:
                series.record(winners)
            out.append(game)
        return out

    def series_from(self, games: Sequence[Any]) -> Series:
        """The :class:`~blink.match.Series` state after the given (final) games."""
        players = self.games[0].players if self.games else 2
        series = Series(self.best_of, players, play_all=self.play_all)
        codec = codec_for(self.game_name)
        for g in games:
            winners = codec.winners(g)
            if winners is not None:
                series.record(winners)
        return series

    def summary(self) -> dict[str, Any]:
        """What happened: each game's summary, the score and the series' winner."""
        games = self.verify()
        series = self.series_from(games)
        return {
            "format": SERIES_FORMAT,
            "best_of": self.best_of,
            "games": [r.summary(g) for r, g in zip(self.games, games, strict=True)],
            "score": list(series.score),
            "ties": series.ties,
            "winner": series.winner,
            "result": "win" if series.winner is not None else None,
            "winners": [] if series.winner is None else [series.winner],
        }

    def describe(self) -> list[str]:
        """The series game by game, then the score, as lines for people."""
        series = self.series_from(self.verify())
        lines = [f"best-of-{self.best_of} series, {len(self.games)} games"]
        for i, record in enumerate(self.games):
            lines += ["", f"== game {i + 1}", *record.describe()]
        score = " - ".join(map(str, series.score))
        names = self.games[0].names if self.games else []
        verdict = (
            "undecided" if series.winner is None else f"won by {seat_name(names, series.winner)}"
        )
        return [*lines, "", f"series score {score} ({series.ties} tied games): {verdict}"]

    def to_dict(self) -> dict[str, Any]:
        """The series as a JSON-ready dict."""
        doc = {
            "format": SERIES_FORMAT,
            "version": VERSION,
            "best_of": self.best_of,
            "games": [g.to_dict() for g in self.games],
            "meta": self.meta,
        }
        if self.play_all:
            doc["play_all"] = True
        return doc

    def to_json(self, indent: int | None = None) -> str:
        """The series as JSON text."""
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, data: object) -> SeriesRecord:
        """Read a series dict (also the format-less Go Blink series document of the server)."""
        if not isinstance(data, Mapping) or not _legacy_series(data):
            check_header(data, SERIES_FORMAT)
        assert isinstance(data, Mapping)
        raw = convert(data, _Series, subject="the series")
        if raw.best_of % 2 == 0:
            raise RecordError(f"best_of must be a positive odd number, not {raw.best_of!r}")
        games: list[AnyRecord] = []
        for i, g in enumerate(raw.games):
            try:
                record = load_game(g)
            except RecordError as exc:
                raise exc.in_game(i) from None
            if games and record.game_name != games[0].game_name:
                raise RecordError(
                    f"a series is of one game: this is {record.game_name!r}, "
                    f"game 0 is {games[0].game_name!r}",
                    game=i,
                )
            games.append(record)
        game = data.get("game")
        if game is not None and games and game != games[0].game_name:
            raise RecordError(f"the series is of {game!r} but its games are not")
        return cls(raw.best_of, games, raw.meta, raw.play_all)


# --- any record -----------------------------------------------------------------------------


def load_game(data: object) -> AnyRecord:
    """Read a game record of any game (a parsed JSON object), by its ``game``."""
    if not isinstance(data, Mapping):
        raise RecordError("a record must be a JSON object")
    game = data.get("game", DEFAULT_GAME)
    if not isinstance(game, str) or game not in codecs():
        check_header(data, FORMAT)
    return codec_for(game).load(data)


def load(data: object) -> AnyRecord | SeriesRecord:
    """Read any record (a parsed JSON object): a game record of any game, or a series."""
    if not isinstance(data, Mapping):
        raise RecordError("a record must be a JSON object")
    if data.get("format") == SERIES_FORMAT or _legacy_series(data):
        return SeriesRecord.from_dict(data)
    return load_game(data)


def loads(text: str | bytes) -> AnyRecord | SeriesRecord:
    """Read any record from JSON text."""
    return load(parse_json(text))
