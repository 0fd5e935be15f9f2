"""Complete random-legal two-player games per second through the public engine API.

Usage: python benchmarks/bench_engine.py [--games N] [--repeat R] [--list] [--seeded]

Each game: a fresh deal (the standard deck shuffled by the run's generator, or with
``--seeded`` by ``random.Random(seed)`` per game), the reveal, then until the game ends one
legal play chosen uniformly at random among all players' legal plays and applied with the
checked ``ClassicGame.play`` (every event is produced and every check made), or the flip, or
each player's default stall choice.

By default the random play is picked with the engine's fast path ``random_legal_play(rng)``;
``--list`` picks from ``legal_plays(0) + legal_plays(1)`` instead (the plain API, slower).
Prints the median games per second over the repeats, measured in CPU time (the machine may be
shared: CPU time does not count the time the process waits for a core) and in wall-clock time,
and, in the same run and interleaved with it, the median of ``bench_bare_loop.py``'s bare loop
of the rules, with the ratio between the two.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable

from blink.games.classic.engine import ClassicGame, Phase

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_bare_loop import bare_game


def play_one(seed: int | random.Random, rng: random.Random) -> int:
    """Play one complete random-legal game with the fast path; return its number of plays."""
    game = ClassicGame.new(2, seed)
    game.reveal()
    pick = game.random_legal_play
    play = game.play
    while True:
        p = pick(rng)
        if p is not None:
            play(p[0], p[1], p[2])
            continue
        phase = game.phase
        if phase is Phase.STALLED:
            game.flip()
        elif phase is Phase.CHOOSING:
            for seat in (0, 1):
                game.choose(seat, game.default_choice(seat))
        else:
            return game.plays


def play_one_listing(seed: int | random.Random, rng: random.Random) -> int:
    """The same game loop, picking from the full lists of legal plays."""
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


def run(
    games: int,
    repeat: int,
    seeded: bool,
    one: Callable[[int | random.Random, random.Random], int],
    compare: bool,
) -> dict[str, list[float]]:
    """Time ``repeat`` runs of ``games`` games (and of the bare loop, interleaved)."""
    out: dict[str, list[float]] = {"cpu": [], "wall": [], "bare_cpu": [], "plays": []}
    for r in range(repeat):
        rng = random.Random(r)
        wall, cpu = time.perf_counter(), time.process_time()
        if seeded:
            plays = sum(one(r * games + i, rng) for i in range(games))
        else:
            plays = sum(one(rng, rng) for _ in range(games))
        out["cpu"].append(games / (time.process_time() - cpu))
        out["wall"].append(games / (time.perf_counter() - wall))
        out["plays"].append(plays / games)
        if compare:
            rng = random.Random(r)
            cpu = time.process_time()
            for _ in range(games):
                bare_game(rng)
            out["bare_cpu"].append(games / (time.process_time() - cpu))
    return out


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--list", action="store_true", help="pick from legal_plays() lists")
    parser.add_argument("--seeded", action="store_true", help="seed a new generator per game")
    parser.add_argument(
        "--no-compare", action="store_true", help="skip the bare-loop runs (bench_bare_loop.py)"
    )
    args = parser.parse_args()
    one = play_one_listing if args.list else play_one
    res = run(args.games, args.repeat, args.seeded, one, not args.no_compare)
    med = statistics.median
    print(f"python {sys.version.split()[0]} on {platform.machine()}, {os.cpu_count()} CPUs")
    print(f"picking: {'legal_plays lists' if args.list else 'random_legal_play fast path'}")
    print(f"dealing: {'random.Random(seed) per game' if args.seeded else 'one generator per run'}")
    print(f"games per run: {args.games}, runs: {args.repeat}")
    print(f"mean plays per game: {med(res['plays']):.1f}")
    print(f"engine: median {med(res['cpu']):,.0f} games/s of CPU time (one core)")
    print("        runs: " + ", ".join(f"{x:,.0f}" for x in res["cpu"]))
    print(f"        median {med(res['wall']):,.0f} games/s of wall-clock time")
    if res["bare_cpu"]:
        bare = med(res["bare_cpu"])
        print(f"bare loop (bench_bare_loop.py): median {bare:,.0f} games/s of CPU time")
        print(f"engine / bare loop: {med(res['cpu']) / bare:.2f}")


if __name__ == "__main__":
    main()
