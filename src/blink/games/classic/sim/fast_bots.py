"""The fast simulator's bots: :class:`~blink.games.classic.bots.human.HumanBot` as compiled
(numba) functions, one game at a time, in virtual time.

The bots' model, with each game's own random stream: the reaction-time model, the incremental
search (each bot remembers, per pile, the top it last compared its hand with and which hand cards
it has compared and found to match), the re-judging of a plan whose pile changed, and each
strategy's choices. The rules are :mod:`blink.games.classic.sim.fast_rules`'.

A seat is three rows: ``lv[s]`` its level's parameters (floor, encode, per comparison, per bit,
sigma, tau), ``strat[s]`` its strategy's kernel code (:data:`RANDOM` ...), ``reach[s]`` its two
piles. A bot's state is six arrays (``bots``): its planned card and pile, the plan's due time,
and per pile the top last compared with and the compared and matching hand cards.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from blink.games.classic.sim.fast_rules import (
    _BIT,
    _COLOR,
    _COST,
    _DECK,
    _MATCH,
    _SHAPE_ONLY,
    _ZERO,
    C_CHOICES,
    C_DEFAULTS,
    C_FLIPS,
    C_PHASE,
    C_PLAYS,
    C_REASON,
    C_STALLS,
    C_STATUS,
    C_WINNERS,
    CHOOSE,
    FLIP,
    NONE,
    OUT_OF_CARDS,
    OVER,
    PLAY,
    PLAYING,
    U_SHOWN,
    can_flip,
    deal,
    end_fewest,
    end_if_empty,
    ends_in_dead_end,
    exponential,
    flip_all,
    hot,
    hot_inline,
    kernel,
    log_action,
    new_state,
    normal,
    popc,
    reset_counters,
    slot_of,
    stalled,
    take,
    uniform,
    write_result,
)

__all__ = ["BLOCKER", "FIRST", "FLEXIBLE", "OUTSIDE", "RANDOM", "bot_games"]

Arr = npt.NDArray[Any]

RULES_DIGEST = "d521428f85af3186"
"""The start of the SHA-256 of fast_rules.py, whose functions are compiled into this module's.
numba's disk cache checks only the file a function is written in, so a change to fast_rules.py
must change this line too (tests/sim/test_fast.py checks it): then this file changes, and its
compiled functions are rebuilt instead of running the old rules."""

RANDOM, FIRST, BLOCKER, FLEXIBLE = 0, 1, 2, 3
"""The strategies' kernel codes."""
OUTSIDE = -1
"""A seat's strategy code when it is played from outside the race (the vector environment's
opponent policies): it never plans nor picks a stall choice."""
_NO_MATCH = 4
_ONE = np.uint64(1)
# A level's row: floor, encode, per_comparison, per_bit, sigma, tau.
_FLOOR, _ENCODE, _PER_CMP, _PER_BIT, _SIGMA, _TAU = 0, 1, 2, 3, 4, 5


_LOG2 = np.array([0.0] + [math.log2(n) for n in range(1, 17)])
"""``log2(n)`` for the numbers of options a reaction time weighs (up to twice a hand of five);
``math.log2`` and numba's ``np.log2`` call the same C library function, so the values are the
same."""


@hot
def sample(lv: Arr, s: int, comps: int, options: int, u: Arr) -> float:
    """A reaction time of seat ``s``, drawn from the game's stream ``u`` (the model of
    :class:`~blink.games.classic.bots.reaction.Level`: its lognormal factor and exponential
    tail drawn by the ziggurat method, exact in distribution and a few times cheaper than
    Box-Muller's cosine and logarithms)."""
    work = lv[s, _ENCODE] + comps * lv[s, _PER_CMP]
    if options > 1:
        bits = _LOG2[options] if options < _LOG2.size else np.log2(options)
        work = work + bits * lv[s, _PER_BIT]
    t = lv[s, _FLOOR] + work * np.exp(normal(u) * lv[s, _SIGMA])
    return t + exponential(u) * lv[s, _TAU]  # type: ignore[no-any-return]


