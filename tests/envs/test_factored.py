"""Go Blink's factored action space (``actions="factored"``): one canonical encoding for every
legal action and back, masks per part that allow exactly the legal actions, the projection of
a lay, refusals, and Gymnasium's checker."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

gymnasium = pytest.importorskip("gymnasium", reason="the envs extra: pip install -e '.[envs]'")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import blink.envs  # noqa: E402,F401 - registers the ids
from blink.cards import Card  # noqa: E402
from blink.games.goblink.actions import Ask, EndTurn, GoAction, LayDown  # noqa: E402
from blink.games.goblink.envs.codec import codec  # noqa: E402
from blink.games.goblink.envs.factored import (  # noqa: E402
    KIND_ASK,
    KIND_END,
    KIND_LAY,
    FactoredActions,
)
from blink.model.registry import get_game  # noqa: E402

GAME = get_game("goblink")
READS = {EndTurn: (0,), Ask: (0, 1, 2), LayDown: (0, 2, *range(3, 63))}


def _position(players: int, seed: int, moves: int) -> tuple[Any, int, list[GoAction]]:
    """A game of ``players`` after up to ``moves`` random legal actions: the state, the seat
    to act and its legal actions."""
    rng = random.Random(seed)
    state = GAME.new(players, seed, options={"dealer": seed % players, "turn_limit": 200})
    for _ in range(moves):
        if state.over:
            break
        seat = state.current
        GAME.apply(state, rng.choice(GAME.legal_actions(state, seat)))
    seat = 0 if state.over else state.current
    return state, seat, list(GAME.legal_actions(state, seat))


def _parts(fa: FactoredActions, mask: np.ndarray) -> list[set[int]]:
    """The allowed entries of each part of a concatenated mask."""
    return [
        set(np.flatnonzero(mask[o : o + n]).tolist())
        for o, n in zip(fa.offsets, fa.nvec, strict=True)
    ]


positions = st.tuples(st.integers(2, 6), st.integers(0, 10**6), st.integers(0, 120))


@settings(max_examples=120, deadline=None)
@given(positions)
def test_every_legal_action_has_one_encoding_and_back(case: Any) -> None:
    players, seed, moves = case
    _state, seat, legal = _position(players, seed, moves)
    fa = FactoredActions(codec(players))
    c = fa.codec
    encodings = [tuple(fa.encode(a).tolist()) for a in legal]
    assert len(set(encodings)) == len(legal)  # one encoding each, none shared
    for action, enc in zip(legal, encodings, strict=True):
        assert fa.space().contains(np.array(enc))
        back = fa.decode(enc, seat, legal)
        assert back == action
        flat = c.index(action)
        assert fa.to_flat(enc, seat, legal) == flat
        assert tuple(fa.from_flat(flat, seat).tolist()) == enc
        assert all(enc[j] == 0 for j in range(len(enc)) if j not in READS[type(action)])


@settings(max_examples=120, deadline=None)
@given(positions)
def test_masks_per_part_allow_exactly_the_legal_actions(case: Any) -> None:
    players, seed, moves = case
    rnd = random.Random(seed)
    _state, seat, legal = _position(players, seed, moves)
    fa = FactoredActions(codec(players))
    parts = _parts(fa, fa.masks(legal))
    # Each part: the entries of the canonical encodings of the legal actions reading it,
    # or only 0 when none reads it.
    for j in range(len(fa.nvec)):
        expected = {int(fa.encode(a)[j]) for a in legal if j in READS[type(a)]}
        assert parts[j] == (expected or {0}), j
    # Every vector the masks allow decodes to a legal action ...
    legal_flat = {fa.codec.index(a) for a in legal}
    reached = set()
    for _ in range(40):
        vector = [rnd.choice(sorted(p)) for p in parts]
        action = fa.decode(vector, seat, legal)
        if legal:
            assert fa.codec.index(action) in legal_flat
            reached.add(fa.codec.index(action))
        else:
            assert vector[0] == KIND_END
    # ... and every legal action is reached by one: its canonical encoding in the parts its
    # kind reads (allowed), anything allowed in the others (ignored).
    for a in legal:
        enc = fa.encode(a)
        vector = [
            int(enc[j]) if j in READS[type(a)] else rnd.choice(sorted(parts[j]))
            for j in range(len(enc))
        ]
        assert all(vector[j] in parts[j] for j in range(len(enc)))
        assert fa.decode(vector, seat, legal) == a
    assert reached <= legal_flat


def _laying_position() -> tuple[Any, int, list[GoAction]]:
    for seed in range(500):
        state, seat, legal = _position(2, seed, 40)
        lays = [a for a in legal if isinstance(a, LayDown)]
        if any(len(a.cards) == 4 for a in lays):
            return state, seat, legal
    raise AssertionError("no position with a match of four")


def test_a_lay_outside_the_legal_matches_goes_to_the_nearest() -> None:
    _state, seat, legal = _laying_position()
    fa = FactoredActions(codec(2))
    four = next(a for a in legal if isinstance(a, LayDown) and len(a.cards) == 4)
    enc = fa.encode(four)
    # Two of the four cards chosen: the nearest legal match adds one, the first in flat order.
    two = enc.copy()
    for card in four.cards[2:]:
        two[3 + _deck_index(card)] = 0
    lay = fa.decode(two, seat, legal)
    assert isinstance(lay, LayDown) and len(lay.cards) == 3
    assert set(four.cards[:2]) <= set(lay.cards) <= set(four.cards)
    candidates = [
        a
        for a in legal
        if isinstance(a, LayDown) and len(a.cards) == 3 and set(four.cards[:2]) <= set(a.cards)
    ]
    assert lay == min(candidates, key=fa.codec.index)
    # A card of another value chosen too is ignored.
    other = next(i for i in range(60) if enc[3 + i] == 0)
    extra = enc.copy()
    extra[3 + other] = 1
    assert fa.decode(extra, seat, legal) == four


def _deck_index(card: Card) -> int:
    from blink.envs.encoding import DECK_INDEX

    return DECK_INDEX[card]


def _masked_sample(env: Any, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    fa = env.factored
    return np.array(
        [
            rng.choice(np.flatnonzero(mask[o : o + n]))
            for o, n in zip(fa.offsets, fa.nvec, strict=True)
        ]
    )


@pytest.mark.parametrize("players", [2, 4])
def test_masked_play_is_never_refused_and_ends(players: int) -> None:
    env = gymnasium.make("blink/GoBlink-v0", players=players, actions="factored").unwrapped
    assert isinstance(env.action_space, gymnasium.spaces.MultiDiscrete)
    assert env.action_space.nvec.tolist() == [3, players - 1, 17] + [2] * 60
    rng = np.random.default_rng(players)
    kinds = set()
    for episode in range(6):
        obs, _ = env.reset(seed=episode)
        while True:
            assert obs["action_mask"].tolist() == env.action_masks().astype(int).tolist()
            action = _masked_sample(env, obs["action_mask"], rng)
            kinds.add(int(action[0]))
            obs, _r, terminated, truncated, info = env.step(action)
            assert "refused" not in info
            if terminated or truncated:
                break
        assert terminated
        # The terminal mask allows only "end" (and entry 0 of every other part); it is refused.
        parts = _parts(env.factored, obs["action_mask"])
        assert parts == [{KIND_END}] + [{0}] * (len(parts) - 1)
        _obs, _r, _t, _tr, info = env.step(np.zeros(63, dtype=np.int64))
        assert info["refused"]["code"] == "game_over"
    assert kinds == {KIND_END, KIND_ASK, KIND_LAY}


def test_vectors_outside_the_masks_are_refused_as_flat_actions_are() -> None:
    env = gymnasium.make("blink/GoBlink-v0", actions="factored").unwrapped
    obs, _ = env.reset(seed=3)
    parts = _parts(env.factored, obs["action_mask"])
    before = obs["observation"].tobytes()
    wrong_kind = next(k for k in range(3) if k not in parts[0])
    vector = np.zeros(63, dtype=np.int64)
    vector[0] = wrong_kind
    obs, _r, _t, _tr, info = env.step(vector)
    assert info["refused"]["code"] not in ("", "not_an_action")
    assert obs["observation"].tobytes() == before  # nothing changed
    _obs, _r, _t, _tr, info = env.step(np.full(63, 5, dtype=np.int64))
    assert info["refused"]["code"] == "not_an_action"
    with pytest.raises(ValueError, match="flat"):
        gymnasium.make("blink/GoBlink-v0", actions="tree")


@pytest.mark.parametrize(
    "kwargs", [{}, {"players": 4, "opponents": ["random", "greedy", "memory"]}]
)
def test_check_env_factored(kwargs: dict[str, Any]) -> None:
    env = gymnasium.make("blink/GoBlink-v0", render_mode="ansi", actions="factored", **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker's warnings are failures here
        check_env(env.unwrapped)
