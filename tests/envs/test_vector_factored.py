"""Go Blink's vector environment with ``actions="factored"`` against its flat actions and the
one-game factored codec: the same episodes when the canonical encoding of the flat action is
played, each game's part masks exactly :meth:`FactoredActions.masks` of its legal actions, and
every vector the masks allow decoding as :meth:`FactoredActions.to_flat` does, to a legal action."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

gymnasium = pytest.importorskip("gymnasium", reason="the envs extra: pip install -e '.[envs]'")
pytest.importorskip("numba", reason="the fast engine needs numba")

import blink.envs  # noqa: E402,F401 - registers the ids
from blink.games.goblink.envs.vector import GoBlinkVector  # noqa: E402


def _legal(env: GoBlinkVector, flat_mask: np.ndarray[Any, Any]) -> list[Any]:
    return [env.codec.action(int(a), env.seat) for a in np.flatnonzero(flat_mask)]


def _pick(mask: np.ndarray[Any, Any], rng: np.random.Generator, kind: str) -> int:
    legal = np.flatnonzero(mask)
    if kind == "lowest":
        return int(legal[0])
    if kind == "illegal" and rng.random() < 0.2:  # an end or an ask, often refused (a lay
        return int(rng.integers(1 + 17))  # outside the masks would be projected)
    return int(rng.choice(legal))


@pytest.mark.parametrize(
    ("players", "opponents", "kind"),
    [(2, "memory", "random"), (3, "greedy", "illegal"), (4, "random", "lowest")],
)
def test_playing_the_canonical_encoding_gives_the_flat_episodes(
    players: int, opponents: str, kind: str
) -> None:
    n = 6
    flat = GoBlinkVector(n, players, seat=1, opponents=opponents, max_steps=60)
    fact = gymnasium.make_vec(
        "blink/GoBlink-v0", num_envs=n, vectorization_mode="vector_entry_point",
        players=players, seat=1, opponents=opponents, max_steps=60, actions="factored",
    ).unwrapped  # fmt: skip
    assert isinstance(fact, GoBlinkVector) and fact.factored is not None
    codec = fact.factored.single
    assert fact.action_space.shape == (n, 63)
    spaces: Any = fact.observation_space
    assert spaces["action_mask"].shape == (n, codec.mask_size)
    rng = np.random.default_rng(players)
    obs_flat, _ = flat.reset(seed=21)
    obs_fact, infos = fact.reset(seed=21)
    ends = 0
    for _ in range(150):
        assert (obs_fact["observation"] == obs_flat["observation"]).all()
        assert fact.observation_space.contains(obs_fact)
        assert (infos["action_mask"] == obs_fact["action_mask"]).all()
        assert (fact.action_masks() == obs_fact["action_mask"].astype(bool)).all()
        for i in range(n):
            expected = codec.masks(_legal(flat, obs_flat["action_mask"][i]))
            assert (obs_fact["action_mask"][i] == expected).all()
        picks = [_pick(m, rng, kind) for m in obs_flat["action_mask"]]
        vectors = np.stack([codec.from_flat(a, 1) for a in picks])
        obs_flat, r1, t1, u1, i1 = flat.step(np.array(picks))
        obs_fact, r2, t2, u2, infos = fact.step(vectors)
        assert (r1 == r2).all() and (t1 == t2).all() and (u1 == u2).all()
        assert (i1["refused"] == infos["refused"]).all()
        assert (i1["outcome"] == infos["outcome"]).all()
        ends += int((t1 | u1).sum())
    assert ends > 0


_ENV = GoBlinkVector(4, 2, opponents="random")
_STATES: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]] = []


def _positions() -> list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]]:
    """Flat and factored masks of a few hundred positions of games played at random."""
    if not _STATES:
        env = _ENV
        obs, _ = env.reset(seed=3)
        rng = np.random.default_rng(3)
        for _ in range(80):
            _STATES.append((env._mask.copy(), obs["action_mask"].copy()))
            obs, *_ = env.step(np.array([_pick(m, rng, "random") for m in env._mask]))
    return _STATES


_FACT = GoBlinkVector(4, 2, opponents="random", actions="factored")


@settings(max_examples=200)
@given(st.integers(0, 79), st.lists(st.integers(0, 10**6), min_size=4 * 63, max_size=4 * 63))
def test_every_vector_the_masks_allow_decodes_to_a_legal_action(at: int, draws: list[int]) -> None:
    flat_masks, _ = _positions()[at]
    batch = _FACT.factored
    assert batch is not None
    allowed = batch.allowed(flat_masks)
    masks = batch.masks(4, allowed)
    codec = batch.single
    vectors = np.zeros((4, 63), dtype=np.int64)
    for i in range(4):
        for p in range(63):
            ok = np.flatnonzero(masks[i, codec.offsets[p] : codec.offsets[p] + codec.nvec[p]])
            vectors[i, p] = ok[draws[i * 63 + p] % ok.size]
    actions = batch.to_flat(vectors, allowed)
    for i in range(4):
        assert flat_masks[i, actions[i]] == 1
        assert actions[i] == codec.to_flat(vectors[i], 0, _legal(_ENV, flat_masks[i]))


@settings(max_examples=100)
@given(st.integers(0, 79), st.lists(st.integers(-1, 17), min_size=4 * 63, max_size=4 * 63))
def test_any_vector_decodes_as_the_one_game_codec_or_is_refused(at: int, draws: list[int]) -> None:
    flat_masks, _ = _positions()[at]
    batch = _FACT.factored
    assert batch is not None
    vectors = np.minimum(np.array(draws, dtype=np.int64).reshape(4, 63), batch.nvec)
    actions = batch.to_flat(vectors, batch.allowed(flat_masks))
    for i in range(4):
        legal = _legal(_ENV, flat_masks[i])
        try:
            expected = batch.single.to_flat(vectors[i], 0, legal)
        except (ValueError, KeyError):  # outside the space, or a lay of no match
            expected = -1
        assert actions[i] == expected


def test_a_terminal_mask_allows_only_the_end_and_each_parts_first_entry() -> None:
    env = GoBlinkVector(3, 2, opponents="random", actions="factored")
    codec = env.factored.single  # type: ignore[union-attr]
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    term = np.zeros(3, dtype=bool)
    for _ in range(400):
        vectors = [
            [
                rng.choice(np.flatnonzero(m[o : o + k]))
                for o, k in zip(codec.offsets, codec.nvec, strict=True)
            ]
            for m in obs["action_mask"]
        ]
        obs, _, term, _, infos = env.step(np.array(vectors))
        assert not infos["refused"].any()
        if term.any():
            break
    assert term.any()
    expected = np.zeros(codec.mask_size, dtype=np.int8)
    expected[codec.offsets] = 1
    for i in np.flatnonzero(term):
        assert (obs["action_mask"][i] == expected).all()


def test_a_pickled_copy_continues_identically() -> None:
    env = GoBlinkVector(3, 2, opponents="memory", actions="factored")
    codec = env.factored.single  # type: ignore[union-attr]
    obs, _ = env.reset(seed=8)

    def run(e: GoBlinkVector, o: Any, seed: int) -> list[bytes]:
        r = np.random.default_rng(seed)
        seen = []
        for _ in range(40):
            parts = [
                [
                    r.choice(np.flatnonzero(m[a : a + k]))
                    for a, k in zip(codec.offsets, codec.nvec, strict=True)
                ]
                for m in o["action_mask"]
            ]
            o, rew, *_ = e.step(np.array(parts))
            seen.append(o["observation"].tobytes() + o["action_mask"].tobytes() + rew.tobytes())
        return seen

    obs, *_ = env.step(np.zeros((3, 63), dtype=np.int64))
    copy = pickle.loads(pickle.dumps(env))
    assert (copy.action_masks() == env.action_masks()).all()
    assert run(copy, obs, 1) == run(env, obs, 1)


def test_bad_actions_option_is_refused_with_a_sentence() -> None:
    with pytest.raises(ValueError, match="actions must be 'flat' or 'factored'"):
        GoBlinkVector(1, actions="parts")
