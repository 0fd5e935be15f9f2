"""The batch simulator: thousands of bot games at once, as numpy arrays, in virtual time.

:mod:`blink.games.classic.sim.core` plays one game at a time through the rules engine and the bots'
Python
objects: exact, and the same code the server and the terminal client run, but a few hundred
games per second per core. This module plays the same kind of games in lock-step over a whole
batch: every game's state (hands, draw piles, tops, phase, clock) and every bot's state (its plan,
due time, and what it has already compared) are array columns, and one step applies the next
action of every game in the batch.

It is a second implementation of the classic rules and of
:class:`~blink.games.classic.bots.human.HumanBot` (its reaction-time model, its incremental
search, its re-judging of plans, and each strategy's choices in the vector form
:data:`VECTOR_FORMS` holds for it), written for speed and checked against the originals: every
batch game can be turned into a :class:`~blink.games.classic.record.GameRecord` by replaying
its actions through :class:`~blink.games.classic.engine.ClassicGame` (:func:`simulate_batch`
with ``records=True``; the tests replay thousands of games and compare outcomes), and its
statistics are compared with :mod:`blink.games.classic.sim.core`'s. Its random numbers come from a
counter-based generator keyed by each game's seed, so a game's result depends only on its
seed, never on the batch it ran in; the deals and draws differ from
:mod:`blink.games.classic.sim.core`'s,
so the two give the same statistics, not the same games.

Scope: the standard 60-card deck, 2 or 3 players, any ruleset, handicaps, every level and
speed factor, every strategy with a vector form (:class:`~blink.games.classic.bots.BotSpec`;
another strategy is refused with :class:`NoVectorFormError`: the exact engine plays it),
:class:`~blink.games.classic.sim.core.SimConfig` timings.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from blink.cards import Card
from blink.games.classic.bots import BotConfigError, BotSpec, get_level, get_strategy
from blink.games.classic.bots.reaction import Level
from blink.games.classic.bots.strategies import BLOCKER, FIRST, FLEXIBLE, RANDOM, Strategy
from blink.games.classic.bots.tables import NO_MATCH
from blink.games.classic.definition import CLASSIC
from blink.games.classic.engine import Choose, ClassicGame, Flip, Outcome, Play, reach
from blink.games.classic.record import GameRecord
from blink.games.classic.rules import OFFICIAL, DeadEnd, Ruleset, deal_sizes
from blink.games.classic.sim.batch_tables import (
    _DECK_U64,
    _GOLD,
    _M64,
    _S11,
    _TWO53,
    _TWOPI,
    BIT,
    COLOR,
    COST,
    DECK,
    DECK_MASK,
    MATCH,
    N_CARDS,
    NONE,
    SHAPE_ONLY,
    VectorForm,
    _alike,
    _blocker_choice,
    _flexible_choice,
    _mix,
    _mix_int,
    _pc,
)
from blink.games.classic.sim.core import DEFAULT_CONFIG, GameResult, SimConfig
from blink.model.base import Termination
from blink.sim.seeds import derive_seed

__all__ = [
    "VECTOR_FORMS",
    "BatchGame",
    "NoVectorFormError",
    "VectorForm",
    "replay",
    "simulate_batch",
    "to_record",
]

Arr = npt.NDArray[Any]

# -- phases and reasons -----------------------------------------------------------------------

PLAYING, OVER = 0, 1
_REASONS = (Termination.OUT_OF_CARDS, Termination.STALL_PLACEMENT, Termination.FEWEST_CARDS)
OUT_OF_CARDS, STALL_PLACEMENT, FEWEST_CARDS = 0, 1, 2
# Action kinds in the log.
_PLAY, _FLIP, _CHOOSE = 0, 1, 2


class NoVectorFormError(BotConfigError):
    """A strategy the batch engine has no vector form for (the exact engine plays it)."""

    def __init__(self, strategy: Strategy) -> None:
        allowed = tuple(s.name for s in VECTOR_FORMS)
        super().__init__(
            f"the batch engine has no vector form of the {strategy.name!r} strategy: simulate "
            f"it with the exact engine (engine 'exact', --engine exact); the batch engine plays "
            f"{', '.join(allowed)}",
            "strategy",
            allowed,
        )
        self.reason = "no_vector_form"
        self.strategy = strategy
        """The strategy refused."""


class _Seat:
    """A seat's bot, as constants: its level's parameters, strategy and reachable piles."""

    def __init__(self, seat: int, players: int, spec: BotSpec) -> None:
        level: Level = get_level(spec.level).scaled(spec.speed)
        self.level = level
        strategy = get_strategy(spec.strategy)
        form = VECTOR_FORMS.get(strategy)
        if form is None:
            raise NoVectorFormError(strategy)
        self.form = form
        self.exhaustive = strategy.exhaustive
        self.reach = reach(players, seat)
        self.name = str(spec)


class BatchGame:
    """One finished batch game, enough to rebuild it with the rules engine."""

    __slots__ = ("_order", "actions", "result")

    def __init__(
        self,
        result: GameResult,
        order: Sequence[int],
        actions: list[tuple[Play | Flip | Choose, int]],
    ) -> None:
        self.result = result
        self._order = order
        self.actions = actions
        """Every action after the reveal with its time in ms (empty unless records were kept)."""

    @property
    def deck(self) -> tuple[Card, ...]:
        """The deal, top card first (the order :class:`~blink.games.classic.engine.ClassicGame`
        takes)."""
        return tuple(DECK[j] for j in self._order)


class _Batch:
    """The state of every game of a batch, one row per game."""

    def __init__(
        self,
        seeds: Sequence[int],
        specs: Sequence[BotSpec],
        ruleset: Ruleset,
        sizes: Sequence[int] | None,
        config: SimConfig,
        log: bool,
    ) -> None:
        players = len(specs)
        info = CLASSIC.info
        if not info.min_players <= players <= info.max_players:
            raise ValueError(f"classic Blink is for {info.player_range} players, not {players}")
        self.players = players
        self.seats = [_Seat(s, players, spec) for s, spec in enumerate(specs)]
        self.ruleset = ruleset
        self.sizes = deal_sizes(players, N_CARDS, sizes)
        self.config = config
        self.log = log
        self.seeds = list(seeds)
        g = len(self.seeds)
        h = ruleset.hand_size
        self.h = h
        key = np.array([derive_seed(s, "batch") for s in self.seeds], dtype=np.uint64)
        # The deal: the deck ordered by a random key per card.
        perm = np.argsort(
            _mix(key[:, None] + (np.arange(1, N_CARDS + 1, dtype=np.uint64) * _GOLD)), axis=1
        )
        self.perm = perm.astype(np.int64)
        self.key = _mix(key ^ np.uint64(0x5851F42D4C957F2D))
        self.ctr = np.zeros(g, dtype=np.uint64)
        dmax = max(1, max(n - 1 - h for n in self.sizes))
        self.hand = np.full((g, players, h), NONE, dtype=np.int64)
        self.draw = np.full((g, players, dmax), NONE, dtype=np.int64)
        self.dptr = np.zeros((g, players), dtype=np.int64)
        self.dleft = np.zeros((g, players), dtype=np.int64)
        self.hcount = np.zeros((g, players), dtype=np.int64)
        self.tops = np.zeros((g, players), dtype=np.int64)
        start = 0
        for p, n in enumerate(self.sizes):
            pile = self.perm[:, start : start + n]
            start += n
            held = min(h, n - 1)
            self.tops[:, p] = pile[:, 0]
            self.hand[:, p, :held] = pile[:, 1 : 1 + held]
            self.hcount[:, p] = held
            rest = n - 1 - held
            self.draw[:, p, :rest] = pile[:, 1 + held :]
            self.dleft[:, p] = rest
        self.hm = np.bitwise_or.reduce(BIT[self.hand], axis=2)
        self.shown = np.bitwise_or.reduce(BIT[self.tops], axis=1)
        self.phase = np.full(g, PLAYING, dtype=np.int64)
        self.now = np.zeros(g, dtype=np.float64)
        self.orig = np.arange(g)
        self.plays = np.zeros(g, dtype=np.int64)
        self.pbs = np.zeros((g, players), dtype=np.int64)
        self.stalls = np.zeros(g, dtype=np.int64)
        self.flips = np.zeros(g, dtype=np.int64)
        self.choices = np.zeros(g, dtype=np.int64)
        self.dead_ends = np.zeros(g, dtype=np.int64)
        self.defaults = np.zeros(g, dtype=np.int64)
        self.deficit = np.zeros((g, players), dtype=np.int64)
        self.winners = np.zeros(g, dtype=np.int64)
        self.reason = np.zeros(g, dtype=np.int64)
        # The bots: a plan (card, pile) due at a time, and per pile the top last compared with
        # and the hand cards already compared with it / found to match it.
        self.plan_card = np.full((g, players), NONE, dtype=np.int64)
        self.plan_pile = np.zeros((g, players), dtype=np.int64)
        self.due = np.full((g, players), np.inf)
        self.ktop = np.full((g, players, players), NONE, dtype=np.int64)
        self.chk = np.zeros((g, players, players), dtype=np.uint64)
        self.ok = np.zeros((g, players, players), dtype=np.uint64)
        self.actions: list[list[Any]] = [[] for _ in range(g)] if log else []
        self.results: dict[int, GameResult] = {}

    # -- random numbers -----------------------------------------------------------------------

    def uniform(self, rows: Arr, k: int) -> Arr:
        """``k`` uniform numbers in [0, 1) for each of ``rows`` (from each game's own stream)."""
        c = self.ctr[rows]
        self.ctr[rows] = c + np.uint64(k)
        z = _mix(self.key[rows, None] + (c[:, None] + np.arange(k, dtype=np.uint64)) * _GOLD)
        out: Arr = (z >> _S11).astype(np.float64) * _TWO53
        return out

    def uniform1(self, row: int) -> float:
        """One uniform number for game ``row`` (the same stream as :meth:`uniform`)."""
        c = int(self.ctr[row])
        self.ctr[row] = c + 1
        z = _mix_int((int(self.key[row]) + c * 0x9E3779B97F4A7C15) & _M64)
        return (z >> 11) * _TWO53

    def sample(self, seat: _Seat, comps: Arr, options: Arr, u: Arr) -> Arr:
        """Reaction times (the model of :class:`~blink.games.classic.bots.reaction.Level`); ``u``
        is (n, 3)."""
        lv = seat.level
        work = lv.encode + comps * lv.per_comparison
        work = work + np.where(options > 1, np.log2(np.maximum(options, 1)) * lv.per_bit, 0.0)
        t = lv.floor + work * np.exp(
            np.cos(_TWOPI * u[:, 0]) * np.sqrt(-2.0 * np.log1p(-u[:, 1])) * lv.sigma
        )
        out: Arr = t - np.log1p(-u[:, 2]) * lv.tau
        return out

    def sample1(self, row: int, seat: _Seat, comps: int, options: int) -> float:
        """One reaction time for game ``row`` (scalar form of :meth:`sample`)."""
        lv = seat.level
        u0, u1, u2 = self.uniform1(row), self.uniform1(row), self.uniform1(row)
        work = lv.encode + comps * lv.per_comparison
        if options > 1:
            work += math.log2(options) * lv.per_bit
        z = math.cos(_TWOPI * u0) * math.sqrt(-2.0 * math.log1p(-u1))
        return lv.floor + work * math.exp(z * lv.sigma) - math.log1p(-u2) * lv.tau

    # -- the bots -------------------------------------------------------------------------------

    def replan_all(self) -> None:
        """Every bot looks at the table; a plan the last change did not touch keeps its time."""
        g = np.arange(len(self.now))
        for s in range(self.players):
            card = self.plan_card[:, s]
            pile = self.plan_pile[:, s]
            valid = (
                (card != NONE)
                & (self.tops[g, pile] == self.ktop[g, s, pile])
                & ((self.hm[:, s] & BIT[card]) != 0)
            )
            rows = np.flatnonzero(~valid)
            if rows.size:
                self.replan(s, rows)

    def replan(self, s: int, rows: Arr) -> None:
        """Seat ``s`` searches again in games ``rows`` (only what changed since it last looked)."""
        seat = self.seats[s]
        a, b = seat.reach
        ta = self.tops[rows, a]
        tb = self.tops[rows, b]
        chk, ok, ktop = self.chk, self.ok, self.ktop
        for p, t in ((a, ta), (b, tb)):
            changed = ktop[rows, s, p] != t
            if changed.any():
                ch = rows[changed]
                ktop[ch, s, p] = t[changed]
                chk[ch, s, p] = 0
                ok[ch, s, p] = 0
        hand = self.hand[rows, s, :]
        hm = self.hm[rows, s]
        h = self.h
        n = rows.size
        if not seat.exhaustive:
            self._replan_first(s, seat, rows, hand, hm, ta, tb)
            return
        comps = np.zeros(n, dtype=np.int64)
        legal_masks = []
        for p, t in ((a, ta), (b, tb)):
            c = chk[rows, s, p]
            new = hm & ~c
            comps += 3 * _pc(new) - 2 * _pc(new & COLOR[t]) - _pc(new & SHAPE_ONLY[t])
            o = ok[rows, s, p] | (new & MATCH[t])
            ok[rows, s, p] = o
            chk[rows, s, p] = c | new
            legal_masks.append(hm & o)
        bits = BIT[hand]
        legal = np.concatenate(
            [(bits & legal_masks[0][:, None]) != 0, (bits & legal_masks[1][:, None]) != 0], axis=1
        )
        cand = np.concatenate([hand, hand], axis=1)
        nlegal = legal.sum(axis=1)
        u = self.uniform(rows, 4)
        scores = seat.form.play_scores
        if scores is None:
            pick = legal
        else:
            score = np.where(legal, scores(self, s, rows, hand, cand, hm), -np.inf)
            pick = legal & (score == score.max(axis=1, initial=-np.inf)[:, None])
        npick = pick.sum(axis=1)
        target = np.minimum((u[:, 0] * npick).astype(np.int64), np.maximum(npick - 1, 0))
        idx = np.argmax(pick & (np.cumsum(pick, axis=1) > target[:, None]), axis=1)
        has = nlegal > 0
        chosen = cand[np.arange(n), idx]
        piles = np.where(idx < h, a, b)
        delay = self.sample(seat, comps, nlegal, u[:, 1:])
        self.plan_card[rows, s] = np.where(has, chosen, NONE)
        self.plan_pile[rows, s] = piles
        self.due[rows, s] = np.where(has, self.now[rows] + delay, np.inf)

    def _blocker_scores(self, s: int, rows: Arr, hand: Arr, cand: Arr, hm: Arr) -> Arr:
        """Minus the expected matches left to the opponents after each candidate play."""
        a, b = self.seats[s].reach
        h = self.h
        pool = _DECK_U64 & ~(self.shown[rows] | hm)
        size = np.maximum(_pc(pool), 1)
        cm = MATCH[cand]
        total = np.zeros(cand.shape, dtype=np.float64)
        pool2 = pool[:, None]
        for o in range(self.players):
            if o == s:
                continue
            x, y = self.seats[o].reach
            w = (self.hcount[rows, o] / size)[:, None]
            mx0 = MATCH[self.tops[rows, x]][:, None]
            my0 = MATCH[self.tops[rows, y]][:, None]
            for half, pile in ((slice(0, h), a), (slice(h, 2 * h), b)):
                c = cm[:, half]
                mx = c if x == pile else mx0
                my = c if y == pile else my0
                total[:, half] += w * _pc(pool2 & (mx | my))
        out: Arr = -total
        return out

    def _flexible_scores(self, s: int, rows: Arr, hand: Arr, cand: Arr, hm: Arr) -> Arr:
        """How many unseen cards the hand left after each candidate play would match."""
        unknown = _DECK_U64 & ~(self.shown[rows] | hm)
        unknown = np.where(unknown == 0, _DECK_U64, unknown)
        m = MATCH[hand]
        cover = np.empty(hand.shape, dtype=np.int64)
        for k in range(hand.shape[1]):
            rest = np.bitwise_or.reduce(np.delete(m, k, axis=1), axis=1) if hand.shape[1] > 1 else 0
            cover[:, k] = _pc(np.asarray(rest, dtype=np.uint64) & unknown)
        return np.concatenate([cover, cover], axis=1).astype(np.float64)

    def _replan_first(
        self, s: int, seat: _Seat, rows: Arr, hand: Arr, hm: Arr, ta: Arr, tb: Arr
    ) -> None:
        """The ``first`` strategy: a self-terminating search in random order."""
        a, b = seat.reach
        h = self.h
        n = rows.size
        ar = np.arange(n)
        chk, ok = self.chk, self.ok
        bits = BIT[hand]
        oa, ob = ok[rows, s, a], ok[rows, s, b]
        ina = (bits & oa[:, None]) != 0
        inb = (bits & ob[:, None]) != 0
        known = ina | inb
        has_known = known.any(axis=1)
        k0 = np.argmax(known, axis=1)
        card0 = hand[ar, k0]
        pile0 = np.where(ina[ar, k0], a, b)
        ca, cb = chk[rows, s, a], chk[rows, s, b]
        present = hand != NONE
        fresh = np.concatenate(
            [present & ((bits & ca[:, None]) == 0), present & ((bits & cb[:, None]) == 0)], axis=1
        )
        fresh &= ~has_known[:, None]  # a known match is played without a new search
        u = self.uniform(rows, 2 * h + 3)
        keys = np.where(fresh, u[:, : 2 * h], 2.0)
        order = np.argsort(keys, axis=1)
        cand = np.concatenate([hand, hand], axis=1)
        cpile = np.concatenate([np.full(h, a), np.full(h, b)])
        cards_o = np.take_along_axis(cand, order, axis=1)
        piles_o = cpile[order]
        fresh_o = np.take_along_axis(fresh, order, axis=1)
        tops_o = np.where(piles_o == a, ta[:, None], tb[:, None])
        cost = COST[tops_o, cards_o]
        match_o = (cost != NO_MATCH) & fresh_o
        anym = match_o.any(axis=1)
        f = np.argmax(match_o, axis=1)
        pos = np.arange(2 * h)[None, :]
        scanned = fresh_o & (~anym[:, None] | (pos <= f[:, None]))
        comps = np.where(scanned, np.minimum(cost, 3), 0).sum(axis=1)
        sb = np.where(scanned, BIT[cards_o], np.uint64(0))
        zero = np.uint64(0)
        chk[rows, s, a] = ca | np.bitwise_or.reduce(np.where(piles_o == a, sb, zero), axis=1)
        chk[rows, s, b] = cb | np.bitwise_or.reduce(np.where(piles_o == b, sb, zero), axis=1)
        fcard = cards_o[ar, f]
        fpile = piles_o[ar, f]
        if anym.any():
            r = rows[anym]
            fc, fp = fcard[anym], fpile[anym]
            ok[r, s, fp] |= BIT[fc]
        card = np.where(has_known, card0, np.where(anym, fcard, NONE))
        pile = np.where(has_known, pile0, fpile)
        delay = self.sample(seat, comps, np.ones(n, dtype=np.int64), u[:, 2 * h :])
        self.plan_card[rows, s] = card
        self.plan_pile[rows, s] = pile
        self.due[rows, s] = np.where(card != NONE, self.now[rows] + delay, np.inf)

    def forget(self, rows: Arr) -> None:
        """The bots of games ``rows`` drop their plans and comparisons (a stall began)."""
        self.plan_card[rows] = NONE
        self.due[rows] = np.inf
        self.ktop[rows] = NONE
        self.chk[rows] = 0
        self.ok[rows] = 0

    # -- the rules ------------------------------------------------------------------------------

    def step(self) -> None:
        """Apply the next action of every game (all are playing)."""
        self.replan_all()
        due = self.due
        g = np.arange(len(due))
        seat = np.argmin(due, axis=1)
        t = due[g, seat]
        if not np.isfinite(t).all():
            bad = int(self.orig[np.flatnonzero(~np.isfinite(t))[0]])
            raise RuntimeError(f"no bot acts in a playing game (seed {self.seeds[bad]})")
        ties = (due == t[:, None]).sum(axis=1) > 1
        if ties.any():
            for r in np.flatnonzero(ties):
                tied = np.flatnonzero(due[r] == t[r])
                k = min(int(self.uniform1(int(r)) * tied.size), tied.size - 1)
                seat[r] = tied[k]
        card = self.plan_card[g, seat]
        pile = self.plan_pile[g, seat]
        self.now = t
        hand = self.hand
        slot = np.argmax(hand[g, seat, :] == card[:, None], axis=1)
        self.tops[g, pile] = card
        self.shown |= BIT[card]
        self.plays += 1
        self.pbs[g, seat] += 1
        if self.log:
            ms = np.rint(t * 1000).astype(np.int64)
            for i in range(len(g)):
                self.actions[self.orig[i]].append(
                    (_PLAY, int(seat[i]), int(card[i]), int(pile[i]), int(ms[i]))
                )
        refill = self.dleft[g, seat] > 0
        rf = np.flatnonzero(refill)
        if rf.size:
            sr = seat[rf]
            new = self.draw[rf, sr, self.dptr[rf, sr]]
            self.dptr[rf, sr] += 1
            self.dleft[rf, sr] -= 1
            hand[rf, sr, slot[rf]] = new
            self.hm[rf, sr] ^= BIT[card[rf]] | BIT[new]
        dl = np.flatnonzero(~refill)
        ended = np.zeros(0, dtype=np.int64)
        if dl.size:
            sd = seat[dl]
            self._remove(dl, sd, slot[dl], card[dl])
            empty = self.hcount[dl, sd] == 0
            if empty.any():
                ended = dl[empty]
                self.phase[ended] = OVER
                self.winners[ended] = 1 << sd[empty]
                self.reason[ended] = OUT_OF_CARDS
        left = self.hcount + self.dleft
        np.maximum(self.deficit, left - left.min(axis=1)[:, None], out=self.deficit)
        alive = self.phase == PLAYING
        stalled = np.flatnonzero(alive & self._stalled())
        if stalled.size:
            self.stall(stalled)

    def _remove(self, rows: Arr, seats: Arr, slots: Arr, cards: Arr) -> None:
        """Take ``cards`` out of the hands with nothing to refill them (the hand shrinks)."""
        h = self.h
        old = self.hand[rows, seats, :]
        j = np.arange(h)[None, :]
        idx = np.minimum(j + (j >= slots[:, None]), h - 1)
        new = np.take_along_axis(old, idx, axis=1)
        new[:, h - 1] = NONE
        self.hand[rows, seats, :] = new
        self.hcount[rows, seats] -= 1
        self.hm[rows, seats] ^= BIT[cards]

    def _stalled(self, rows: Arr | None = None) -> Arr:
        """Whether no player can play, per game (of ``rows``, or all)."""
        tops = self.tops if rows is None else self.tops[rows]
        hm = self.hm if rows is None else self.hm[rows]
        can = np.zeros(len(tops), dtype=bool)
        for p in range(self.players):
            a, b = self.seats[p].reach
            can |= (hm[:, p] & (MATCH[tops[:, a]] | MATCH[tops[:, b]])) != 0
        out: Arr = ~can
        return out

    def stall(self, rows: Arr) -> None:
        """Games ``rows`` just stalled: flip, choose or end, until each is unstalled or over."""
        config = self.config
        rule = self.ruleset.dead_end
        while rows.size:
            self.stalls[rows] += 1
            self.forget(rows)
            all_draw = (self.dleft[rows] > 0).all(axis=1)
            flip = rows[all_draw]
            other = rows[~all_draw]
            again = []
            if other.size:
                # The dead end (DeadEnd.ends_stall): when no draw pile is left, or under the
                # earlier ruling as soon as any is empty; otherwise everyone chooses.
                if rule is DeadEnd.FEWEST_CARDS:
                    ends = (self.dleft[other] == 0).all(axis=1)
                else:
                    ends = np.full(other.size, rule is DeadEnd.FEWEST_CARDS_ANY_EMPTY)
                dead = other[ends]
                if dead.size:
                    left = self.hcount[dead] + self.dleft[dead]
                    fewest = left == left.min(axis=1)[:, None]
                    self.winners[dead] = (fewest * (1 << np.arange(self.players))).sum(axis=1)
                    self.reason[dead] = FEWEST_CARDS
                    self.phase[dead] = OVER
                    self.dead_ends[dead] += 1
                choose = other[~ends]
                if choose.size:
                    self.choices[choose] += 1
                    for r in choose:
                        self._choose(int(r))
                    again.append(choose[self.phase[choose] == PLAYING])
            if flip.size:
                self.now[flip] += config.flip_pause
                self.flips[flip] += 1
                for p in range(self.players):
                    c = self.draw[flip, p, self.dptr[flip, p]]
                    self.dptr[flip, p] += 1
                    self.dleft[flip, p] -= 1
                    self.tops[flip, p] = c
                    self.shown[flip] |= BIT[c]
                if self.log:
                    for r in flip:
                        ms = round(float(self.now[r]) * 1000)
                        self.actions[self.orig[r]].append((_FLIP, 0, 0, 0, ms))
                again.append(flip)
            check = np.concatenate(again) if again else np.zeros(0, dtype=np.int64)
            rows = check[self._stalled(check)] if check.size else check

    def _choose(self, r: int) -> None:
        """A choosing stall in game ``r``: the bots choose (or the deadline chooses for them),
        then every chosen card is placed on its player's own pile."""
        now = float(self.now[r])
        deadline = now + self.config.choice_timeout
        shown = int(self.shown[r])
        plans = []
        for s, seat in enumerate(self.seats):
            hand = [int(c) for c in self.hand[r, s] if c != NONE]
            card = self._pick_choice(r, seat, hand, shown, int(self.hm[r, s]))
            options = len(hand) if seat.exhaustive else 1
            plans.append((now + self.sample1(r, seat, 3 * len(hand), options), s, card))
        plans.sort()
        chosen: dict[int, int] = {}
        for due, s, card in plans:
            if due > deadline:
                break
            now = due
            chosen[s] = card
            self._log_choice(r, s, card, now)
        if len(chosen) < self.players:
            now = max(now, deadline)
            for s in range(self.players):
                if s not in chosen:
                    self.defaults[r] += 1
                    chosen[s] = int(self.hand[r, s, 0])
                    self._log_choice(r, s, chosen[s], now)
        self.now[r] = now
        for p in range(self.players):
            c = chosen[p]
            slot = int(np.flatnonzero(self.hand[r, p] == c)[0])
            self.tops[r, p] = c
            self.shown[r] |= BIT[c]
            if self.dleft[r, p] > 0:
                new = self.draw[r, p, self.dptr[r, p]]
                self.dptr[r, p] += 1
                self.dleft[r, p] -= 1
                self.hand[r, p, slot] = new
                self.hm[r, p] ^= BIT[c] | BIT[new]
            else:
                one = np.array([r])
                self._remove(one, np.array([p]), np.array([slot]), np.array([c]))
        empty = [p for p in range(self.players) if self.hcount[r, p] == 0]
        if empty:
            self.phase[r] = OVER
            self.winners[r] = sum(1 << p for p in empty)
            self.reason[r] = STALL_PLACEMENT

    def _log_choice(self, r: int, s: int, card: int, now: float) -> None:
        if self.log:
            self.actions[self.orig[r]].append((_CHOOSE, s, card, 0, round(now * 1000)))

    def _pick_choice(self, r: int, seat: _Seat, hand: list[int], shown: int, hm: int) -> int:
        """The hand card ``seat`` places in a choosing stall (as its strategy's vector form
        says: the best scored card, ties drawn uniformly, or the first card)."""
        score = seat.form.choice_scores
        if len(hand) == 1 or score is None:
            return hand[0]
        unknown = DECK_MASK & ~(shown | hm)
        scores = [score(c, hand, unknown) for c in hand]
        top = max(scores)
        best = [c for c, sc in zip(hand, scores, strict=True) if sc == top]
        return best[min(int(self.uniform1(r) * len(best)), len(best) - 1)]

    # -- results ----------------------------------------------------------------------------------

    def collect(self, rows: Arr) -> None:
        """Store the results of the finished games ``rows``."""
        names = tuple(seat.name for seat in self.seats)
        players = range(self.players)
        cols = (
            self.orig[rows].tolist(),
            self.winners[rows].tolist(),
            self.reason[rows].tolist(),
            self.plays[rows].tolist(),
            self.pbs[rows].tolist(),
            self.now[rows].tolist(),
            self.stalls[rows].tolist(),
            self.flips[rows].tolist(),
            self.choices[rows].tolist(),
            self.dead_ends[rows].tolist(),
            self.defaults[rows].tolist(),
            self.deficit[rows].tolist(),
            (self.hcount[rows] + self.dleft[rows]).tolist(),
        )
        seeds = self.seeds
        results = self.results
        for o, w, why, plays, pbs, now, st, fl, ch, de, df, deficit, left in zip(
            *cols, strict=True
        ):
            results[o] = GameResult(
                seed=seeds[o],
                specs=names,
                outcome=Outcome(tuple(p for p in players if w >> p & 1), _REASONS[why]),
                plays=plays,
                plays_by_seat=tuple(pbs),
                duration=now,
                stalls=st,
                flips=fl,
                choices=ch,
                dead_ends=de,
                defaults=df,
                max_deficit=tuple(deficit),
                cards_left=tuple(left),
                game=None,
            )

    _ROW_STATE = (
        "hand", "draw", "dptr", "dleft", "hcount", "tops", "hm", "shown", "phase", "now",
        "orig", "plays", "pbs", "stalls", "flips", "choices", "dead_ends", "defaults", "deficit",
        "winners", "reason", "plan_card", "plan_pile", "due", "ktop", "chk", "ok", "key", "ctr",
    )  # fmt: skip

    def keep(self, rows: Arr) -> None:
        """Keep only games ``rows`` in the arrays (the others are finished and collected)."""
        for name in self._ROW_STATE:
            setattr(self, name, getattr(self, name)[rows])

    def run(self) -> None:
        """Play every game to its end."""
        stalled = np.flatnonzero(self._stalled())
        if stalled.size:  # a stall right at the reveal
            self.stall(stalled)
        while True:
            over = self.phase == OVER
            if over.any():
                self.collect(np.flatnonzero(over))
                if over.all():
                    return
                self.keep(np.flatnonzero(~over))
            self.step()


VECTOR_FORMS: Final[Mapping[Strategy, VectorForm]] = MappingProxyType(
    {
        RANDOM: VectorForm(None, _alike),
        FIRST: VectorForm(None, None),
        BLOCKER: VectorForm(_Batch._blocker_scores, _blocker_choice),
        FLEXIBLE: VectorForm(_Batch._flexible_scores, _flexible_choice),
    }
)
"""The vector form of each strategy the batch engine plays, keyed by the registered strategy
objects (:data:`blink.games.classic.bots.STRATEGIES`)."""


def simulate_batch(
    specs: Sequence[BotSpec],
    seeds: Sequence[int],
    *,
    ruleset: Ruleset = OFFICIAL,
    sizes: Sequence[int] | None = None,
    config: SimConfig = DEFAULT_CONFIG,
    records: bool = False,
) -> list[BatchGame]:
    """Simulate one game per seed between ``specs`` bots, all at once; results in seed order.

    Each game's result depends only on its seed (and the setting), not on the other seeds.
    With ``records`` each :class:`BatchGame` also keeps its actions, so that :func:`replay` and
    :func:`to_record` can rebuild it through the rules engine.
    """
    batch = _Batch(seeds, specs, ruleset, sizes, config, records)
    if not batch.seeds:
        return []
    batch.run()
    games = []
    for i in range(len(batch.seeds)):
        acts: list[tuple[Play | Flip | Choose, int]] = []
        for kind, seat, card, pile, ms in batch.actions[i] if records else ():
            action: Play | Flip | Choose
            if kind == _PLAY:
                action = Play(seat, DECK[card], pile)
            elif kind == _FLIP:
                action = Flip()
            else:
                action = Choose(seat, DECK[card])
            acts.append((action, ms))
        games.append(BatchGame(batch.results[i], batch.perm[i], acts))
    return games


def replay(
    game: BatchGame, ruleset: Ruleset = OFFICIAL, sizes: Sequence[int] | None = None
) -> ClassicGame:
    """Replay a batch game through the rules engine (``IllegalAction`` at a broken rule)."""
    players = len(game.result.specs)
    classic = ClassicGame(game.deck, players, ruleset, sizes)
    classic.reveal(0)
    for action, ms in game.actions:
        classic.apply(action, ms)
    return classic


def to_record(
    game: BatchGame, ruleset: Ruleset = OFFICIAL, sizes: Sequence[int] | None = None
) -> GameRecord:
    """The game's record, built by replaying it through the rules engine."""
    res = game.result
    return GameRecord.from_game(
        replay(game, ruleset, sizes),
        names=[f"{s} (seat {i})" for i, s in enumerate(res.specs)],
        meta={"simulated": True, "engine": "batch", "seed": res.seed, "bots": list(res.specs)},
    )
