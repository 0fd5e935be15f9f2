"""Policies as opponents: a callable or a saved ``blink train`` policy plays a seat of the
single-seat environments, from its own seat's observation only."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the envs extra: pip install -e '.[envs]'")
torch = pytest.importorskip("torch", reason="the train extra: pip install -e '.[train]'")

from blink.envs.single import Observation  # noqa: E402
from blink.games.classic.envs.codec import WAIT  # noqa: E402
from blink.games.classic.envs.single import ClassicSingle  # noqa: E402
from blink.games.goblink.envs.single import GoBlinkSingle  # noqa: E402
from blink.train.evaluate import greedy_chooser  # noqa: E402
from blink.train.policy import MaskedPolicy, PolicyInfo, load_policy, save_policy  # noqa: E402
from blink.train.ppo import PPOConfig, train  # noqa: E402
from blink.train.setup import get_setup  # noqa: E402


def _play(env: Any, seed: int, *, limit: int = 3_000) -> list[Any]:
    """An episode with a seeded random legal agent: what it saw, got and was told."""
    rng = random.Random(seed)
    obs, _ = env.reset(seed=seed)
    out: list[Any] = []
    for _ in range(limit):
        action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        obs, reward, over, cut, info = env.step(action)
        out.append((obs["observation"].tobytes(), reward, info))
        if over or cut:
            return out
    raise AssertionError("the episode did not end")


class Recorder:
    """A callable opponent: it checks it is given its own seat's observation (nothing of the
    state), answers a random legal action, and remembers where in the game's history its
    action should be."""

    def __init__(self, seat: int, seed: int) -> None:
        self.env: Any = None
        self.seat, self.rng = seat, random.Random(seed)
        self.calls: list[tuple[int, Any]] = []

    def __call__(self, obs: Observation) -> int:
        env, seat = self.env, self.seat
        assert set(obs) == {"observation", "action_mask"}
        view = env.game.view(env.state_, seat)
        legal = env.game.legal_actions(env.state_, seat)
        if isinstance(env, ClassicSingle):
            mask = env.codec.mask(legal, view)
        else:
            assert env.state_.current == seat  # asked on its own turn only
            mask = env.codec.mask(legal)
        # Its seat's view, encoded afresh: the same numbers; the agent's view differs.
        assert np.array_equal(obs["observation"], env.codec.observe(view))
        assert not np.array_equal(obs["observation"], env.observe()["observation"])
        assert np.array_equal(obs["action_mask"], mask)
        index = self.rng.choice(np.flatnonzero(mask).tolist())
        if isinstance(env, ClassicSingle):
            move = None if index == WAIT else env.codec.action(index, view)
        else:
            move = env.codec.action(index, seat)
        self.calls.append((len(env.game.history(env.state_)), move))
        return int(index)

    def check_played(self) -> None:
        """Each action it answered is in the game's history where it answered it."""
        history = self.env.game.history(self.env.state_)
        played = [(at, move) for at, move in self.calls if move is not None]
        assert len(played) >= 3
        for at, move in played:
            assert history[at][0] == move


def _env(game: str, opponents: Any, **options: Any) -> Any:
    if game == "goblink":
        return GoBlinkSingle(opponents=opponents, **options)
    return ClassicSingle(bots=opponents, step_seconds=1.0, **options)


BOT = {"goblink": "random", "classic": "expert:first"}


@pytest.mark.parametrize("game", ["goblink", "classic"])
def test_a_callable_opponent_sees_its_seat_and_its_actions_are_played(game: str) -> None:
    recorder = Recorder(seat=2, seed=4)
    env = recorder.env = _env(game, [BOT[game], recorder], players=3)
    _play(env, seed=7)
    recorder.check_played()


@pytest.mark.parametrize("game", ["goblink", "classic"])
def test_self_play_a_policy_in_every_other_seat(game: str) -> None:
    recorders = [Recorder(seat=s, seed=s) for s in (0, 2)]
    env = _env(game, recorders, players=3, seat=1)
    for r in recorders:
        r.env = env
    _play(env, seed=3)
    for r in recorders:
        r.check_played()


