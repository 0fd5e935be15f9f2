"""The classic vector environment (compiled kernels) against the rules engine and the codec.

Parity: every sub-environment's episodes are replayed through the engine of record
(:class:`~blink.games.classic.engine.ClassicGame`, from the deal and the actions the kernel
logged, the learner's included), and at every step the vector environment's observation, mask,
reward, termination, truncation and refusal must equal what the single-seat environment
computes from that game (the codec's encoding of the seat's view, the definition's legal
actions, the rewards of its outcome, the inactivity rule's end), over many episodes, with
learners that play at random, that try illegal actions and that never act."""

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
from blink.games.classic.engine import Choose, ClassicGame, Flip, Play  # noqa: E402
from blink.games.classic.envs.codec import ClassicCodec  # noqa: E402
from blink.games.classic.envs.vector import ClassicVector  # noqa: E402
from blink.model.registry import get_game  # noqa: E402

GAME = get_game("classic")


class Replay:
    """One sub-environment's episode, replayed through the engine."""

    def __init__(self, env: ClassicVector, index: int, codec: ClassicCodec) -> None:
        self.env, self.index, self.codec = env, index, codec
        deal, _ = env.episode(index)
        deck = [STANDARD_DECK[j] for j in deal]
        self.game = ClassicGame(deck, env.players, env.ruleset, [int(n) for n in env.sizes])
        self.game.reveal(0)
        self.seen = 0
        self.encoder = codec.encoder(env.seat)

    def follow(self, idle: bool) -> None:
        """Apply the actions the kernel logged since the last call (and the idle end)."""
        _, log = self.env.episode(self.index)
        for kind, seat, card, pile, ms in log[self.seen :]:
            action: Any
            if kind == 0:
                action = Play(seat, STANDARD_DECK[card], pile)
            elif kind == 1:
                action = Flip()
            else:
                action = Choose(seat, STANDARD_DECK[card])
            self.game.apply(action, ms)
        self.seen = len(log)
        if idle:
            assert not self.game.over
            self.game.end_by_fewest_cards()

    def expected(self) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """The single-seat environment's observation and mask of the replayed game."""
        seat = self.env.seat
        view = GAME.view(self.game, seat)
        mask = self.codec.mask(GAME.legal_actions(self.game, seat), view)
        return self.encoder.observe(view), mask


def _policy(kind: str, mask: np.ndarray[Any, Any], rng: np.random.Generator) -> int:
    if kind == "idle":
        return 0
    if kind == "any" and rng.random() < 0.3:
        return int(rng.integers(mask.size))
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize(
    ("kwargs", "steps"),
    [
        ({}, 2500),
        ({"players": 3, "seat": 1, "bots": ["champion:blocker", "beginner:random"]}, 2000),
        ({"handicap": [14, 12], "bots": "skilled:flexible", "step_seconds": 0.5}, 1500),
        ({"ruleset": "dead-end", "handicap": [16, 16], "bots": "expert:random"}, 1500),
    ],
)
def test_every_step_equals_the_single_environment_on_the_engine(
    kwargs: dict[str, Any], steps: int
) -> None:
    policies = ["random", "any", "idle", "random", "any", "random"]
    env = ClassicVector(len(policies), **kwargs)
    reach = [GAME.reach(env.players, s) for s in range(env.players)]
    codec = ClassicCodec(env.players, env.ruleset.hand_size, reach)
    rng = np.random.default_rng(7)
    obs, _ = env.reset(seed=11)
    replays = [Replay(env, i, codec) for i in range(env.num_envs)]
    done = np.zeros(env.num_envs, dtype=bool)
    episodes = 0
    outcomes: set[str] = set()
    phases = np.zeros(5, dtype=bool)  # dealt, playing, stalled, choosing, over
    for _ in range(steps):
        actions = [_policy(p, m, rng) for p, m in zip(policies, obs["action_mask"], strict=True)]
        before = [r.expected()[1] for r in replays]
        obs, rewards, terminated, truncated, infos = env.step(actions)
        for i, r in enumerate(replays):
            if done[i]:  # the next-step auto-reset: a new episode, nothing else
                replays[i] = r = Replay(env, i, codec)
                assert rewards[i] == 0.0 and not terminated[i] and not truncated[i]
                episodes += 1
            else:
                legal = actions[i] == 0 or bool(before[i][actions[i]])
                assert bool(infos["refused"][i]) == (not legal)
                r.follow(bool(infos["idle"][i]))
                assert bool(terminated[i]) == r.game.over
                if r.game.over:
                    assert r.game.outcome is not None
                    outcomes.add(r.game.outcome.reason.value)
                    assert rewards[i] == rewards_of(r.game.outcome, env.players)[env.seat]
                else:
                    assert rewards[i] == 0.0
            observation, mask = r.expected()
            np.testing.assert_array_equal(obs["observation"][i], observation)
            np.testing.assert_array_equal(obs["action_mask"][i], mask)
            assert obs["action_mask"][i].any()
        done = terminated | truncated
        phases |= obs["observation"][:, codec._phase : codec._phase + 5].any(axis=0) > 0
    assert episodes >= 6
    # the races, the flips' stalls, the choosing stalls, the ends (the dead-end ruleset: races
    # and ends are enough)
    seen = [1, 4] if kwargs.get("ruleset") == "dead-end" else [1, 2, 3, 4]
    assert phases[seen].all()
    if not kwargs:  # the learner that never acts against one bot: the inactivity rule
        assert "fewest_cards" in outcomes


