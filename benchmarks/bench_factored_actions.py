"""Steps per second of a masked PPO on Go Blink's flat action space against its factored one.

Usage: python benchmarks/bench_factored_actions.py [--steps N] [--repeat R] [--json]

In one run, Go Blink's single-seat environment (two players, against ``random``; found through
the registry as the game whose environment offers ``actions="factored"``) with ``actions="flat"``
(31,719 actions, a ``Discrete``) and ``actions="factored"`` (a ``MultiDiscrete`` of 63 parts,
141 logits) is trained by the masked PPO of benchmarks/masked_ppo.py (MaskablePPO's default
policy and update: every logit computed each step) for ``--steps`` steps, rollouts of 256, 10
epochs of minibatches of 64; the figure is steps over the wall-clock seconds of the whole run
(acting and updating, as SB3 reports ``fps``), the median over ``--repeat`` runs, the two
spaces alternating.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gymnasium

import blink.envs  # noqa: F401 - registers the ids
from masked_ppo import learn


def factored_gym_id() -> str:
    """The Gymnasium id of the registered game whose environment offers a factored action
    space (the others refuse the ``actions`` option)."""
    from blink.model.registry import front_ends

    for front in front_ends().values():
        if front.gym_id is None:
            continue
        try:
            gymnasium.make(front.gym_id, actions="factored", opponents="random").close()
        except TypeError:
            continue
        return front.gym_id
    raise SystemExit("no registered game offers a factored action space")


def run(actions: str, steps: int, seed: int) -> float:
    """Steps per second of one training run on the ``actions`` space."""
    env = gymnasium.make(factored_gym_id(), actions=actions, opponents="random").unwrapped
    start = time.perf_counter()
    learn(env, steps, seed=seed)
    return steps / (time.perf_counter() - start)


def main() -> None:
    """Run the benchmark and print the medians and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1_024)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rates: dict[str, list[float]] = {"flat": [], "factored": []}
    for r in range(args.repeat):
        for actions in rates:
            rates[actions].append(run(actions, args.steps, seed=r))
    medians = {k: statistics.median(v) for k, v in rates.items()}
    result = {
        "steps": args.steps,
        "repeat": args.repeat,
        "runs": rates,
        "median": medians,
        "ratio": medians["factored"] / medians["flat"],
    }
    if args.json:
        print(json.dumps(result))
        return
    for k, v in medians.items():
        print(
            f"{k:>9}: {v:8.1f} steps/s (median of {args.repeat}: "
            + ", ".join(f"{x:.1f}" for x in rates[k])
            + ")"
        )
    print(f"    ratio: {result['ratio']:.1f}x")


if __name__ == "__main__":
    main()
