"""A masked PPO (benchmarks/masked_ppo.py, MaskablePPO's policy and update; sb3-contrib is not
installed) trains on Go Blink's factored action space: a few hundred steps without error, every
action it draws allowed by the masks and never refused. Not timed: the speed is in
docs/performance.md (benchmarks/bench_factored_actions.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="the envs extra: pip install -e '.[envs]'")
torch = pytest.importorskip("torch", reason="the train extra: pip install -e '.[train]'")

import blink.envs  # noqa: E402,F401 - registers the ids

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _masked_ppo() -> Any:
    spec = importlib.util.spec_from_file_location("masked_ppo", BENCHMARKS / "masked_ppo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["masked_ppo"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("players", [2, 3])
def test_masked_ppo_trains_on_the_factored_space(players: int) -> None:
    ppo = _masked_ppo()
    env = gymnasium.make("blink/GoBlink-v0", players=players, actions="factored").unwrapped
    fa = env.factored
    seen: list[int] = []

    def check(obs: Any, action: np.ndarray, info: dict[str, Any]) -> None:
        mask = obs["action_mask"]
        assert env.action_space.contains(action)
        for part, (o, n) in enumerate(zip(fa.offsets, fa.nvec, strict=True)):
            assert mask[o : o + n][action[part]] == 1, part
        assert "refused" not in info
        seen.append(int(action[0]))

    model = ppo.learn(env, 300, seed=players, n_steps=100, batch=50, epochs=2, on_step=check)
    assert len(seen) == 300
    assert {1, 2} <= set(seen)  # it asked and laid down
    assert model.head.out_features == int(fa.nvec.sum())
    assert all(torch.isfinite(p).all() for p in model.parameters())


def test_masked_ppo_runs_on_the_flat_space() -> None:
    ppo = _masked_ppo()
    env = gymnasium.make("blink/GoBlink-v0", actions="flat").unwrapped
    refused: list[dict[str, Any]] = []
    ppo.learn(
        env,
        64,
        n_steps=32,
        batch=32,
        epochs=1,
        on_step=lambda _o, _a, info: refused.append(info) if "refused" in info else None,
    )
    assert refused == []