@hot
def _blocker_score(s: int, card: int, pile: int, pool: np.uint64, size: int, hcount: Arr,
                   tops: Arr, reach: Arr) -> float:  # fmt: skip
    """Minus the expected matches left to the opponents after ``card`` goes on ``pile``
    (``pool``: the cards the bot has not seen, ``size`` of them, at least 1)."""
    total = 0.0
    for o in range(hcount.size):
        if o == s:
            continue
        x, y = reach[o, 0], reach[o, 1]
        w = hcount[o] / size
        mx = _MATCH[card] if x == pile else _MATCH[tops[x]]
        my = _MATCH[card] if y == pile else _MATCH[tops[y]]
        total += w * popc(pool & (mx | my))
    return -total


@hot
def _flexible_score(s: int, k: int, hand: Arr, unknown: np.uint64) -> float:
    """How many of the ``unknown`` cards the hand would match without its card in slot ``k``."""
    rest = _ZERO
    for j in range(hand.shape[1]):
        if j != k:
            rest |= _MATCH[hand[s, j]]
    return float(popc(rest & unknown))


@hot_inline
def _search_all(s: int, hand: Arr, hcount: Arr, tops: Arr, hm: Arr, u: Arr, now: float,
                plan_card: Arr, plan_pile: Arr, due: Arr, chk: Arr, ok: Arr, lv: Arr,
                strat: Arr, reach: Arr) -> None:  # fmt: skip
    """An exhaustive search of what is new, then the strategy's pick among the legal plays.

    The plays are bits ``k`` of a bit set: hand slot ``k`` on the first pile the seat
    reaches, then slot ``k - h`` on the second (``h`` slots a hand); the pick is the
    ``int(u0 * n)``-th of the ``n`` best, counted from the lowest bit."""
    h = hand.shape[1]
    held = hm[s]
    a, b = reach[s, 0], reach[s, 1]
    t = tops[a]
    c = chk[s, a]
    new = held & ~c
    comps = 3 * popc(new) - 2 * popc(new & _COLOR[t]) - popc(new & _SHAPE_ONLY[t])
    o = ok[s, a] | (new & _MATCH[t])
    ok[s, a] = o
    chk[s, a] = c | new
    lm0 = held & o
    t = tops[b]
    c = chk[s, b]
    new = held & ~c
    comps += 3 * popc(new) - 2 * popc(new & _COLOR[t]) - popc(new & _SHAPE_ONLY[t])
    o = ok[s, b] | (new & _MATCH[t])
    ok[s, b] = o
    chk[s, b] = c | new
    lm1 = held & o
    legal = _ZERO
    for j in range(h):
        bit = _BIT[hand[s, j]]
        if bit & lm0 != _ZERO:
            legal |= _BIT[j]
        if bit & lm1 != _ZERO:
            legal |= _BIT[h + j]
    if legal == _ZERO:
        plan_card[s] = NONE
        due[s] = np.inf
        return
    nlegal = popc(legal)
    picks = legal
    kind = strat[s]
    if kind != RANDOM:
        unknown = _DECK & ~(u[U_SHOWN] | held)
        size = max(popc(unknown), 1)
        if kind == FLEXIBLE and unknown == _ZERO:
            unknown = _DECK
        best = -np.inf
        picks = _ZERO
        rest = legal
        while rest != _ZERO:
            low = rest & (_ZERO - rest)
            rest ^= low
            k = popc(low - _ONE)
            j = k if k < h else k - h
            if kind == BLOCKER:
                pile = a if k < h else b
                score = _blocker_score(s, hand[s, j], pile, unknown, size, hcount, tops, reach)
            else:
                score = _flexible_score(s, j, hand, unknown)
            if score > best:
                best = score
                picks = low
            elif score == best:
                picks |= low
    npick = popc(picks)
    for _ in range(min(int(uniform(u) * npick), npick - 1)):
        picks &= picks - _ONE
    idx = popc((picks & (_ZERO - picks)) - _ONE)
    if idx < h:
        plan_card[s] = hand[s, idx]
        plan_pile[s] = a
    else:
        plan_card[s] = hand[s, idx - h]
        plan_pile[s] = b
    due[s] = now + sample(lv, s, comps, nlegal, u)


