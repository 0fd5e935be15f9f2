"""Go Blink's attribute values: a colour, a shape or a count, and the matches they make.

A :data:`Value` is what a player asks for and what a match shares. This module reads values
off cards (:func:`values_of`, :func:`attribute_of`), names them for people
(:func:`value_label`, :func:`parse_value`) and for the wire (:func:`value_to_wire`,
:func:`value_from_wire`), and finds matches (:func:`match_value`, :func:`matches_in`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations
from operator import attrgetter
from typing import Final

from blink.cards import Attribute, Card, Color, Shape

__all__ = [
    "MIN_MATCH",
    "TURN_TIME",
    "Value",
    "attribute_of",
    "match_value",
    "matches_in",
    "parse_value",
    "value_from_wire",
    "value_label",
    "value_to_wire",
    "values_of",
]

MIN_MATCH: Final = 3

TURN_TIME: Final = 60.0
"""Seconds a player has for a turn before the default actions play it, unless a driver sets
its own (the game's timings, :attr:`blink.model.base.GameInfo.timings`)."""

Value = Color | Shape | int
"""One attribute value: a colour, a shape or a count (1 to 5)."""


# --- values --------------------------------------------------------------------------------


def attribute_of(value: Value) -> Attribute:
    """The attribute a value belongs to."""
    if isinstance(value, Color):
        return Attribute.COLOR
    if isinstance(value, Shape):
        return Attribute.SHAPE
    return Attribute.COUNT


def values_of(card: Card) -> tuple[Color, Shape, int]:
    """The three values of a card: its colour, shape and count."""
    return (card.color, card.shape, card.count)


def _has(card: Card, value: Value) -> bool:
    if isinstance(value, Color):
        return card.color is value
    if isinstance(value, Shape):
        return card.shape is value
    return card.count == value


_COUNT_NAMES: Final = {1: "ones", 2: "twos", 3: "threes", 4: "fours", 5: "fives"}


def value_label(value: Value) -> str:
    """A readable plural for an ask: "yellows", "stars", "fours"."""
    if isinstance(value, Color):
        return value.label + "s"
    if isinstance(value, Shape):
        return value.plural
    return _COUNT_NAMES.get(value, str(value))


def value_to_wire(value: Value) -> tuple[str, str | int]:
    """``(attribute, value)`` for JSON: ``("color", "yellow")``, ``("count", 4)``."""
    if isinstance(value, Color | Shape):
        return attribute_of(value).value, value.label
    return Attribute.COUNT.value, value


def value_from_wire(attribute: object, value: object) -> Value:
    """The inverse of :func:`value_to_wire`; raises ``ValueError`` naming the problem."""
    if attribute == "color":
        for c in Color:
            if c.label == value:
                return c
        raise ValueError(f"unknown colour {value!r}")
    if attribute == "shape":
        for s in Shape:
            if s.label == value:
                return s
        raise ValueError(f"unknown shape {value!r}")
    if attribute == "count":
        if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 5:
            return value
        raise ValueError(f"a count is 1 to 5, not {value!r}")
    raise ValueError(f"unknown attribute {attribute!r} (color, shape, count)")


_WORDS: Final[dict[str, Value]] = {}
for _c in Color:
    _WORDS[_c.label] = _c
    _WORDS[_c.label + "s"] = _c
    _WORDS[_c.letter.lower()] = _c
for _s in Shape:
    _WORDS[_s.label] = _s
    _WORDS[_s.plural] = _s
for _n, _w in ((1, "one"), (2, "two"), (3, "three"), (4, "four"), (5, "five")):
    _WORDS[str(_n)] = _n
    _WORDS[_w] = _n
    _WORDS[_COUNT_NAMES[_n]] = _n
# Shape letters clash with colour letters (P), so shapes are only accepted by name.


def parse_value(text: str) -> Value:
    """Parse "yellow", "yellows", "star", "stars", "4", "four" or "fours" into a value."""
    key = text.strip().lower()
    found = _WORDS.get(key)
    if found is None:
        raise ValueError(f"{text!r} is not a colour, shape or count (for example: yellow, star, 4)")
    return found


def match_value(cards: Sequence[Card]) -> Value | None:
    """The value shared by all of ``cards`` if they form a match (3+ distinct cards), else None.

    In the standard deck three cards never share two attributes, so the value is unique; with a
    custom deck the first shared attribute in colour, shape, count order is returned.
    """
    if len(cards) < MIN_MATCH or len(set(cards)) != len(cards):
        return None
    first = cards[0]
    for value in values_of(first):
        if all(_has(c, value) for c in cards):
            return value
    return None


_card_index: Final = attrgetter("index")  # a card's sort key (``Card.__lt__``), read in C


def matches_in(hand: Iterable[Card]) -> list[tuple[Card, ...]]:
    """Every match that can be made from ``hand`` (all subsets of 3+ cards sharing a value)."""
    cards = sorted(set(hand), key=_card_index)
    if len(cards) < MIN_MATCH:
        return []
    # The cards of each value, in the order the values first appear (a card's colour, shape,
    # count). A colour or a shape is keyed by its id (hashing an enum member runs Python code,
    # an id does not; the members are single objects), a count by itself.
    groups: dict[int, list[Card]] = {}
    for c in cards:
        for k in (id(c.color), id(c.shape), c.count):
            group = groups.get(k)
            if group is None:
                groups[k] = [c]
            else:
                group.append(c)
    big = [g for g in groups.values() if len(g) >= MIN_MATCH]
    out: list[tuple[Card, ...]] = []
    if len(big) == 1:  # no subset can come from two values: no duplicates to skip
        group = big[0]
        for k in range(MIN_MATCH, len(group) + 1):
            out += combinations(group, k)
        return out
    seen: set[frozenset[Card]] = set()
    for group in big:
        for k in range(MIN_MATCH, len(group) + 1):
            for combo in combinations(group, k):
                key = frozenset(combo)
                if key not in seen:
                    seen.add(key)
                    out.append(combo)
    return out
