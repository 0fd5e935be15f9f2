"""The master bot: a Go Blink player that searches, from its seat's view, over deals of the
cards it cannot see (:mod:`blink.games.goblink.fast.master`, compiled with numba).

It is registered among the bots as ``master`` (:data:`blink.games.goblink.bots.GOBOTS`, which
imports this module when the first one is made; docs/strategy.md, "Go Blink: a master bot").
It lives beside its compiled search, in the fast engine; ``benchmarks/master_study.py`` and
the tests play it.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from blink.games.goblink.actions import GoAction
from blink.games.goblink.fast.master import choose, standard
from blink.games.goblink.view import GoView

__all__ = ["MasterBot", "warm"]


class MasterBot:
    """Plays each candidate action out to the end on deals consistent with what it has seen.

    At every choice between two or more actions (after the opening, unless its hand splits into
    matches, which it lays at once) it deals the cards it cannot see in ways that agree with
    everything its seat has seen (the remembering bot's memory of the log: cards it knows each
    opponent holds, values each surely holds or lacks, the hand sizes), plays each legal action
    out to the end of the game on each deal with every seat playing the remembering bot, and
    takes the action that won most often; sequential halving spends :attr:`BUDGET` rollouts,
    more of them on the better half, round after round. The search is compiled
    (:mod:`blink.games.goblink.fast.master`, numba), loaded on first use.

    Registered in :data:`~blink.games.goblink.bots.GOBOTS` as ``master`` (docs/strategy.md,
    "Go Blink: a master bot").
    """

    name = "master"
    description = (
        "deals the unseen cards consistently with what it has seen and plays every choice out "
        "to the end of the game; takes what wins most often"
    )

    BUDGET: int = 1000
    """Rollouts (games played to the end) per searched decision."""

    def __init__(
        self, seat: int, seed: int = 0, fallback: Callable[[GoView], GoAction] | None = None
    ) -> None:
        """A master bot for ``seat`` seeded by ``seed``. Its search knows the standard deck
        only: in a game dealt from another deck it plays ``fallback``'s action (the registered
        bot's is the remembering bot's), and without one raises :class:`ValueError`."""
        self.seat = seat
        self.fallback = fallback
        self.rng = random.Random(seed)
        self.rollouts = 0
        """Rollouts run so far (for studies of its speed)."""
        self.searched = 0
        """Decisions searched so far."""

    def act(self, view: GoView) -> GoAction:
        """The action that won most often in the rollouts (or the only legal one)."""
        seat = self.seat
        key = self.rng.getrandbits(64)
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if not standard(view):
            if self.fallback is None:
                raise ValueError("the master bot plays games dealt from the standard deck only")
            return self.fallback(view)
        action, used = choose(view, seat, key, self.BUDGET)
        if used:
            self.searched += 1
            self.rollouts += used
        return action


def warm() -> None:
    """Load the compiled search (from numba's disk cache, or compile it on a machine whose cache
    is empty: about half a minute once) by searching one decision of a heads-up deal with a
    handful of rollouts, so that a live table's first searched decision does not wait for it.
    The server calls it in a worker thread when it starts (``Settings.warm_bots``)."""
    from blink.games.goblink.engine import GoGame  # the engine, as the tests' games use it

    game = GoGame.new(2, seed=1)
    while not game.over:
        seat = game.current
        if seat is None:
            return
        view = game.view(seat)
        legal = view.legal_actions()
        if len(legal) > 1 and standard(view):
            choose(view, seat, 1, 8)
            return
        game.apply(legal[0])