def _fresh_policy(game: str, path: Path) -> Path:
    env = _env(game, BOT[game])
    torch.manual_seed(0)
    policy = MaskedPolicy(env.codec.size, env.codec.actions, hidden=16)
    info = PolicyInfo(
        game=game,
        obs_size=env.codec.size,
        actions=env.codec.actions,
        hidden=16,
        train_bot=BOT[game],
        env_options={},
        hyperparameters={},
        steps=0,
        updates=0,
        seed=0,
        seconds=0.0,
    )
    save_policy(path, policy, info)
    return path


def _trained_policy(game: str, path: Path) -> Path:
    config = PPOConfig(envs=1, rollout=16, epochs=1, minibatch=16, hidden=16)
    result = train(get_setup(game), steps=16, seed=0, config=config)
    save_policy(path, result.policy, result.info)
    return path


@pytest.mark.parametrize("game", ["goblink", "classic"])
@pytest.mark.parametrize("make", [_trained_policy, _fresh_policy])
def test_a_saved_policy_loads_and_plays_its_greedy_actions(
    game: str, make: Any, tmp_path: Path
) -> None:
    path = make(game, tmp_path / f"policy-{game}.pt")
    policy, _ = load_policy(path)
    by_path = _play(_env(game, path), seed=5)
    by_name = _play(_env(game, str(path)), seed=5)
    by_object = _play(_env(game, policy), seed=5)
    by_callable = _play(_env(game, greedy_chooser(policy)), seed=5)
    assert by_path == by_name == by_object == by_callable
    # ... and it is not the bot's game.
    assert _play(_env(game, BOT[game]), seed=5) != by_path


@pytest.mark.parametrize("game", ["goblink", "classic"])
def test_bad_opponents_are_refused_with_one_sentence(game: str, tmp_path: Path) -> None:
    saved = _fresh_policy(game, tmp_path / "p.pt")
    other = _fresh_policy("classic" if game == "goblink" else "goblink", tmp_path / "o.pt")
    cases = [
        (42, "42"),
        ([BOT[game], 42], "opponent 2 of 2"),
        ([BOT[game]], "1 opponents given for 2 opponent seats"),
        ("nobody", "nobody"),
        (tmp_path / "missing.pt", "missing.pt"),
        (str(other), "trained for"),
        (MaskedPolicy(3, 4), "reads 3 numbers"),
    ]
    for opponents, words in cases:
        with pytest.raises(ValueError, match=words) as caught:
            _env(game, opponents, players=3)
        assert "\n" not in str(caught.value)
    with pytest.raises(ValueError, match="1 of 2") as caught:
        _env(game, [saved, BOT[game]], players=3)  # saved for two players
    assert "numbers" in str(caught.value)
    env = _env(game, lambda obs: 10_000)
    with pytest.raises(ValueError, match="opponent policy in seat 1 answered 10000"):
        _play(env, seed=1)


def test_with_factored_actions_a_policy_answers_the_parts_and_a_saved_one_is_refused(
    tmp_path: Path,
) -> None:
    seen: list[tuple[int, Any]] = []

    def factored_policy(obs: Observation) -> Any:
        env = holder[0]
        assert len(obs["action_mask"]) == env.factored.mask_size  # the parts' masks
        legal = env.game.legal_actions(env.state_, 1)
        seen.append((len(env.game.history(env.state_)), legal[-1]))
        return env.factored.encode(legal[-1])

    holder: list[Any] = []
    env = GoBlinkSingle(opponents=factored_policy, actions="factored")
    holder.append(env)
    _play_factored(env)
    history = env.game.history(env.state_)
    assert len(seen) >= 3
    assert all(history[at][0] == move for at, move in seen)
    saved = _fresh_policy("goblink", tmp_path / "p.pt")
    with pytest.raises(ValueError, match="flat actions"):
        GoBlinkSingle(opponents=saved, actions="factored")


def _play_factored(env: GoBlinkSingle) -> None:
    assert env.factored is not None
    env.reset(seed=2)
    for _ in range(3_000):
        legal = env.game.legal_actions(env.state_, env.seat)
        _obs, _reward, over, cut, info = env.step(env.factored.encode(legal[0]))
        assert "refused" not in info
        if over or cut:
            return
    raise AssertionError("the episode did not end")
