"""Figures of a run and of a sweep (matplotlib with the Agg backend, imported on use)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from blink.games.classic.sim.stats import Summary, wilson

__all__ = ["plot_summary", "plot_sweep"]


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_summary(summary: Summary, path: str | Path, title: str = "") -> None:
    """Game length histograms (plays, seconds) and win rates with 95 % intervals per seat."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
    ax = axes[0]
    if summary.plays_values:
        lo, hi = min(summary.plays_values), max(summary.plays_values)
        ax.hist(summary.plays_values, bins=range(lo, hi + 2), color="#0072B2", edgecolor="white")
    ax.set_xlabel("plays per game")
    ax.set_ylabel("games")
    ax.set_title("Game length (plays)")
    ax = axes[1]
    if summary.duration_values:
        ax.hist(summary.duration_values, bins=40, color="#009E73", edgecolor="white")
    ax.set_xlabel("virtual seconds per game")
    ax.set_title("Game length (time)")
    ax = axes[2]
    seats = list(range(summary.players))
    rates = [summary.win_rate(s) for s in seats]
    labels = [
        f"seat {s}\n{summary.bots[s]}" if s < len(summary.bots) else f"seat {s}" for s in seats
    ]
    ax.bar(
        labels,
        [r for r, _, _ in rates],
        yerr=[[max(0.0, r - lo) for r, lo, _ in rates], [max(0.0, hi - r) for r, _, hi in rates]],
        capsize=6,
        color=["#D55E00", "#0072B2", "#E69F00"][: len(seats)],
    )
    ax.axhline(1 / summary.players, color="grey", lw=0.8, ls="--")
    ax.set_ylim(0, 1)
    unit = "series" if summary.best_of > 1 else "games"
    ax.set_ylabel(f"share of {unit} won (95% CI)")
    ax.set_title(f"Win rate over {summary.matches} {unit}")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_sweep(
    parameter: str,
    values: Sequence[float],
    wins: Sequence[int],
    games: Sequence[int],
    path: str | Path,
    title: str = "",
    seat_label: str = "seat 0",
) -> None:
    """Seat 0's win rate (with 95 % Wilson intervals) against the swept parameter."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    rates = [w / n if n else float("nan") for w, n in zip(wins, games, strict=True)]
    cis = [wilson(w, n) for w, n in zip(wins, games, strict=True)]
    ax.fill_between(values, [c[0] for c in cis], [c[1] for c in cis], alpha=0.25, color="#0072B2")
    ax.plot(values, rates, marker="o", color="#0072B2", label=f"{seat_label} win rate")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel(parameter)
    ax.set_ylabel("win rate (95% CI)")
    ax.set_ylim(0, 1)
    ax.legend(loc="best")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
