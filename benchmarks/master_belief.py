"""How well does the Go Blink master bot know the opponent's hand? Its belief against the truth.

Usage:
    python benchmarks/master_belief.py [--games N] [--worlds W] [--seed S]

Heads-up games between two remembering bots; at each of seat 0's asks, for every value seat 0
holds (the values it may ask for), two beliefs give the probability that the opponent holds at
least one card of it:

* ``particles``: the particle filter the master bot deals from heads-up
  (``fast.belief.filter_hidden``, through ``fast.master.believe``), weighted;
* ``deals``: the deals of the earlier master bot (``fast.master.sample_world`` without
  particles: the remembering bot's memory, no three cards of a value, the last ask's
  likelihood), ``--worlds`` of them.

Each is scored by its Brier score and log loss (lower is better) over all those (ask, value)
pairs, and by how far the game has gone (events seen). The game is found in the registry by its
title, as bench_sim.py finds it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import time
from typing import Any

import numpy as np
from numba import njit

from master_study import go_package  # this folder's: the game found by its title

_PKG = go_package()
_bots: Any = importlib.import_module(f"{_PKG}.fast.bots")
_rules: Any = importlib.import_module(f"{_PKG}.fast.rules")
_belief: Any = importlib.import_module(f"{_PKG}.fast.belief")
_master: Any = importlib.import_module(f"{_PKG}.fast.master")
_games: Any = importlib.import_module(f"{_PKG}.fast.master_games")

MEMORY, memory_ask, memory_lay = _bots.MEMORY, _bots._memory_ask, _bots._memory_lay
EV_FIELDS, new_trace = _belief.EV_FIELDS, _belief.new_trace
believe, sample_world, apply_action = _master.believe, _master.sample_world, _games._apply
ASK, ASKING, OVER = _rules.ASK, _rules.ASKING, _rules.OVER
G_CUR, G_PHASE, G_DPTR = _rules.G_CUR, _rules.G_PHASE, _rules.G_DPTR
N_CARDS, N_VALUES, U_DISCARD = _rules.N_CARDS, _rules.N_VALUES, _rules.U_DISCARD
deal, count, popc = _rules.deal, _rules.count, _rules.popc
ZERO = np.uint64(0)


@njit(cache=False)  # type: ignore[untyped-decorator]
def score_games(seed: int, games: int, worlds: int, out: Any) -> int:
    """Play ``games`` heads-up games of remembering bots; one row of ``out`` per (seat 0's
    ask, value it holds): the truth, the particles' probability, the deals', events seen, and
    the ask's number (from 0, over all the games)."""
    hands = np.zeros(2, dtype=np.uint64)
    g = np.zeros(16, dtype=np.int64)
    u = np.zeros(3, dtype=np.uint64)
    perm = np.zeros(N_CARDS, dtype=np.int64)
    log = np.zeros((1, 4), dtype=np.int64)
    known = np.zeros((2, 2), dtype=np.uint64)
    least = np.zeros((2, 2, N_VALUES), dtype=np.int64)
    none = np.zeros((2, 2), dtype=np.int64)
    mk = np.zeros((2, 2), dtype=np.uint64)
    ml = np.zeros((2, 2, N_VALUES), dtype=np.int64)
    mn = np.zeros((2, 2), dtype=np.int64)
    scores = np.zeros(2 * N_VALUES)
    sargs = np.zeros(2 * N_VALUES, dtype=np.int64)
    ev = np.zeros(EV_FIELDS, dtype=np.int64)
    evs = np.zeros((4096, EV_FIELDS), dtype=np.int64)
    nev = np.zeros(1, dtype=np.int64)
    bots = np.full(2, MEMORY, dtype=np.int64)
    counts = np.zeros(2, dtype=np.int64)
    wh = np.zeros(2, dtype=np.uint64)
    wperm = np.zeros(N_CARDS, dtype=np.int64)
    su = np.zeros(3, dtype=np.uint64)
    no_parts = np.zeros(0, dtype=np.uint64)
    no_weights = np.zeros(0)
    true_hands = np.zeros(2, dtype=np.uint64)
    true_perm = np.zeros(N_CARDS, dtype=np.int64)
    row = 0
    asked = 0
    for i in range(games):
        deal(np.uint64(seed * 1_000_003 + i), 2, i % 2, 1000, perm, hands, g, u)
        known[:] = 0
        mk[:] = 0
        least[:] = 0
        ml[:] = 0
        none[:] = 0
        mn[:] = 0
        trace = new_trace(2)
        nev[0] = 0
        while g[G_PHASE] != OVER:
            s = g[G_CUR]
            if g[G_PHASE] == ASKING:
                if s == 0 and row + N_VALUES <= out.shape[0]:
                    for p in range(2):
                        counts[p] = popc(hands[p])
                    key = np.uint64(seed * 7919 + i * 104729 + row)
                    parts, weights = believe(0, evs[: nev[0]], hands[0], u[U_DISCARD], mk, key)
                    pa = np.zeros(N_VALUES)
                    pb = np.zeros(N_VALUES)
                    total = weights.sum()
                    for j in range(parts.size):
                        h = mk[0, 1] | parts[j]
                        for v in range(N_VALUES):
                            if count(h, v) > 0:
                                pa[v] += weights[j] / total
                    for w in range(worlds):
                        su[1] = key * np.uint64(31) + np.uint64(w)
                        su[2] = ZERO
                        sample_world(0, hands[0], counts, g[G_DPTR], u[U_DISCARD], mk, ml, mn,
                                     trace, no_parts, no_weights, 0, true_hands, true_perm, wh,
                                     wperm, su)  # fmt: skip
                        for v in range(N_VALUES):
                            if count(wh[1], v) > 0:
                                pb[v] += 1.0 / worlds
                    for v in range(N_VALUES):
                        if count(hands[0], v) > 0:
                            out[row, 0] = 1.0 if count(hands[1], v) > 0 else 0.0
                            out[row, 1], out[row, 2], out[row, 3] = pa[v], pb[v], nev[0]
                            out[row, 4] = asked
                            row += 1
                    asked += 1
                kind, arg = ASK, memory_ask(s, hands, u, known, least, none, scores, sargs)
                cards = ZERO
            else:
                kind, arg, cards = memory_lay(s, hands, g, u, known, least)
            apply_action(0, s, kind, arg, cards, bots, hands, g, u, perm, log, known, least,
                         none, mk, ml, mn, trace, ev, evs, nev)  # fmt: skip
    return row


