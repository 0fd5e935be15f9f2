"""Classic Blink as an OpenSpiel game: OpenSpiel's own random simulation test, chance as
explicit card deals and play orders, the steps of the PettingZoo environment, observations
that are the seat's view, and information states that are what the seat has seen."""

from __future__ import annotations

import random
import re
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the envs extra: pip install -e '.[envs]'")

import blink.envs.spiel  # noqa: E402  (registers the games)
from blink.cards import STANDARD_DECK  # noqa: E402
from blink.envs import classic_v0  # noqa: E402
from blink.envs.encoding import DECK_INDEX  # noqa: E402
from blink.games.classic.envs.codec import WAIT  # noqa: E402
from blink.model.registry import front_end, get_game  # noqa: E402

NAME = "python_blink_classic"


def _load(players: int, max_steps: int = 300) -> Any:
    return pyspiel.load_game(NAME, {"players": players, "max_steps": max_steps})


def _step(state: Any, rng: random.Random) -> None:
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(rng.choices(outcomes, probs)[0])
    else:
        state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(state.players)])


def test_registered_through_the_registry() -> None:
    assert front_end("classic").spiel_name == NAME
    assert NAME in blink.envs.spiel.spiel_games()
    game = _load(2)
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert game.get_type().provides_information_state_string
    assert game.get_type().provides_information_state_tensor


@pytest.mark.parametrize("players", [2, 3])
def test_random_sim_test(players: int) -> None:
    pyspiel.random_sim_test(_load(players), num_sims=2, serialize=True, verbose=False)


def test_random_sim_test_with_the_information_state_observer() -> None:
    """OpenSpiel's simulation test again, reading every node through the perfect-recall
    observer (the information state's string and tensor)."""
    game = _load(2)
    observer = game.make_observer(pyspiel.IIGObservationType(perfect_recall=True), {})
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False, observer=observer)


def test_chance_deals_and_orders() -> None:
    rng = random.Random(3)
    state = _load(2).new_initial_state()
    for _ in range(len(STANDARD_DECK)):
        assert state.is_chance_node()
        _step(state, rng)
    assert state.current_player() == pyspiel.PlayerId.SIMULTANEOUS
    while True:  # both seats play in the same step: chance orders the two plays
        plays = [[a for a in state.legal_actions(p) if a != WAIT] for p in (0, 1)]
        if all(plays):
            break
        _step(state, rng)
    state.apply_actions([plays[0][0], plays[1][0]])
    assert state.is_chance_node()
    assert [p for _, p in state.chance_outcomes()] == [0.5, 0.5]


def test_the_steps_are_the_environments() -> None:
    """The same deal, the same plays in the same order: the OpenSpiel state and the PettingZoo
    environment give every seat the same observation and mask."""
    rng = random.Random(8)
    state = _load(2).new_initial_state()
    while state.is_chance_node():
        _step(state, rng)
    env = classic_v0.parallel_env(players=2)
    env.reset(seed=0)
    env.start(env.game.new(2, deck=[STANDARD_DECK[i] for i in state.cards], options=env.options))
    observations = {a: env.observe(a) for a in env.agents}
    for _ in range(80):
        if state.is_terminal():
            break
        for seat, agent in enumerate(env.possible_agents):
            mask = observations[agent]["action_mask"]
            assert state.legal_actions(seat) == np.flatnonzero(mask).tolist()
            seen = observations[agent]["observation"]
            assert np.array_equal(state.observation_tensor(seat), seen)
        _step(state, rng)
        if state.is_chance_node():
            _step(state, rng)
        moves = [(env.possible_agents[s], i) for s, i in state.steps[-1]]
        env.advance(moves)
        observations = {a: env.observe(a) for a in env.possible_agents}


def test_max_steps_ends_without_a_winner() -> None:
    rng = random.Random(1)
    state = _load(2, max_steps=5).new_initial_state()
    while not state.is_terminal():
        _step(state, rng)
    assert len(state.steps) == 5
    assert state.returns() == [0.0, 0.0]


CLASSIC = get_game("classic")
CODES = {str(c) for c in STANDARD_DECK}


def _dealt(game: Any, cards: list[int]) -> Any:
    state = game.new_initial_state()
    for card in cards:
        state.apply_action(card)
    return state


def _check_seat(state: Any, seat: int, size: int) -> None:
    """The seat's information state: its observation first, and no card hidden from it."""
    tensor = np.asarray(state.information_state_tensor(seat), np.float32)
    assert tensor.shape == (size,)
    observation = np.asarray(state.observation_tensor(seat), np.float32)
    assert np.array_equal(tensor[: len(observation)], observation)
    hidden = {str(c) for c in CLASSIC.hidden_cards(state.env.state_, seat)}
    text = state.information_state_string(seat)
    named = set(re.findall(r"\b[1-5][A-Z]{2}\b", text)) & CODES
    assert not named & hidden, f"seat {seat} is shown {named & hidden}"