@hot_inline
def _search_first(s: int, hand: Arr, tops: Arr, u: Arr, now: float, plan_card: Arr,
                  plan_pile: Arr, due: Arr, chk: Arr, ok: Arr, lv: Arr, reach: Arr, keys: Arr,
                  order: Arr) -> None:  # fmt: skip
    """The ``first`` strategy: a match already seen, or the new (card, pile) pairs in random
    order until one matches (the pairs numbered as in :func:`_search_all`)."""
    h = hand.shape[1]
    a, b = reach[s, 0], reach[s, 1]
    card = NONE
    pile = a
    oka, okb = ok[s, a], ok[s, b]
    for k in range(h):
        c = hand[s, k]
        bit = _BIT[c]
        if bit & oka != _ZERO:
            card, pile = c, a
            break
        if bit & okb != _ZERO:
            card, pile = c, b
            break
    comps = 0
    if card == NONE:
        for k in range(2 * h):
            keys[k] = uniform(u)
        # The fresh pairs, sorted by their random keys (insertion sort).
        n = 0
        for side in range(2):
            p = a if side == 0 else b
            seen = chk[s, p]
            for j in range(h):
                c = hand[s, j]
                if c != NONE and _BIT[c] & seen == _ZERO:
                    k = side * h + j
                    key = keys[k]
                    i = n
                    while i > 0 and keys[order[i - 1]] > key:
                        order[i] = order[i - 1]
                        i -= 1
                    order[i] = k
                    n += 1
        for i in range(n):
            k = order[i]
            if k < h:
                c, p = hand[s, k], a
            else:
                c, p = hand[s, k - h], b
            cost = _COST[tops[p], c]
            comps += min(cost, 3)
            chk[s, p] |= _BIT[c]
            if cost != _NO_MATCH:
                ok[s, p] |= _BIT[c]
                card, pile = c, p
                break
    plan_card[s] = card
    plan_pile[s] = pile
    if card == NONE:
        due[s] = np.inf
        return
    due[s] = now + sample(lv, s, comps, 1, u)


@hot_inline
def _replan_all(st: tuple[Arr, ...], bots: tuple[Arr, ...], seats: tuple[Arr, ...],
                scratch: tuple[Arr, ...], agent: int) -> None:  # fmt: skip
    """Every bot looks at the table; a plan the last change did not touch keeps its time. Seat
    ``agent`` is played from outside and never plans (-1: every seat is a bot's; the vector
    environment's learner, :mod:`blink.games.classic.sim.fast_vector`), nor does a seat whose
    strategy code is :data:`OUTSIDE` (its opponent policies)."""
    hand, hcount, tops, hm, u, clock = st[0], st[1], st[5], st[6], st[10], st[11]
    plan_card, plan_pile, due, ktop, chk, ok = bots
    lv, strat, reach = seats
    for s in range(hm.size):
        if s == agent or strat[s] == OUTSIDE:
            plan_card[s] = NONE
            due[s] = np.inf
            continue
        card = plan_card[s]
        if (
            card != NONE
            and tops[plan_pile[s]] == ktop[s, plan_pile[s]]
            and hm[s] & _BIT[card] != _ZERO
        ):
            continue
        a, b = reach[s, 0], reach[s, 1]
        for p in (a, b):
            if ktop[s, p] != tops[p]:
                ktop[s, p] = tops[p]
                chk[s, p] = _ZERO
                ok[s, p] = _ZERO
        if (
            card == NONE
            and hm[s] & ~chk[s, a] == _ZERO
            and hm[s] & ~chk[s, b] == _ZERO
            and hm[s] & (ok[s, a] | ok[s, b]) == _ZERO
        ):
            # Nothing new to compare and no known match: the search finds nothing again.
            due[s] = np.inf
            continue
        if strat[s] == FIRST:
            _search_first(s, hand, tops, u, clock[0], plan_card, plan_pile, due, chk, ok, lv,
                          reach, scratch[0], scratch[1])  # fmt: skip
        else:
            _search_all(s, hand, hcount, tops, hm, u, clock[0], plan_card, plan_pile, due, chk,
                        ok, lv, strat, reach)  # fmt: skip


