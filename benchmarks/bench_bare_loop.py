"""A bare loop of the two-player rules, for comparison with bench_engine.py.

Usage: python benchmarks/bench_bare_loop.py [--games N] [--repeat R]

The same random-legal games as ``bench_engine.py`` (the standard deck, one generator per run,
a uniformly random legal play among both players', flips and first-card stall choices), but
written as one tight function on card indexes with precomputed match tables: no engine, no
events, no history, no checks of the caller's input, no views. It measures what this machine
and interpreter can do at best, so the engine's figure can be read as a ratio to it.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from blink.cards import STANDARD_DECK

_N = len(STANDARD_DECK)
# MATCH[a][b]: the cards at deck positions a and b share an attribute.
MATCH = [bytes(int(a.matches(b)) for b in STANDARD_DECK) for a in STANDARD_DECK]


def bare_game(rng: random.Random) -> int:
    """One complete random-legal game on deck positions; return its number of plays."""
    order = list(range(_N))
    rng.shuffle(order)
    half = _N // 2
    piles = [[order[0]], [order[half]]]
    hands = [order[1:4], order[half + 1 : half + 4]]
    draws = [order[half - 1 : 3 : -1], order[_N - 1 : half + 3 : -1]]
    tops = [order[0], order[half]]
    plays = 0
    rand = rng.random
    while True:
        legal = [
            (p, i, pile)
            for p in (0, 1)
            for pile in (0, 1)
            for i, c in enumerate(hands[p])
            if MATCH[tops[pile]][c]
        ]
        if legal:
            p, i, pile = legal[int(rand() * len(legal))]
            hand = hands[p]
            c = hand[i]
            piles[pile].append(c)
            tops[pile] = c
            plays += 1
            if draws[p]:
                hand[i] = draws[p].pop()
            else:
                del hand[i]
                if not hand:
                    return plays
        elif draws[0] and draws[1]:
            for p in (0, 1):
                c = draws[p].pop()
                piles[p].append(c)
                tops[p] = c
        else:
            for p in (0, 1):
                c = hands[p].pop(0)
                piles[p].append(c)
                tops[p] = c
                if draws[p]:
                    hands[p].insert(0, draws[p].pop())
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
        start = time.perf_counter()
        plays = sum(bare_game(rng) for _ in range(args.games))
        rates.append(args.games / (time.perf_counter() - start))
    print(f"games per run: {args.games}, runs: {args.repeat}")
    print(f"mean plays per game: {plays / args.games:.1f}")
    print(f"median games/s (one core, bare loop): {statistics.median(rates):,.0f}")
    print("all runs:", ", ".join(f"{x:,.0f}" for x in rates))


if __name__ == "__main__":
    main()
