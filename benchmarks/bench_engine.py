"""Complete random-legal two-player games per second through the public engine API.

Usage: python benchmarks/bench_engine.py [--games N] [--repeat R]

Each game: a fresh deal from a seed, the reveal, then until the game ends, one legal play chosen
at random among all players' legal plays (or the flip, or each player's default stall choice).
Prints the median games per second over the repeats.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from blink.classic import ClassicGame, Phase


def play_one(seed: int, rng: random.Random) -> int:
    """Play one complete random-legal game; return its number of plays."""
    game = ClassicGame.new(2, seed)
    game.reveal()
    while True:
        phase = game.phase
        if phase is Phase.PLAYING:
            plays = game.legal_plays(0) + game.legal_plays(1)
            p = plays[rng.randrange(len(plays))]
            game.play(p.player, p.card, p.pile)
        elif phase is Phase.STALLED:
            game.flip()
        elif phase is Phase.CHOOSING:
            for seat in (0, 1):
                game.choose(seat, game.default_choice(seat))
        else:
            return game.plays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rates = []
    total_plays = 0
    for r in range(args.repeat):
        rng = random.Random(r)
        start = time.perf_counter()
        total_plays = sum(play_one(r * args.games + i, rng) for i in range(args.games))
        rates.append(args.games / (time.perf_counter() - start))
    print(f"games per run: {args.games}, runs: {args.repeat}")
    print(f"mean plays per game: {total_plays / args.games:.1f}")
    print(f"median games/s (one core): {statistics.median(rates):,.0f}")
    print("all runs:", ", ".join(f"{x:,.0f}" for x in rates))


if __name__ == "__main__":
    main()
