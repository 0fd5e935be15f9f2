"""Agent-steps per second of a game's vector environment against its single-seat one.

Usage: python benchmarks/bench_vector_env.py [--game NAME] [--sizes 1 64 1024]
       [--steps N] [--repeat R] [--cpu K] [--actions flat|factored] [--policy] [--json]

``--game`` is any registered game with a vector environment (``blink.model.registry``; the
default game by default: classic Blink, whose single environment plays against
``expert:first``; other games against their own default bots). In one run: the game's
single-seat Gymnasium environment (Python) and its vector environment
(``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``, the same bots,
compiled) with ``N`` games for each ``--sizes`` value. The learner picks uniformly among the
actions its mask allows, in numpy for the vector environment (array operations over every
game; a wide action space, of tens of thousands of actions, is read through the masks'
non-zero entries); games are reset as they end (the vector environment's auto-reset). An
agent-step is one game's step: a vector step of ``N`` games counts ``N``. Each run plays at
least ``--steps`` agent-steps (the single environment a tenth of them) after a warm-up step
(the kernels are compiled, or loaded from numba's cache, before timing); prints the median
over ``--repeat`` runs in CPU time (the machine may be shared) and in wall-clock time, and
each size's ratio to the single environment. ``--cpu K`` pins the process to core K.
``--actions factored`` (a game whose environments offer ``actions="factored"``) runs both
environments with it: the learner then draws each part of the ``MultiDiscrete`` space
uniformly among the entries its mask allows (parts of one size in a row together), and the
environments turn the vectors into actions (the vector environment in numpy over every
game). ``--policy`` plays every opponent seat with a policy taking the lowest legal action (a
callable, called once per opponent turn by the single environment and once per opponent seat
and round for all the waiting games by the vector environment, in numpy) instead of the bots
(flat actions only).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import statistics
import time
from typing import Any

import numpy as np

WIDE = 64
"""Action spaces wider than this are picked from through their masks' non-zero entries."""


def gym_ids() -> dict[str, str]:
    """Each registered game with a vector environment: its Gymnasium id."""
    from blink.model.registry import front_ends

    return {
        name: fe.gym_id
        for name, fe in front_ends().items()
        if fe.gym_id is not None and fe.gym_vector_entry_point is not None
    }


