"""Classic Blink's ``codec_policy`` (the seat of ``blink bot play --policy``) sees each view as
the single-seat environment sees its agent's: the same observation array and legal-action mask,
and an index turned into the same action, through whole games of two and three players (choosing
stalls among them)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from blink.cli import botclient
from blink.games.classic.actions import Choose, Play
from blink.games.classic.envs.codec import WAIT
from blink.games.classic.envs.single import ClassicSingle


@pytest.mark.parametrize("players", [2, 3])
def test_the_seat_encodes_each_view_as_the_environment_does(players: int) -> None:
    env = ClassicSingle(players=players, bots="expert:first", step_seconds=0.5)
    rng = random.Random(players)
    seen: list[tuple[dict[str, Any], int]] = []
    asked: list[tuple[int, int]] = []

    def chooser(obs_size: int, actions: int) -> Any:
        asked.append((obs_size, actions))

        def choose(obs: dict[str, Any]) -> int:
            index = int(rng.choice(list(np.flatnonzero(obs["action_mask"]))))
            seen.append((obs, index))
            return index

        return choose

    # Reached as blink bot play reaches it: the default game's bot client.
    plan = botclient.game_client().codec_policy(chooser)(env.seat)
    moves = chose = 0
    for episode in range(8):
        obs, _ = env.reset(seed=episode)
        for _step in range(2000):
            view = env.game.view(env.state_, env.seat)
            move = plan(view)
            mine, index = seen[-1]
            assert np.array_equal(mine["observation"], obs["observation"])
            assert np.array_equal(mine["action_mask"], obs["action_mask"])
            assert move == (None if index == WAIT else env.codec.action(index, view))
            moves += isinstance(move, Play | Choose)
            chose += bool(obs["action_mask"][1 + 2 * env.codec.hand :].any())
            obs, _reward, over, cut, _info = env.step(index)
            if over or cut:
                break
    assert asked == [(env.codec.size, env.codec.actions)]
    assert moves > 0
    # These two-player deals reach a choosing stall (the three-player ones do not).
    assert chose > 0 or players == 3, "no choosing stall: the choices' mask went untested"
