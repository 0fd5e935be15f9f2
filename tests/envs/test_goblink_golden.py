"""Go Blink's environments give, seed for seed, exactly what they gave before they were sped up.

Each case plays seeded episodes with a seeded random agent (mostly legal actions from the mask,
now and then any index of the space or one outside it, so refusals are covered too) and hashes
everything the agents receive at every step: the agent selected, its observation and mask
(their bytes), its reward and cumulative reward, every agent's terminations, truncations and
infos. The digests were recorded with the environment as it was before the speed work
(commit 87e6536); a change in any observation, mask, reward or info changes them. The
single-seat digests were re-recorded once on purpose: a terminal observation's mask has
action 0 (a no-op) since, for vector auto-reset (checked: the old digests are the new episodes
with that one number of the terminal masks cleared).

The engine's own answers are pinned the same way (the legal actions in their order, the events
of every action), for random games and for the Gymnasium environment's bots, which read the
engine's legal actions and matches: speeding the engine up must not reorder them.

To re-record after an intended change of behaviour: ``python tests/envs/test_goblink_golden.py``
prints the digests.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the envs extra: pip install -e '.[envs]'")

from blink.envs import goblink_v0
from blink.games.goblink.engine import GoGame
from blink.games.goblink.envs.single import GoBlinkSingle

AEC_CASES: dict[str, tuple[dict[str, Any], int, int]] = {
    # name: (options, seed, agent-steps)
    "2p": ({"players": 2}, 1, 700),
    "3p": ({"players": 3}, 2, 700),
    "4p": ({"players": 4}, 3, 700),
    "6p": ({"players": 6}, 4, 700),
    "4p-dealer-window": ({"players": 4, "dealer": 2, "ask_window": 3}, 5, 500),
    "3p-turn-limit": ({"players": 3, "turn_limit": 12}, 6, 500),
    "2p-truncated": ({"players": 2, "max_cycles": 25}, 7, 400),
}


def _hash_aec(options: dict[str, Any], seed: int, steps: int) -> str:
    """Random agents in ``goblink_v0.env(**options)`` for ``steps`` agent-steps: the digest."""
    env = goblink_v0.env(**options)
    rng = random.Random(seed * 7919)
    h = hashlib.sha256()
    env.reset(seed=seed)
    done = 0
    while done < steps:
        for agent in env.agent_iter(steps - done):
            obs, reward, terminated, truncated, info = env.last()
            assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
            h.update(agent.encode())
            h.update(obs["observation"].tobytes())
            h.update(obs["action_mask"].tobytes())
            h.update(repr((reward, env.rewards, terminated, truncated, info)).encode())
            h.update(repr((env.terminations, env.truncations, env.infos)).encode())
            if terminated or truncated:
                action = None
            else:
                r = rng.random()
                if r < 0.03:
                    action = rng.randrange(env.codec.actions)  # most likely refused
                elif r < 0.04:
                    action = env.codec.actions + rng.randrange(3)  # outside the space
                else:
                    legal = np.flatnonzero(obs["action_mask"]).tolist()
                    action = legal[rng.randrange(len(legal))]
            env.step(action)
            done += 1
        h.update(b"reset")
        env.reset()
    return h.hexdigest()


def _hash_engine(players: int, seed: int, games: int) -> str:
    """Random legal games of the engine: every legal-action list in order, every event."""
    rng = random.Random(seed)
    h = hashlib.sha256()
    for _ in range(games):
        game = GoGame.new(players, rng.getrandbits(63), dealer=rng.randrange(players))
        while not game.over:
            seat = game.current
            assert seat is not None
            h.update(repr(game.view(seat)).encode())
            legal = game.legal_actions()
            h.update(repr(legal).encode())
            events = repr(game.apply(legal[rng.randrange(len(legal))]))
            # The digests were taken when every game's end reasons were one enum, Termination.
            h.update(events.replace("<GoEnd.", "<Termination.").encode())
    return h.hexdigest()


def _hash_single(opponents: str, players: int, seed: int, steps: int) -> str:
    """A random agent against ``opponents`` in ``blink/GoBlink-v0``: every step's results."""
    env = GoBlinkSingle(players=players, opponents=opponents)
    rng = random.Random(seed)
    h = hashlib.sha256()
    obs, _ = env.reset(seed=seed)
    for _ in range(steps):
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        obs, reward, terminated, truncated, info = env.step(legal[rng.randrange(len(legal))])
        h.update(obs["observation"].tobytes())
        h.update(obs["action_mask"].tobytes())
        h.update(repr((reward, terminated, truncated, info)).encode())
        if terminated or truncated:
            obs, _ = env.reset()
    return h.hexdigest()


