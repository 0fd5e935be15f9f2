"""How strong is Go Blink's master bot? One master seat against remembering bots.

Usage:
    python benchmarks/master_study.py [--games N] [--players P] [--workers W]
        [--budget B] [--omni 0|1|2|3 | --peek PCT] [--engine fast|exact] [--seed S]
        [--opponent NAME] [--search flat|tree] [--explore C]

Seat 0 plays the master bot (``--omni 1``: it also sees every hand; ``--omni 2``: every hand
and the draw pile's order: the ceiling study; ``--omni 3``: every hand, at its asks only;
``--peek PCT``: every hand, at PCT in 100 of its asks, drawn afresh at each),
every other seat ``--opponent`` (``memory``); game ``i`` is dealt by seat ``i % players``, so
every seat asks first equally often. ``--search tree`` replaces the flat search (sequential
halving over one-step actions) with the tree search over the master's own decisions
(``fast.tree_search``; ``--budget`` is then its iterations, ``--explore`` UCB1's constant). The fast
engine (the game's ``fast.master_games.play_master_games``) plays whole games compiled; the exact
engine plays the rules engine's games with the registered bots (``make_gobot("master")``, which
acts from its seat's view only), and times each decision. The game is found in the registry by
its title, as bench_sim.py finds it.
The report gives the master's wins with a 95 % Wilson interval (a tie, rare, is not a win),
the ties, the games cut off at the turn limit, the games that ended by the fewest cards (the
draw pile empty and a quiet round) and how many of those seat 0 won, and the time per searched
decision.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from blink.sim.seeds import derive_seeds
from blink.sim.statistics import wilson

CHUNK = 10
GO_TITLE = "Go Blink"
LIMIT = 1000
_CODES = {"random": 0, "greedy": 1, "memory": 2, "master": 3}


def go_package() -> str:
    """Go Blink's package, found in the registry by its title."""
    from blink.model.registry import front_end, game_names, get_game

    for name in game_names():
        module = front_end(name).commands
        if get_game(name).info.title == GO_TITLE and module is not None:
            return module.rsplit(".", 1)[0]
    raise SystemExit(f"{GO_TITLE} is not registered here")


def _module(name: str) -> Any:
    """A module of Go Blink's package."""
    return importlib.import_module(f"{go_package()}.{name}")


def _fast_chunk(
    job: tuple[list[int], list[int], list[str], int, int, int, float],
) -> dict[str, Any]:
    """Play some games on the compiled loop; the master's results and its search's counts."""
    seeds, dealers, seats, budget, omni, search, explore = job
    from blink.sim.compiled import load_kernels

    kernels: Any = load_kernels(f"{go_package()}.fast.master_games")
    n, players = len(seeds), len(seats)
    out = np.zeros((n, 16), dtype=np.int64)
    counts = np.zeros((n, players), dtype=np.int64)
    stats = np.zeros((n, 2), dtype=np.int64)
    codes = np.array([_CODES[s] for s in seats], dtype=np.int64)
    start = time.process_time()
    kernels.play_master_games(
        np.array(seeds, dtype=np.uint64), np.array(dealers, dtype=np.int64), codes, LIMIT,
        budget, omni, search, explore, out, counts, stats,
    )  # fmt: skip
    cpu = time.process_time() - start
    if (out[:, 15] != 0).any():
        raise RuntimeError("a bot chose an illegal action")
    winners = out[:, 8].tolist()
    return {
        "wins": sum(1 for w in winners if w == 1),
        "ties": sum(1 for w in winners if w & 1 and w != 1),
        "cut": int((out[:, 9] == 2).sum()),
        "by_count": int((out[:, 9] == 1).sum()),
        "wins_by_count": int(((out[:, 9] == 1) & (out[:, 8] == 1)).sum()),
        "turns": int(out[:, 2].sum()),
        "decisions": int(stats[:, 0].sum()),
        "rollouts": int(stats[:, 1].sum()),
        "cpu": cpu,
    }


def _exact_chunk(
    job: tuple[list[int], list[int], list[str], int, int, int, float],
) -> dict[str, Any]:
    """Play some games on the rules engine with the registered bots, timing the master's
    searched decisions."""
    seeds, dealers, seats, budget, _, _, _ = job  # no omni, no tree: main() refuses them
    bots_module, engine = _module("bots"), _module("engine")
    master_bot = _module("fast.master_bot")
    res = {"wins": 0, "ties": 0, "cut": 0, "by_count": 0, "wins_by_count": 0, "turns": 0,
           "decisions": 0, "rollouts": 0, "cpu": 0.0}  # fmt: skip
    longest = 0.0
    for seed, dealer in zip(seeds, dealers, strict=True):
        game = engine.GoGame.new(len(seats), seed=seed, dealer=dealer, turn_limit=LIMIT)
        bots = [bots_module.make_gobot(name, s, seed * 7 + s) for s, name in enumerate(seats)]
        for bot in bots:
            if isinstance(bot, master_bot.MasterBot):
                bot.BUDGET = budget
        while not game.over:
            seat = game.current
            assert seat is not None
            bot = bots[seat]
            before = getattr(bot, "searched", 0)
            t0 = time.process_time()
            action = bot.act(game.view(seat))
            spent = time.process_time() - t0
            if getattr(bot, "searched", 0) > before:
                res["decisions"] += 1
                res["cpu"] += spent
                longest = max(longest, spent)
            game.apply(action)
        outcome = game.outcome
        assert outcome is not None
        res["wins"] += outcome.winners == (0,)
        res["ties"] += 0 in outcome.winners and len(outcome.winners) > 1
        res["cut"] += outcome.reason == "turn_limit"
        res["by_count"] += outcome.reason == "fewest_cards"
        res["wins_by_count"] += outcome.reason == "fewest_cards" and outcome.winners == (0,)
        res["turns"] += game.turns
        res["rollouts"] += sum(getattr(b, "rollouts", 0) for b in bots)
    res["longest"] = longest
    return res