def _pick_dense(masks: Any, rng: np.random.Generator) -> Any:
    """One uniformly random allowed action per row of ``masks`` (a few actions: classic)."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


def _pick_sparse(masks: Any, rng: np.random.Generator) -> Any:
    """One uniformly random allowed action per row of ``masks`` (many actions, few allowed),
    from the mask's non-zero entries (found in the flat array: numpy's 2-D
    ``nonzero`` is many times slower)."""
    n, k = masks.shape
    flat = np.flatnonzero(masks.view(np.bool_))
    counts = np.bincount(flat // k, minlength=n)
    starts = np.cumsum(counts) - counts
    return flat[starts + (rng.random(n) * counts).astype(np.int64)] % k


def _pick(masks: Any, rng: np.random.Generator) -> Any:
    """One uniformly random allowed action per row of ``masks``."""
    return (_pick_sparse if masks.shape[1] > WIDE else _pick_dense)(masks, rng)


def _pick_parts(masks: Any, rng: np.random.Generator, nvec: Any) -> Any:
    """One uniformly random allowed entry of each part per row of a ``MultiDiscrete`` space's
    part masks (``(N, sum(nvec))``, the parts' masks one after another); parts of one size in
    a row are drawn together."""
    n = masks.shape[0]
    out = np.empty((n, len(nvec)), dtype=np.int64)
    part, col = 0, 0
    while part < len(nvec):
        k = int(nvec[part])
        run = 1
        while part + run < len(nvec) and int(nvec[part + run]) == k:
            run += 1
        block = masks[:, col : col + run * k].reshape(n, run, k)
        out[:, part : part + run] = np.argmax(rng.random(block.shape) * block, axis=2)
        part, col = part + run, col + run * k
    return out


def _picker(space: Any) -> Any:
    """What picks the learner's actions from the masks of one seat's action ``space``."""
    nvec = getattr(space, "nvec", None)
    if nvec is None:
        return _pick
    return lambda masks, rng: _pick_parts(masks, rng, nvec)


def _options(actions: str, policy: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"actions": actions} if actions == "factored" else {}
    if policy is not None:
        out[policy[0]] = policy[1]
    return out


def _lowest_one(obs: dict[str, Any]) -> int:
    """The single environment's opponent policy: the lowest legal action."""
    return int(np.argmax(obs["action_mask"]))


def _lowest(obs: Any, masks: Any) -> Any:
    """The vector environment's opponent policy: each game's lowest legal action."""
    return np.argmax(masks, axis=1)


def _opponents_option(game: str) -> str:
    """The keyword of the game's environments that names the opponents."""
    import gymnasium

    module, _, name = str(gymnasium.spec(gym_ids()[game]).entry_point).partition(":")
    cls = getattr(importlib.import_module(module), name)
    return str(cls.training.bots_option)


def run_single(
    game: str, steps: int, seed: int, actions: str = "flat", policy: bool = False
) -> tuple[float, float]:
    """The single-seat environment for ``steps`` agent-steps: CPU and wall seconds."""
    import gymnasium

    opponents = (_opponents_option(game), _lowest_one) if policy else None
    env = gymnasium.make(gym_ids()[game], **_options(actions, opponents)).unwrapped
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    pick = _picker(env.action_space)
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(steps):
        action = pick(obs["action_mask"][None, :], rng)[0]
        obs, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            obs, _ = env.reset()
    return time.process_time() - cpu, time.perf_counter() - wall


def run_vector(
    game: str, n: int, steps: int, seed: int, actions: str = "flat", policy: bool = False
) -> tuple[float, float]:
    """The vector environment of ``n`` games for at least ``steps`` agent-steps."""
    import gymnasium

    opponents = (_opponents_option(game), _lowest) if policy else None
    env = gymnasium.make_vec(
        gym_ids()[game],
        num_envs=n,
        vectorization_mode="vector_entry_point",
        **_options(actions, opponents),
    )
    rng = np.random.default_rng(seed)
    pick = _picker(env.single_action_space)
    obs, _ = env.reset(seed=seed)
    obs, *_ = env.step(pick(obs["action_mask"], rng))  # warm-up
    rounds = max(1, steps // n)
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(rounds):
        obs, *_ = env.step(pick(obs["action_mask"], rng))
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    """Measure and print (or ``--json``) the agent-steps per second."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    from blink.model.registry import DEFAULT_GAME

    parser.add_argument("--game", choices=sorted(gym_ids()), default=DEFAULT_GAME)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024, 4096])
    parser.add_argument("--steps", type=int, default=400_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cpu", type=int, default=None)
    parser.add_argument("--actions", choices=["flat", "factored"], default="flat")
    parser.add_argument("--policy", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    import blink.envs  # noqa: F401 - registers the ids

    if args.actions == "factored":
        import gymnasium

        try:
            gymnasium.make(gym_ids()[args.game], actions="factored")
        except (TypeError, ValueError) as exc:
            parser.error(f"--actions factored: {args.game}'s environment has none ({exc})")
    if args.policy:
        import gymnasium

        option: dict[str, Any] = {_opponents_option(args.game): _lowest}
        try:
            gymnasium.make_vec(gym_ids()[args.game], num_envs=1, **option)
        except (TypeError, ValueError) as exc:
            parser.error(f"--policy: {args.game}'s vector environment takes no policy ({exc})")
        if args.actions == "factored":
            parser.error("--policy plays the flat actions")
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})

    rows: dict[str, dict[str, Any]] = {}
    single_steps = max(1, args.steps // 10)
    runs: dict[str, list[tuple[float, float, int]]] = {}
    for r in range(args.repeat):
        cpu, wall = run_single(args.game, single_steps, r, args.actions, args.policy)
        runs.setdefault("single", []).append((cpu, wall, single_steps))
        for n in args.sizes:
            rounds = max(1, args.steps // n)
            cpu, wall = run_vector(args.game, n, args.steps, r, args.actions, args.policy)
            runs.setdefault(f"vector-{n}", []).append((cpu, wall, rounds * n))
    for name, found in runs.items():
        rows[name] = {
            "cpu": statistics.median(s / c for c, _, s in found),
            "wall": statistics.median(s / w for _, w, s in found),
            "min": min(s / c for c, _, s in found),
            "max": max(s / c for c, _, s in found),
        }
    base = rows["single"]["cpu"]
    for row in rows.values():
        row["ratio"] = row["cpu"] / base
    if args.json:
        out = {
            "game": args.game,
            "actions": args.actions,
            "policy": args.policy,
            "python": platform.python_version(),
            "rows": rows,
        }
        print(json.dumps(out, indent=2))
        return
    print(
        f"{gym_ids()[args.game]} ({args.actions} actions"
        f"{', opponents: a lowest-legal policy' if args.policy else ''}), "
        f"Python {platform.python_version()}, "
        f"medians of {args.repeat} runs"
    )
    head = ("environment", "CPU steps/s", "range", "wall steps/s", "x single")
    print(f"{head[0]:<14} {head[1]:>14} {head[2]:>24} {head[3]:>14} {head[4]:>9}")
    for name, row in rows.items():
        rng = f"{row['min']:,.0f}-{row['max']:,.0f}"
        print(
            f"{name:<14} {row['cpu']:>14,.0f} {rng:>24} {row['wall']:>14,.0f} {row['ratio']:>9.1f}"
        )


if __name__ == "__main__":
    main()
