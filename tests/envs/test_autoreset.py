"""The single-seat environments under Gymnasium's vector auto-reset: no observation, the
terminal ones included, has a mask without a legal action (a masked policy must act on it)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="the envs extra: pip install -e '.[envs]'")

from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402

import blink.envs  # noqa: E402,F401 - registers the ids


def _make(env_id: str, **kwargs: Any) -> Any:
    return lambda: gymnasium.make(env_id, **kwargs)


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("blink/GoBlink-v0", {"opponents": "random", "turn_limit": 20}),
        ("blink/Classic-v0", {"step_seconds": 1.0}),
    ],
)
@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_no_mask_is_all_zeros_under_auto_reset(
    env_id: str, kwargs: dict[str, Any], mode: AutoresetMode
) -> None:
    envs = SyncVectorEnv([_make(env_id, **kwargs)] * 3, autoreset_mode=mode)
    rng = np.random.default_rng(0)
    obs, _ = envs.reset(seed=1)
    ended = 0
    for _ in range(400):
        masks = obs["action_mask"]
        assert masks.any(axis=1).all(), "a mask with no legal action"
        actions = [int(rng.choice(np.flatnonzero(m))) for m in masks]
        obs, _, terminated, truncated, infos = envs.step(np.array(actions))
        done = terminated | truncated
        ended += int(done.sum())
        if mode is AutoresetMode.SAME_STEP and done.any():
            for i in np.flatnonzero(done):
                assert infos["final_obs"][i]["action_mask"].any(), "a terminal mask is all zeros"
    assert ended >= 2
    envs.close()