def _scores(truth: Any, p: Any) -> dict[str, float]:
    p = np.clip(p, 1e-3, 1 - 1e-3)
    loss = -(truth * np.log(p) + (1 - truth) * np.log(1 - p))
    return {"brier": float(((p - truth) ** 2).mean()), "log_loss": float(loss.mean())}


SURE = 0.05
"""A belief is sure of a value when its probability is this close to 0 or 1."""


def _sureness(rows: Any, col: int) -> dict[str, float]:
    """How often belief ``col`` is sure, how often rightly; at how many asks it is sure that the
    opponent holds one of the asker's values, at how many the opponent did, and at how many it
    held the value the belief found likeliest (the best an asker can hit from this belief)."""
    p, truth, ask = rows[:, col], rows[:, 0], rows[:, 4].astype(np.int64)
    sure = (p <= SURE) | (p >= 1 - SURE)
    right = sure & ((p >= 0.5) == (truth > 0.5))
    asks = ask.max() + 1
    hit = np.zeros(asks, dtype=bool)
    sure_hit = np.zeros(asks, dtype=bool)
    np.logical_or.at(hit, ask, truth > 0.5)
    np.logical_or.at(sure_hit, ask, p >= 1 - SURE)
    present = np.zeros(asks, dtype=bool)
    present[ask] = True
    order = np.lexsort((-p, ask))  # by ask, the likeliest value first
    first = order[np.r_[True, ask[order][1:] != ask[order][:-1]]]
    return {
        "pairs": float(sure.mean()),
        "right": float(right.sum() / max(1, sure.sum())),
        "asks": int(present.sum()),
        "asks_with_a_hit": float(hit[present].mean()),
        "asks_sure_hit": float(sure_hit[present].mean()),
        "asks_likeliest_held": float((truth[first] > 0.5).mean()),
    }


def main() -> None:
    """Score both beliefs and print a table, then one JSON line."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--worlds", type=int, default=400)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    if args.games < 1 or args.worlds < 1:
        ap.error("--games and --worlds must be at least 1")
    out = np.zeros((args.games * 200, 5))
    start = time.perf_counter()
    n = score_games(args.seed, args.games, args.worlds, out)
    rows = out[:n]
    report: dict[str, Any] = {"games": args.games, "pairs": int(n), "worlds": args.worlds}
    rate = rows[:, 0].mean()
    report["base_rate"] = float(rate)
    report["base_rate_brier"] = float(((rows[:, 0] - rate) ** 2).mean())
    print(f"{args.games} games, {n} (ask, value) pairs; lower is better")
    for name, col in (("particles", 1), ("deals", 2)):
        report[name] = {"all": _scores(rows[:, 0], rows[:, col])}
        line = f"{name:>9}: all {report[name]['all']['brier']:.4f} Brier"
        for lo, hi in ((0, 10), (10, 30), (30, 10**6)):
            part = (rows[:, 3] >= lo) & (rows[:, 3] < hi)
            s = _scores(rows[part, 0], rows[part, col])
            report[name][f"events_{lo}_{min(hi, 999)}"] = {**s, "pairs": int(part.sum())}
            line += f"; {lo}-{hi if hi < 10**6 else ''} events {s['brier']:.4f}"
        report[name]["sure"] = _sureness(rows, col)
        print(line)
    sure = report["particles"]["sure"]
    print(
        f"particles: sure (within {SURE} of 0 or 1) of {sure['pairs']:.1%} of the pairs, "
        f"right on {sure['right']:.1%} of those; a value it is sure the opponent holds at "
        f"{sure['asks_sure_hit']:.1%} of the asks; the opponent held the likeliest value at "
        f"{sure['asks_likeliest_held']:.1%} of them, and one of the asker's values at "
        f"{sure['asks_with_a_hit']:.1%}; the base rate's Brier "
        f"{report['base_rate_brier']:.4f}"
    )
    report["wall_s"] = time.perf_counter() - start
    print(json.dumps(report))


if __name__ == "__main__":
    main()