def _check(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse, in one sentence (exit status 2), what the study cannot run."""
    from blink.model.registry import game_names, get_game

    if args.games < 1 or args.workers < 1:
        ap.error("--games and --workers must be at least 1")
    if args.budget is not None and args.budget < 0:
        ap.error("--budget must be 0 or more (0: the remembering bot's choices)")
    if args.explore <= 0:
        ap.error("--explore must be above 0")
    info = next(get_game(n).info for n in game_names() if get_game(n).info.title == GO_TITLE)
    try:
        info.check_players(args.players)
    except ValueError as exc:
        ap.error(str(exc))
    for bot in (args.bot, args.opponent):
        if bot not in _CODES:
            ap.error(f"unknown bot {bot!r} (one of {', '.join(_CODES)})")
    if args.engine == "fast" and args.opponent == "master" and args.players > 1:
        ap.error("the fast engine plays one master seat: --engine exact for more")
    if args.engine == "exact" and args.search == "tree":
        ap.error("the exact engine plays the registered master bot: no --search tree")
    if args.peek is not None and not 0 <= args.peek <= 100:
        ap.error("--peek is a share of the asks in 100: 0 to 100")
    if args.peek is not None and args.omni:
        ap.error("--peek and --omni are two ways of showing the hands: give one")
    if args.engine == "exact" and (args.omni or args.peek is not None):
        ap.error("the exact engine plays the master bot from its view only: no --omni or --peek")


def main() -> None:
    """Run the study and print its report (a table, then one JSON line)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--budget", type=int, help="rollouts a decision (default: the bot's)")
    ap.add_argument("--omni", type=int, default=0, choices=(0, 1, 2, 3))
    ap.add_argument("--peek", type=int, help="the true hands at this many of 100 asks")
    ap.add_argument("--engine", default="fast", choices=("fast", "exact"))
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--bot", default="master", help="seat 0's bot (master; memory as a check)")
    ap.add_argument("--opponent", default="memory")
    ap.add_argument("--search", default="flat", choices=("flat", "tree"))
    ap.add_argument("--explore", type=float, default=0.7, help="the tree search's UCB1 constant")
    args = ap.parse_args()
    _check(ap, args)
    omni = args.omni if args.peek is None else _module("fast.master").PEEK + args.peek
    if args.budget is None:
        args.budget = _module("fast.master_bot").MasterBot.BUDGET
    seats = [args.bot] + [args.opponent] * (args.players - 1)
    seeds = derive_seeds(args.seed, "master-study", 0, args.games)
    dealers = [i % args.players for i in range(args.games)]
    jobs = [
        (
            seeds[i : i + CHUNK],
            dealers[i : i + CHUNK],
            seats,
            args.budget,
            omni,
            1 if args.search == "tree" else 0,
            args.explore,
        )
        for i in range(0, args.games, CHUNK)
    ]
    run = _fast_chunk if args.engine == "fast" else _exact_chunk
    total: dict[str, Any] = {}
    console = Console(stderr=True)
    wall = time.perf_counter()
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[rate]}"), TimeRemainingColumn())  # fmt: skip
    with Progress(*columns, console=console) as progress:
        task = progress.add_task(f"{seats[0]} vs {args.opponent}", total=args.games, rate="")
        pool = ProcessPoolExecutor(args.workers) if args.workers > 1 else None
        results = pool.map(run, jobs) if pool else map(run, jobs)
        for job, res in zip(jobs, results, strict=True):
            for k, v in res.items():
                total[k] = max(total.get(k, 0.0), v) if k == "longest" else total.get(k, 0) + v
            done = progress.tasks[0].completed + len(job[0])
            rate = f"{total['wins'] / done:.1%} won"
            progress.update(task, advance=len(job[0]), rate=rate)
        if pool:
            pool.shutdown()
    games = args.games
    low, high = wilson(total["wins"], games)
    per = total["cpu"] / max(1, total["decisions"]) * 1000
    report = {
        "engine": args.engine,
        "players": args.players,
        "seat0": seats[0],
        "opponent": args.opponent,
        "budget": args.budget,
        "omni": args.omni,
        "peek": args.peek,
        "search": args.search,
        "explore": args.explore if args.search == "tree" else None,
        "games": games,
        "wins": total["wins"],
        "win_rate": total["wins"] / games,
        "wilson95": [low, high],
        "fair_share": 1 / args.players,
        "ties": total["ties"],
        "turn_limit": total["cut"],
        "ended_by_count": total["by_count"],
        "wins_by_count": total["wins_by_count"],
        "turns_per_game": total["turns"] / games,
        "searched_decisions": total["decisions"],
        "rollouts_per_decision": total["rollouts"] / max(1, total["decisions"]),
        "ms_per_decision_cpu": per,
        "wall_s": time.perf_counter() - wall,
        "workers": args.workers,
        "cpus": os.cpu_count(),
    }
    if "longest" in total:
        report["longest_decision_ms"] = total["longest"] * 1000
    console.print(
        f"{seats[0]} (seat 0) against {args.players - 1} x {args.opponent}, {games} games: "
        f"won {report['win_rate']:.1%} ({low:.1%}-{high:.1%}), fair share "
        f"{1 / args.players:.0%}; {total['ties']} ties, {total['cut']} cut off at {LIMIT} turns; "
        f"{per:.1f} ms of CPU per searched decision ({report['rollouts_per_decision']:.0f} "
        "rollouts)"
    )
    print(json.dumps(report))


if __name__ == "__main__":
    main()
