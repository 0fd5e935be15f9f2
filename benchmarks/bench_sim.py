"""Complete bot-vs-bot games per second through the simulator, every engine in one run.

Usage: python benchmarks/bench_sim.py [--games N] [--fast-games N] [--repeat R]
                                       [--workers 1,2] [--engines exact,fast,random]
                                       [--no-startup] [--startup-runs N]
       python benchmarks/bench_sim.py --engines gofast,goexact [--go-games N] [--repeat R]

Each bot game: expert:blocker against expert:random, two players, the official rules, seeded
per game from one master seed; bots plan from their own views after every change, in virtual
time. The engines (blink.games.classic.sim.runner.ENGINES) are timed in the same run: ``exact``
plays game by game through the rules engine and the bot objects; ``fast`` plays the same rules
and bots compiled with numba, game by game (blink.games.classic.sim.fast). ``random``
is the fast engine's random-legal two-player games (no bots: the ceiling), timed through
``simulate_random`` (seeds derived in Python) and as the bare kernel (keys ready).

One worker runs in this process; more use the simulator's process pool, so the figure includes
the cost of starting the pool. The runs of the worker counts are interleaved (run 1 of each
count, then run 2...), so that a change in the machine's load falls on all of them. Rates are
games per CPU-second (this process and its reaped workers: the per-core speed even when other
programs share the machine), with the CPU per game split between this process and the
workers, medians of ``--repeat`` runs. The fast engine is called once before its runs
(compiled, or loaded from the cache), and unless ``--no-startup`` fresh processes time a
worker's path to its first game (``run_chunk``): one with an empty cache (the compile time),
then ``--startup-runs`` with the cache filled, from just before each process is started to the
end of its first game (the median, and each step inside the process).

Go Blink (``gofast``, ``goexact``; :func:`go_section`): four players, two greedy and two memory
seats, and four random seats, one worker, games per CPU-second through the simulator
(``run_games``: seeds derived and rows built in Python) and, for the fast engine, the bare
kernel (the game package's ``fast.run``, seeds ready); its compile time apart, as above. The
game is found in the registry by its title.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from blink.games.classic.bots import BotSpec
from blink.games.classic.sim.runner import Job, run

SPECS = (BotSpec.parse("expert:blocker"), BotSpec.parse("expert:random"))

_FIRST_GAME = """
import time
t0 = time.perf_counter(); c0 = time.process_time()
from blink.games.classic.bots import BotSpec
from blink.games.classic.sim.runner import Job, run_chunk
t1 = time.perf_counter()
from blink.games.classic.sim.fast import simulate_random, unavailable
unavailable()
t2 = time.perf_counter()
job = Job((BotSpec.parse("expert:blocker"), BotSpec.parse("expert:random")), engine="fast")
run_chunk(job, 0, 1)
t3 = time.perf_counter(); done = time.time()
simulate_random(2, [1])
t4 = time.perf_counter()
print(done, t1 - t0, t2 - t1, t3 - t2, t4 - t3, time.process_time() - c0)
"""
"""A worker's path to its first game (blink.games.classic.sim.runner.run_chunk): importing the
runner, the engine (numpy, numba and its registries: ``unavailable()`` loads them), the first
bot game (loading the compiled kernel), then the random-legal kernel's first game. Prints the
wall-clock time at the end of the first bot game, each step's seconds and the CPU seconds."""


