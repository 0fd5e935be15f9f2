"""Policies as opponents in the vector environments on compiled kernels: a callable asked for
all the games waiting on its seat at once, or a saved ``blink train`` policy.

Parity: each sub-environment's episodes are replayed through the engine of record (as in
tests/envs/test_vector_goblink.py), and every batch an opponent policy is asked for must hold,
row by row, what the exact single-seat environment gives that policy from the replayed game
(the codec's encoding of its seat's view and its legal actions), and its answers must be the
actions the kernels logged; the learner's observations, masks and rewards after each step are
checked the same way."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the envs extra: pip install -e '.[envs]'")
pytest.importorskip("numba", reason="the fast engine needs numba")

from blink.cards import STANDARD_DECK
from blink.envs.encoding import rewards_of
from blink.games.goblink.actions import Ask, EndTurn, GoAction, LayDown
from blink.games.goblink.envs.codec import VALUES
from blink.games.goblink.envs.single import GoBlinkSingle
from blink.games.goblink.envs.vector import GoBlinkVector
from blink.model.registry import get_game

from .test_vector_goblink import Replay

GAME = get_game("goblink")


def first_legal(obs: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The lowest legal action of each row."""
    return np.asarray(mask.argmax(axis=1), dtype=np.int64)


class Replays:
    """Each game's current episode replayed through the engine (a new replay at a new deal)."""

    def __init__(self, env: GoBlinkVector) -> None:
        self.env = env
        self.games: dict[int, tuple[list[int], Replay]] = {}

    def now(self, gi: int) -> Replay:
        """Game ``gi``'s replay, followed up to its last logged action."""
        deal = self.env.episode(gi)[0]
        known = self.games.get(gi)
        if known is None or known[0] != deal:
            known = self.games[gi] = (deal, Replay(self.env, gi))
        known[1].follow()
        return known[1]


class Checked:
    """An opponent policy playing the lowest legal action, which checks each batch it is given
    against the replayed games of the games waiting on its seat."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.replays: Replays | None = None
        self.rows = 0
        self.answered: list[tuple[int, list[int], int, GoAction]] = []

    def check_played(self) -> None:
        """The actions the kernels logged are the answers given (where the episode goes on)."""
        assert self.replays is not None
        env = self.replays.env
        for gi, deal, at, action in self.answered:
            got, _, log = env.episode(gi)
            if got == deal:
                assert _action(log[at]) == action
        self.answered.clear()

    def __call__(self, obs: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> Any:
        assert self.replays is not None
        env = self.replays.env
        games = np.flatnonzero(env._waiting() == self.seat)
        assert len(games) == len(obs) == len(mask) > 0
        for row, gi in enumerate(games.tolist()):
            game = self.replays.now(gi).game
            assert game.current == self.seat and not game.over
            view = GAME.view(game, self.seat)
            np.testing.assert_array_equal(obs[row], env.codec.encoder(self.seat).observe(view))
            legal = env.codec.mask(GAME.legal_actions(game, self.seat))
            np.testing.assert_array_equal(mask[row], legal)
            self.rows += 1
        answers = first_legal(obs, mask)
        for gi, a in zip(games.tolist(), answers.tolist(), strict=True):
            deal, _, log = env.episode(gi)
            self.answered.append((gi, deal, len(log), env.codec.action(a, self.seat)))
        return answers


def _action(entry: tuple[int, int, int, int]) -> GoAction:
    """A logged action (kind, seat, ``target * 32 + value``, cards) as the engine's."""
    kind, seat, arg, cards = entry
    if kind == 0:
        return Ask(seat, arg // 32, VALUES[arg % 32])
    if kind == 1:
        return LayDown(seat, tuple(STANDARD_DECK[i] for i in range(60) if int(cards) >> i & 1))
    return EndTurn(seat)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"players": 2, "seat": 0},
        {"players": 4, "seat": 1, "bots": ["greedy", None, "memory"]},
        {"players": 3, "seat": 2, "turn_limit": 12, "max_steps": 30},
    ],
)
def test_policy_opponents_see_and_play_as_in_the_exact_environment(
    kwargs: dict[str, Any],
) -> None:
    players, seat = kwargs["players"], kwargs["seat"]
    others = [s for s in range(players) if s != seat]
    table = kwargs.get("bots") or [None] * len(others)
    policies = {s: Checked(s) for s, b in zip(others, table, strict=True) if b is None}
    opponents = [policies.get(s) or b for s, b in zip(others, table, strict=True)]
    options = {k: v for k, v in kwargs.items() if k not in ("players", "seat", "bots")}
    env = GoBlinkVector(4, players, seat, opponents, records=4096, **options)
    replays = Replays(env)
    for p in policies.values():
        p.replays = replays
    obs, _ = env.reset(seed=5)
    episodes = 0
    for _ in range(150):
        actions = first_legal(obs["observation"], obs["action_mask"])
        obs, rewards, terminated, _, _ = env.step(actions)
        for i in range(env.num_envs):
            replay = replays.now(i)
            assert bool(terminated[i]) == replay.game.over
            if replay.game.over:
                episodes += 1
                assert rewards[i] == rewards_of(replay.game.outcome, players)[seat]
            observation, mask = replay.expected()
            np.testing.assert_array_equal(obs["observation"][i], observation)
            np.testing.assert_array_equal(obs["action_mask"][i], mask)
        for p in policies.values():
            p.check_played()
    assert episodes >= 4
    assert all(p.rows > 50 for p in policies.values())


