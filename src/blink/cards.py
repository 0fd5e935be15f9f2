"""Cards: colours, shapes, counts, the standard 60-card deck and the card notation.

A card is written in a three-character notation: its count (1-5), its colour letter and its
shape letter, for example ``4YS`` for four yellow stars. Parsing is case-insensitive and
round-trips with :func:`str`. The long form (``card.long_name``) reads "four yellow stars".

The standard deck has 60 unique cards and is balanced: every colour and every shape is on
exactly 10 cards, every count on exactly 12, every (shape, count) and (colour, count) pair on
exactly two cards, and no (shape, colour) pair on more than two.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Sequence
from enum import Enum
from typing import Final

__all__ = [
    "COUNTS",
    "STANDARD_DECK",
    "Attribute",
    "Card",
    "CardError",
    "Color",
    "DeckError",
    "Shape",
    "card",
    "format_cards",
    "parse_card",
    "parse_deck",
    "shuffled_deck",
    "standard_deck",
]


class Color(Enum):
    """The six card colours, each with its display colour.

    The display colours are the one palette of every client (the browser's ``--card-*`` CSS
    variables must match them). They stay pairwise distinguishable for normal vision and
    under simulated deuteranopia, protanopia and tritanopia: see docs/accessibility.md.
    """

    RED = ("red", "R", "#B30910")
    ORANGE = ("orange", "O", "#E08A0F")
    YELLOW = ("yellow", "Y", "#FFF00E")
    GREEN = ("green", "G", "#40D090")
    BLUE = ("blue", "B", "#217ABB")
    PURPLE = ("purple", "P", "#4A0A90")

    def __init__(self, label: str, letter: str, hex_code: str) -> None:
        self.label = label
        self.letter = letter
        self.hex = hex_code

    def __str__(self) -> str:
        return self.label


class Shape(Enum):
    """The rulebook's six symbols."""

    MOON = ("moon", "M", "moons")
    PYRAMID = ("pyramid", "P", "pyramids")
    STAR = ("star", "S", "stars")
    WATER = ("water", "W", "waters")
    FLOWER = ("flower", "F", "flowers")
    LIGHTNING = ("lightning", "L", "lightnings")

    def __init__(self, label: str, letter: str, plural: str) -> None:
        self.label = label
        self.letter = letter
        self.plural = plural

    def __str__(self) -> str:
        return self.label


COUNTS: Final[tuple[int, ...]] = (1, 2, 3, 4, 5)
_COUNT_WORDS: Final = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}


class Attribute(Enum):
    """The three characteristics a card can share with another."""

    COLOR = "color"
    SHAPE = "shape"
    COUNT = "count"


class CardError(ValueError):
    """A card notation that cannot be parsed."""


class DeckError(ValueError):
    """A deck file with a malformed or duplicate card, or the wrong size.

    ``line`` is the 1-based line number of the offending entry (0 when the problem is the whole
    deck, for example its size).
    """

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line


_COLOR_BY_LETTER: Final = {c.letter: c for c in Color}
_SHAPE_BY_LETTER: Final = {s.letter: s for s in Shape}
_COLOR_BY_NAME: Final = {c.label: c for c in Color}
_SHAPE_BY_NAME: Final = {s.label: s for s in Shape} | {s.plural: s for s in Shape}