AEC_DIGESTS = {
    "2p": "5d779983d967ed2ad8a3e3d2569b01545ee04c26f3bb4718ff3068fea29d960e",
    "3p": "8760d3a7058e0a951e133bdbbced512b68b8b401462c97a61960a86ab14322fc",
    "4p": "eea692b410bebff72353e520b053d9e1e568a0f0d28cfde9710508f155ed35c4",
    "6p": "e71f745b8f456a33906ff146a88f42eb5ef0fcb3de6b92244ae6435eca15002f",
    "4p-dealer-window": "44463ac5ca129bccaae83f6b5ce3e8ea4a8119b63c970b005f0ae9835c52d14b",
    "3p-turn-limit": "960ed0127432aeecd7348dda24815d3688720520be15f923ac2443da8fbb3ee4",
    "2p-truncated": "5ad7495267000bb0e6de97723eee9b4cb6d1209be83ecc14a6553aa9474d6a75",
}

ENGINE_CASES: dict[int, tuple[int, int]] = {2: (11, 30), 4: (12, 20), 6: (13, 12)}
ENGINE_DIGESTS = {
    2: "9dec6588cee67a3878f621671a41a74ab2d319128981a6a27b9cc98bb44cdab5",
    4: "3678704bca6bfc61ec39b8c97c8ff0182182c96e12a53c6f29489b658d8435dc",
    6: "3a39db32ee2b5de45964039eb72b63b128d40e484d7301da82fb1fa203f92484",
}

SINGLE_CASES: dict[str, tuple[str, int, int, int]] = {
    "greedy-3p": ("greedy", 3, 21, 300),
    "memory-2p": ("memory", 2, 22, 300),
}
SINGLE_DIGESTS = {
    "greedy-3p": "05fad81eb0f4aceb59363f8c21abb168e94215cfb4446c296edc2d8f223a533b",
    "memory-2p": "a78348606291e51f72f90719429bb49a5c7a44e0a86203c88e56c6da4e5a950b",
}


@pytest.mark.parametrize("name", list(AEC_CASES))
def test_aec_episodes_are_unchanged(name: str) -> None:
    options, seed, steps = AEC_CASES[name]
    assert _hash_aec(options, seed, steps) == AEC_DIGESTS[name]


@pytest.mark.parametrize("players", list(ENGINE_CASES))
def test_engine_games_are_unchanged(players: int) -> None:
    seed, games = ENGINE_CASES[players]
    assert _hash_engine(players, seed, games) == ENGINE_DIGESTS[players]


@pytest.mark.parametrize("name", list(SINGLE_CASES))
def test_single_seat_episodes_are_unchanged(name: str) -> None:
    assert _hash_single(*SINGLE_CASES[name]) == SINGLE_DIGESTS[name]


if __name__ == "__main__":
    print("AEC_DIGESTS = {")
    for key, (opts, s, n) in AEC_CASES.items():
        print(f'    "{key}": "{_hash_aec(opts, s, n)}",')
    print("}")
    print("ENGINE_DIGESTS = {")
    for p, (s, n) in ENGINE_CASES.items():
        print(f'    {p}: "{_hash_engine(p, s, n)}",')
    print("}")
    print("SINGLE_DIGESTS = {")
    for key, args in SINGLE_CASES.items():
        print(f'    "{key}": "{_hash_single(*args)}",')
    print("}")
