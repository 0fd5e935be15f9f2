"""The ``trained`` bot level's strength against each house bot (docs/strategy.md, "The trained
level against the house bots").

    python benchmarks/trained_level.py --games 1000
    python benchmarks/trained_level.py --games 1000 --weights other.npz   # another policy file

Each row: games of the trained bot (seat 0 in even games, seat 1 in odd ones) against one
house bot on the exact engine, the deals from ``--seed``; its win rate with a 95% Wilson
interval (a tie counts as no win) and the ties.
"""

from __future__ import annotations

import argparse
import io
import json
import time
from pathlib import Path

import numpy as np

from blink.games.classic.bots import LEVELS, Bot, BotSpec
from blink.games.classic.bots.trained import PolicyBot, PolicyWeights, load_weights
from blink.games.classic.engine import ClassicGame
from blink.games.classic.sim.core import play_game
from blink.sim.seeds import derive_seed
from blink.sim.statistics import wilson

_ARRAYS = ("w1", "b1", "w2", "b2", "vectors", "bias")

HOUSE = (
    "beginner:first",
    "casual:first",
    "skilled:first",
    "expert:first",
    "champion:first",
    "champion:random",
    "champion:blocker",
    "champion:flexible",
)


def weights_at(path: Path) -> PolicyWeights:
    """A policy file (``scripts/export_policy.py``'s format) outside the package."""
    with np.load(io.BytesIO(path.read_bytes()), allow_pickle=False) as npz:
        arrays = {k: np.asarray(npz[k], dtype=np.float32) for k in _ARRAYS}
        info = json.loads(str(npz["info"]))
    return PolicyWeights(**arrays, info=info)


def measure(weights: PolicyWeights, house: str, games: int, seed: int) -> dict[str, float]:
    """``games`` games of the policy against ``house``, seats alternating."""
    spec = BotSpec.parse(house)
    wins = ties = 0
    for g in range(games):
        gseed = derive_seed(seed, house, g)
        me = g % 2
        bots: list[Bot] = [PolicyBot(me, weights, LEVELS["trained"].mean_play)]
        bots.insert(1 - me, spec.build(1 - me, derive_seed(gseed, "bot")))
        game = ClassicGame.new(2, derive_seed(gseed, "deck"))
        outcome = play_game(game, bots, gseed).outcome
        if outcome.is_tie:
            ties += 1
        elif outcome.winners == (me,):
            wins += 1
    low, high = wilson(wins, games)
    return {"games": games, "wins": wins, "ties": ties, "low": low, "high": high}


def main() -> None:
    """Print one row per house bot (and JSON with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--weights", type=Path, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    weights = (
        load_weights(LEVELS["trained"].policy) if args.weights is None else weights_at(args.weights)
    )
    rows = {}
    for house in HOUSE:
        start = time.perf_counter()
        row = rows[house] = measure(weights, house, args.games, args.seed)
        print(
            f"{house:18} {100 * row['wins'] / args.games:5.1f}% "
            f"({100 * row['low']:.1f}-{100 * row['high']:.1f})  ties {row['ties']:.0f}"
            f"  [{time.perf_counter() - start:.0f} s]",
            flush=True,
        )
    if args.json:
        print(json.dumps(rows))


if __name__ == "__main__":
    main()
