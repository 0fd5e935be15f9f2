"""What network lag does to the win rate, with and without the server's lag allowance.

Two bots of the same level race in the simulator; each seat has a one-way lag. A seat with
one-way lag ``L`` sees every change ``L`` late and its play reaches the server ``L`` after it
is made, so each of its actions comes ``2 L`` later than its reaction time alone. With the
allowance (:class:`blink.server.lag.AllowanceRule`, a room's ``lag_allowance_ms``), a play
counts as made ``c = min(L, cap, quota)`` earlier, the quota spent by what it is given and
refilled over time, as the server does. Plays are applied at the moment they count as made
(the server applies them up to the cap later, in that order: the order is the same).

    python benchmarks/lag_study.py --games 2000 --lags 20,150 --caps 0,100,250

Not modelled: a lagging player's play made from a view already out of date (the simulator's
bots plan again after every change), and the jitter of a real link. See docs/strategy.md.
"""

from __future__ import annotations

import argparse
import inspect
import json
from typing import Any

from blink.games.classic.bots import BotSpec, Intent
from blink.games.classic.engine import ClassicGame, Play, PlayerView
from blink.games.classic.sim.core import play_game
from blink.server.lag import AllowanceRule
from blink.sim.seeds import derive_seed
from blink.sim.statistics import wilson


class Lagged:
    """A bot behind a link of one-way lag ``one_way`` seconds, compensated by ``rule``."""

    def __init__(self, bot: Any, seat: int, one_way: float, rule: AllowanceRule | None) -> None:
        self.bot = bot
        self.seat = seat
        self.one_way = one_way
        self.rule = rule
        self.quota = 0.0 if rule is None else rule.quota_max
        self.quota_at = 0.0
        self.given = 0.0
        self.left: int | None = None
        self.timed = "now" in inspect.signature(bot.plan).parameters

    def _quota(self, now: float) -> float:
        rule = self.rule
        if rule is None:
            return 0.0
        return min(rule.quota_max, self.quota + rule.refill * (now - self.quota_at))

    def plan(self, view: PlayerView, now: float) -> Intent | None:
        """The bot's intent, later by the round trip, earlier by the compensation."""
        left = len(view.hand) + view.draw_counts[self.seat]
        if self.left is not None and left < self.left and self.rule is not None:
            self.quota = self._quota(now) - self.given  # our last play was applied
            self.quota_at = now
        self.left = left
        intent = self.bot.plan(view, now) if self.timed else self.bot.plan(view)
        if intent is None:
            return None
        comp = 0.0
        if self.rule is not None and type(intent.action) is Play:
            comp = min(self.one_way, self.rule.cap, max(0.0, self._quota(now)))
        self.given = comp
        return Intent(intent.action, max(0.0, intent.delay + 2 * self.one_way - comp))


def run(
    level: str, lags: tuple[float, float], cap_ms: int, games: int, seed: int
) -> dict[str, Any]:
    """``games`` games of ``level`` against itself, seat ``i`` behind ``lags[i]`` seconds."""
    rule = AllowanceRule.of({"lag_allowance_ms": cap_ms})
    spec = BotSpec.parse(level)
    wins = [0, 0]
    ties = 0
    for n in range(games):
        game_seed = derive_seed(seed, "game", n)
        # Each deal is played twice, the seats swapped, so that the deal favours nobody.
        for swap in (False, True):
            order = (1, 0) if swap else (0, 1)
            bots = [
                Lagged(spec.build(s, derive_seed(game_seed, "bot", s)), s, lags[order[s]], rule)
                for s in range(2)
            ]
            game = ClassicGame.new(2, derive_seed(game_seed, "deck"))
            result = play_game(game, bots, game_seed, keep_game=False)
            if result.winner is None:
                ties += 1
            else:
                wins[order[result.winner]] += 1
    total = 2 * games
    low, high = wilson(wins[1], total)
    return {
        "lags_ms": [round(x * 1000) for x in lags],
        "cap_ms": cap_ms,
        "games": total,
        "lagging_wins": wins[1] / total,
        "ci95": [low, high],
        "ties": ties,
    }


def main() -> None:
    """Print one JSON line per allowance cap."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=500, help="deals (each played twice)")
    p.add_argument("--level", default="expert:first")
    p.add_argument("--lags", default="20,150", help="one-way lags of the two seats, ms")
    p.add_argument("--caps", default="0,100,250", help="allowance caps to try, ms (0: off)")
    p.add_argument("--seed", type=int, default=17)
    a = p.parse_args()
    low, high = (int(x) / 1000 for x in a.lags.split(","))
    for cap in (int(c) for c in a.caps.split(",")):
        print(json.dumps(run(a.level, (low, high), cap, a.games, a.seed)), flush=True)


if __name__ == "__main__":
    main()