@hot
def _forget(bots: tuple[Arr, ...]) -> None:
    """The bots drop their plans and comparisons (a stall began)."""
    bots[0][:] = NONE
    bots[2][:] = np.inf
    bots[3][:, :] = NONE
    bots[4][:, :] = _ZERO
    bots[5][:, :] = _ZERO


@hot
def _pick_choice(s: int, st: tuple[Arr, ...], strat: Arr, scores: Arr) -> int:
    """The hand card seat ``s`` places in a choosing stall: its strategy's best scored card,
    ties drawn uniformly (``first``: the first card, without a draw; ``scores``: scratch)."""
    hand, hcount, hm, u = st[0], st[1], st[6], st[10]
    n = hcount[s]
    kind = strat[s]
    if n == 1 or kind == FIRST:
        return hand[s, 0]  # type: ignore[no-any-return]
    unknown = _DECK & ~(u[U_SHOWN] | hm[s])
    for k in range(n):
        scores[k] = 0.0
    for k in range(n):
        c = hand[s, k]
        if kind == BLOCKER:
            scores[k] = -popc(unknown & _MATCH[c])
        elif kind == FLEXIBLE:
            mask = _ZERO
            follow = 0
            for j in range(n):
                if j != k:
                    o = hand[s, j]
                    mask |= _MATCH[o]
                    follow += (_MATCH[c] >> np.uint64(o)) & np.uint64(1) != _ZERO
            cover = popc(mask & (unknown if unknown != _ZERO else _DECK))
            scores[k] = cover + 0.5 * follow
    top = scores[0]
    for k in range(1, n):
        top = max(top, scores[k])
    nbest = 0
    for k in range(n):
        nbest += scores[k] == top
    r = min(int(uniform(u) * nbest), nbest - 1)
    for k in range(n):
        if scores[k] == top:
            if r == 0:
                return hand[s, k]  # type: ignore[no-any-return]
            r -= 1
    return hand[s, 0]  # type: ignore[no-any-return]


@hot
def _choose(st: tuple[Arr, ...], seats: tuple[Arr, ...], choice_timeout: float,
            scratch: tuple[Arr, ...]) -> None:  # fmt: skip
    """A choosing stall: the bots choose (or the deadline chooses for them), then every chosen
    card is placed on its player's own pile."""
    hand, hcount, draw, dptr, dleft, tops, hm = st[0], st[1], st[2], st[3], st[4], st[5], st[6]
    cnt, u, clock, log = st[9], st[10], st[11], st[12]
    lv, strat = seats[0], seats[1]
    cards, dues, order, chosen, scores = scratch[2], scratch[3], scratch[4], scratch[5], scratch[6]
    players = hm.size
    now = clock[0]
    deadline = now + choice_timeout
    for s in range(players):
        cards[s] = _pick_choice(s, st, strat, scores)
        n = hcount[s]
        options = 1 if strat[s] == FIRST else n
        dues[s] = now + sample(lv, s, 3 * n, options, u)
        # The seats by their times, equal times in seat order (a stable insertion sort).
        i = s
        while i > 0 and dues[order[i - 1]] > dues[s]:
            order[i] = order[i - 1]
            i -= 1
        order[i] = s
        chosen[s] = False
    every = True
    for i in range(players):
        s = order[i]
        if dues[s] > deadline:
            every = False
            break
        now = dues[s]
        chosen[s] = True
        log_action(cnt, log, CHOOSE, s, cards[s], 0, int(np.rint(now * 1000.0)))
    if not every:
        now = max(now, deadline)
        for s in range(players):
            if not chosen[s]:
                cnt[C_DEFAULTS] += 1
                cards[s] = hand[s, 0]
                log_action(cnt, log, CHOOSE, s, cards[s], 0, int(np.rint(now * 1000.0)))
    clock[0] = now
    for p in range(players):
        c = cards[p]
        tops[p] = c
        u[U_SHOWN] |= _BIT[c]
        take(p, slot_of(hand, p, c), c, hand, hcount, draw, dptr, dleft, hm)
    end_if_empty(hcount, cnt)


