"""The bots of this package: a reaction-time model (a :class:`Level`) and a :class:`Strategy`.

The bot sees only its :class:`~blink.games.classic.engine.PlayerView`. It remembers what it has
already
looked at: which (hand card, pile) pairs it has compared with the current tops, and the cards
seen face up so far. When the view changes it only searches what is new (a pile whose top
changed, a new hand card), so the time it takes depends on what changed. A play it planned
on a pile whose top has changed is dropped and re-judged; a plan the change did not touch keeps
its due time.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from functools import partial

from blink.cards import Card
from blink.games.classic.bots.base import Intent
from blink.games.classic.bots.reaction import Level
from blink.games.classic.bots.strategies import Knowledge, Strategy
from blink.games.classic.bots.tables import (
    BIT,
    CMP,
    COLOR_MASK,
    DECK_MASK,
    MATCH_MASK,
    NO_MATCH,
    SHAPE_ONLY_MASK,
)
from blink.games.classic.engine import Choose, Phase, Play, PlayerView, reach

__all__ = ["HumanBot"]

# Value objects built without their Python-level constructors (hot path; same values).
_play: Callable[[tuple[int, Card, int]], Play] = partial(tuple.__new__, Play)
_intent: Callable[[tuple[Play | Choose, float]], Intent] = partial(tuple.__new__, Intent)
_knowledge: Callable[[tuple[object, ...]], Knowledge] = partial(tuple.__new__, Knowledge)

_PLAYING = Phase.PLAYING
_CHOOSING = Phase.CHOOSING


class HumanBot:
    """A bot that plays like a person of a given :class:`Level` with a given :class:`Strategy`.

    The strategy says how the bot searches (``strategy.exhaustive``) and chooses among the
    legal plays it found and the cards of a choosing stall (``strategy.pick_play``,
    ``strategy.pick_choice``); the bot asks it only when there is a choice to make.
    Deterministic for a given ``seed`` and sequence of ``(view, now)`` calls.
    """

    __slots__ = (
        "_chk",
        "_due",
        "_exhaustive",
        "_hand_bits",
        "_ktop",
        "_lens",
        "_ok",
        "_phase",
        "_plan",
        "_reach",
        "_reaches",
        "_seen",
        "_stall",
        "_view",
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
        self._exhaustive = strategy.exhaustive
        self._seen = 0
        self._stall = -1
        self._lens: list[int] = []
        self._phase: Phase | None = None
        self._reach: tuple[int, int] = (0, 0)
        self._reaches: tuple[tuple[int, int], ...] = ()
        # Per pile: the top the bot last compared its hand with, and the sets (bit masks by
        # card index) of hand cards already compared with it and found to match.
        self._ktop: list[Card | None] = []
        self._chk: list[int] = []
        self._ok: list[int] = []
        self._plan: Play | Choose | None = None
        self._due = 0.0
        # The view of the decision at hand (and its hand as a bit set, if known), for the
        # strategy's ``know`` (the bound method ``_knowledge_now``: a blind pick never builds
        # the knowledge).
        self._view: PlayerView | None = None
        self._hand_bits: int | None = None

    def __repr__(self) -> str:
        return f"HumanBot(seat={self.seat}, {self.level.name}:{self.strategy.name})"

    @property
    def pending(self) -> tuple[Play | Choose, float] | None:
        """The current plan and its due time on the driver's clock, if any."""
        return None if self._plan is None else (self._plan, self._due)

    def reset(self) -> None:
        """Forget plans and comparisons (for example after an action was refused)."""
        self._plan = None
        n = len(self._ktop)
        self._ktop = [None] * n
        self._chk = [0] * n
        self._ok = [0] * n

    def plan(self, view: PlayerView, now: float | None = None) -> Intent | None:
        """React to ``view`` seen at time ``now`` (seconds; default the monotonic clock)."""
        if now is None:
            now = time.monotonic()
        phase = view.phase
        plan = self._plan
        # Fast path: the planned pile is untouched, so the plan stands (the memory of seen cards
        # catches up from the piles at the next real decision).
        if (
            phase is _PLAYING
            and phase is self._phase
            and type(plan) is Play
            and view.tops[plan.pile] is self._ktop[plan.pile]
            and plan.card in view.hand
        ):
            due = self._due - now
            return _intent((plan, due if due > 0.0 else 0.0))
        if len(self._lens) != len(view.piles):
            self._observe(view)
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
            players = view.players
            lens[:] = [0] * len(piles)
            self._reach = reach(players, self.seat)
            self._reaches = tuple(reach(players, s) for s in range(players))
            self._ktop = [None] * players
            self._chk = [0] * players
            self._ok = [0] * players

    def knowledge(self, view: PlayerView) -> Knowledge:
        """What the bot knows in ``view`` (its memory of seen cards included)."""
        self._view = view
        self._hand_bits = None
        return self._knowledge_now()

    def _knowledge_now(self) -> Knowledge:
        """What the bot knows in the view of its latest decision (the strategies' ``know``).

        The memory of seen cards is brought up to date here, only when a decision uses it: the
        face-up piles only grow during a game, so the view at hand holds every card shown in
        the views skipped since the last catch-up.
        """
        view = self._view
        if view is None:
            raise RuntimeError("the bot has seen no view yet")
        lens = self._lens
        piles = view.piles
        if len(lens) != len(piles):
            self._observe(view)
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
        hand_bits = self._hand_bits
        if hand_bits is None:
            hand_bits = sum(c._bit for c in view.hand)
        return _knowledge(
            (
                self.seat,
                view.players,
                view.hand,
                view.tops,
                DECK_MASK & ~(seen | hand_bits),
                view.hand_counts,
                self._reaches,
            )
        )

    # -- playing ----------------------------------------------------------------------------

    def _plan_play(self, view: PlayerView, now: float) -> Intent | None:
        tops = view.tops
        ktop = self._ktop
        plan = self._plan
        if plan is not None:
            if type(plan) is Play and tops[plan.pile] is ktop[plan.pile] and plan.card in view.hand:
                due = self._due - now
                return _intent((plan, due if due > 0.0 else 0.0))
            self._plan = None
        a, b = self._reach
        ta = tops[a]
        tb = tops[b]
        if ta is None or tb is None:
            return None
        # A pile whose top changed: nothing compared with it yet.
        if ta is not ktop[a]:
            ktop[a] = ta
            self._chk[a] = self._ok[a] = 0
        if tb is not ktop[b]:
            ktop[b] = tb
            self._chk[b] = self._ok[b] = 0
        if self._exhaustive:
            found = self._search_all(view, a, b, ta, tb)
        else:
            found = self._search_first(view.hand, a, b, ta, tb)
        if found is None:
            return None
        choice, delay = found
        self._plan = choice
        self._due = now + delay
        return _intent((choice, delay))

    def _search_first(
        self, hand: tuple[Card, ...], a: int, b: int, ta: Card, tb: Card
    ) -> tuple[Play, float] | None:
        """A self-terminating search: a match already seen, or the new (card, pile) pairs in
        random order until one matches; the play and its reaction time, if any."""
        chk = self._chk
        ok = self._ok
        ca, cb = chk[a], chk[b]
        oa, ob = ok[a], ok[b]
        rng = self.rng
        seat = self.seat
        comparisons = 0
        found: Play | None = None
        if oa or ob:
            for c in hand:
                if oa >> c.index & 1:
                    found = _play((seat, c, a))
                    break
                if ob >> c.index & 1:
                    found = _play((seat, c, b))
                    break
        fresh = [(c, a) for c in hand if not ca >> c.index & 1]
        fresh += [(c, b) for c in hand if not cb >> c.index & 1]
        if found is None and fresh:
            if len(fresh) > 1:
                rng.shuffle(fresh)
            row_a = CMP[ta.index]
            row_b = CMP[tb.index]
            for c, p in fresh:
                i = c.index
                v = (row_a if p == a else row_b)[i]
                chk[p] |= BIT[i]
                if v == NO_MATCH:
                    comparisons += 3
                else:
                    comparisons += v
                    ok[p] |= BIT[i]
                    found = _play((seat, c, p))
                    break
        if found is None:
            return None
        return found, self.level.sample(rng, comparisons)

    def _search_all(
        self, view: PlayerView, a: int, b: int, ta: Card, tb: Card
    ) -> tuple[Play, float] | None:
        """An exhaustive search of the hand cards not yet compared with each top, then the
        strategy's pick among the legal plays; the play and its reaction time, if any.

        By bit sets: a card of the top's colour takes 1 comparison, of its shape only 2, any
        other 3.
        """
        chk = self._chk
        ok = self._ok
        ca, cb = chk[a], chk[b]
        oa, ob = ok[a], ok[b]
        hand = view.hand
        seat = self.seat
        comparisons = 0
        hm = 0
        for c in hand:
            hm |= c._bit
        new = hm & ~ca
        if new:
            i = ta.index
            comparisons += (
                3 * new.bit_count()
                - 2 * (new & COLOR_MASK[i]).bit_count()
                - (new & SHAPE_ONLY_MASK[i]).bit_count()
            )
            oa |= new & MATCH_MASK[i]
            chk[a] = ca | new
            ok[a] = oa
        new = hm & ~cb
        if new:
            i = tb.index
            comparisons += (
                3 * new.bit_count()
                - 2 * (new & COLOR_MASK[i]).bit_count()
                - (new & SHAPE_ONLY_MASK[i]).bit_count()
            )
            ob |= new & MATCH_MASK[i]
            chk[b] = cb | new
            ok[b] = ob
        if not (oa or ob):
            return None
        legal = [_play((seat, c, a)) for c in hand if oa & c._bit] if oa else []
        if ob:
            legal += [_play((seat, c, b)) for c in hand if ob & c._bit]
        if not legal:
            return None
        rng = self.rng
        if len(legal) == 1:
            choice = legal[0]
        else:
            self._view = view
            self._hand_bits = hm
            choice = self.strategy.pick_play(legal, self._knowledge_now, rng)
        return choice, self.level.sample(rng, comparisons, len(legal))

    # -- stalls -----------------------------------------------------------------------------

    def _plan_choice(self, view: PlayerView, now: float) -> Intent | None:
        hand = view.hand
        if view.my_choice is not None or not hand or view.chosen[self.seat]:
            self._plan = None
            return None
        plan = self._plan
        # A new stall right after a placement is a new decision (the piles grew meanwhile).
        key = sum(len(p) for p in view.piles)
        if isinstance(plan, Choose) and plan.card in hand and self._stall == key:
            due = self._due - now
            return _intent((plan, due if due > 0.0 else 0.0))
        self._stall = key
        if len(hand) == 1:
            card = hand[0]
        else:
            self._view = view
            self._hand_bits = None
            card = self.strategy.pick_choice(hand, self._knowledge_now, self.rng)
        options = len(hand) if self.strategy.exhaustive else 1
        delay = self.level.sample(self.rng, 3 * len(hand), options)
        action = Choose(self.seat, card)
        self._plan = action
        self._due = now + delay
        return _intent((action, delay))