def _cpu() -> tuple[float, float]:
    """CPU seconds used so far by this process and by its reaped children (the workers)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def rate(games: int, workers: int, seed: int, engine: str) -> tuple[float, float, float, float]:
    """One run: wall-clock games/s, CPU seconds per game in this process and in the workers,
    and the mean plays per game."""
    job = Job(SPECS, seed=seed, engine=engine)
    me0, kids0 = _cpu()
    start = time.perf_counter()
    res = run(job, games, workers)
    elapsed = time.perf_counter() - start
    me, kids = _cpu()
    cols = res.columns  # the fast engine's single games: no row is built
    if cols is not None:
        plays = float(cols.plays.mean())
    else:
        plays = statistics.fmean(g.plays for row in res.rows for g in row.games)
    return games / elapsed, (me - me0) / games, (kids - kids0) / games, plays


def worker_runs(engine: str, games: int, counts: list[int], repeat: int) -> float:
    """Each worker count's runs, interleaved (run ``r`` of every count, then run ``r + 1``) so
    that a change of the machine's load falls on all of them; prints each count's medians and
    returns the games per CPU-second of the first count."""
    runs: dict[int, list[tuple[float, float, float, float]]] = {w: [] for w in counts}
    for r in range(repeat):
        for w in counts:
            runs[w].append(rate(games, w, seed=r, engine=engine))
    base = statistics.median(x[0] for x in runs[counts[0]]) / counts[0]
    first = 0.0
    for w in counts:
        wall = statistics.median(x[0] for x in runs[w])
        parent = statistics.median(x[1] for x in runs[w])
        kids = statistics.median(x[2] for x in runs[w])
        first = first or 1 / (parent + kids)
        print(
            f"{engine}, workers={w}, {games} games: median {wall:,.0f} games/s wall "
            f"({wall / base:.2f}x one worker); {1 / (parent + kids):,.0f} games per CPU-second; "
            f"CPU per game {parent * 1e6:.1f} us in this process, {kids * 1e6:.1f} us in the "
            f"workers; runs (wall): {', '.join(f'{x[0]:,.0f}' for x in runs[w])}; "
            f"mean plays/game {runs[w][-1][3]:.1f}"
        )
    return first


def random_rates(games: int, repeat: int) -> tuple[list[float], list[float], float]:
    """Random-legal games per CPU-second: through ``simulate_random`` and the bare kernel."""
    import numpy as np

    from blink.games.classic.sim import fast_rules as fr
    from blink.games.classic.sim.fast import simulate_random
    from blink.sim.seeds import derive_seed

    simulate_random(2, [0])
    whole, bare = [], []
    plays = 0.0
    sizes = np.array([30, 30])
    reach = np.array([[0, 1], [0, 1]])
    for r in range(repeat):
        seeds = [derive_seed(r, i) for i in range(games)]
        c0 = time.process_time()
        out = simulate_random(2, seeds)
        whole.append(games / (time.process_time() - c0))
        plays = float(out.column("plays").mean())
        keys = np.array([derive_seed(s, "random") for s in seeds], dtype=np.uint64)
        counters = np.zeros((games, fr.N_COUNTERS), dtype=np.int64)
        seats = np.zeros((games, 2, 3), dtype=np.int64)
        logs = np.zeros((1, 1, fr.ACTION_FIELDS), dtype=np.int64)
        perms = np.zeros((1, 60), dtype=np.int64)
        c0 = time.process_time()
        fr.random_games(keys, sizes, 3, reach, 0, 0, counters, seats, logs, perms)
        bare.append(games / (time.process_time() - c0))
    return whole, bare, plays


def _first_game(env: dict[str, str]) -> list[float]:
    """One fresh process's :data:`_FIRST_GAME`: the seconds from just before it was started to
    the end of its first bot game, then the script's own figures (imports, numba, first bot
    game, first random-legal game, CPU seconds)."""
    started = time.time()
    out = subprocess.run(
        [sys.executable, "-c", _FIRST_GAME], env=env, capture_output=True, text=True, check=True
    )
    done, *steps = (float(x) for x in out.stdout.split())
    return [done - started, *steps]


def startup(runs: int) -> None:
    """Compile time with an empty numba cache, then ``runs`` second processes' first games."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        first = _first_game(env)
        print(
            f"fast engine, first process (empty cache: compiles): first bot game done "
            f"{first[0]:.2f} s after it was started ({first[5]:.2f} s CPU with the random-legal "
            "kernel's first game)"
        )
        seconds = [_first_game(env) for _ in range(runs)]
    med = [statistics.median(col) for col in zip(*seconds, strict=True)]
    print(
        f"fast engine, second process (cache filled), median of {runs}: first bot game done "
        f"{med[0]:.2f} s after it was started (runs: {', '.join(f'{s[0]:.2f}' for s in seconds)}"
        f"); in the script: importing the runner {med[1]:.2f} s, the engine (numpy, numba and "
        f"its registries) {med[2]:.2f} s, "
        f"first bot game {med[3]:.2f} s, first random-legal game {med[4]:.2f} s; "
        f"{med[5]:.2f} s CPU"
    )


GO_MIXES = {
    "greedy vs memory": ("greedy", "memory", "greedy", "memory"),
    "random": ("random",) * 4,
}
"""The Go Blink tables timed: four seats each."""

GO_TITLE = "Go Blink"


def go_package() -> tuple[str, str]:
    """Go Blink's registered name and its package, found in the registry by its title."""
    from blink.model.registry import front_end, game_names, get_game

    for name in game_names():
        module = front_end(name).commands
        if get_game(name).info.title == GO_TITLE and module is not None:
            return name, module.rsplit(".", 1)[0]
    raise SystemExit(f"{GO_TITLE} is not registered here")


_GO_FIRST_GAME = """
import importlib, sys, time
t0 = time.perf_counter(); c0 = time.process_time()
fast = importlib.import_module(sys.argv[1] + ".fast")
fast.run(("greedy", "memory", "greedy", "memory"), [1], [0])
print(time.perf_counter() - t0, time.process_time() - c0)
"""