@hot
def _stall(st: tuple[Arr, ...], bots: tuple[Arr, ...], seats: tuple[Arr, ...],
           scratch: tuple[Arr, ...], dead_end_scope: int, flip_pause: float,
           choice_timeout: float) -> None:  # fmt: skip
    """The game just stalled: flip, choose or end, until it is unstalled or over."""
    hcount, draw, dptr, dleft, tops, hm = st[1], st[2], st[3], st[4], st[5], st[6]
    cnt, u, clock, log = st[9], st[10], st[11], st[12]
    reach = seats[2]
    while True:
        cnt[C_STALLS] += 1
        _forget(bots)
        if can_flip(dleft):
            clock[0] += flip_pause
            cnt[C_FLIPS] += 1
            flip_all(draw, dptr, dleft, tops, u)
            log_action(cnt, log, FLIP, 0, 0, 0, int(np.rint(clock[0] * 1000.0)))
        elif ends_in_dead_end(dead_end_scope, dleft):
            end_fewest(hcount, dleft, cnt)
            return
        else:
            cnt[C_CHOICES] += 1
            _choose(st, seats, choice_timeout, scratch)
            if cnt[C_PHASE] == OVER:
                return
        if not stalled(reach, tops, hm):
            return


@hot_inline
def _step(st: tuple[Arr, ...], bots: tuple[Arr, ...], seats: tuple[Arr, ...],
          scratch: tuple[Arr, ...]) -> bool:  # fmt: skip
    """Apply the game's next play (the earliest due plan; equal times drawn at random); False
    if no bot acts. Inlined into the games' loop: called, it took its two dozen arrays as
    about two hundred arguments at every play."""
    hand, hcount, draw, dptr, dleft, tops, hm = st[0], st[1], st[2], st[3], st[4], st[5], st[6]
    pbs, deficit, cnt, u, clock, log = st[7], st[8], st[9], st[10], st[11], st[12]
    plan_card, plan_pile, due = bots[0], bots[1], bots[2]
    _replan_all(st, bots, seats, scratch, -1)
    players = hm.size
    seat = 0
    for s in range(1, players):
        if due[s] < due[seat]:
            seat = s
    t = due[seat]
    if not np.isfinite(t):
        return False
    ties = 0
    for s in range(players):
        ties += due[s] == t
    if ties > 1:
        k = min(int(uniform(u) * ties), ties - 1)
        for s in range(players):
            if due[s] == t:
                if k == 0:
                    seat = s
                    break
                k -= 1
    card = plan_card[seat]
    pile = plan_pile[seat]
    clock[0] = t
    slot = slot_of(hand, seat, card)
    tops[pile] = card
    u[U_SHOWN] |= _BIT[card]
    cnt[C_PLAYS] += 1
    pbs[seat] += 1
    log_action(cnt, log, PLAY, seat, card, pile, int(np.rint(t * 1000.0)))
    take(seat, slot, card, hand, hcount, draw, dptr, dleft, hm)
    if hcount[seat] == 0:
        cnt[C_WINNERS] = 1 << seat
        cnt[C_REASON] = OUT_OF_CARDS
        cnt[C_PHASE] = OVER
    lead = hcount[0] + dleft[0]
    for p in range(1, players):
        lead = min(lead, hcount[p] + dleft[p])
    for p in range(players):
        deficit[p] = max(deficit[p], hcount[p] + dleft[p] - lead)
    return True