def test_seeds_give_the_same_episodes_and_reset_continues_them() -> None:
    def run(seed: Any) -> list[bytes]:
        env = ClassicVector(3, bots="expert:blocker")
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(3)
        out = [obs["observation"].tobytes()]
        for _ in range(400):
            actions = [int(rng.choice(np.flatnonzero(m))) for m in obs["action_mask"]]
            obs, rewards, *_ = env.step(actions)
            out += [obs["observation"].tobytes(), rewards.tobytes()]
        return out

    assert run(5) == run([5, 6, 7])
    assert run(5) != run(6)
    env = ClassicVector(2)
    first, _ = env.reset(seed=[1, 2])
    second, _ = env.reset()
    again, _ = env.reset(seed=[1, 2])
    assert first["observation"].tobytes() == again["observation"].tobytes()
    assert first["observation"].tobytes() != second["observation"].tobytes()


def test_make_vec_builds_it_and_its_spaces_hold_its_data() -> None:
    env = gymnasium.make_vec(
        "blink/Classic-v0", num_envs=4, vectorization_mode="vector_entry_point"
    )
    assert isinstance(env.unwrapped, ClassicVector)
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    single = gymnasium.make("blink/Classic-v0")
    assert env.single_observation_space == single.observation_space
    assert env.single_action_space == single.action_space
    obs, infos = env.reset(seed=0)
    assert obs in env.observation_space
    for _ in range(200):
        actions = [int(np.flatnonzero(m)[-1]) for m in obs["action_mask"]]
        obs, rewards, terminated, truncated, infos = env.step(np.array(actions))
        assert obs in env.observation_space
        assert np.array_equal(infos["action_mask"], obs["action_mask"])
        assert rewards.shape == terminated.shape == truncated.shape == (4,)
    env.close()


def test_returned_arrays_are_never_reused_and_a_pickled_copy_continues_identically() -> None:
    env = ClassicVector(8, players=3, bots="champion:flexible")
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(2)

    def run(e: ClassicVector, o: Any, r: np.random.Generator, steps: int) -> list[bytes]:
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

    run(env, obs, rng, 150)
    obs = env._out()
    copy = pickle.loads(pickle.dumps(env))
    state = rng.bit_generator.state
    ahead = run(env, obs, rng, 600)
    rng.bit_generator.state = state
    assert run(copy, copy._out(), rng, 600) == ahead


