"""The server's SQLite writer under constant writes: CPU per commit, the event loop's longest
pauses, and the size of the write-ahead log.

Usage: python benchmarks/bench_storage.py [--seconds S] [--games N] [--per-turn K] [--rate C]
       [--dir PATH ...] [--repeat R]

Drives :class:`blink.server.storage.Storage` with its inline writer (the default for SQLite:
each loop turn's jobs commit together on the event loop) the way 1,000 live games do: every
loop turn appends ``--per-turn`` plays to games drawn at random among ``--games``, ``--rate``
turns a second (1,200 commits a second of two plays each is what the game server does at 1,000
games). A second task sleeps 1 ms at a time and records how late each wake-up is: a commit, or
the writer held back while the log starts over, shows as a late wake-up.

Each ``--dir`` (a folder for the database file: the default one for temporary files, and a RAM
disk such as ``/dev/shm`` to see what the disk costs) is run in turn, ``--repeat`` times, on a
fresh database file, so the figures compare in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from blink.server import jobs
from blink.server import storage as st

_ACTION = {"t": 1234, "type": "play", "seat": 0, "card": "5OS", "pile": 1, "version": 12}


async def _run(db: Path, seconds: float, games: int, per_turn: int, rate: float) -> dict[str, Any]:
    storage = st.Storage(f"sqlite:///{db}", writer="inline")
    storage.checkpoints.every = 1.0
    loop = asyncio.get_running_loop()
    storage.start(loop)
    wal = Path(f"{db}-wal")
    rng = random.Random(1)
    seqs = [0] * games
    late: list[float] = []
    largest = 0
    start = loop.time()
    stop = start + seconds

    async def ticker() -> None:
        while loop.time() < stop:
            before = time.perf_counter()
            await asyncio.sleep(0.001)
            late.append((time.perf_counter() - before - 0.001) * 1000)

    tick = asyncio.create_task(ticker())
    commits = 0
    cpu0 = time.process_time()
    try:
        while loop.time() < stop:
            for _ in range(per_turn):
                g = rng.randrange(games)
                seqs[g] += 1
                storage.submit(jobs.job_append_action(g + 1, seqs[g], _ACTION, 0, None))
            commits += 1
            # The writer commits what was queued at the next loop turn; then wait for the next.
            await asyncio.sleep(max(0.0, start + commits / rate - loop.time()))
            if commits % 200 == 0:
                largest = max(largest, wal.stat().st_size if wal.exists() else 0)
        await tick
    finally:
        cpu = time.process_time() - cpu0
        storage.stop()
    late.sort()
    return {
        "commits": commits,
        "cpu_us_per_commit": round(cpu / commits * 1e6, 1),
        "late_p99_ms": round(late[int(len(late) * 0.99)], 2),
        "late_max_ms": round(late[-1], 2),
        "wal_max_mb": round(largest / 1e6, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--per-turn", type=int, default=2, help="plays appended per loop turn")
    ap.add_argument("--rate", type=float, default=1200.0, help="loop turns (commits) a second")
    ap.add_argument("--dir", nargs="+", default=[tempfile.gettempdir()], help="database folders")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="print JSON lines only")
    args = ap.parse_args()
    results: dict[str, list[dict[str, Any]]] = {d: [] for d in args.dir}
    for _ in range(args.repeat):
        for folder in args.dir:  # each setting in turn, so noise hits both alike
            with tempfile.TemporaryDirectory(dir=folder) as tmp:
                res = asyncio.run(
                    _run(Path(tmp) / "b.db", args.seconds, args.games, args.per_turn, args.rate)
                )
            res["dir"] = folder
            results[folder].append(res)
            print(json.dumps(res) if args.json else f"{folder}: {res}", flush=True)
    if not args.json:
        for folder, runs in results.items():
            med = {k: statistics.median(r[k] for r in runs) for k in runs[0] if k != "dir"}
            print(f"median, {folder}: {med}")


if __name__ == "__main__":
    main()