class Card:
    """One card: a colour, a shape and a count of symbols (1 to 5).

    Cards are immutable, interned values: ``Card(Color.YELLOW, Shape.STAR, 4)``,
    ``Card.parse("4YS")`` and ``parse_card("four yellow stars")`` all return the same object,
    so cards compare and hash fast. ``str(card)`` gives the notation back.
    """

    __slots__ = ("_bit", "_mask", "_row", "color", "count", "index", "shape")

    color: Color
    shape: Shape
    count: int
    index: int
    _bit: int
    _mask: int
    _row: bytes

    def __new__(cls, color: Color, shape: Shape, count: int) -> Card:
        if count not in COUNTS:
            raise CardError(f"a card has 1 to 5 symbols, not {count!r}")
        if not isinstance(color, Color) or not isinstance(shape, Shape):
            raise CardError(f"not a colour and a shape: {color!r}, {shape!r}")
        index = (_COLORS.index(color) * 6 + _SHAPES.index(shape)) * 5 + (count - 1)
        existing = _INTERNED[index]
        if existing is not None:
            return existing
        self = object.__new__(cls)
        object.__setattr__(self, "color", color)
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "count", count)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "_bit", 1 << index)
        object.__setattr__(self, "_mask", 0)
        object.__setattr__(self, "_row", b"")
        _INTERNED[index] = self
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("cards are immutable")

    def __reduce__(self) -> tuple[type[Card], tuple[Color, Shape, int]]:
        return (Card, (self.color, self.shape, self.count))

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse the notation (``"4YS"``); raise :class:`CardError` with what is wrong."""
        return parse_card(text)

    def __str__(self) -> str:
        return f"{self.count}{self.color.letter}{self.shape.letter}"

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    @property
    def code(self) -> str:
        """The short notation, for example ``4YS``."""
        return str(self)

    @property
    def long_name(self) -> str:
        """A readable name: "four yellow stars", "one red moon"."""
        noun = self.shape.label if self.count == 1 else self.shape.plural
        return f"{_COUNT_WORDS[self.count]} {self.color.label} {noun}"

    def matches(self, other: Card) -> bool:
        """True when the two cards share a colour, a shape or a count."""
        return bool(self._row[other.index])

    def value(self, attribute: Attribute) -> Color | Shape | int:
        """This card's value for one attribute."""
        if attribute is Attribute.COLOR:
            return self.color
        if attribute is Attribute.SHAPE:
            return self.shape
        return self.count

    def shared(self, other: Card) -> frozenset[Attribute]:
        """The attributes the two cards have in common."""
        return frozenset(a for a in Attribute if self.value(a) == other.value(a))

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready description of the card."""
        return {
            "code": str(self),
            "color": self.color.label,
            "shape": self.shape.label,
            "count": self.count,
            "name": self.long_name,
            "hex": self.color.hex,
        }


_COLORS: Final = tuple(Color)
_SHAPES: Final = tuple(Shape)
_INTERNED: list[Card | None] = [None] * 180

# Every possible card is interned, so parsing never allocates and identity compares work.
_ALL: Final[dict[str, Card]] = {
    f"{n}{col.letter}{sh.letter}": Card(col, sh, n) for col in Color for sh in Shape for n in COUNTS
}
for _a in _ALL.values():
    object.__setattr__(
        _a,
        "_mask",
        sum(
            1 << _b.index
            for _b in _ALL.values()
            if _a.color is _b.color or _a.shape is _b.shape or _a.count == _b.count
        ),
    )
    object.__setattr__(_a, "_row", bytes((_a._mask >> i) & 1 for i in range(180)))
del _a


def card(text: str) -> Card:
    """Shorthand for :func:`parse_card`."""
    return parse_card(text)


def parse_card(text: str) -> Card:
    """Parse a card in notation (``4YS``) or long form (``four yellow stars``).

    Raises :class:`CardError` naming what is wrong.
    """
    raw = text.strip()
    key = raw.upper()
    found = _ALL.get(key)
    if found is not None:
        return found
    words = raw.lower().split()
    if len(words) == 3:
        count = {w: n for n, w in _COUNT_WORDS.items()}.get(words[0])
        if count is None and words[0].isdigit():
            count = int(words[0])
        color = _COLOR_BY_NAME.get(words[1])
        shape = _SHAPE_BY_NAME.get(words[2])
        if count in COUNTS and color is not None and shape is not None:
            return _ALL[f"{count}{color.letter}{shape.letter}"]
    if len(key) != 3:
        raise CardError(
            f"{raw!r} is not a card: write count, colour and shape, for example 4YS "
            "(four yellow stars)"
        )
    n, col, sh = key[0], key[1], key[2]
    if n not in "12345":
        raise CardError(f"{raw!r}: the count must be 1 to 5, not {n!r}")
    if col not in _COLOR_BY_LETTER:
        raise CardError(
            f"{raw!r}: unknown colour {col!r} (colours: "
            + ", ".join(f"{c.letter}={c.label}" for c in Color)
            + ")"
        )
    raise CardError(
        f"{raw!r}: unknown shape {sh!r} (shapes: "
        + ", ".join(f"{s.letter}={s.label}" for s in Shape)
        + ")"
    )


def format_cards(cards: Iterable[Card]) -> str:
    """Cards in notation, separated by spaces."""
    return " ".join(str(c) for c in cards)


def _build_standard_deck() -> tuple[Card, ...]:
    # For shape s, count n and copy k in {0, 1}, the colour is (s + n + 3k) mod 6. Each
    # (shape, count) pair then appears twice, each (colour, count) pair twice, and each
    # (shape, colour) pair at most twice.
    out = []
    for s, shape in enumerate(_SHAPES):
        for n in COUNTS:
            for k in (0, 1):
                out.append(_ALL[f"{n}{_COLORS[(s + n + 3 * k) % 6].letter}{shape.letter}"])
    return tuple(out)


STANDARD_DECK: Final[tuple[Card, ...]] = _build_standard_deck()


def standard_deck() -> list[Card]:
    """The 60 cards of the standard deck, in a fixed order."""
    return list(STANDARD_DECK)


def shuffled_deck(
    seed: int | str | random.Random, deck: Sequence[Card] = STANDARD_DECK
) -> list[Card]:
    """The deck shuffled by a private generator seeded with ``seed`` (no global state).

    ``seed`` may also be a :class:`random.Random` the caller owns (it is advanced, not reseeded),
    which saves the cost of seeding a generator per deal in simulations. The order for a given
    seed is exactly ``random.Random(seed).shuffle(list(deck))``, only faster.
    """
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    cards = list(deck)
    _shuffle(rng, cards)
    return cards


def _stdlib_shuffle(rng: random.Random, cards: list[Card]) -> None:
    rng.shuffle(cards)


def _fast_shuffle(rng: random.Random, cards: list[Card]) -> None:
    """``random.Random.shuffle`` with its ``_randbelow`` inlined: the same order, ~2.5x faster."""
    getrandbits = rng.getrandbits
    steps = _STEPS_60 if len(cards) == 60 else _steps(len(cards))
    for i, k in steps:
        j = getrandbits(k)
        while j > i:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def _steps(n: int) -> list[tuple[int, int]]:
    return [(i, (i + 1).bit_length()) for i in range(n - 1, 0, -1)]


_STEPS_60: Final = _steps(60)


def _pick_shuffle() -> Callable[[random.Random, list[Card]], None]:
    # Use the inlined shuffle only when it reproduces this Python's own shuffle exactly.
    for seed in (0, 1, 2, 12345):
        a, b = list(STANDARD_DECK), list(STANDARD_DECK)
        random.Random(seed).shuffle(a)
        _fast_shuffle(random.Random(seed), b)
        if a != b:
            return _stdlib_shuffle
    return _fast_shuffle


_shuffle: Final = _pick_shuffle()


def parse_deck(text: str) -> list[Card]:
    """Parse a custom deck: one card per line (or several separated by spaces or commas).

    Cards are in notation (``4YS``) or long form (``four yellow stars``; several long forms on
    one line are separated by commas). Also accepts a JSON list of notations or of objects
    with ``color``, ``shape`` and ``count``. Blank lines and ``#`` comments are ignored. A
    malformed or duplicate card raises :class:`DeckError` with its line number.
    """
    stripped = text.lstrip()
    if stripped.startswith("["):
        return _parse_json_deck(text)
    seen: dict[Card, int] = {}
    out: list[Card] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        for c in _line_cards(line.split("#", 1)[0], lineno):
            if c in seen:
                raise DeckError(
                    f"duplicate card {c} ({c.long_name}), first on line {seen[c]}", lineno
                )
            seen[c] = lineno
            out.append(c)
    _check_size(out)
    return out


def _line_cards(body: str, lineno: int) -> list[Card]:
    """The cards on one line: notations separated by spaces or commas, or long forms by commas."""
    out = []
    for part in body.split(","):
        tokens = part.split()
        if len(tokens) == 3:
            try:
                out.append(parse_card(part))
                continue
            except CardError:
                pass
        for token in tokens:
            try:
                out.append(parse_card(token))
            except CardError as exc:
                raise DeckError(str(exc), lineno) from None
    return out


def _parse_json_deck(text: str) -> list[Card]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DeckError(f"not valid JSON: {exc.msg}", exc.lineno) from None
    if not isinstance(data, list):
        raise DeckError("a JSON deck must be a list of cards")
    seen: dict[Card, int] = {}
    out: list[Card] = []
    for i, item in enumerate(data, start=1):
        try:
            if isinstance(item, str):
                c = parse_card(item)
            elif isinstance(item, dict):
                c = parse_card(f"{item.get('count')} {item.get('color')} {item.get('shape')}")
            else:
                raise CardError(f"entry {i} is neither a notation nor an object")
        except CardError as exc:
            raise DeckError(f"entry {i}: {exc}") from None
        if c in seen:
            raise DeckError(f"entry {i}: duplicate card {c}, first at entry {seen[c]}")
        seen[c] = i
        out.append(c)
    _check_size(out)
    return out


def _check_size(cards: list[Card]) -> None:
    if len(cards) < 8:
        raise DeckError(f"a deck needs at least 8 cards, this one has {len(cards)}")