def test_gymnasiums_vector_wrappers_count_its_episodes() -> None:
    env = gymnasium.wrappers.vector.RecordEpisodeStatistics(
        gymnasium.make_vec("blink/Classic-v0", num_envs=4, vectorization_mode="vector_entry_point")
    )
    env.reset(seed=1)
    finished = 0
    for _ in range(1500):
        *_, infos = env.step(np.zeros(4, dtype=np.int64))  # never acting
        if "episode" in infos:
            ended = infos["_episode"]
            finished += int(ended.sum())
            assert set(infos["episode"]["r"][ended].tolist()) <= {-1.0, 0.0, 1.0}
            assert (infos["episode"]["l"][ended] > 1).all()
    assert finished >= 4  # the inactivity rule or the bots end every game


@pytest.mark.parametrize(
    "kwargs",
    [{"num_envs": 0}, {"bots": "expert:memory"}, {"seat": 2}, {"step_seconds": 0}],
)
def test_bad_options_are_refused_with_a_sentence(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"\w"):
        ClassicVector(**kwargs)


def test_the_kernels_name_the_file_compiled_into_them() -> None:
    """numba's cache checks only a function's own file (as tests/sim/test_fast.py checks)."""
    import hashlib
    from pathlib import Path

    from blink.games.classic.sim import fast_bots, fast_vector

    text = Path(str(fast_bots.__file__)).read_bytes()
    assert hashlib.sha256(text).hexdigest()[:16] == fast_vector.BOTS_DIGEST


