"""Rulesets (named, serialisable) and deals (equal shares, handicaps, remainders)."""

from __future__ import annotations

import json

import pytest

from blink.games.classic.rules import (
    DEAD_END,
    MIN_PILE,
    OFFICIAL,
    RULESETS,
    DeadEnd,
    DealError,
    Ruleset,
    RulesetError,
    deal_sizes,
    get_ruleset,
    parse_handicap,
)


def test_the_default_ruleset_is_official() -> None:
    assert OFFICIAL.name == "official"
    assert OFFICIAL.dead_end is DeadEnd.CHOOSE
    assert OFFICIAL.hand_size == 3
    assert DEAD_END.dead_end is DeadEnd.FEWEST_CARDS
    assert set(RULESETS) == {"official", "dead-end"}


def test_the_dead_end_needs_every_draw_pile_empty() -> None:
    rule = DEAD_END.dead_end
    assert rule.ends_stall((0, 0)) and rule.ends_stall((0, 0, 0))
    assert not rule.ends_stall((0, 3)) and not rule.ends_stall((2, 0, 0))
    assert not DeadEnd.CHOOSE.ends_stall((0, 0))
    # The earlier ruling, kept for the records written under it: any empty draw pile.
    assert DeadEnd.FEWEST_CARDS_ANY_EMPTY.ends_stall((0, 3))


def test_records_of_the_earlier_dead_end_ruling_read_as_they_were_written() -> None:
    """``fewest-cards`` was the dead end at the first empty draw pile; today's dead-end
    ruleset writes another value, which the earlier loaders refuse rather than misread."""
    earlier = {"name": "dead-end", "dead_end": "fewest-cards", "hand_size": 3}
    ruleset = Ruleset.from_dict(earlier)
    assert ruleset.dead_end is DeadEnd.FEWEST_CARDS_ANY_EMPTY and ruleset != DEAD_END
    assert ruleset.to_dict()["dead_end"] == "fewest-cards"
    assert DEAD_END.to_dict()["dead_end"] == "fewest-cards-no-draw-left"


@pytest.mark.parametrize(
    "ruleset",
    [
        OFFICIAL,
        DEAD_END,
        Ruleset("custom", DeadEnd.CHOOSE, 4),
        Ruleset("old", DeadEnd.FEWEST_CARDS_ANY_EMPTY),
    ],
)
def test_rulesets_round_trip_through_json(ruleset: Ruleset) -> None:
    data = json.loads(json.dumps(ruleset.to_dict()))
    assert Ruleset.from_dict(data) == ruleset


def test_a_known_ruleset_by_name_only() -> None:
    assert Ruleset.from_dict({"name": "dead-end"}) is DEAD_END
    assert get_ruleset("official") is OFFICIAL


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({}, "needs a name"),
        ({"name": "nope"}, "unknown ruleset 'nope'; choose one of: official, dead-end"),
        ({"name": "x", "dead_end": "coin-toss"}, "unknown dead_end"),
        ({"name": "x", "hand_size": 0}, "hand_size must be 1 to 5"),
        ({"name": "x", "hand_size": "3"}, "hand_size must be 1 to 5"),
    ],
)
def test_bad_rulesets(data: dict[str, object], fragment: str) -> None:
    with pytest.raises(RulesetError, match=fragment):
        Ruleset.from_dict(data)


def test_equal_deals_and_remainders() -> None:
    assert deal_sizes(2, 60) == (30, 30)
    assert deal_sizes(3, 60) == (20, 20, 20)
    assert deal_sizes(3, 56) == (18, 18, 18)  # the rulebook's 56-card deck: 2 set aside
    assert deal_sizes(2, 59) == (29, 29)
    assert deal_sizes(2, 8) == (4, 4)


def test_handicap_deals() -> None:
    assert deal_sizes(2, 60, (35, 25)) == (35, 25)
    assert deal_sizes(2, 60, (30, 20)) == (30, 20)  # ten set aside
    assert deal_sizes(3, 60, (24, 18, 18)) == (24, 18, 18)
    assert deal_sizes(2, 60, (MIN_PILE, 56)) == (4, 56)


@pytest.mark.parametrize(
    ("players", "deck", "sizes", "fragment"),
    [
        (1, 60, None, "2 or 3 players, not 1"),
        (4, 60, None, "2 or 3 players, not 4"),
        (3, 11, None, "too small for 3 players"),
        (2, 60, (3, 57), "seat 0 would get 3 cards; every draw pile needs at least 4"),
        (2, 60, (40, 30), "40\\+30 = 70 cards need more than the 60"),
        (2, 60, (30, 20, 10), "3 draw-pile sizes given for 2 players"),
    ],
)
def test_impossible_deals(
    players: int, deck: int, sizes: tuple[int, ...] | None, fragment: str
) -> None:
    with pytest.raises(DealError, match=fragment):
        deal_sizes(players, deck, sizes)


@pytest.mark.parametrize(
    ("text", "players", "expected"),
    [
        ("", 2, None),
        ("0", 2, None),
        ("equal", 3, None),
        ("+5", 2, (35, 25)),
        ("5", 2, (35, 25)),
        ("35:25", 2, (35, 25)),
        ("35,25", 2, (35, 25)),
        ("+4", 3, (24, 18, 18)),
        ("20:20:16", 3, (20, 20, 16)),
    ],
)
def test_parse_handicap(text: str, players: int, expected: tuple[int, ...] | None) -> None:
    assert parse_handicap(text, players) == expected


@pytest.mark.parametrize(
    ("text", "players", "fragment"),
    [
        ("lots", 2, "give draw-pile sizes like 35:25"),
        ("+3", 3, "positive multiple of 2"),
        ("-5", 2, "extra cards \\(\\+5\\), or sizes"),
        ("+27", 2, "seat 1 would get 3 cards"),
        ("50:20", 2, "need more than the 60"),
    ],
)
def test_bad_handicaps(text: str, players: int, fragment: str) -> None:
    with pytest.raises(DealError, match=fragment):
        parse_handicap(text, players)
