"""A bare loop of the two-player rules, for comparison with bench_engine.py.

Usage: python benchmarks/bench_bare_loop.py [--games N] [--repeat R]

The same random-legal games as ``bench_engine.py`` (the standard deck, one generator per run,
a uniformly random legal play among both players', flips and first-card stall choices), but
written as one tight function on deck positions with precomputed match bit masks: no engine, no
events, no history, no piles kept (only the top cards), no checks of the caller's input, no
views. It measures what this machine
and interpreter can do at best, so the engine's figure can be read as a ratio to it.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from blink.cards import STANDARD_DECK

_N = len(STANDARD_DECK)
# MASK[a]: bit b is set when the cards at deck positions a and b share an attribute.
MASK = [sum(1 << j for j, b in enumerate(STANDARD_DECK) if a.matches(b)) for a in STANDARD_DECK]


def bare_game(rng: random.Random) -> int:
    """One complete random-legal game on deck positions; return its number of plays."""
    order = list(range(_N))
    rng.shuffle(order)
    half = _N // 2
    d0 = order[4:half]
    d0.reverse()
    d1 = order[half + 4 :]
    d1.reverse()
    draws = (d0, d1)
    hands = (order[1:4], order[half + 1 : half + 4])
    t0, t1 = order[0], order[half]
    plays = 0
    rand = rng.random
    while True:
        m0 = MASK[t0]
        m1 = MASK[t1]
        legal = []
        for p in (0, 1):
            for i, c in enumerate(hands[p]):
                bit = 1 << c
                if m0 & bit:
                    legal.append((p, i, 0))
                if m1 & bit:
                    legal.append((p, i, 1))
        if legal:
            p, i, pile = legal[int(rand() * len(legal))]
            hand = hands[p]
            c = hand[i]
            if pile:
                t1 = c
            else:
                t0 = c
            plays += 1
            d = draws[p]
            if d:
                hand[i] = d.pop()
            else:
                del hand[i]
                if not hand:
                    return plays
        elif d0 and d1:  # stall: flip
            t0 = d0.pop()
            t1 = d1.pop()
        else:  # stall with an empty draw pile: both place their first card
            t0 = hands[0].pop(0)
            t1 = hands[1].pop(0)
            if d0:
                hands[0].insert(0, d0.pop())
            if d1:
                hands[1].insert(0, d1.pop())
            if not hands[0] or not hands[1]:
                return plays


def main() -> None:
    """Run the bare loop and print games per second."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rates = []
    plays = 0
    for r in range(args.repeat):
        rng = random.Random(r)
        start = time.process_time()
        plays = sum(bare_game(rng) for _ in range(args.games))
        rates.append(args.games / (time.process_time() - start))
    print(f"games per run: {args.games}, runs: {args.repeat}")
    print(f"mean plays per game: {plays / args.games:.1f}")
    print(f"bare loop: median {statistics.median(rates):,.0f} games/s of CPU time (one core)")
    print("all runs:", ", ".join(f"{x:,.0f}" for x in rates))


if __name__ == "__main__":
    main()
