"""Agent-steps per second of the reinforcement-learning environments, with random agents.

Usage: python benchmarks/bench_envs.py [--env NAME ...] [--steps N] [--repeat R] [--cpu K] [--json]

Environments (``--env``, default all of them), for every registered game with environments
(the registry's ``FrontEnd``; classic's rows as the example):

* ``classic``: the game's PettingZoo environment (``blink.envs.classic_v0``) with the game's
  default number of players. In a ParallelEnv (``parallel_env``) one agent-step is one agent's
  action in one parallel step (a step of two agents counts two); in an AEC environment
  (``env``) one ``env.last()`` and ``env.step()`` of the ``agent_iter`` loop;
* ``classic3``: the same with the fewest players (``<game>2``), or the most when the default
  is the fewest;
* ``gym-classic``: the game's Gymnasium environment (one seat against the bots; the bots'
  time is included), one agent-step is one ``env.step``;
* ``<game>-engine``, for a turn-based game: no environment: the random legal action of the
  current player applied through the game definition, with its view built at every step (what
  the game's environment cannot go below), with the default number of players.

A random agent picks uniformly among the actions its observation's mask allows (including
waiting, in classic). Episodes are reset as they end; every run plays ``--steps`` agent-steps
from a fixed seed. Prints the median over ``--repeat`` runs of the agent-steps per second in
CPU time (the machine may be shared: CPU time does not count waiting for a core) and in
wall-clock time. ``--cpu K`` pins the process to core K.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any


def _pick(mask: Any, rng: random.Random) -> int:
    legal = mask.view(bool).nonzero()[0]  # np.flatnonzero's answer, without its two wrappers
    return int(legal[int(rng.random() * len(legal))])


def run_parallel(make: Callable[[], Any], steps: int, seed: int) -> int:
    """Random agents in a ParallelEnv for ``steps`` agent-steps; the number of episodes."""
    rng = random.Random(seed)
    env = make()
    observations, _ = env.reset(seed=seed)
    done = episodes = 0
    while done < steps:
        if not env.agents:
            observations, _ = env.reset()
            episodes += 1
        actions = {a: _pick(o["action_mask"], rng) for a, o in observations.items()}
        done += len(actions)
        observations, *_ = env.step(actions)
    return episodes


def run_aec(make: Callable[[], Any], steps: int, seed: int) -> int:
    """Random agents in an AEC environment for ``steps`` agent-steps; the episodes."""
    rng = random.Random(seed)
    env = make()
    env.reset(seed=seed)
    done = episodes = 0
    while done < steps:
        for agent in env.agent_iter(steps - done):
            obs, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else _pick(obs["action_mask"], rng))
            done += 1
            del agent
        if done < steps:
            env.reset()
            episodes += 1
    return episodes


def run_gym(make: Callable[[], Any], steps: int, seed: int) -> int:
    """A random agent in a Gymnasium environment for ``steps`` steps; the episodes."""
    rng = random.Random(seed)
    env = make()
    obs, _ = env.reset(seed=seed)
    episodes = 0
    for _ in range(steps):
        obs, _, terminated, truncated, _ = env.step(_pick(obs["action_mask"], rng))
        if terminated or truncated:
            obs, _ = env.reset()
            episodes += 1
    return episodes


def run_engine(name: str, steps: int, seed: int, players: int) -> int:
    """The definition of the turn-based game ``name`` alone: view, legal actions, a random
    one applied."""
    from blink.model.registry import get_game

    game = get_game(name)
    rng = random.Random(seed)
    state = game.new(players, rng.getrandbits(63))
    episodes = 0
    for _ in range(steps):
        if state.over:
            state = game.new(players, rng.getrandbits(63))
            episodes += 1
        seat = state.current
        game.view(state, seat)
        legal = game.legal_actions(state, seat)
        game.apply(state, legal[int(rng.random() * len(legal))])
    return episodes


Bench = Callable[[int, int], int]
"""A benchmark: (steps, seed) -> episodes."""


def _env_bench(module: Any, players: int) -> Bench:
    """The random agents of a game's PettingZoo environment module for ``players``."""
    if hasattr(module, "parallel_env"):
        return lambda n, s: run_parallel(lambda: module.parallel_env(players=players), n, s)
    return lambda n, s: run_aec(lambda: module.env(players=players), n, s)


def _gym_bench(gym_id: str) -> Bench:
    import gymnasium

    return lambda n, s: run_gym(lambda: gymnasium.make(gym_id), n, s)


def _engine_bench(name: str, players: int) -> Bench:
    return lambda n, s: run_engine(name, n, s, players)


def benches() -> dict[str, Bench]:
    """Every benchmark by name, from the registry: each game's environment with its default
    players and with its fewest (or most), each game's Gymnasium environment, and each
    turn-based game's definition alone."""
    import blink.envs
    from blink.model.registry import front_ends, get_game

    fronts = {n: f for n, f in front_ends().items() if f.env_name is not None}
    table: dict[str, Bench] = {}
    for name, front in fronts.items():
        info = get_game(name).info
        module = getattr(blink.envs, str(front.env_name))
        other = info.max_players if info.default_players == info.min_players else info.min_players
        table[name] = _env_bench(module, info.default_players)
        if other != info.default_players:
            table[f"{name}{other}"] = _env_bench(module, other)
    for name, front in front_ends().items():
        if front.gym_id is not None:
            table[f"gym-{name}"] = _gym_bench(front.gym_id)
    for name in fronts:
        info = get_game(name).info
        if not info.real_time:
            table[f"{name}-engine"] = _engine_bench(name, info.default_players)
    return table


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks and print their medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", action="append", help="a benchmark (repeatable; default all)")
    parser.add_argument("--steps", type=int, default=40_000, help="agent-steps per run")
    parser.add_argument("--repeat", type=int, default=5, help="runs per benchmark")
    parser.add_argument("--cpu", type=int, default=None, help="pin the process to this core")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    table = benches()
    names = args.env or list(table)
    for name in names:
        if name not in table:
            parser.error(f"unknown benchmark {name!r}; choose from {', '.join(table)}")
    results: dict[str, dict[str, float]] = {}
    for name in names:
        run = table[name]
        run(min(2_000, args.steps), 99)  # warm up: imports, the action table, caches
        cpu: list[float] = []
        wall: list[float] = []
        episodes = 0
        for r in range(args.repeat):
            c0, w0 = time.process_time(), time.perf_counter()
            episodes = run(args.steps, r)
            c1, w1 = time.process_time(), time.perf_counter()
            cpu.append(args.steps / (c1 - c0))
            wall.append(args.steps / (w1 - w0))
        results[name] = {
            "cpu_steps_per_s": statistics.median(cpu),
            "cpu_min": min(cpu),
            "cpu_max": max(cpu),
            "wall_steps_per_s": statistics.median(wall),
            "episodes_per_run": episodes,
        }
        if not args.json:
            res = results[name]
            print(
                f"{name:15} {res['cpu_steps_per_s']:>9,.0f} agent-steps/s CPU "
                f"({res['cpu_min']:,.0f}-{res['cpu_max']:,.0f}), "
                f"{res['wall_steps_per_s']:>9,.0f} wall, {episodes} episodes a run",
                flush=True,
            )
    if args.json:
        meta = {"python": platform.python_version(), "steps": args.steps, "repeat": args.repeat}
        print(json.dumps({"meta": meta, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
