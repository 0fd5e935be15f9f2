"""The Go view's ``ask_values`` on the wire are the values of the engine's legal asks."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from blink.games.goblink.engine import (
    Ask,
    GoGame,
    Phase,
    value_to_wire,
    values_of,
    view_to_dict,
)


def wire_values(game: GoGame, seat: int | None) -> list[tuple[str, object]]:
    """The ``ask_values`` of ``seat``'s view as sent, as (attribute, value) pairs."""
    data = view_to_dict(game.view(seat))
    values = data["ask_values"]
    assert isinstance(values, list)
    return [(v["attribute"], v["value"]) for v in values]


def legal_ask_values(game: GoGame, seat: int) -> list[tuple[str, object]]:
    """The values of the engine's legal asks for ``seat``, each once, in the engine's order."""
    out: list[tuple[str, object]] = []
    for action in game.legal_actions(seat):
        if isinstance(action, Ask) and value_to_wire(action.value) not in out:
            out.append(value_to_wire(action.value))
    return out


def held_values(game: GoGame, seat: int) -> set[tuple[str, object]]:
    return {value_to_wire(v) for c in game.hand(seat) for v in values_of(c)}


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32), dealer=st.integers(0, 5))
def test_ask_values_are_the_legal_asks_values(players: int, seed: int, dealer: int) -> None:
    game = GoGame.new(players, seed=seed, dealer=dealer % players)
    rng = random.Random(seed)
    asking_turns = 0
    for _ in range(400):
        if game.over:
            break
        assert wire_values(game, None) == []  # a spectator holds nothing to ask for
        for seat in range(players):
            sent = wire_values(game, seat)
            if game.current == seat and game.phase is Phase.ASKING:
                asking_turns += 1
                assert sent == legal_ask_values(game, seat)
            else:  # what the hand would allow on an asking turn: every value it holds
                assert not any(isinstance(a, Ask) for a in game.legal_actions(seat))
                assert set(sent) == held_values(game, seat)
                assert len(sent) == len(set(sent))
        assert game.current is not None
        game.apply(rng.choice(game.legal_actions(game.current)))
    assert asking_turns or game.over
