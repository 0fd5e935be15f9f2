"""Train a policy for classic Blink or Go Blink against a bot, save it, load it back and print
its win rates against the game's bots with 95% Wilson intervals.

    pip install ".[train]"
    python examples/train.py --game classic --minutes 10 --out policy-classic.pt
    python examples/train.py --game classic --steps 200000 --seed 1 --eval-games 1000

The same as ``blink train`` without the progress bar: it prints a line after every ten
updates. Training runs on one CPU thread; the same --seed and --steps give the same policy.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from blink.train.evaluate import evaluate, greedy_chooser, random_chooser
from blink.train.policy import load_policy, save_policy
from blink.train.ppo import TrainProgress, train
from blink.train.setup import SETUPS, TrainError, get_setup


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(SETUPS), default="classic")
    parser.add_argument("--steps", type=int, default=200_000, help="environment steps")
    parser.add_argument("--minutes", type=float, default=None, help="stop after this long")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="policy file (policy-GAME.pt)")
    parser.add_argument("--bot", default=None, help="the bot to train against")
    parser.add_argument("--eval-games", type=int, default=500)
    return parser.parse_args(argv)


def _log(progress: TrainProgress) -> None:
    if progress.updates % 10 == 0:
        print(
            f"{progress.steps:>9,} steps, {progress.episodes:,} games, "
            f"won {progress.recent_wins:.0%} of the last 100",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    """Train, save, load and evaluate; 2 on bad input, with one line saying why."""
    args = _arguments(argv)
    out = args.out or Path(f"policy-{args.game}.pt")
    try:
        setup = get_setup(args.game)
        result = train(
            setup,
            steps=args.steps,
            seed=args.seed,
            bot=args.bot,
            minutes=args.minutes,
            clock=time.monotonic,
            on_update=_log,
        )
        save_policy(out, result.policy, result.info)
        policy, info = load_policy(out)
        print(f"saved {out}: {info.steps:,} steps in {info.seconds:.0f} s")
        for bot in setup.eval_bots:
            for name, choose in (("policy", greedy_chooser(policy)), ("random", random_chooser(1))):
                found = evaluate(info, choose, bot, args.eval_games, seed=args.seed + 1_000_000)
                print(f"{name} {found.line()}")
    except (TrainError, OSError) as exc:
        print(f"train.py: {getattr(exc, 'message', exc)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
