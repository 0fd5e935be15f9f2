"""The fast engine against the exact engine: the same statistics, within sampling error?

Usage: python benchmarks/parity_sim.py [--games N] [--settings a,b,...] [--workers W]
                                       [--seed S] [--json FILE]

For each setting, ``--games`` games on each engine (blink.games.classic.sim.runner, the same
master seed: the two engines deal differently, so the samples are independent), then per
measure the two means, their difference with a 95 % interval and the difference in standard
errors (Welch's two-sample z; normal, the samples being large). The measures, per game: each
seat's win rate and the tie rate, plays, virtual seconds, stalls, stalls broken by a flip, by
chosen cards (the choosing stalls), ended by a dead end, default choices at the deadline, wins
from behind; and the share of stalls that were choosing stalls.

With some fifteen measures a setting, one |z| above 3 is expected about once in twenty
settings by chance; a real difference shows as a large |z| that stays large with more games.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from blink.games.classic.bots import BotSpec
from blink.games.classic.rules import DEAD_END, OFFICIAL, Ruleset
from blink.games.classic.sim.runner import GameRow, Job, run


@dataclass(frozen=True)
class Setting:
    """Bots, rules and draw piles of one comparison."""

    bots: tuple[str, ...]
    ruleset: Ruleset = OFFICIAL
    sizes: tuple[int, ...] | None = None


SETTINGS: dict[str, Setting] = {
    "blocker-random": Setting(("expert:blocker", "expert:random")),
    "champion-beginner-handicap": Setting(("champion:first", "beginner:flexible"), sizes=(25, 35)),
    "three-players": Setting(("expert:first", "casual:blocker", "skilled:flexible")),
    "dead-end": Setting(("expert:blocker", "expert:random"), DEAD_END),
    "even-flexible": Setting(("skilled:flexible", "skilled:flexible")),
}

Measure = Callable[[GameRow], float]


def _measures(players: int) -> dict[str, Measure]:
    out: dict[str, Measure] = {}
    for s in range(players):
        out[f"seat {s} wins"] = lambda g, s=s: float(g.winners == (s,))
    out["ties"] = lambda g: float(len(g.winners) > 1)
    out["plays"] = lambda g: float(g.plays)
    out["virtual seconds"] = lambda g: g.duration
    out["stalls"] = lambda g: float(g.stalls)
    out["  broken by a flip"] = lambda g: float(g.flips)
    out["  choosing stalls"] = lambda g: float(g.choices)
    out["  dead ends"] = lambda g: float(g.dead_ends)
    out["default choices"] = lambda g: float(g.defaults)
    out["won from behind"] = lambda g: float(g.from_behind)
    return out


@dataclass(frozen=True)
class Row:
    """One measure on both engines."""

    name: str
    fast: float
    exact: float
    diff: float
    low: float
    high: float
    z: float


def _compare(name: str, a: Sequence[float], b: Sequence[float]) -> Row:
    ma, mb = statistics.fmean(a), statistics.fmean(b)
    se = math.sqrt(statistics.pvariance(a, ma) / len(a) + statistics.pvariance(b, mb) / len(b))
    d = ma - mb
    z = d / se if se > 0 else 0.0
    return Row(name, ma, mb, d, d - 1.96 * se, d + 1.96 * se, z)


def _share(name: str, fast: list[GameRow], exact: list[GameRow]) -> Row:
    """The share of stalls that were choosing stalls (a ratio of sums: its standard error by
    the delta method, games being the independent units)."""

    def ratio(rows: list[GameRow]) -> tuple[float, float]:
        n = len(rows)
        x = [float(g.choices) for g in rows]
        y = [float(g.stalls) for g in rows]
        mx, my = statistics.fmean(x), statistics.fmean(y)
        if my == 0:
            return 0.0, 0.0
        r = mx / my
        resid = [xi - r * yi for xi, yi in zip(x, y, strict=True)]
        return r, math.sqrt(statistics.pvariance(resid, 0.0) / n) / my

    (ra, sa), (rb, sb) = ratio(fast), ratio(exact)
    se = math.hypot(sa, sb)
    d = ra - rb
    return Row(name, ra, rb, d, d - 1.96 * se, d + 1.96 * se, d / se if se > 0 else 0.0)


def _games(job: Job, n: int, workers: int, progress: Progress, label: str) -> list[GameRow]:
    task = progress.add_task(label, total=n)
    res = run(job, n, workers, lambda k: progress.advance(task, k))
    if res.interrupted:
        sys.exit(f"interrupted ({label})")
    return [g for row in res.rows for g in row.games]


def compare(name: str, setting: Setting, n: int, workers: int, seed: int) -> dict[str, Any]:
    """Play ``n`` games of ``setting`` on each engine; the comparison as a JSON-ready dict."""
    specs = tuple(BotSpec.parse(b) for b in setting.bots)
    kind: dict[str, list[GameRow]] = {}
    seconds: dict[str, float] = {}
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, transient=True) as progress:
        for engine in ("fast", "exact"):
            job = Job(specs, seed=seed, ruleset=setting.ruleset, sizes=setting.sizes, engine=engine)
            t0 = time.perf_counter()
            kind[engine] = _games(job, n, workers, progress, f"{name}: {engine}")
            seconds[engine] = time.perf_counter() - t0
    fast, exact = kind["fast"], kind["exact"]
    rows = [
        _compare(label, [f(g) for g in fast], [f(g) for g in exact])
        for label, f in _measures(len(specs)).items()
    ]
    rows.append(_share("choosing share of stalls", fast, exact))
    return {
        "setting": name,
        "bots": list(setting.bots),
        "ruleset": setting.ruleset.name,
        "sizes": list(setting.sizes) if setting.sizes else None,
        "games": n,
        "seed": seed,
        "seconds": {k: round(v, 1) for k, v in seconds.items()},
        "rows": [r.__dict__ for r in rows],
    }


def _print(result: dict[str, Any], console: Console) -> None:
    sizes = f", piles {result['sizes']}" if result["sizes"] else ""
    table = Table(
        title=f"{result['setting']}: {' vs '.join(result['bots'])} ({result['ruleset']}{sizes}), "
        f"{result['games']:,} games each"
    )
    for col in ("measure", "fast", "exact", "fast - exact", "95% interval", "z"):
        table.add_column(col, justify="left" if col == "measure" else "right")
    for r in result["rows"]:
        z = f"{r['z']:+.2f}"
        table.add_row(
            r["name"],
            f"{r['fast']:.4f}",
            f"{r['exact']:.4f}",
            f"{r['diff']:+.4f}",
            f"{r['low']:+.4f} .. {r['high']:+.4f}",
            f"[bold red]{z}[/]" if abs(r["z"]) > 3 else z,
        )
    console.print(table)
    s = result["seconds"]
    console.print(f"[dim]fast {s['fast']:.1f} s, exact {s['exact']:.1f} s (wall)[/]")


def main() -> None:
    """Run the comparisons asked for and print (and optionally save) them."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=20000, help="games per engine and setting")
    parser.add_argument(
        "--settings", default=",".join(SETTINGS), help=f"comma-separated: {', '.join(SETTINGS)}"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = parser.parse_args()
    names = [s.strip() for s in args.settings.split(",") if s.strip()]
    unknown = [s for s in names if s not in SETTINGS]
    if unknown or args.games < 2:
        sys.exit(f"unknown settings {unknown} (known: {', '.join(SETTINGS)}) or --games < 2")
    console = Console(width=120)
    results = []
    for name in names:
        result = compare(name, SETTINGS[name], args.games, args.workers, args.seed)
        _print(result, console)
        results.append(result)
        if args.json is not None:
            args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
