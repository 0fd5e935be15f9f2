"""A simulator for any registered game: agents and the referee race in virtual time.

Every agent is asked, from its own view and its legal actions, what it would do and after how
long. The earliest answer is applied (equal times are broken by the game's random generator),
unless the referee's deadline comes first: then what the game does by itself is applied (a
reveal, a flip, default choices, a turn's default action). The clock jumps; nobody sleeps.

It knows nothing of any game: it works through a :class:`~blink.model.base.GameDefinition`,
so a new game runs here without a change. The classic simulator
(:mod:`blink.games.classic.sim.core`) is the
same loop with classic's bots and statistics.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from blink.model.base import GameDefinition, Outcome, RefereeClock, Timings

__all__ = ["Agent", "RandomAgent", "Run", "Stuck", "play_out"]


class Stuck(RuntimeError):
    """No agent would act and the referee has nothing pending: the game cannot go on."""


class Agent(Protocol):
    """Anything that answers a view and its legal actions with an action and a delay."""

    def act(self, view: Any, legal: Sequence[Any], now: float) -> tuple[Any, float] | None:
        """The action to take and the seconds to wait first (``None``: wait for a change)."""
        ...


@dataclass
class RandomAgent:
    """Picks a legal action uniformly at random after a random delay in ``delay`` seconds."""

    rng: random.Random
    delay: tuple[float, float] = (0.05, 0.9)

    def act(self, view: Any, legal: Sequence[Any], now: float) -> tuple[Any, float] | None:
        """A random legal action."""
        if not legal:
            return None
        return self.rng.choice(list(legal)), self.rng.uniform(*self.delay)


@dataclass
class Run:
    """One finished game of :func:`play_out`."""

    state: Any
    outcome: Outcome | None
    actions: int
    referee_actions: int
    duration: float


def play_out(
    definition: GameDefinition[Any, Any, Any, Any],
    state: Any,
    agents: Mapping[int, Agent],
    *,
    rng: random.Random,
    timings: Timings | None = None,
    max_actions: int = 100_000,
) -> Run:
    """Play ``state`` to its end with ``agents`` (seat -> agent) and the referee.

    Seats without an agent never act; the referee acts for them when their time runs out.
    Raises :class:`Stuck` when nothing can happen, ``RuntimeError`` past ``max_actions``.
    """
    referee = RefereeClock(definition, timings or definition.info.timings)
    now = 0.0
    taken = by_referee = 0
    while not state.over:
        if taken + by_referee >= max_actions:
            raise RuntimeError(f"the game did not end within {max_actions} actions")
        pending = referee.update(state, now)
        best: tuple[float, float, Any] | None = None
        for seat, agent in agents.items():
            legal = definition.legal_actions(state, seat)
            if not legal:
                continue
            plan = agent.act(definition.view(state, seat), legal, now)
            if plan is None:
                continue
            action, delay = plan
            candidate = (now + max(0.0, delay), rng.random(), action)
            if best is None or candidate[:2] < best[:2]:
                best = candidate
        deadline = referee.deadline
        if pending is not None and deadline is not None and (best is None or deadline <= best[0]):
            now = max(now, deadline)
            for _, action in pending.actions:
                definition.apply(state, action, round(now * 1000))
                by_referee += 1
                if state.over:
                    break
            continue
        if best is None:
            raise Stuck("no player can act and the game does nothing by itself")
        now = best[0]
        definition.apply(state, best[2], round(now * 1000))
        taken += 1
    return Run(state, state.outcome, taken, by_referee, now)
