"""The bots of this package: a reaction-time model (a :class:`Level`) and a :class:`Strategy`.

The bot sees only its :class:`~blink.classic.PlayerView`. It remembers what it has already
looked at: which (hand card, pile) pairs it has compared with the current tops, and the cards
seen face up so far. When the view changes it only searches what is new (a pile whose top
changed, a new hand card), so the time it takes depends on what changed. A play it planned
on a pile whose top has changed is dropped and re-judged; a plan the change did not touch keeps
its due time.
"""

from __future__ import annotations

import random
import time

from blink.bots.base import Intent
from blink.bots.reaction import Level
from blink.bots.strategies import Knowledge, Strategy
from blink.bots.tables import BIT, CMP, DECK_MASK, NO_MATCH, hand_mask
from blink.cards import Card
from blink.classic import Choose, Phase, Play, PlayerView, reach

__all__ = ["HumanBot"]

_PLAYING = Phase.PLAYING
_CHOOSING = Phase.CHOOSING


class HumanBot:
    """A bot that plays like a person of a given :class:`Level` with a given :class:`Strategy`.

    Deterministic for a given ``seed`` and sequence of ``(view, now)`` calls.
    """

    __slots__ = (
        "_checked",
        "_due",
        "_lens",
        "_phase",
        "_plan",
        "_seen",
        "_tops",
        "level",
        "rng",
        "seat",
        "seed",
        "strategy",
    )

    def __init__(self, seat: int, level: Level, strategy: Strategy, seed: int) -> None:
        self.seat = seat
        self.level = level
        self.strategy = strategy
        self.seed = seed
        self.rng = random.Random(seed)
        self._seen = 0
        self._lens: list[int] = []
        self._phase: Phase | None = None
        self._tops: tuple[Card | None, ...] = ()
        self._checked: dict[tuple[Card, int], bool] = {}
        self._plan: Play | Choose | None = None
        self._due = 0.0

    def __repr__(self) -> str:
        return f"HumanBot(seat={self.seat}, {self.level.name}:{self.strategy.name})"

    @property
    def pending(self) -> tuple[Play | Choose, float] | None:
        """The current plan and its due time on the driver's clock, if any."""
        return None if self._plan is None else (self._plan, self._due)

    def reset(self) -> None:
        """Forget plans and comparisons (for example after an action was refused)."""
        self._plan = None
        self._checked = {}
        self._tops = ()

    def plan(self, view: PlayerView, now: float | None = None) -> Intent | None:
        """React to ``view`` seen at time ``now`` (seconds; default the monotonic clock)."""
        if now is None:
            now = time.monotonic()
        self._observe(view)
        phase = view.phase
        if phase is not self._phase:
            self._phase = phase
            self.reset()
        if phase is _PLAYING:
            return self._plan_play(view, now)
        if phase is _CHOOSING:
            return self._plan_choice(view, now)
        return None

    # -- memory -----------------------------------------------------------------------------

    def _observe(self, view: PlayerView) -> None:
        lens = self._lens
        piles = view.piles
        if len(lens) != len(piles):
            lens[:] = [0] * len(piles)
        seen = self._seen
        for i, pile in enumerate(piles):
            n = len(pile)
            old = lens[i]
            if n != old:
                if n < old:
                    old = 0
                for c in pile[old:]:
                    seen |= BIT[c.index]
                lens[i] = n
        self._seen = seen

    def _knowledge(self, view: PlayerView) -> Knowledge:
        players = view.players
        return Knowledge(
            self.seat,
            players,
            view.hand,
            view.tops,
            DECK_MASK & ~(self._seen | hand_mask(view.hand)),
            view.hand_counts,
            tuple(reach(players, s) for s in range(players)),
        )

    # -- playing ----------------------------------------------------------------------------

    def _plan_play(self, view: PlayerView, now: float) -> Intent | None:
        tops = view.tops
        hand = view.hand
        plan = self._plan
        old_tops = self._tops
        if plan is not None:
            pile = plan.pile  # type: ignore[union-attr]
            if old_tops and tops[pile] is old_tops[pile] and plan.card in hand:
                due = self._due - now
                return Intent(plan, due if due > 0.0 else 0.0)
            self._plan = None
        checked = self._checked
        a, b = view.reach
        # Forget comparisons against tops that changed and cards that left the hand.
        if checked:
            if not old_tops:
                checked = {}
            else:
                ok_a = tops[a] is old_tops[a]
                ok_b = tops[b] is old_tops[b]
                if not (ok_a and ok_b) or len(checked) > 2 * len(hand):
                    checked = {
                        key: v
                        for key, v in checked.items()
                        if key[0] in hand and (ok_a if key[1] == a else ok_b)
                    }
        self._tops = tops
        fresh = [(c, p) for p in (a, b) for c in hand if (c, p) not in checked]
        rng = self.rng
        comparisons = 0
        ta = tops[a]
        tb = tops[b]
        if ta is None or tb is None:
            self._checked = checked
            return None
        row_a = CMP[ta.index]
        row_b = CMP[tb.index]
        if not self.strategy.exhaustive:
            found: Play | None = None
            for key, legal in checked.items():
                if legal:
                    found = Play(self.seat, key[0], key[1])
                    break
            if found is None and fresh:
                if len(fresh) > 1:
                    rng.shuffle(fresh)
                for key in fresh:
                    c, p = key
                    v = (row_a if p == a else row_b)[c.index]
                    if v == NO_MATCH:
                        comparisons += 3
                        checked[key] = False
                    else:
                        comparisons += v
                        checked[key] = True
                        found = Play(self.seat, c, p)
                        break
            self._checked = checked
            if found is None:
                return None
            delay = self.level.sample(rng, comparisons)
            self._plan = found
            self._due = now + delay
            return Intent(found, delay)
        for key in fresh:
            c, p = key
            v = (row_a if p == a else row_b)[c.index]
            if v == NO_MATCH:
                comparisons += 3
                checked[key] = False
            else:
                comparisons += v
                checked[key] = True
        self._checked = checked
        legal = [Play(self.seat, key[0], key[1]) for key, ok in checked.items() if ok]
        if not legal:
            return None
        choice = self.strategy.pick_play(self._knowledge(view), legal, rng)
        delay = self.level.sample(rng, comparisons, len(legal))
        self._plan = choice
        self._due = now + delay
        return Intent(choice, delay)

    # -- stalls -----------------------------------------------------------------------------

    def _plan_choice(self, view: PlayerView, now: float) -> Intent | None:
        hand = view.hand
        if view.my_choice is not None or not hand or view.chosen[self.seat]:
            self._plan = None
            return None
        plan = self._plan
        if isinstance(plan, Choose) and plan.card in hand:
            due = self._due - now
            return Intent(plan, due if due > 0.0 else 0.0)
        card = self.strategy.pick_choice(self._knowledge(view), self.rng)
        options = len(hand) if self.strategy.exhaustive else 1
        delay = self.level.sample(self.rng, 3 * len(hand), options)
        action = Choose(self.seat, card)
        self._plan = action
        self._due = now + delay
        return Intent(action, delay)
