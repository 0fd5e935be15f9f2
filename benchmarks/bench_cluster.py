"""``blink simulate`` on a Dask LocalCluster against local worker processes: games per second.

Usage: python benchmarks/bench_cluster.py [--games N] [--engine fast] [--repeat R] [--workers W]

Starts a ``distributed.LocalCluster`` of ``--workers`` worker processes (one thread each), then
runs the real command (``python -m blink simulate ... --json``) ``--repeat`` times each way,
alternating: ``--cluster ADDRESS`` and ``--workers W``, the same seed. The rate is the games
played over the command's own ``elapsed_s`` (the run, with the pool's or the connection's
start-up: not the interpreter's), the median of the runs. It also checks that both ways gave
the same summary. Needs the ``cluster`` extra (``pip install ".[cluster]"``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from typing import Any

from distributed import LocalCluster


def _simulate(args: list[str]) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "blink", "simulate", *args, "--json"],
        check=True,
        capture_output=True,
        text=True,
        env=os.environ,
    ).stdout
    data: dict[str, Any] = json.loads(out)
    return data


def main() -> None:
    """Run the comparison and print one line per way."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--engine", default="fast")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    opts = ap.parse_args()
    common = ["--games", str(opts.games), "--engine", opts.engine, "--seed", "1"]
    common += ["--bot", "expert:blocker", "--bot", "expert:random"]
    rates: dict[str, list[float]] = {"cluster": [], "local": []}
    summaries: dict[str, dict[str, Any]] = {}
    with LocalCluster(
        n_workers=opts.workers, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        ways = {
            "cluster": ["--cluster", cluster.scheduler_address],
            "local": ["--workers", str(opts.workers)],
        }
        for _ in range(opts.repeat):
            for way, extra in ways.items():
                data = _simulate([*common, *extra])
                rates[way].append(data["games_played"] / data["elapsed_s"])
                data.pop("elapsed_s")
                summaries[way] = data
    same = summaries["cluster"] == summaries["local"]
    for way, values in rates.items():
        runs = ", ".join(f"{v:,.0f}" for v in values)
        print(
            f"{way:8} {opts.engine} {opts.games} games, {opts.workers} workers: "
            f"{statistics.median(values):,.0f} games/s (median; runs {runs})"
        )
    print(f"same summary both ways: {same}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