class Checked:
    """An opponent policy playing at random among its legal actions, which checks each batch
    it is given against the replayed games waiting on its seat (the single environment's
    encoding of its seat's view, its legal actions) and, after the step, that the kernels
    logged its answers at the step's start."""

    def __init__(self, seat: int, seed: int) -> None:
        self.seat, self.rng = seat, np.random.default_rng(seed)
        self.env: ClassicVector | None = None
        self.replays: list[Replay] = []
        self.rows = self.plays = 0
        self.answered: list[tuple[int, int, int]] = []

    def __call__(self, obs: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> Any:
        env = self.env
        assert env is not None
        games = np.flatnonzero(env._waiting() == self.seat)
        assert len(games) == len(obs) == len(mask) > 0
        codec = env.codec
        answers = []
        for row, gi in enumerate(games.tolist()):
            replay = self.replays[gi]
            replay.follow(False)
            assert not replay.game.over
            view = GAME.view(replay.game, self.seat)
            expected = codec.encoder(self.seat).observe(view)
            np.testing.assert_array_equal(obs[row], expected)
            legal = codec.mask(GAME.legal_actions(replay.game, self.seat), view)
            np.testing.assert_array_equal(mask[row], legal)
            self.rows += 1
            answer = int(self.rng.choice(np.flatnonzero(mask[row])))
            answers.append(answer)
            if answer:
                self.answered.append((gi, len(env.episode(gi)[1]), answer))
        return answers

    def check_played(self) -> None:
        """Each non-waiting answer is the next logged action, by this seat, at a step's start."""
        env = self.env
        assert env is not None
        for gi, at, _ in self.answered:
            kind, seat, *_, ms = env.episode(gi)[1][at]
            assert seat == self.seat and kind in (0, 2)
            assert ms % round(env.step_seconds * 1000) == 0
            self.plays += 1
        self.answered.clear()


@pytest.mark.parametrize(
    ("kwargs", "policy_seats"),
    [
        ({"players": 2, "seat": 0}, [1]),
        ({"players": 3, "seat": 1, "step_seconds": 0.5}, [0]),
        ({"players": 3, "seat": 2, "step_seconds": 0.5}, [0, 1]),
    ],
)
def test_opponent_policies_act_as_in_the_single_environment_on_the_engine(
    kwargs: dict[str, Any], policy_seats: list[int]
) -> None:
    """A policy acts once a step at its start, after the learner, in seat order, from its own
    seat's view; the bots race around it; every step equals the replayed engine's."""
    players, seat = kwargs["players"], kwargs["seat"]
    policies = {s: Checked(s, 10 + s) for s in policy_seats}
    others = [s for s in range(players) if s != seat]
    bots = [policies.get(s) or "expert:first" for s in others]
    options = {k: v for k, v in kwargs.items() if k not in ("players", "seat")}
    env = ClassicVector(4, players, seat, bots, **options)
    codec = env.codec
    rng = np.random.default_rng(1)
    obs, _ = env.reset(seed=3)
    replays = [Replay(env, i, codec) for i in range(env.num_envs)]
    for p in policies.values():
        p.env, p.replays = env, replays
    done = np.zeros(env.num_envs, dtype=bool)
    episodes = 0
    for _ in range(400):
        actions = [int(rng.choice(np.flatnonzero(m))) for m in obs["action_mask"]]
        obs, rewards, terminated, truncated, infos = env.step(actions)
        for i in range(env.num_envs):
            if done[i]:
                replays[i] = Replay(env, i, codec)
                episodes += 1
            r = replays[i]
            r.follow(bool(infos["idle"][i]))
            assert not infos["refused"][i]
            assert bool(terminated[i]) == r.game.over
            if r.game.over:
                assert r.game.outcome is not None
                assert rewards[i] == rewards_of(r.game.outcome, env.players)[env.seat]
            observation, mask = r.expected()
            np.testing.assert_array_equal(obs["observation"][i], observation)
            np.testing.assert_array_equal(obs["action_mask"][i], mask)
        for p in policies.values():
            p.check_played()
        done = terminated | truncated
    assert episodes >= 4
    assert all(p.rows > 200 and p.plays > 20 for p in policies.values())


def test_an_illegal_answer_names_the_seat_and_a_bad_opponent_gets_the_single_sentence() -> None:
    from blink.games.classic.envs.single import ClassicSingle

    def wrong(obs: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> list[int]:
        return [mask.shape[1] + 5] * len(mask)

    env = ClassicVector(2, players=3, bots=["expert:first", wrong])
    env.reset(seed=1)
    with pytest.raises(ValueError, match=r"seat 2 answered \d+, not a legal action"):
        env.step([0, 0])
    bad = ["expert:first", "novice:random"]
    with pytest.raises(ValueError) as vector:
        ClassicVector(players=3, bots=bad)
    with pytest.raises(ValueError) as single:
        ClassicSingle(players=3, bots=bad)
    assert str(vector.value) == str(single.value)


def test_self_play_every_seat_the_same_policy() -> None:
    rng = np.random.default_rng(3)

    def policy(obs: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> list[int]:
        return [int(rng.choice(np.flatnonzero(m))) for m in mask]

    env = ClassicVector(6, players=3, bots=policy, step_seconds=0.5)
    obs, _ = env.reset(seed=0)
    ended = 0
    for _ in range(400):
        obs, _, terminated, _, infos = env.step(policy(obs["observation"], obs["action_mask"]))
        ended += int(terminated.sum())
        assert not infos["refused"].any()
    assert ended >= 6


class Dealt:
    """The classic definition, dealing the given deck (the vector environment's deal) for the
    single environment's next game: everything else is the definition's own."""

    def __init__(self, deck: list[Any]) -> None:
        self.deck = deck

    def new(self, players: int, seed: Any = None, *, options: Any = None) -> ClassicGame:
        game: ClassicGame = GAME.new(players, deck=self.deck, options=options)
        return game

    def __getattr__(self, name: str) -> Any:
        return getattr(GAME, name)


def _pick(obs: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> int:
    """A policy's answer, from its observation alone (the same whoever asks and when)."""
    legal = np.flatnonzero(mask)
    return int(legal[int(obs.sum() * 7) % legal.size])


@pytest.mark.parametrize(("players", "seat"), [(2, 0), (3, 1), (3, 2)])
def test_with_policies_only_the_episodes_are_the_single_environments(
    players: int, seat: int
) -> None:
    """No bot: every step is decided by the learner, the policies and the referee, so each
    game of the vector environment is the exact single environment's game from the same deal
    (the same observations, rewards, ends, inactivity and refusals at every step)."""
    from blink.games.classic.envs.single import ClassicSingle

    def batch(obs: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> list[int]:
        return [_pick(o, m) for o, m in zip(obs, mask, strict=True)]

    def one(o: dict[str, Any]) -> int:
        return _pick(o["observation"], o["action_mask"])

    n = 3
    env = ClassicVector(n, players, seat, batch, step_seconds=0.5)
    singles = [ClassicSingle(players, seat, one, step_seconds=0.5) for _ in range(n)]

    def deal(i: int) -> dict[str, Any]:
        singles[i].game = Dealt([STANDARD_DECK[j] for j in env.episode(i)[0]])  # type: ignore[assignment]
        return singles[i].reset(seed=i)[0]

    rng = np.random.default_rng(5)
    obs, _ = env.reset(seed=8)
    for i in range(n):
        first = deal(i)
        np.testing.assert_array_equal(obs["observation"][i], first["observation"])
    done = np.zeros(n, dtype=bool)
    episodes = plays = 0
    for _ in range(600):
        actions = [int(rng.choice(np.flatnonzero(m))) for m in obs["action_mask"]]
        obs, rewards, terminated, truncated, infos = env.step(actions)
        for i in range(n):
            info: dict[str, Any]
            if done[i]:
                expected, reward, ended, cut, info = deal(i), 0.0, False, False, {}
                episodes += 1
            else:
                expected, reward, ended, cut, info = singles[i].step(actions[i])
            np.testing.assert_array_equal(obs["observation"][i], expected["observation"])
            np.testing.assert_array_equal(obs["action_mask"][i], expected["action_mask"])
            assert (rewards[i], terminated[i], truncated[i]) == (reward, ended, cut)
            assert bool(infos["idle"][i]) == bool(info.get("idle"))
            assert bool(infos["refused"][i]) == ("refused" in info)
        plays += sum(1 for kind, s, *_ in env.episode(0)[1] if kind == 0 and s != seat)
        done = terminated | truncated
    assert episodes >= 3
    assert plays > 0


def test_a_saved_policy_plays_an_opponent_seat(tmp_path: Any) -> None:
    torch = pytest.importorskip("torch", reason="the train extra: pip install -e '.[train]'")
    from blink.train.opponent import policy_opponent
    from blink.train.policy import MaskedPolicy, PolicyInfo, save_policy

    env = ClassicVector(4)
    size, actions = env.codec.size, env.codec.actions
    torch.manual_seed(0)
    info = PolicyInfo(
        game="classic", obs_size=size, actions=actions, hidden=16, train_bot="champion:first",
        env_options={}, hyperparameters={}, steps=0, updates=0, seed=0, seconds=0.0,
    )  # fmt: skip
    path = tmp_path / "p.pt"
    save_policy(path, MaskedPolicy(size, actions, hidden=16), info)
    chooser = policy_opponent(path, "classic", size, actions)

    def rows(obs: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> list[int]:
        return [
            chooser({"observation": o, "action_mask": m}) for o, m in zip(obs, mask, strict=True)
        ]

    def run(opponent: Any) -> list[bytes]:
        vec = ClassicVector(4, bots=opponent, step_seconds=0.5)
        obs, _ = vec.reset(seed=4)
        seen = []
        for _ in range(60):
            actions = np.argmax(obs["action_mask"][:, ::-1], axis=1)
            obs, *_ = vec.step(obs["action_mask"].shape[1] - 1 - actions)
            seen.append(obs["observation"].tobytes())
        return seen

    assert run(path) == run(str(path)) == run(rows)
    assert run(path) != run("expert:first")
