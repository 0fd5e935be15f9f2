"""Invariants of Go Blink under random play: cards, secrecy, refusals and termination."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from blink.cards import STANDARD_DECK, Card, Color, Shape
from blink.games.goblink.engine import (
    Ask,
    EndTurn,
    GoAction,
    GoGame,
    IllegalAction,
    LayDown,
    Phase,
    event_to_dict,
    view_to_dict,
)

ALL_CARDS = list(STANDARD_DECK)
CODE = re.compile(r"\b[1-5][ROYGBP][MPSWFL]\b")


def wire_codes(seat: int | None, game: GoGame) -> set[str]:
    """Every card code in the JSON a seat would be sent: its view and its redacted log."""
    text = json.dumps(view_to_dict(game.view(seat)))
    text += json.dumps([event_to_dict(e) for e in game.events_for(seat)])
    return set(CODE.findall(text))


VALUES: list[object] = [*Color, *Shape, 0, 1, 2, 3, 4, 5, 6, True]


def cards_in(obj: object) -> Iterator[Card]:
    """Every card inside a nested structure of tuples, lists and named tuples."""
    if isinstance(obj, Card):
        yield obj
    elif isinstance(obj, tuple | list):
        for item in obj:
            yield from cards_in(item)


def accounted(game: GoGame) -> list[Card]:
    out = [c for p in range(game.players) for c in game.hand(p)]
    out += list(game.draw_pile())
    out += [c for _, m in game.discard() for c in m]
    return out


def key(action: GoAction) -> object:
    if isinstance(action, LayDown):
        # A multiset, not a set: a lay naming one card twice is a different (illegal) action.
        return ("lay", action.player, tuple(sorted(action.cards)))
    if isinstance(action, Ask):  # True == 1 in Python: keep the value's type in the key
        return ("ask", action.player, action.target, type(action.value), action.value)
    return action


def random_action(rng: random.Random, game: GoGame) -> GoAction:
    """An arbitrary action, legal or not."""
    player = rng.randrange(-1, game.players + 1)
    kind = rng.randrange(3)
    if kind == 0:
        value = rng.choice(VALUES)
        return Ask(player, rng.randrange(-1, game.players + 1), value)  # type: ignore[arg-type]
    if kind == 1:
        pool = list(game.hand(player)) if 0 <= player < game.players else []
        pool += rng.sample(ALL_CARDS, 2)
        size = rng.randrange(0, min(len(pool), 6) + 1)
        return LayDown(player, tuple(rng.sample(pool, size)))
    return EndTurn(player)


@settings(max_examples=40, deadline=None)
@given(
    players=st.integers(2, 6),
    seed=st.integers(0, 2**32),
    dealer=st.integers(0, 5),
)
def test_random_games_keep_every_invariant(players: int, seed: int, dealer: int) -> None:
    dealer %= players
    rng = random.Random(seed)
    game = GoGame.new(players, seed=seed, dealer=dealer)
    deck = sorted(game.deck)
    assert len(deck) == 60
    ever_held: list[set[Card]] = [set(game.hand(p)) for p in range(players)]
    steps = 0
    while not game.over:
        steps += 1
        assert steps < 20_000, "the game did not end"
        legal = {key(a) for a in game.legal_actions()}
        assert legal, "a game that is not over always offers an action"
        # A random action: refused ones change nothing; accepted ones were in the legal list.
        for _ in range(3):
            attempt = random_action(rng, game)
            before = game.snapshot()
            try:
                game.apply(attempt)
            except IllegalAction as exc:
                assert game.snapshot() == before
                assert exc.code and str(exc)
                assert key(attempt) not in legal
            else:
                assert key(attempt) in legal
                break
        else:
            game.apply(rng.choice(game.legal_actions()))
        # Every card is somewhere, exactly once.
        assert sorted(accounted(game)) == deck
        for p in range(players):
            ever_held[p] |= set(game.hand(p))
        public = {c for _, m in game.discard() for c in m}
        # Views and event logs never show another hand, the draw pile or others' passes.
        for seat in range(players):
            view = game.view(seat)
            assert view.hand == game.hand(seat)
            assert set(cards_in(view)) <= ever_held[seat] | public
            assert set(cards_in(game.events_for(seat))) <= ever_held[seat] | public
        for seat in (game.current, None) if steps % 7 == 0 or game.over else ():
            allowed = public if seat is None else ever_held[seat] | public
            assert wire_codes(seat, game) <= {str(c) for c in allowed}
        spectator = game.view(None)
        assert set(cards_in(spectator)) <= public
        assert set(cards_in(game.events_for(None))) <= public
        if game.phase is not Phase.OVER:
            assert game.current is not None
    assert game.outcome is not None and game.outcome.winners
    assert game.legal_actions() == []


@settings(max_examples=30, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_random_legal_play_always_ends(players: int, seed: int) -> None:
    rng = random.Random(seed)
    game = GoGame.new(players, seed=seed, dealer=seed % players)
    steps = 0
    while not game.over:
        game.apply(rng.choice(game.legal_actions()))
        steps += 1
        assert steps < 50_000
    assert game.outcome is not None
    counts = [len(game.hand(p)) for p in range(players)]
    if game.outcome.reason == "blunk":
        assert counts[game.outcome.winners[0]] == 0
    else:
        assert game.outcome.reason == "fewest_cards"
        assert game.draw_pile() == ()
        assert [p for p in range(players) if counts[p] == min(counts)] == list(game.outcome.winners)