def go_startup() -> None:
    """Go Blink's fast engine: compile time with an empty numba cache, then a second process's
    first game."""
    _, package = go_package()
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for label in ("first process (empty cache: compiles)", "second process (cache filled)"):
            out = subprocess.run(
                [sys.executable, "-c", _GO_FIRST_GAME, package], env=env, capture_output=True,
                text=True, check=True,
            )  # fmt: skip
            wall, cpu = (float(x) for x in out.stdout.split())
            print(
                f"{GO_TITLE} fast engine, {label}: first game done {wall:.2f} s after the "
                f"process started its imports ({cpu:.2f} s CPU)"
            )


def go_section(engines: list[str], games: int, exact_games: int, repeat: int) -> None:
    """Go Blink games per CPU-second, one worker, for each table of :data:`GO_MIXES`."""
    import importlib

    from blink.sim.seeds import derive_seeds

    name, package = go_package()
    fast = importlib.import_module(f"{package}.fast")
    sim = importlib.import_module(f"{package}.sim")
    fast.run(GO_MIXES["greedy vs memory"], [0], [0])  # compiled or loaded before timing
    for label, bots in GO_MIXES.items():
        for engine in (e for e in ("gofast", "goexact") if e in engines):
            n = games if engine == "gofast" else exact_games
            whole, bare = [], []
            turns = 0.0
            for r in range(repeat):
                job = sim.GoJob(bots, seed=r, engine=engine.removeprefix("go"))
                c0 = time.process_time()
                rows = sim.run_games(job, n, workers=1)
                whole.append(n / (time.process_time() - c0))
                turns = statistics.fmean(row.turns for row in rows)
                if engine == "gofast":
                    seeds = derive_seeds(r, name, 0, n)  # the simulator's game seeds
                    dealers = [i % len(bots) for i in range(n)]
                    c0 = time.process_time()
                    fast.run(bots, seeds, dealers, turn_limit=job.turn_limit)
                    bare.append(n / (time.process_time() - c0))
            line = (
                f"{GO_TITLE} {label}, 4 players, {engine}, one worker, {n} games: median "
                f"{statistics.median(whole):,.0f} games per CPU-second through run_games"
            )
            if bare:
                line += f", {statistics.median(bare):,.0f} for the bare kernel"
            runs = ", ".join(f"{x:,.0f}" for x in (bare or whole))
            print(f"{line}; runs: {runs}; mean turns/game {turns:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per run, exact")
    parser.add_argument("--fast-games", type=int, default=40000, help="games per run, fast")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    parser.add_argument("--engines", default="exact,fast,random", help="comma-separated engines")
    parser.add_argument("--no-startup", action="store_true", help="skip the compile timings")
    parser.add_argument("--go-games", type=int, default=100000, help="games per run, gofast")
    parser.add_argument("--go-exact-games", type=int, default=500, help="games per run, goexact")
    parser.add_argument(
        "--startup-runs", type=int, default=5, help="second processes timed (the cache filled)"
    )
    args = parser.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    go = [e for e in engines if e in ("gofast", "goexact")]
    if go:
        print(f"load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
        if not args.no_startup and "gofast" in go:
            go_startup()
        go_section(go, args.go_games, args.go_exact_games, args.repeat)
        engines = [e for e in engines if e not in go]
        if not engines:
            return
    print(f"expert:blocker vs expert:random, {args.repeat} runs of each")
    print(f"cores reported by the OS: {os.cpu_count()}")
    print(f"load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if not args.no_startup and ("fast" in engines or "random" in engines):
        startup(args.startup_runs)
    per_core: dict[str, float] = {}
    for engine in engines:
        if engine == "random":
            whole, bare, plays = random_rates(args.fast_games, args.repeat)
            print(
                f"random-legal (fast kernel), one core: median {statistics.median(whole):,.0f} "
                f"games per CPU-second through simulate_random, {statistics.median(bare):,.0f} "
                f"for the bare kernel; runs: {', '.join(f'{x:,.0f}' for x in bare)}; "
                f"mean plays/game {plays:.1f}"
            )
            continue
        games = args.fast_games if engine == "fast" else args.games
        if engine == "fast":
            rate(100, 1, 0, "fast")  # compiled or loaded from the cache before timing
        per_core[engine] = worker_runs(engine, games, counts, args.repeat)
    if "fast" in per_core and "exact" in per_core:
        ratio = per_core["fast"] / per_core["exact"]
        print(f"fast / exact, games per CPU-second with one worker: {ratio:.1f}x")


if __name__ == "__main__":
    main()
