"""Go Blink's vector environment (compiled kernels) against the rules engine and the codec.

Parity: every sub-environment's episodes are replayed through the engine of record
(:class:`~blink.games.goblink.engine.GoGame`, from the deal, the dealer and the actions the
kernel logged, the learner's included), and at every step the vector environment's
observation, mask, reward, termination, truncation and refusal must equal what the single-seat
environment computes from that game (the codec's encoding of the seat's view, the
definition's legal actions with action 0 unmasked at the end, the rewards of its outcome),
over many episodes, with learners that play at random, that try illegal actions and that
always take the lowest legal index."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="the envs extra: pip install -e '.[envs]'")
pytest.importorskip("numba", reason="the fast engine needs numba")

import blink.envs  # noqa: E402,F401 - registers the ids
from blink.cards import STANDARD_DECK  # noqa: E402
from blink.envs.encoding import rewards_of  # noqa: E402
from blink.games.goblink.actions import Ask, EndTurn, GoAction, LayDown  # noqa: E402
from blink.games.goblink.engine import GoGame  # noqa: E402
from blink.games.goblink.envs.codec import VALUES  # noqa: E402
from blink.games.goblink.envs.vector import GoBlinkVector  # noqa: E402
from blink.model.registry import get_game  # noqa: E402

GAME = get_game("goblink")


class Replay:
    """One sub-environment's episode, replayed through the engine."""

    def __init__(self, env: GoBlinkVector, index: int) -> None:
        self.env, self.index = env, index
        deal, dealer, _ = env.episode(index)
        deck = [STANDARD_DECK[j] for j in deal]
        self.game = GoGame(deck, env.players, dealer, env.turn_limit)
        self.seen = 0
        self.encoder = env.codec.encoder(env.seat)
        self.follow()

    def follow(self) -> None:
        """Apply the actions the kernel logged since the last call."""
        _, _, log = self.env.episode(self.index)
        for kind, seat, arg, cards in log[self.seen :]:
            action: GoAction
            if kind == 0:
                action = Ask(seat, arg // 32, VALUES[arg % 32])
            elif kind == 1:
                laid = tuple(STANDARD_DECK[i] for i in range(60) if int(cards) >> i & 1)
                action = LayDown(seat, laid)
            else:
                action = EndTurn(seat)
            self.game.apply(action)
        self.seen = len(log)

    def expected(self) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """The single-seat environment's observation and mask of the replayed game."""
        seat = self.env.seat
        view = GAME.view(self.game, seat)
        mask = self.env.codec.mask(GAME.legal_actions(self.game, seat)).copy()
        if self.game.over:
            mask[0] = 1
        return self.encoder.observe(view), mask


def _policy(kind: str, mask: np.ndarray[Any, Any], rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    if kind == "lowest":
        return int(legal[0])
    if kind == "any" and rng.random() < 0.3:
        return int(rng.integers(-2, mask.size + 2))
    return int(rng.choice(legal))


@pytest.mark.parametrize(
    ("kwargs", "steps"),
    [
        ({}, 600),
        ({"players": 4, "seat": 2, "opponents": ["random", "greedy", "memory"]}, 500),
        ({"players": 3, "opponents": "greedy", "turn_limit": 12}, 400),
        ({"players": 6, "seat": 5, "opponents": "memory", "max_steps": 10}, 300),
    ],
)
def test_every_step_equals_the_single_environment_on_the_engine(
    kwargs: dict[str, Any], steps: int
) -> None:
    policies = ["random", "any", "lowest", "random", "any"]
    env = GoBlinkVector(len(policies), records=4096, **kwargs)
    rng = np.random.default_rng(7)
    obs, _ = env.reset(seed=11)
    replays = [Replay(env, i) for i in range(env.num_envs)]
    done = np.zeros(env.num_envs, dtype=bool)
    episodes = 0
    outcomes: set[str] = set()
    cut = 0
    for r in replays:
        observation, mask = r.expected()
        np.testing.assert_array_equal(obs["observation"][r.index], observation)
        np.testing.assert_array_equal(obs["action_mask"][r.index], mask)
    for _ in range(steps):
        actions = [_policy(p, m, rng) for p, m in zip(policies, obs["action_mask"], strict=True)]
        before = [r.expected()[1] for r in replays]
        obs, rewards, terminated, truncated, infos = env.step(actions)
        for i, r in enumerate(replays):
            if done[i]:  # the next-step auto-reset: a new episode, nothing else
                replays[i] = r = Replay(env, i)
                assert rewards[i] == 0.0 and not terminated[i] and not truncated[i]
                episodes += 1
            else:
                legal = 0 <= actions[i] < before[i].size and bool(before[i][actions[i]])
                assert bool(infos["refused"][i]) == (not legal)
                r.follow()
                assert bool(terminated[i]) == r.game.over
                if r.game.over:
                    assert r.game.outcome is not None
                    reason = r.game.outcome.reason.value
                    outcomes.add(reason)
                    assert infos["outcome"][i] == reason
                    assert rewards[i] == rewards_of(r.game.outcome, env.players)[env.seat]
                else:
                    assert rewards[i] == 0.0 and infos["outcome"][i] == ""
            observation, mask = r.expected()
            np.testing.assert_array_equal(obs["observation"][i], observation)
            np.testing.assert_array_equal(obs["action_mask"][i], mask)
            assert obs["action_mask"][i].any()  # a terminal one too: action 0
            if terminated[i]:
                assert np.flatnonzero(obs["action_mask"][i]).tolist() == [0]
        done = terminated | truncated
        cut += int(truncated.sum())
    assert episodes >= 5
    if kwargs.get("turn_limit"):
        assert "turn_limit" in outcomes
    if "max_steps" in kwargs:  # a learner that asks and asks is cut at 10 steps
        assert cut > 0


def test_a_terminal_observation_of_the_auto_reset_has_a_mask() -> None:
    """Under Gymnasium's next-step auto-reset the observation that ends a game allows action 0
    (which the next step ignores), never nothing."""
    env = gymnasium.make_vec(
        "blink/GoBlink-v0", num_envs=8, vectorization_mode="vector_entry_point"
    )
    obs, _ = env.reset(seed=3)
    ended = 0
    for _ in range(400):
        actions = [int(np.flatnonzero(m)[-1]) for m in obs["action_mask"]]
        obs, _, terminated, truncated, _ = env.step(np.array(actions))
        assert obs["action_mask"].any(axis=1).all()
        for i in np.flatnonzero(terminated | truncated):
            ended += 1
            assert obs["action_mask"][i, 0] == 1
    assert ended >= 8
    env.close()


def test_seeds_give_the_same_episodes_and_reset_continues_them() -> None:
    def run(seed: Any) -> list[bytes]:
        env = GoBlinkVector(3, opponents="greedy")
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(3)
        out = [obs["observation"].tobytes()]
        for _ in range(200):
            actions = [int(rng.choice(np.flatnonzero(m))) for m in obs["action_mask"]]
            obs, rewards, *_ = env.step(actions)
            out += [obs["observation"].tobytes(), rewards.tobytes()]
        return out

    assert run(5) == run([5, 6, 7])
    assert run(5) != run(6)
    env = GoBlinkVector(2)
    first, _ = env.reset(seed=[1, 2])
    second, _ = env.reset()
    again, _ = env.reset(seed=[1, 2])
    assert first["observation"].tobytes() == again["observation"].tobytes()
    assert first["observation"].tobytes() != second["observation"].tobytes()


def test_make_vec_builds_it_and_its_spaces_hold_its_data() -> None:
    env = gymnasium.make_vec(
        "blink/GoBlink-v0", num_envs=4, vectorization_mode="vector_entry_point"
    )
    assert isinstance(env.unwrapped, GoBlinkVector)
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    single = gymnasium.make("blink/GoBlink-v0")
    assert env.single_observation_space == single.observation_space
    assert env.single_action_space == single.action_space
    obs, infos = env.reset(seed=0)
    assert obs in env.observation_space
    for _ in range(100):
        actions = [int(np.flatnonzero(m)[0]) for m in obs["action_mask"]]
        obs, rewards, terminated, truncated, infos = env.step(np.array(actions))
        assert obs in env.observation_space
        assert np.array_equal(infos["action_mask"], obs["action_mask"])
        assert rewards.shape == terminated.shape == truncated.shape == (4,)
    env.close()


def test_returned_arrays_are_never_reused_and_a_pickled_copy_continues_identically() -> None:
    env = GoBlinkVector(6, players=3, opponents="memory")
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(2)

    def run(e: GoBlinkVector, o: Any, r: np.random.Generator, steps: int) -> list[bytes]:
        out = []
        for _ in range(steps):
            actions = np.argmax(r.random(o["action_mask"].shape) * o["action_mask"], axis=1)
            kept = {k: v.copy() for k, v in o.items()}
            step = e.step(actions)
            for k, v in kept.items():  # Gymnasium's checker: returned data is not reused
                assert np.array_equal(o[k], v)
                assert not np.shares_memory(o[k], step[0][k])
            o = step[0]
            out += [o["observation"].tobytes(), o["action_mask"].tobytes()]
            out += [a.tobytes() for a in step[1:4]]
        return out

    run(env, obs, rng, 100)
    obs = env._out()
    copy = pickle.loads(pickle.dumps(env))
    state = rng.bit_generator.state
    ahead = run(env, obs, rng, 300)
    rng.bit_generator.state = state
    assert run(copy, copy._out(), rng, 300) == ahead


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_envs": 0},
        {"opponents": "master"},
        {"opponents": "nobody"},
        {"seat": 2},
        {"turn_limit": 0},
        {"opponents": ["random", "greedy"]},
    ],
)
def test_bad_options_are_refused_with_a_sentence(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"\w"):
        GoBlinkVector(**kwargs)


def test_the_kernels_name_the_files_compiled_into_them() -> None:
    """numba's cache checks only a function's own file (as tests/games/goblink/test_fast.py
    checks)."""
    import hashlib
    from pathlib import Path

    from blink.games.goblink.fast import bots, rules, vector

    data = Path(str(rules.__file__)).read_bytes() + Path(str(bots.__file__)).read_bytes()
    assert hashlib.sha256(data).hexdigest()[:16] == vector.SOURCES_DIGEST
