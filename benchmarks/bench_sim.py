"""Complete bot-vs-bot games per second through the simulator, reaction-time model on.

Usage: python benchmarks/bench_sim.py [--games N] [--repeat R] [--workers 1,2]
                                       [--engines exact,batch]

Each game: expert:blocker against expert:random, two players, the official rules, seeded
per game from one master seed; bots plan from their own views after every change, in virtual
time. Both simulator engines are timed in the same run (blink.games.classic.sim.runner.ENGINES):
``exact``
plays game by game through the rules engine and the bot objects; ``batch`` plays thousands of
games at once in numpy arrays (blink.games.classic.sim.batch). One worker runs in this process;
more use the
simulator's process pool, so the figure includes the cost of starting the pool and gathering
results.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time

from blink.games.classic.bots import BotSpec
from blink.games.classic.sim.runner import Job, run

SPECS = (BotSpec.parse("expert:blocker"), BotSpec.parse("expert:random"))


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def rate(games: int, workers: int, seed: int, engine: str) -> tuple[float, float, float]:
    """Wall-clock games/s, games per CPU-second, and mean plays per game for one run.

    CPU time counts this process and the pool's (reaped) worker processes, so games per
    CPU-second is the per-core speed even when other programs share the machine.
    """
    job = Job(SPECS, seed=seed, engine=engine)
    cpu0 = _cpu()
    start = time.perf_counter()
    res = run(job, games, workers)
    elapsed = time.perf_counter() - start
    cpu = _cpu() - cpu0
    plays = statistics.fmean(g.plays for row in res.rows for g in row.games)
    return games / elapsed, games / cpu, plays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    parser.add_argument("--engines", default="exact,batch", help="comma-separated engines")
    args = parser.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    print(f"expert:blocker vs expert:random, {args.games} games per run, {args.repeat} runs")
    print(f"cores reported by the OS: {os.cpu_count()}")
    print(f"load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    per_core: dict[str, float] = {}
    for engine in engines:
        base = None
        for w in counts:
            rates = []
            per_cpu = []
            plays = 0.0
            for r in range(args.repeat):
                g, c, plays = rate(args.games, w, seed=r, engine=engine)
                rates.append(g)
                per_cpu.append(c)
            med = statistics.median(rates)
            base = base or med / w
            per_core.setdefault(engine, statistics.median(per_cpu))
            print(
                f"{engine}, workers={w}: median {med:,.0f} games/s wall ({med / w:,.0f} per "
                f"worker, {med / (base * w):.0%} of linear scaling); "
                f"{statistics.median(per_cpu):,.0f} games per CPU-second; runs: "
                + ", ".join(f"{x:,.0f}" for x in rates)
                + f"; mean plays/game {plays:.1f}"
            )
    if "exact" in per_core and "batch" in per_core:
        ratio = per_core["batch"] / per_core["exact"]
        print(f"batch / exact, games per CPU-second with one worker: {ratio:.1f}x")


if __name__ == "__main__":
    main()