def test_the_same_policy_as_every_opponent_and_the_learner_plays_itself() -> None:
    """Self-play: the learner's own policy plays the other seats too."""
    rng = np.random.default_rng(3)

    def policy(obs: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> list[int]:
        return [int(rng.choice(np.flatnonzero(m))) for m in mask]

    env = GoBlinkVector(8, players=3, opponents=policy)
    obs, _ = env.reset(seed=0)
    ended = 0
    for _ in range(300):
        obs, _, terminated, _, infos = env.step(policy(obs["observation"], obs["action_mask"]))
        ended += int(terminated.sum())
        assert not infos["refused"].any()
    assert ended >= 8


def test_an_illegal_answer_is_a_value_error_naming_the_seat_and_the_action() -> None:
    def wrong(obs: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> list[int]:
        return [mask.shape[1] + 5] * len(mask)

    env = GoBlinkVector(2, players=3, seat=0, opponents=["greedy", wrong])
    with pytest.raises(ValueError, match=r"seat 2 answered \d+, not a legal action"):
        env.reset(seed=1)
        for _ in range(50):
            env.step(first_legal(env._obs, env._mask))

    def short(obs: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> list[int]:
        return []

    env = GoBlinkVector(2, players=2, opponents=short)
    with pytest.raises(ValueError, match=r"seat 1 answered \[\], not \d action indices"):
        env.reset(seed=1)
        for _ in range(50):
            env.step(first_legal(env._obs, env._mask))


@pytest.mark.parametrize(
    ("opponents", "message"),
    [
        (["greedy", "nobody"], r"^opponent 2 of 2 \('nobody'\): "),
        (3, r"^the opponents \(3\) are neither a bot's name, a policy nor a list of them$"),
        ([first_legal], r"^1 opponents given for 2 opponent seats$"),
        ([first_legal, 7], r"^opponent 2 of 2 \(7\) is neither a bot's name, a saved policy"),
    ],
)
def test_a_bad_opponent_is_the_single_environments_sentence(opponents: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message) as vector:
        GoBlinkVector(players=3, opponents=opponents)
    single_opponents = opponents
    if isinstance(opponents, list) and "nobody" not in opponents:
        with pytest.raises(ValueError) as single:
            GoBlinkSingle(players=3, opponents=single_opponents)
        assert str(single.value) == str(vector.value)


def test_factored_actions_ask_the_policy_for_the_parts() -> None:
    widths: list[int] = []

    def parts(obs: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        widths.append(mask.shape[1])
        env_f = env.factored
        assert env_f is not None
        offsets = [0, *np.cumsum(env_f.nvec).tolist()]
        return np.stack(
            [mask[:, a:b].argmax(axis=1) for a, b in itertools.pairwise(offsets)],
            axis=1,
        )

    env = GoBlinkVector(4, players=3, opponents=parts, actions="factored")
    assert env.factored is not None
    obs, _ = env.reset(seed=2)
    for _ in range(60):
        obs, *_ = env.step(parts(obs["observation"], obs["action_mask"]))
    assert widths and set(widths) == {env.factored.mask_size}


def test_a_saved_policy_plays_an_opponent_seat(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason="the train extra: pip install -e '.[train]'")
    from blink.train.policy import MaskedPolicy, PolicyInfo, save_policy

    env = GoBlinkVector(4, players=2)
    torch.manual_seed(0)
    policy = MaskedPolicy(env.codec.size, env.codec.actions, hidden=16)
    info = PolicyInfo(
        game="goblink",
        obs_size=env.codec.size,
        actions=env.codec.actions,
        hidden=16,
        train_bot="random",
        env_options={},
        hyperparameters={},
        steps=0,
        updates=0,
        seed=0,
        seconds=0.0,
    )
    path = tmp_path / "p.pt"
    save_policy(path, policy, info)

    def run(opponent: Any) -> list[bytes]:
        vec = GoBlinkVector(4, players=2, opponents=opponent)
        obs, _ = vec.reset(seed=4)
        seen = []
        for _ in range(40):
            obs, *_ = vec.step(first_legal(obs["observation"], obs["action_mask"]))
            seen.append(obs["observation"].tobytes())
        return seen

    from blink.train.opponent import policy_opponent

    chooser = policy_opponent(path, "goblink", env.codec.size, env.codec.actions)

    def rows(obs: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> list[int]:
        return [
            chooser({"observation": o, "action_mask": m}) for o, m in zip(obs, mask, strict=True)
        ]

    assert run(path) == run(str(path)) == run(rows)
    assert run(path) != run("random")
    with pytest.raises(ValueError, match=r"saved policy plays the flat actions"):
        GoBlinkVector(players=2, opponents=path, actions="factored")
