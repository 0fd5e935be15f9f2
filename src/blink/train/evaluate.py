"""Win rates of a policy against a game's bots, with 95% Wilson score intervals.

The policy plays its most likely legal action (no sampling); the deals come from the
evaluation's seed, so the same policy, bot, seed and number of games give the same result.
A uniformly random legal policy can be measured the same way, as a baseline.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import torch

from blink.envs.single import Observation
from blink.sim.statistics import wilson
from blink.train.policy import MaskedPolicy, PolicyInfo, legal_batch
from blink.train.setup import TrainError, get_setup, make_env

__all__ = ["EvalResult", "evaluate", "wilson"]

Chooser = Callable[[Observation], int]
"""Picks an action index from an observation."""


@dataclass(frozen=True)
class EvalResult:
    """The games played against one bot: wins, ties (shared results), losses, and games cut
    off at the environment's step limit."""

    bot: str
    games: int
    wins: int
    ties: int
    truncated: int

    @property
    def rate(self) -> float:
        """The share of games won."""
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of the win rate."""
        return wilson(self.wins, self.games)

    def line(self) -> str:
        """One line: the bot, the win rate and its interval, the counts."""
        low, high = self.interval
        return (
            f"against {self.bot}: won {self.wins} of {self.games} ({self.rate:.1%}, "
            f"95% CI {low:.1%} to {high:.1%}), {self.ties} tied, {self.truncated} cut off"
        )


def greedy_chooser(policy: MaskedPolicy) -> Chooser:
    """The policy's most likely legal action."""

    def choose(obs: Observation) -> int:
        legal_idx = np.flatnonzero(obs["action_mask"])
        legal, valid = legal_batch([legal_idx])
        with torch.no_grad():
            logits, _ = policy(torch.from_numpy(obs["observation"][None, :]), legal, valid)
        return int(legal_idx[int(logits[0].argmax())])

    return choose


def random_chooser(seed: int) -> Chooser:
    """A uniformly random legal action (from its own seeded generator)."""
    rng = np.random.default_rng(seed)

    def choose(obs: Observation) -> int:
        return int(rng.choice(np.flatnonzero(obs["action_mask"])))

    return choose


def evaluate(
    info: PolicyInfo,
    choose: Chooser,
    bot: str,
    games: int,
    *,
    seed: int = 0,
    on_game: Callable[[], None] | None = None,
) -> EvalResult:
    """Play ``games`` games of ``info``'s game and environment against ``bot``."""
    if games < 1:
        raise TrainError("bad_games", f"evaluate over at least one game, not {games}")
    setup = replace(get_setup(info.game), env_options=info.env_options)
    env = make_env(setup, bot)
    wins = ties = truncated = 0
    obs, _ = env.reset(seed=seed)
    for _ in range(games):
        while True:
            obs, reward, over, cut, _ = env.step(np.int64(choose(obs)))
            if over or cut:
                break
        wins += float(reward) > 0
        ties += over and float(reward) == 0
        truncated += cut
        if on_game is not None:
            on_game()
        obs, _ = env.reset()
    return EvalResult(bot, games, wins, ties, truncated)