@hot
def _bot_loop(keys: Arr, sizes: Arr, h: int, dead_end_scope: int, flip_pause: float,
              choice_timeout: float, nlog: int, st: tuple[Arr, ...], bots: tuple[Arr, ...],
              seats: tuple[Arr, ...], scratch: tuple[Arr, ...], out: Arr, seat_out: Arr,
              duration: Arr, logs: Arr, perms: Arr) -> None:  # fmt: skip
    """The games of :func:`bot_games`, in the arrays ``st`` of ``new_state``."""
    hand, hcount, draw, dptr, dleft, tops, hm = st[0], st[1], st[2], st[3], st[4], st[5], st[6]
    pbs, deficit, cnt, u, clock, log, perm = st[7], st[8], st[9], st[10], st[11], st[12], st[13]
    reach = seats[2]
    for g in range(keys.size):
        reset_counters(cnt, pbs, deficit, clock)
        deal(keys[g], sizes, h, hand, hcount, draw, dptr, dleft, tops, hm, u, perm, st[14],
             st[15])  # fmt: skip
        _forget(bots)
        if stalled(reach, tops, hm):
            _stall(st, bots, seats, scratch, dead_end_scope, flip_pause, choice_timeout)
        while cnt[C_PHASE] == PLAYING:
            if not _step(st, bots, seats, scratch):
                cnt[C_STATUS] = 1
                break
            if cnt[C_PHASE] == PLAYING and stalled(reach, tops, hm):
                _stall(st, bots, seats, scratch, dead_end_scope, flip_pause, choice_timeout)
        duration[g] = clock[0]
        write_result(g, cnt, pbs, deficit, hcount, dleft, log, perm, nlog, out, seat_out, logs,
                     perms)  # fmt: skip


@kernel
def bot_games(keys: Arr, sizes: Arr, h: int, lv: Arr, strat: Arr, reach: Arr,
              dead_end_scope: int, flip_pause: float, choice_timeout: float, nlog: int,
              out: Arr, seat_out: Arr, duration: Arr, logs: Arr, perms: Arr) -> None:  # fmt: skip
    """Play one bot game per key (the deal and random stream of that key).

    Results go to ``out`` (the ``C_*`` counters; ``C_STATUS`` 1 if no bot could act),
    ``seat_out`` (plays, max deficit, cards left per seat) and ``duration`` (virtual seconds),
    and when ``nlog`` is positive the actions and deals to ``logs`` and ``perms``. This
    function makes the arrays; the games are played without counting their references
    (:func:`~blink.games.classic.sim.fast_rules.hot`)."""
    players = sizes.size
    dmax = 0
    for p in range(players):
        dmax = max(dmax, sizes[p] - 1 - h)
    st = new_state(players, h, dmax, nlog)
    bots = (
        np.full(players, NONE, dtype=np.int64),
        np.zeros(players, dtype=np.int64),
        np.full(players, np.inf),
        np.full((players, players), NONE, dtype=np.int64),
        np.zeros((players, players), dtype=np.uint64),
        np.zeros((players, players), dtype=np.uint64),
    )
    seats = (lv, strat, reach)
    scratch = (
        np.zeros(2 * h + 3),
        np.zeros(2 * h, dtype=np.int64),
        np.zeros(players, dtype=np.int64),
        np.zeros(players),
        np.zeros(players, dtype=np.int64),
        np.zeros(players, dtype=np.bool_),
        np.zeros(h),
    )
    _bot_loop(keys, sizes, h, dead_end_scope, flip_pause, choice_timeout, nlog, st, bots,
              seats, scratch, out, seat_out, duration, logs, perms)  # fmt: skip