@pytest.mark.parametrize("players", [2, 3])
def test_information_states_name_no_hidden_card(players: int) -> None:
    """Random games: every seat's information state at every decision holds its observation
    and names no card of the definition's hidden cards (through stalls and flips)."""
    rng = random.Random(players)
    game = _load(players, max_steps=300)
    size = game.information_state_tensor_size()
    assert size == game.observation_tensor_size() + len(STANDARD_DECK) * (players + 2) + 1
    kinds: set[str] = set()
    for _ in range(4):
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node():
                for seat in range(players):
                    _check_seat(state, seat, size)
            _step(state, rng)
        kinds.update(re.findall(r'"type": "(\w+)"', state.information_state_string(0)))
    assert {"played", "refilled"} <= kinds
    if players == 2:  # three random players seldom leave the table without a play
        assert {"stalled", "flipped"} <= kinds


def _swapped(state: Any, a: Any, b: Any) -> list[int]:
    """The state's deal with cards ``a`` and ``b`` exchanged."""
    cards = list(state.cards)
    i, j = cards.index(DECK_INDEX[a]), cards.index(DECK_INDEX[b])
    cards[i], cards[j] = cards[j], cards[i]
    return cards


def _play(state: Any, policy: list[bool], steps: int) -> list[tuple[list[str], list[Any]]]:
    """``steps`` steps where seat ``s`` plays its first legal play when ``policy[s]``, else
    waits (a step of several plays in the first order); every step's information states."""
    seen = []
    for _ in range(steps):
        if state.is_terminal():
            break
        actions = []
        for seat, plays in enumerate(policy):
            legal = [a for a in state.legal_actions(seat) if a != WAIT]
            actions.append(legal[0] if plays and legal else WAIT)
        state.apply_actions(actions)
        if state.is_chance_node():
            state.apply_action(0)
        seen.append(
            (
                [state.information_state_string(s) for s in range(state.players)],
                [state.information_state_tensor(s) for s in range(state.players)],
            )
        )
    return seen


def test_hidden_cards_do_not_change_an_information_state() -> None:
    """Two deals that differ only in a card of seat 1's hand exchanged with the bottom card of
    its draw pile, the same actions (seat 0 plays, seat 1 waits): seat 0 cannot tell them
    apart, seat 1 can, at every step."""
    game = _load(2, max_steps=60)
    state = _dealt(game, random.Random(5).sample(range(len(STANDARD_DECK)), len(STANDARD_DECK)))
    engine = state.env.state_
    hand, bottom = engine.hand(1)[0], engine.draw_pile(1)[-1]
    other = _dealt(game, _swapped(state, hand, bottom))
    assert other.env.state_.hand(1)[0] == bottom
    first, second = _play(state, [True, False], 40), _play(other, [True, False], 40)
    assert len(first) == len(second) == 40
    for (strings, tensors), (strings2, tensors2) in zip(first, second, strict=True):
        assert strings[0] == strings2[0]
        assert tensors[0] == tensors2[0]
        assert strings[1] != strings2[1]
        assert tensors[1] != tensors2[1]
    assert first[-1][0][0].count("played") >= 2  # seat 0 did play


def test_a_refill_is_seen_by_the_drawer_only() -> None:
    """The card seat 0 draws after its first play exchanged with its draw pile's bottom one:
    seat 0's information state tells the two deals apart from that play on, seat 1's never
    (both wait after it)."""
    game = _load(2, max_steps=60)
    rng = random.Random(2)
    while True:  # a deal where seat 0 can play at once
        state = _dealt(game, rng.sample(range(len(STANDARD_DECK)), len(STANDARD_DECK)))
        if any(a != WAIT for a in state.legal_actions(0)):
            break
    engine = state.env.state_
    top, bottom = engine.draw_pile(0)[0], engine.draw_pile(0)[-1]
    other = _dealt(game, _swapped(state, top, bottom))
    assert state.information_state_string(0) == other.information_state_string(0)
    first = _play(state, [True, False], 1) + _play(state, [False, False], 20)
    second = _play(other, [True, False], 1) + _play(other, [False, False], 20)
    for (strings, tensors), (strings2, tensors2) in zip(first, second, strict=True):
        assert strings[0] != strings2[0]
        assert tensors[0] != tensors2[0]
        assert strings[1] == strings2[1]
        assert tensors[1] == tensors2[1]
    assert str(top) in first[0][0][0]
    assert '"card": null, "seat": 0' in first[0][0][1]


def test_the_order_of_a_steps_plays_is_seen() -> None:
    """The same step, its two plays ordered the two ways by chance: both seats see which
    went first."""
    rng = random.Random(3)
    state = _load(2).new_initial_state()
    while state.is_chance_node():
        _step(state, rng)
    while True:
        plays = [[a for a in state.legal_actions(p) if a != WAIT] for p in (0, 1)]
        if all(plays):
            break
        _step(state, rng)
        if state.is_chance_node():
            _step(state, rng)
    state.apply_actions([plays[0][0], plays[1][0]])
    orders = []
    for outcome in (0, 1):
        branch = state.clone()
        branch.apply_action(outcome)
        orders.append(branch)
    for seat in (0, 1):
        first, second = (b.information_state_string(seat) for b in orders)
        assert first != second
    assert "step" in state.information_state_string(0).splitlines()[-1]
