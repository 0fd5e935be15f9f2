"""Classic Blink's ``resample_from_infostate`` for OpenSpiel: a resampled state has the seat's
information state (string and tensor) and moves the cards hidden from it, never the ones it
has seen; it never raises, at any node."""

from __future__ import annotations

import random
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the envs extra: pip install -e '.[envs]'")

import blink.envs.spiel  # noqa: E402,F401  (registers the games)
from blink.envs.encoding import DECK_INDEX  # noqa: E402
from blink.games.classic.envs import spiel  # noqa: E402

NAME = "python_blink_classic"


def _step(state: Any, rng: random.Random) -> None:
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(rng.choices(outcomes, probs)[0])
    else:
        state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(state.players)])


@pytest.mark.parametrize("players", [2, 3])
def test_resampled_states_keep_the_information_state_and_move_hidden_cards(players: int) -> None:
    game = pyspiel.load_game(NAME, {"players": players, "max_steps": 200})
    rng = random.Random(5)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    state = game.new_initial_state()
    assert state.resample_from_infostate(0, sampler).history() == state.history()  # the deal
    moved = 0
    checks = 0
    fallbacks = spiel.FALLBACKS[0]
    while not state.is_terminal() and checks < 24:
        _step(state, rng)
        if state.is_chance_node() or state.env is None or len(state.steps) % 5:
            continue
        for seat in range(players):
            found = state.resample_from_infostate(seat, sampler)
            checks += 1
            assert found.information_state_string(seat) == state.information_state_string(seat)
            assert found.information_state_tensor(seat) == state.information_state_tensor(seat)
            env = state.env
            hidden = {DECK_INDEX[c] for c in env.game.hidden_cards(env.state_, seat)}
            for a, b in zip(state.cards, found.cards, strict=True):
                assert a == b or (a in hidden and b in hidden)  # only hidden cards move
            moved += found.cards != state.cards
            assert not found.is_terminal() or state.is_terminal()
            assert found.legal_actions(seat) == state.legal_actions(seat)
    assert checks >= 8
    assert moved >= checks // 2  # most resamples are other deals, not the state itself
    assert spiel.FALLBACKS[0] - fallbacks <= checks - moved


def _resampler(base: Any, turn_based: Any) -> Any:
    """ISMCTS's resampler for the turn-based form of classic (OpenSpiel's conversion does not
    pass ``resample_from_infostate`` on): the simultaneous state rebuilt from the history, its
    own resampling, and the history played again on the deal it found."""
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)

    def resample(state: Any, player: int) -> Any:
        history = state.history()
        plain = base.new_initial_state()
        joint: list[int] = []
        for action in history:
            if plain.is_chance_node():
                plain.apply_action(action)
                continue
            joint.append(action)
            if len(joint) == plain.players:
                plain.apply_actions(joint)
                joint = []
        found = plain.resample_from_infostate(player, sampler)
        out = turn_based.new_initial_state()
        for action in [*found.cards, *history[len(found.cards) :]]:
            out.apply_action(action)
        return out

    return resample


def test_ismcts_plays_a_classic_game_to_the_end() -> None:
    """OpenSpiel's information-set MCTS (random rollouts) plays seat 0 of a classic game to its
    end, on the turn-based form of the game, sampling its worlds with the classic resampling."""
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts

    base = pyspiel.load_game(NAME, {"players": 2, "max_steps": 30})
    game = pyspiel.convert_to_turn_based(base)
    rs = np.random.RandomState(3)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=4, random_state=rs)
    resample = _resampler(base, game)
    worlds = [0]

    def counted(state: Any, player: int) -> Any:
        worlds[0] += 1
        return resample(state, player)

    bot.set_resampler(counted)
    rng = random.Random(3)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        elif state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            decisions += 1
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert decisions >= 10 and worlds[0] >= decisions  # a search at most of its decisions
    assert len(state.returns()) == 2
