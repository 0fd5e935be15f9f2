"""The Go view's ``lay_options`` on the wire are exactly the engine's legal lay-downs."""

from __future__ import annotations

import random
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from blink.cards import parse_card
from blink.games.goblink.engine import GoGame, LayDown, Phase, view_to_dict


def wire_lay_downs(game: GoGame, seat: int | None) -> set[frozenset[str]]:
    """Every card set the ``lay_options`` of ``seat``'s view allow, as sent."""
    options = view_to_dict(game.view(seat))["lay_options"]
    assert isinstance(options, list)
    out: set[frozenset[str]] = set()
    for o in options:
        for k in range(o["min"], o["max"] + 1):
            out |= {frozenset(c) for c in combinations(o["cards"], k)}
    return out


def legal_lay_downs(game: GoGame, seat: int) -> set[frozenset[str]]:
    """The card sets of the engine's legal lay-downs for ``seat``."""
    return {
        frozenset(str(c) for c in a.cards)
        for a in game.legal_actions(seat)
        if isinstance(a, LayDown)
    }


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32), dealer=st.integers(0, 5))
def test_lay_options_are_the_legal_lay_downs(players: int, seed: int, dealer: int) -> None:
    game = GoGame.new(players, seed=seed, dealer=dealer % players)
    rng = random.Random(seed)
    laying = 0
    for _ in range(400):
        if game.over:
            break
        assert wire_lay_downs(game, None) == set()
        for seat in range(players):
            sent = wire_lay_downs(game, seat)
            assert sent == legal_lay_downs(game, seat)
            laying += bool(sent)
        assert game.current is not None
        actions = game.legal_actions(game.current)
        lays = [a for a in actions if isinstance(a, LayDown)]
        game.apply(rng.choice(lays) if lays and rng.random() < 0.5 else rng.choice(actions))
    assert laying or game.over


def test_an_opening_lay_down_keeps_a_card() -> None:
    """Four reds in the opening: any three of them, never all four."""
    hand = [parse_card(c) for c in ("1RM", "2RS", "3RW", "4RF")]
    rest = [parse_card(c) for c in ("1GM", "2BS", "3YW", "4PF")]
    deck = [c for c in GoGame.new(2, seed=1).deck if c not in hand + rest]
    dealt = tuple(hand[i // 2] if i % 2 == 0 else rest[i // 2] for i in range(8))
    game = GoGame(dealt + tuple(deck), 2, 1)
    assert game.phase is Phase.OPENING and game.current == 0
    options = view_to_dict(game.view(0))["lay_options"]
    red = {"attribute": "color", "value": "red", "min": 3, "max": 3}
    assert options == [red | {"cards": ["1RM", "2RS", "3RW", "4RF"]}]
    assert view_to_dict(game.view(1))["lay_options"] == []
