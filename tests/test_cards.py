"""Cards: the balanced 60-card deck, the notation, long names, custom decks and shuffling."""

from __future__ import annotations

import copy
import pickle
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blink.cards import (
    COUNTS,
    STANDARD_DECK,
    Attribute,
    Card,
    CardError,
    Color,
    DeckError,
    Shape,
    card,
    format_cards,
    parse_card,
    parse_deck,
    shuffled_deck,
    standard_deck,
)

ALL_CARDS = [Card(c, s, n) for c in Color for s in Shape for n in COUNTS]


# --- the deck is balanced, exactly as the issue lists ------------------------------------------


def test_deck_has_60_unique_cards() -> None:
    assert len(STANDARD_DECK) == 60
    assert len(set(STANDARD_DECK)) == 60
    assert standard_deck() == list(STANDARD_DECK)


def test_six_colours_six_shapes_counts_one_to_five() -> None:
    assert len(Color) == 6
    assert [s.label for s in Shape] == ["moon", "pyramid", "star", "water", "flower", "lightning"]
    assert COUNTS == (1, 2, 3, 4, 5)


def test_every_shape_and_every_colour_on_exactly_ten_cards() -> None:
    assert Counter(c.shape for c in STANDARD_DECK) == {s: 10 for s in Shape}
    assert Counter(c.color for c in STANDARD_DECK) == {c: 10 for c in Color}


def test_every_count_on_exactly_twelve_cards() -> None:
    assert Counter(c.count for c in STANDARD_DECK) == {n: 12 for n in COUNTS}


def test_every_shape_count_pair_exactly_twice() -> None:
    pairs = Counter((c.shape, c.count) for c in STANDARD_DECK)
    assert pairs == {(s, n): 2 for s in Shape for n in COUNTS}


def test_every_colour_count_pair_exactly_twice() -> None:
    pairs = Counter((c.color, c.count) for c in STANDARD_DECK)
    assert pairs == {(c, n): 2 for c in Color for n in COUNTS}


def test_no_shape_colour_pair_more_than_twice() -> None:
    pairs = Counter((c.shape, c.color) for c in STANDARD_DECK)
    assert max(pairs.values()) <= 2
    assert sum(pairs.values()) == 60


def test_palette_is_distinct_hex_colours() -> None:
    hexes = [c.hex for c in Color]
    assert len(set(hexes)) == 6
    assert all(h.startswith("#") and len(h) == 7 for h in hexes)


# --- notation --------------------------------------------------------------------------------


def test_there_are_180_possible_cards() -> None:
    assert len(set(ALL_CARDS)) == 180
    assert sorted(c.index for c in ALL_CARDS) == list(range(180))


@pytest.mark.parametrize("c", ALL_CARDS, ids=str)
def test_notation_round_trips_for_every_possible_card(c: Card) -> None:
    text = str(c)
    assert len(text) == 3
    assert parse_card(text) is c
    assert parse_card(text.lower()) is c
    assert Card.parse(f"  {text} ") is c
    assert c.code == text
    assert parse_card(c.long_name) is c
    assert eval(repr(c), {"Card": Card}) is c


def test_long_names() -> None:
    assert card("4YS").long_name == "four yellow stars"
    assert card("1RM").long_name == "one red moon"
    assert card("2BL").long_name == "two blue lightnings"
    assert parse_card("four yellow star") is card("4YS")
    assert parse_card("4 yellow stars") is card("4YS")
    assert parse_card("Three GREEN Waters") is card("3GW")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "is not a card"),
        ("4Y", "is not a card"),
        ("4YSX", "is not a card"),
        ("6YS", "count must be 1 to 5"),
        ("0YS", "count must be 1 to 5"),
        ("4XS", "unknown colour 'X'"),
        ("4YX", "unknown shape 'X'"),
        ("six yellow stars", "is not a card"),
        ("four pink stars", "is not a card"),
    ],
)
def test_bad_notation_says_what_is_wrong(text: str, fragment: str) -> None:
    with pytest.raises(CardError, match=fragment):
        parse_card(text)


def test_card_errors_are_value_errors() -> None:
    assert issubclass(CardError, ValueError)
    assert issubclass(DeckError, ValueError)


def test_card_constructor_checks_and_interns() -> None:
    assert Card(Color.YELLOW, Shape.STAR, 4) is card("4YS")
    with pytest.raises(CardError):
        Card(Color.YELLOW, Shape.STAR, 6)
    with pytest.raises(CardError):
        Card("yellow", Shape.STAR, 4)  # type: ignore[arg-type]


