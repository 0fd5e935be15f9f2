"""Go Blink as an OpenSpiel game: OpenSpiel's own random simulation test, its information
states checked against the seat's view, chance as explicit card deals, and OpenSpiel's
ISMCTS playing it."""

from __future__ import annotations

import random
import re
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the envs extra: pip install -e '.[envs]'")

import blink.envs.spiel  # noqa: E402  (registers the games)
from blink.cards import STANDARD_DECK  # noqa: E402
from blink.games.goblink.actions import Drew, Passed  # noqa: E402
from blink.games.goblink.envs.codec import GoCodec  # noqa: E402
from blink.model.registry import front_end, get_game  # noqa: E402

NAME = "python_go_blink"
GO = get_game("goblink")
CODES = {str(c): c for c in STANDARD_DECK}


def _load(players: int, turn_limit: int = 30) -> Any:
    return pyspiel.load_game(NAME, {"players": players, "turn_limit": turn_limit})


def _step(state: Any, rng: random.Random) -> None:
    """One random step: a chance card by its probability, or a legal action."""
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(rng.choices(outcomes, probs)[0])
    else:
        state.apply_action(rng.choice(state.legal_actions()))


def test_registered_through_the_registry() -> None:
    assert front_end("goblink").spiel_name == NAME
    assert NAME in blink.envs.spiel.register_spiel_games()
    assert NAME in pyspiel.registered_names()
    game = _load(3)
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.num_players() == 3


@pytest.mark.parametrize("players", [2, 4])
def test_random_sim_test(players: int) -> None:
    pyspiel.random_sim_test(_load(players), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_heads_up_is_zero_sum_and_more_players_general_sum(players: int) -> None:
    game = _load(players, turn_limit=12)  # short games: the turn limit decides some, ties too
    utility = pyspiel.GameType.Utility
    sums = set()
    rng = random.Random(players)
    for _ in range(30):
        state = game.new_initial_state()
        while not state.is_terminal():
            _step(state, rng)
        sums.add(sum(state.returns()))
    if players == 2:
        assert game.get_type().utility == utility.ZERO_SUM
        assert game.utility_sum() == 0.0
        assert sums == {0.0}
    else:
        assert game.get_type().utility == utility.GENERAL_SUM
        assert sums != {0.0}  # one +1 and several -1


def test_the_deal_is_chance_card_by_card() -> None:
    state = _load(3).new_initial_state()
    for dealt in range(12):  # four cards to each of three seats
        assert state.is_chance_node()
        outcomes = state.chance_outcomes()
        assert len(outcomes) == len(STANDARD_DECK) - dealt
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        state.apply_action(outcomes[dealt][0])
    assert not state.is_chance_node()
    assert state.current_player() == 1  # the player after the dealer (seat 0)


def _hidden_codes(state: Any, seat: int) -> set[str]:
    return {str(c) for c in GO.hidden_cards(state.game_, seat)}


def _check_seat(state: Any, seat: int, size: int) -> None:
    """The seat's information state and observation: made from its view only."""
    view = GO.view(state.game_, seat)
    tensor = np.asarray(state.information_state_tensor(seat), np.float32)
    assert tensor.shape == (size,)
    fresh = GoCodec(state.players, state.ask_window).observe(view)
    assert np.array_equal(tensor, fresh), "the information-state tensor is not the view's"
    assert np.array_equal(np.asarray(state.observation_tensor(seat), np.float32), fresh)
    hidden = _hidden_codes(state, seat)
    for text in (state.information_state_string(seat), state.observation_string(seat)):
        named = set(re.findall(r"\b[1-5][A-Z]{2}\b", text)) & set(CODES)
        assert not named & hidden, f"seat {seat} is shown {named & hidden}"


def test_information_states_are_views() -> None:
    """Random games through passes and draws: every seat's information state and observation
    at every decision, against the definition's view and hidden cards."""
    rng = random.Random(5)
    game = _load(3)
    size = game.information_state_tensor_size()
    assert game.observation_tensor_size() == size
    seen: set[type] = set()
    for _ in range(3):
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node():
                for seat in range(3):
                    _check_seat(state, seat, size)
            _step(state, rng)
        seen.update(type(e) for e in state.events)
    assert {Passed, Drew} <= seen


def test_an_information_state_is_the_seats_history() -> None:
    """The same seat's string grows by what the seat sees; another seat's draw shows no card."""
    rng = random.Random(2)
    state = _load(2).new_initial_state()
    while not any(type(e) is Drew for e in state.events):
        _step(state, rng)
    drew = next(e for e in state.events if type(e) is Drew)
    other = 1 - drew.player
    assert str(drew.card) in state.information_state_string(drew.player)
    assert '"card": null' in state.information_state_string(other)


def test_resample_keeps_the_information_state() -> None:
    rng = random.Random(9)
    state = _load(3).new_initial_state()
    while state.is_chance_node() or len(state.moves) < 6:
        _step(state, rng)
    seat = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    other = state.resample_from_infostate(seat, sampler)
    assert other.information_state_string(seat) == state.information_state_string(seat)
    assert other.legal_actions() == state.legal_actions()


def test_clone_is_independent() -> None:
    rng = random.Random(4)
    state = _load(2).new_initial_state()
    while state.is_chance_node() or len(state.moves) < 3:
        _step(state, rng)
    copy = state.clone()
    assert str(copy) == str(state)
    assert copy.legal_actions() == state.legal_actions()
    before = str(state)
    while not copy.is_terminal():
        _step(copy, rng)
    assert str(state) == before


def test_ismcts_plays_go_blink() -> None:
    """OpenSpiel's information-set MCTS, with random rollouts, plays a few decisions."""
    from open_spiel.python.algorithms import ismcts, mcts

    game = _load(2, turn_limit=15)
    rs = np.random.RandomState(3)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=8, random_state=rs)
    rng = random.Random(3)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal() and decisions < 5:
        if state.is_chance_node():
            _step(state, rng)
            continue
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        decisions += 1
    assert decisions == 5 or state.is_terminal()
