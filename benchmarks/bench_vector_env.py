"""Agent-steps per second of a game's vector environment against its single-seat one.

Usage: python benchmarks/bench_vector_env.py [--game NAME] [--sizes 1 64 1024]
       [--steps N] [--repeat R] [--cpu K] [--actions flat|factored] [--json]

``--game`` is any registered game with a vector environment (``blink.model.registry``; the
default game by default: classic Blink, whose single environment plays against
``expert:first``, Go Blink's two players against the remembering bot). In one run: the game's
single-seat Gymnasium environment (Python) and its vector environment
(``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``, the same bots,
compiled) with ``N`` games for each ``--sizes`` value. The learner picks uniformly among the
actions its mask allows, in numpy for the vector environment (array operations over every
game; a wide action space, such as Go Blink's 31,719 actions, is read through the masks'
non-zero entries); games are reset as they end (the vector environment's auto-reset). An
agent-step is one game's step: a vector step of ``N`` games counts ``N``. Each run plays at
least ``--steps`` agent-steps (the single environment a tenth of them) after a warm-up step
(the kernels are compiled, or loaded from numba's cache, before timing); prints the median
over ``--repeat`` runs in CPU time (the machine may be shared) and in wall-clock time, and
each size's ratio to the single environment. ``--cpu K`` pins the process to core K.
``--actions factored`` (Go Blink) runs both environments with ``actions="factored"``: the
learner then draws each part uniformly among the entries its mask allows (the first three
parts one by one, the 60 card parts together), and the environments turn the vectors into
actions (the vector environment in numpy over every game).
"""

from __future__ import annotations

import argparse
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
    """One uniformly random allowed action per row of ``masks`` (many actions, few allowed:
    Go Blink), from the mask's non-zero entries (found in the flat array: numpy's 2-D
    ``nonzero`` is many times slower)."""
    n, k = masks.shape
    flat = np.flatnonzero(masks.view(np.bool_))
    counts = np.bincount(flat // k, minlength=n)
    starts = np.cumsum(counts) - counts
    return flat[starts + (rng.random(n) * counts).astype(np.int64)] % k


def _pick(masks: Any, rng: np.random.Generator) -> Any:
    """One uniformly random allowed action per row of ``masks``."""
    return (_pick_sparse if masks.shape[1] > WIDE else _pick_dense)(masks, rng)


CARD_PARTS = 60
"""Go Blink's factored space: three parts (kind, target, value), then one of 2 per card."""


def _pick_parts(masks: Any, rng: np.random.Generator) -> Any:
    """One uniformly random allowed entry of each part per row of Go Blink's factored part
    masks (``(N, sum(nvec))``): the kind, target and value parts, then the card parts."""
    n, width = masks.shape
    head = width - 2 * CARD_PARTS
    targets = head - 3 - 17
    cuts = [(0, 3), (3, 3 + targets), (3 + targets, head)]
    out = np.empty((n, 3 + CARD_PARTS), dtype=np.int64)
    for p, (a, b) in enumerate(cuts):
        out[:, p] = _pick_dense(masks[:, a:b], rng)
    cards = masks[:, head:].reshape(n, CARD_PARTS, 2)
    out[:, 3:] = np.argmax(rng.random(cards.shape) * cards, axis=2)
    return out


def _picker(actions: str) -> Any:
    """What picks the learner's actions from the masks in the ``actions`` space."""
    return _pick_parts if actions == "factored" else _pick


def _options(actions: str) -> dict[str, Any]:
    return {"actions": actions} if actions == "factored" else {}


def run_single(game: str, steps: int, seed: int, actions: str = "flat") -> tuple[float, float]:
    """The single-seat environment for ``steps`` agent-steps: CPU and wall seconds."""
    import gymnasium

    env = gymnasium.make(gym_ids()[game], **_options(actions)).unwrapped
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    pick = _picker(actions)
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(steps):
        action = pick(obs["action_mask"][None, :], rng)[0]
        obs, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            obs, _ = env.reset()
    return time.process_time() - cpu, time.perf_counter() - wall


def run_vector(
    game: str, n: int, steps: int, seed: int, actions: str = "flat"
) -> tuple[float, float]:
    """The vector environment of ``n`` games for at least ``steps`` agent-steps."""
    import gymnasium

    env = gymnasium.make_vec(
        gym_ids()[game], num_envs=n, vectorization_mode="vector_entry_point", **_options(actions)
    )
    rng = np.random.default_rng(seed)
    pick = _picker(actions)
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
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.actions == "factored" and args.game != "goblink":
        parser.error("--actions factored is Go Blink's (--game goblink)")
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    import blink.envs  # noqa: F401 - registers the ids

    rows: dict[str, dict[str, Any]] = {}
    single_steps = max(1, args.steps // 10)
    runs: dict[str, list[tuple[float, float, int]]] = {}
    for r in range(args.repeat):
        cpu, wall = run_single(args.game, single_steps, r, args.actions)
        runs.setdefault("single", []).append((cpu, wall, single_steps))
        for n in args.sizes:
            rounds = max(1, args.steps // n)
            cpu, wall = run_vector(args.game, n, args.steps, r, args.actions)
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
            "python": platform.python_version(),
            "rows": rows,
        }
        print(json.dumps(out, indent=2))
        return
    print(
        f"{gym_ids()[args.game]} ({args.actions} actions), Python {platform.python_version()}, "
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