def test_cards_are_immutable_values() -> None:
    c = card("4YS")
    with pytest.raises(AttributeError):
        c.count = 5  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(c)) is c
    assert copy.deepcopy(c) is c
    assert sorted([card("2RM"), card("1RM")]) == [card("1RM"), card("2RM")]


def test_to_dict_has_color_shape_count() -> None:
    d = card("4YS").to_dict()
    assert d["color"] == "yellow" and d["shape"] == "star" and d["count"] == 4
    assert d["code"] == "4YS" and d["name"] == "four yellow stars"


def test_format_cards() -> None:
    assert format_cards([card("4YS"), card("1RM")]) == "4YS 1RM"


# --- matching --------------------------------------------------------------------------------


@given(st.sampled_from(ALL_CARDS), st.sampled_from(ALL_CARDS))
def test_matches_means_a_shared_attribute(a: Card, b: Card) -> None:
    shared = a.color is b.color or a.shape is b.shape or a.count == b.count
    assert a.matches(b) is shared
    assert b.matches(a) is shared
    assert bool(a.shared(b)) is shared


def test_shared_names_the_attributes() -> None:
    assert card("4YS").shared(card("4YM")) == {Attribute.COLOR, Attribute.COUNT}
    assert card("4YS").shared(card("1RM")) == frozenset()
    assert card("4YS").value(Attribute.SHAPE) is Shape.STAR


# --- custom decks ------------------------------------------------------------------------------


def test_parse_deck_accepts_lines_spaces_commas_comments_and_long_forms() -> None:
    text = (
        "# my deck\n4YS 1RM\n2BW, 3GF\n\nfive purple lightnings, one orange moon  # two\n1RS\n4GW"
    )
    cards = parse_deck(text)
    assert format_cards(cards) == "4YS 1RM 2BW 3GF 5PL 1OM 1RS 4GW"


def test_parse_deck_round_trips_the_standard_deck() -> None:
    text = "\n".join(str(c) for c in STANDARD_DECK)
    assert parse_deck(text) == list(STANDARD_DECK)


def test_parse_deck_reports_a_malformed_card_with_its_line() -> None:
    text = "4YS\n1RM\n2BW\n9XX\n" + "\n".join(str(c) for c in STANDARD_DECK[10:20])
    with pytest.raises(DeckError, match=r"^line 4: '9XX'") as info:
        parse_deck(text)
    assert info.value.line == 4


def test_parse_deck_reports_a_duplicate_with_both_lines() -> None:
    text = "4YS\n1RM\n2BW\n3GF\n\n1rm\n"
    with pytest.raises(DeckError, match=r"line 6: duplicate card 1RM .*first on line 2") as info:
        parse_deck(text)
    assert info.value.line == 6


def test_parse_deck_rejects_a_tiny_deck() -> None:
    with pytest.raises(DeckError, match="at least 8 cards") as info:
        parse_deck("4YS 1RM 2BW")
    assert info.value.line == 0


def test_parse_json_deck() -> None:
    assert parse_deck('["4YS", "1RM", "2BW", "3GF", "5PL", "1OM", "1RS", "4GW"]')[0] is card("4YS")
    objects = '[{"color": "yellow", "shape": "star", "count": 4}' + "".join(
        f', "{c}"' for c in STANDARD_DECK[:7]
    )
    assert parse_deck(objects + "]")[0] is card("4YS")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[1, 2", "not valid JSON"),
        ('["4YS", "4YS", "1RM", "2BW", "3GF", "5PL", "1OM", "1RS"]', "entry 2: duplicate"),
        ('["4YS", 7]', "entry 2"),
        ('["4YS", {"color": "pink", "shape": "star", "count": 4}]', "entry 2"),
    ],
)
def test_json_deck_errors(text: str, fragment: str) -> None:
    with pytest.raises(DeckError, match=fragment):
        parse_deck(text)


# --- shuffling -------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 7, 2**40, "abc", -3])
def test_shuffled_deck_is_exactly_the_standard_library_shuffle(seed: int | str) -> None:
    expected = list(STANDARD_DECK)
    random.Random(seed).shuffle(expected)
    assert shuffled_deck(seed) == expected
    small = list(STANDARD_DECK[:56])
    random.Random(seed).shuffle(small)
    assert shuffled_deck(seed, STANDARD_DECK[:56]) == small


def test_shuffled_deck_uses_no_global_state() -> None:
    random.seed(1)
    a = shuffled_deck(5)
    random.seed(2)
    assert shuffled_deck(5) == a
    assert sorted(a) == sorted(STANDARD_DECK)


def test_shuffled_deck_accepts_a_generator() -> None:
    rng = random.Random(9)
    first = shuffled_deck(rng)
    second = shuffled_deck(rng)
    assert first != second
    again = random.Random(9)
    assert shuffled_deck(again) == first
