"""Draw the Go Blink master's wins against how often it sees the opponent's hand at its asks.

Usage:
    python benchmarks/master_peek_plot.py REPORT.json [REPORT.json ...] --out FIGURE.png
        [--target 0.65]

Each report is the output of ``python benchmarks/master_study.py --peek PCT`` (its last line is
read: the JSON report). The figure puts the share of asks at which the search saw the true hands
on the x axis and seat 0's wins, with their 95 % Wilson intervals, on the y axis, with the target
as a line. Bad input (a missing file, a report without ``peek``) is refused in one sentence with
exit status 2.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def _reports(ap: argparse.ArgumentParser, paths: list[Path]) -> list[dict[str, Any]]:
    """The reports, by share of asks seen; refuse (exit 2) what is not one."""
    out = []
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8").strip().splitlines()
            report = json.loads(lines[-1]) if lines else None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            ap.error(f"{path} is not a report of master_study.py ({exc})")
        if not isinstance(report, dict) or report.get("peek") is None:
            ap.error(f"{path} is not a report of master_study.py --peek")
        out.append(report)
    return sorted(out, key=lambda r: r["peek"])


def main() -> None:
    """Read the reports and draw the figure."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("reports", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--target", type=float, default=0.65)
    args = ap.parse_args()
    reports = _reports(ap, args.reports)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [r["peek"] for r in reports]
    y = [100 * r["win_rate"] for r in reports]
    low = [100 * (r["win_rate"] - r["wilson95"][0]) for r in reports]
    high = [100 * (r["wilson95"][1] - r["win_rate"]) for r in reports]
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    ax.errorbar(x, y, yerr=[low, high], fmt="o-", capsize=4, color="#2b6cb0",
                label="master bot, 95% interval")  # fmt: skip
    ax.axhline(100 * args.target, color="#c53030", linestyle="--",
               label=f"target: {args.target:.0%}")  # fmt: skip
    ax.axhline(50, color="#718096", linestyle=":", label="even")
    ax.set_xlabel("asks at which the search sees the opponent's hand (%)")
    ax.set_ylabel("heads-up games won against memory (%)")
    games = ", ".join(sorted({f"{r['games']:,}" for r in reports}))
    ax.set_title(f"What knowing the opponent's hand at the asks is worth ({games} games a point)")
    ax.set_xlim(-5, 105)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left")
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
