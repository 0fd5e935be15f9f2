"""The vector environment's kernels: many classic games at once, one seat of each played by a
learner, step by step in virtual time (for :mod:`blink.games.classic.envs.vector`).

Each game is the fast simulator's (:mod:`blink.games.classic.sim.fast_rules` deals and judges,
:mod:`blink.games.classic.sim.fast_bots` plays the other seats: the reaction-time model, the
incremental search and the strategies), and a step is the single-seat environment's
(:class:`~blink.games.classic.envs.single.ClassicSingle`): the learner's action at the step's
start, then the bots and the referee (a flip ``flip_pause`` after a stall, the default choices
``choice_timeout`` after a choosing stall began) at their due times up to its end, then the
inactivity rule (:mod:`blink.games.classic.envs.idle`) and the learner's observation and mask,
encoded as :class:`~blink.games.classic.envs.codec.ClassicCodec` encodes a view.

The games' arrays are the fast simulator's, one row per game (``G_*`` for the row's index in
the tuple :func:`new_games` returns); a game's row of ``log`` holds its episode's actions
(kind, seat, card, pile, ms: the learner's too), from which the tests replay each episode
through the rules engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from blink.games.classic.sim.fast_bots import (
    FIRST,
    OUTSIDE,
    _forget,
    _pick_choice,
    _replan_all,
    sample,
)
from blink.games.classic.sim.fast_rules import (
    _BIT,
    _GOLD,
    _MATCH,
    _ZERO,
    ACTION_FIELDS,
    C_CHOICES,
    C_DEFAULTS,
    C_FLIPS,
    C_PHASE,
    C_PLAYS,
    C_REASON,
    C_STALLS,
    C_WINNERS,
    CHOOSE,
    FLIP,
    N_COUNTERS,
    NONE,
    OUT_OF_CARDS,
    OVER,
    PLAY,
    U_SHOWN,
    can_flip,
    deal,
    end_fewest,
    end_if_empty,
    ends_in_dead_end,
    flip_all,
    hot,
    hot_inline,
    kernel,
    log_action,
    mix,
    reset_counters,
    slot_of,
    stalled,
    take,
    uniform,
)
from blink.games.classic.sim.fast_tables import N_CARDS

__all__ = ["new_games", "opponent_views", "opponents_play", "reset_games", "step_games"]

Arr = npt.NDArray[Any]

BOTS_DIGEST = "da2f47c265a1b2a4"
"""The start of the SHA-256 of fast_bots.py, whose functions (and through it fast_rules.py's, by
its own ``RULES_DIGEST``) are compiled into this module's. numba's disk cache checks only the
file a function is written in, so a change there must change this line too (the tests check
it): then this file changes, and its compiled functions are rebuilt."""

# The referee's pending deadline (``ex[g, X_PEND]``).
PEND_NONE, PEND_FLIP, PEND_CHOOSE = 0, 1, 2
# A game's integers (``ex``) and times (``tm``).
# ``ex[g, X_WAIT]``: the opponent policy's seat the game waits on in its step, or -1.
X_PEND, X_STEPS, X_CHANGED, X_CHOSEN, X_DONE, X_EPISODES, X_WAIT = 0, 1, 2, 3, 4, 5, 6
N_EX = 7
T_PEND_AT, T_SINCE = 0, 1
N_TM = 2
# The observation's phases (the order of blink.games.classic.actions.Phase).
PH_PLAYING, PH_STALLED, PH_CHOOSING, PH_OVER = 1, 2, 3, 4
_IDLE_EPSILON = 1e-9
_F = 18


@kernel
def new_games(n: int, players: int, h: int, dmax: int, nlog: int) -> tuple[Arr, ...]:
    """Empty arrays for ``n`` games: the fast simulator's state (hand, hcount, draw, dptr,
    dleft, tops, hm, pbs, deficit, cnt, u, clock, log, perm), the bots' (plan card, plan pile,
    due, last tops, compared, matching), the stall choices (card, due), ``ex`` and ``tm``."""
    p = players
    return (
        np.full((n, p, h), NONE, dtype=np.int64),
        np.zeros((n, p), dtype=np.int64),
        np.full((n, p, max(dmax, 1)), NONE, dtype=np.int64),
        np.zeros((n, p), dtype=np.int64),
        np.zeros((n, p), dtype=np.int64),
        np.zeros((n, p), dtype=np.int64),
        np.zeros((n, p), dtype=np.uint64),
        np.zeros((n, p), dtype=np.int64),
        np.zeros((n, p), dtype=np.int64),
        np.zeros((n, N_COUNTERS), dtype=np.int64),
        np.zeros((n, 3), dtype=np.uint64),
        np.zeros((n, 1), dtype=np.float64),
        np.zeros((n, max(nlog, 1), ACTION_FIELDS), dtype=np.int64),
        np.zeros((n, N_CARDS), dtype=np.int64),
        np.full((n, p), NONE, dtype=np.int64),
        np.zeros((n, p), dtype=np.int64),
        np.full((n, p), np.inf),
        np.full((n, p, p), NONE, dtype=np.int64),
        np.zeros((n, p, p), dtype=np.uint64),
        np.zeros((n, p, p), dtype=np.uint64),
        np.zeros((n, p), dtype=np.int64),
        np.zeros((n, p)),
        np.zeros((n, N_EX), dtype=np.int64),
        np.zeros((n, N_TM)),
    )


@hot_inline
def _replan(g: int, s_: tuple[Arr, ...], seats: tuple[Arr, ...], scratch: tuple[Arr, ...],
            agent: int) -> None:  # fmt: skip
    """Every bot of game ``g`` looks at the table: the simulator's re-planning
    (:func:`~blink.games.classic.sim.fast_bots._replan_all`; the learner's seat never plans)."""
    st = (s_[0][g], s_[1][g], s_[2][g], s_[3][g], s_[4][g], s_[5][g], s_[6][g], s_[7][g],
          s_[8][g], s_[9][g], s_[10][g], s_[11][g])  # fmt: skip
    _replan_all(st, _bots(g, s_), seats, scratch, agent)


@hot_inline
def _bots(g: int, s_: tuple[Arr, ...]) -> tuple[Arr, ...]:
    return (s_[14][g], s_[15][g], s_[16][g], s_[17][g], s_[18][g], s_[19][g])


@hot
def _on_stall(g: int, s_: tuple[Arr, ...], seats: tuple[Arr, ...], scratch: tuple[Arr, ...],
              dead_end_scope: int, flip_pause: float, choice_timeout: float,
              agent: int) -> None:  # fmt: skip
    """Game ``g`` has just stalled: the referee's flip is due, or the stall choices, or the
    dead end ends it."""
    hcount, dleft, hm, cnt, u, clock = s_[1][g], s_[4][g], s_[6][g], s_[9][g], s_[10][g], s_[11][g]
    ch_card, ch_due, ex, tm = s_[20][g], s_[21][g], s_[22][g], s_[23][g]
    strat = seats[1]
    lv = seats[0]
    cnt[C_STALLS] += 1
    _forget(_bots(g, s_))
    if can_flip(dleft):
        ex[X_PEND] = PEND_FLIP
        tm[T_PEND_AT] = clock[0] + flip_pause
    elif ends_in_dead_end(dead_end_scope, dleft):
        end_fewest(hcount, dleft, cnt)
        ex[X_PEND] = PEND_NONE
    else:
        cnt[C_CHOICES] += 1
        ex[X_PEND] = PEND_CHOOSE
        ex[X_CHOSEN] = 0
        tm[T_PEND_AT] = clock[0] + choice_timeout
        st = (s_[0][g], hcount, s_[2][g], s_[3][g], dleft, s_[5][g], hm, s_[7][g], s_[8][g],
              cnt, u, clock)  # fmt: skip
        for s in range(hm.size):
            if s == agent or strat[s] == OUTSIDE:
                ch_card[s] = NONE
                ch_due[s] = np.inf
                continue
            ch_card[s] = _pick_choice(s, st, strat, scratch[6])
            n = hcount[s]
            options = 1 if strat[s] == FIRST else n
            ch_due[s] = clock[0] + sample(lv, s, 3 * n, options, u)


@hot_inline
def _play(g: int, s_: tuple[Arr, ...], seat: int, card: int, pile: int, t: float) -> None:
    """``seat`` plays ``card`` on ``pile`` at ``t`` in game ``g`` (a legal play)."""
    hand, hcount, draw, dptr, dleft, tops, hm = (s_[0][g], s_[1][g], s_[2][g], s_[3][g],
                                                 s_[4][g], s_[5][g], s_[6][g])  # fmt: skip
    pbs, cnt, u, clock, log = s_[7][g], s_[9][g], s_[10][g], s_[11][g], s_[12][g]
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
    s_[22][g][X_CHANGED] = 1


@hot
def _place(g: int, s_: tuple[Arr, ...]) -> None:
    """Every stall choice of game ``g`` is placed on its player's own pile."""
    hand, hcount, draw, dptr, dleft, tops, hm = (s_[0][g], s_[1][g], s_[2][g], s_[3][g],
                                                 s_[4][g], s_[5][g], s_[6][g])  # fmt: skip
    cnt, u, ch_card, ex = s_[9][g], s_[10][g], s_[20][g], s_[22][g]
    for p in range(hm.size):
        c = ch_card[p]
        tops[p] = c
        u[U_SHOWN] |= _BIT[c]
        take(p, slot_of(hand, p, c), c, hand, hcount, draw, dptr, dleft, hm)
    end_if_empty(hcount, cnt)
    ex[X_PEND] = PEND_NONE
    ex[X_CHOSEN] = 0
    ex[X_CHANGED] = 1


@hot_inline
def _choose(g: int, s_: tuple[Arr, ...], seat: int, card: int, t: float) -> bool:
    """``seat`` chooses ``card`` at ``t``; True when every seat has chosen."""
    cnt, clock, log, ch_card, ex = s_[9][g], s_[11][g], s_[12][g], s_[20][g], s_[22][g]
    clock[0] = t
    ch_card[seat] = card
    ex[X_CHOSEN] |= 1 << seat
    ex[X_CHANGED] = 1
    log_action(cnt, log, CHOOSE, seat, card, 0, int(np.rint(t * 1000.0)))
    return ex[X_CHOSEN] == (1 << s_[1][g].size) - 1  # type: ignore[no-any-return]


@hot_inline
def _advance(g: int, s_: tuple[Arr, ...], seats: tuple[Arr, ...], scratch: tuple[Arr, ...],
             until: float, dead_end_scope: int, flip_pause: float, choice_timeout: float,
             agent: int) -> None:  # fmt: skip
    """The bots and the referee of game ``g`` act at their due times up to ``until``."""
    hand, dptr, draw, dleft, tops, hm = (s_[0][g], s_[3][g], s_[2][g],
                                                 s_[4][g], s_[5][g], s_[6][g])  # fmt: skip
    cnt, u, clock, log = s_[9][g], s_[10][g], s_[11][g], s_[12][g]
    plan_card, plan_pile, due = s_[14][g], s_[15][g], s_[16][g]
    ch_due, ex, tm = s_[21][g], s_[22][g], s_[23][g]
    reach = seats[2]
    players = hm.size
    while cnt[C_PHASE] != OVER:
        pend = ex[X_PEND]
        if pend == PEND_FLIP:
            at = tm[T_PEND_AT]
            if at > until:
                return
            clock[0] = at
            cnt[C_FLIPS] += 1
            flip_all(draw, dptr, dleft, tops, u)
            log_action(cnt, log, FLIP, 0, 0, 0, int(np.rint(at * 1000.0)))
            ex[X_PEND] = PEND_NONE
            ex[X_CHANGED] = 1
            if stalled(reach, tops, hm):
                _on_stall(g, s_, seats, scratch, dead_end_scope, flip_pause, choice_timeout,
                          agent)  # fmt: skip
            continue
        if pend == PEND_CHOOSE:
            deadline = tm[T_PEND_AT]
            seat = -1
            for s in range(players):
                if ex[X_CHOSEN] & (1 << s) == 0 and (seat < 0 or ch_due[s] < ch_due[seat]):
                    seat = s
            t = ch_due[seat]
            if t <= deadline and t <= until:
                if _choose(g, s_, seat, s_[20][g][seat], t):
                    _place(g, s_)
                    if cnt[C_PHASE] != OVER and stalled(reach, tops, hm):
                        _on_stall(g, s_, seats, scratch, dead_end_scope, flip_pause,
                                  choice_timeout, agent)  # fmt: skip
                continue
            if deadline > until:
                return
            for s in range(players):
                if ex[X_CHOSEN] & (1 << s) == 0:
                    cnt[C_DEFAULTS] += 1
                    _choose(g, s_, s, hand[s, 0], deadline)
            _place(g, s_)
            if cnt[C_PHASE] != OVER and stalled(reach, tops, hm):
                _on_stall(g, s_, seats, scratch, dead_end_scope, flip_pause, choice_timeout,
                          agent)  # fmt: skip
            continue
        _replan(g, s_, seats, scratch, agent)
        seat = 0
        for s in range(1, players):
            if due[s] < due[seat]:
                seat = s
        t = due[seat]
        if not t <= until:
            return
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
        _play(g, s_, seat, plan_card[seat], plan_pile[seat], t)
        if cnt[C_PHASE] != OVER and stalled(reach, tops, hm):
            _on_stall(g, s_, seats, scratch, dead_end_scope, flip_pause, choice_timeout, agent)


@hot
def _act(g: int, s_: tuple[Arr, ...], seats: tuple[Arr, ...], scratch: tuple[Arr, ...],
         action: int, t: float, h: int, dead_end_scope: int, flip_pause: float,
         choice_timeout: float, agent: int, seat: int) -> bool:  # fmt: skip
    """``seat``'s ``action`` at ``t`` in game ``g`` (the learner's, ``agent``, or an opponent
    policy's); False when it is refused."""
    if action == 0:
        return True
    hand, hcount, tops, hm, cnt, ex = s_[0][g], s_[1][g], s_[5][g], s_[6][g], s_[9][g], s_[22][g]
    reach = seats[2]
    if action < 0 or action > 3 * h or cnt[C_PHASE] == OVER:
        return False
    i = action - 1
    k = i // 2 if i < 2 * h else i - 2 * h
    if k >= hcount[seat]:
        return False
    card = hand[seat, k]
    if i < 2 * h:
        pile = reach[seat, i % 2]
        if ex[X_PEND] != PEND_NONE or _MATCH[tops[pile]] & _BIT[card] == _ZERO:
            return False
        _play(g, s_, seat, card, pile, t)
        if cnt[C_PHASE] != OVER and stalled(reach, tops, hm):
            _on_stall(g, s_, seats, scratch, dead_end_scope, flip_pause, choice_timeout, agent)
        return True
    if ex[X_PEND] != PEND_CHOOSE or ex[X_CHOSEN] & (1 << seat) != 0:
        return False
    if _choose(g, s_, seat, card, t):
        _place(g, s_)
        if cnt[C_PHASE] != OVER and stalled(reach, tops, hm):
            _on_stall(g, s_, seats, scratch, dead_end_scope, flip_pause, choice_timeout, agent)
    return True


@hot_inline
def _put(row: Arr, at: int, feat: Arr, card: int) -> None:
    """The card's 18 features at ``row[at:]``."""
    for f in range(_F):
        row[at + f] = feat[card, f]


@hot_inline
def _observe(g: int, s_: tuple[Arr, ...], feat: Arr, order: Arr, agent: int, h: int,
             aside: float, obs: Arr, mask: Arr) -> None:  # fmt: skip
    """The learner's observation and mask of game ``g`` (the codec's layout, docs/envs.md)."""
    _encode(g, s_, feat, order, agent, h, aside, obs[g], mask[g])


@hot_inline
def _encode(g: int, s_: tuple[Arr, ...], feat: Arr, order: Arr, agent: int, h: int,
            aside: float, row: Arr, m: Arr) -> None:  # fmt: skip
    """Seat ``agent``'s observation and mask of game ``g`` in ``row`` and ``m`` (``order``:
    that seat's pile order)."""
    hand, hcount, dleft, tops, cnt, u = s_[0][g], s_[1][g], s_[4][g], s_[5][g], s_[9][g], s_[10][g]
    ch_card, ex = s_[20][g], s_[22][g]
    p = hcount.size
    for i in range(row.size):
        row[i] = 0.0
    for i in range(m.size):
        m[i] = 0
    m[0] = 1
    for k in range(hcount[agent]):
        _put(row, k * _F, feat, hand[agent, k])
    at = h * _F
    for j in range(p):
        _put(row, at + j * _F, feat, tops[order[j]])
    seen = at + p * _F
    shown = u[U_SHOWN]
    for c in range(N_CARDS):
        if shown & _BIT[c] != _ZERO:
            row[seen + c] = 1.0
    base = seen + N_CARDS
    for i in range(p):
        s = (agent + i) % p
        row[base + i] = hcount[s] / 5
        row[base + p + i] = dleft[s] / N_CARDS
    row[base + 2 * p] = aside
    phase_at = base + 2 * p + 1
    pend = ex[X_PEND]
    if cnt[C_PHASE] == OVER:
        phase = PH_OVER
    elif pend == PEND_FLIP:
        phase = PH_STALLED
    elif pend == PEND_CHOOSE:
        phase = PH_CHOOSING
    else:
        phase = PH_PLAYING
    row[phase_at + phase] = 1.0
    chosen_at = phase_at + 5
    choice_at = chosen_at + p
    if phase == PH_CHOOSING:
        for i in range(p):
            if ex[X_CHOSEN] & (1 << ((agent + i) % p)) != 0:
                row[chosen_at + i] = 1.0
        if ex[X_CHOSEN] & (1 << agent) != 0:
            _put(row, choice_at, feat, ch_card[agent])
        else:
            for k in range(hcount[agent]):
                m[1 + 2 * h + k] = 1
    plays = cnt[C_PLAYS]
    row[choice_at + _F] = plays / 120 if plays < 120 else 1.0
    if phase == PH_PLAYING:
        for k in range(hcount[agent]):
            bit = _BIT[hand[agent, k]]
            for j in range(2):
                if _MATCH[tops[order[j]]] & bit != _ZERO:
                    m[1 + 2 * k + j] = 1


@hot
def _reset_one(g: int, s_: tuple[Arr, ...], keys: Arr, sizes: Arr, h: int,
               seats: tuple[Arr, ...], scratch: tuple[Arr, ...], dead_end_scope: int,
               flip_pause: float, choice_timeout: float, agent: int) -> None:  # fmt: skip
    """Deal game ``g``'s next episode: the next key of its sequence."""
    ex, tm = s_[22][g], s_[23][g]
    key = mix(keys[g] + np.uint64(ex[X_EPISODES]) * _GOLD)
    ex[X_EPISODES] += 1
    cnt, clock = s_[9][g], s_[11][g]
    reset_counters(cnt, s_[7][g], s_[8][g], clock)
    deal(key, sizes, h, s_[0][g], s_[1][g], s_[2][g], s_[3][g], s_[4][g], s_[5][g],
         s_[6][g], s_[10][g], s_[13][g], scratch[7], scratch[8])  # fmt: skip
    _forget(_bots(g, s_))
    ex[X_PEND] = PEND_NONE
    ex[X_STEPS] = 0
    ex[X_CHOSEN] = 0
    ex[X_DONE] = 0
    ex[X_WAIT] = -1
    tm[T_SINCE] = 0.0
    if stalled(seats[2], s_[5][g], s_[6][g]):
        _on_stall(g, s_, seats, scratch, dead_end_scope, flip_pause, choice_timeout, agent)
    ex[X_CHANGED] = 0


@hot
def _reset_all(s_: tuple[Arr, ...], which: Arr, keys: Arr, sizes: Arr, h: int,
                seats: tuple[Arr, ...], scratch: tuple[Arr, ...], dead_end_scope: int,
                flip_pause: float, choice_timeout: float, agent: int, feat: Arr, order: Arr,
                obs: Arr, mask: Arr) -> None:  # fmt: skip
    """Deal a new episode in each game ``g`` with ``which[g]``: episode ``ex[g, X_EPISODES]``
    of the key sequence ``keys[g]`` (a seed sets the key and that count to 0)."""
    aside = (N_CARDS - sizes.sum()) / N_CARDS
    for g in range(which.size):
        if which[g]:
            _reset_one(g, s_, keys, sizes, h, seats, scratch, dead_end_scope, flip_pause,
                       choice_timeout, agent)  # fmt: skip
            _observe(g, s_, feat, order, agent, h, aside, obs, mask)


@kernel
def reset_games(s_: tuple[Arr, ...], which: Arr, keys: Arr, sizes: Arr, h: int,
                seats: tuple[Arr, ...], scratch: tuple[Arr, ...], dead_end_scope: int,
                flip_pause: float, choice_timeout: float, agent: int, feat: Arr, order: Arr,
                obs: Arr, mask: Arr) -> None:  # fmt: skip
    """Deal a new episode in each game ``g`` with ``which[g]``: episode ``ex[g, X_EPISODES]``
    of the key sequence ``keys[g]`` (a seed sets the key and that count to 0). The work is
    :func:`_reset_all`'s, compiled without reference counting (the games' rows are views)."""
    _reset_all(s_, which, keys, sizes, h, seats, scratch, dead_end_scope, flip_pause,
               choice_timeout, agent, feat, order, obs, mask)  # fmt: skip


@hot_inline
def _next_policy(strat: Arr, after: int, agent: int) -> int:
    """The first opponent policy's seat after seat ``after`` (-1: none)."""
    for s in range(after + 1, strat.size):
        if s != agent and strat[s] == OUTSIDE:
            return s
    return -1


@hot_inline
def _finish(g: int, s_: tuple[Arr, ...], sizes: Arr, h: int, seats: tuple[Arr, ...],
            scratch: tuple[Arr, ...], dead_end_scope: int, flip_pause: float,
            choice_timeout: float, agent: int, feat: Arr, order: Arr, step_seconds: float,
            idle_seconds: float, max_steps: int, obs: Arr, mask: Arr, rewards: Arr,
            terminated: Arr, truncated: Arr, idle: Arr) -> None:  # fmt: skip
    """Game ``g``'s step after the actions at its start: the race to its end, the inactivity
    rule, the reward, the end or truncation, and the learner's observation."""
    ex, tm, cnt = s_[22][g], s_[23][g], s_[9][g]
    until = (ex[X_STEPS] + 1) * step_seconds
    _advance(g, s_, seats, scratch, until, dead_end_scope, flip_pause, choice_timeout, agent)
    if cnt[C_PHASE] != OVER:
        if ex[X_CHANGED]:
            tm[T_SINCE] = until
        elif (
            idle_seconds > 0
            and ex[X_PEND] == PEND_NONE
            and until - tm[T_SINCE] >= idle_seconds - _IDLE_EPSILON
        ):
            end_fewest(s_[1][g], s_[4][g], cnt)
            idle[g] = True
    ex[X_STEPS] += 1
    if cnt[C_PHASE] == OVER:
        w = cnt[C_WINNERS]
        if w & (1 << agent) == 0:
            rewards[g] = -1.0
        elif w == 1 << agent:
            rewards[g] = 1.0
        terminated[g] = True
    elif ex[X_STEPS] >= max_steps:
        truncated[g] = True
    ex[X_DONE] = terminated[g] or truncated[g]
    if ex[X_CHANGED] or idle[g]:  # else the game is as the row last encoded it
        aside = (N_CARDS - sizes.sum()) / N_CARDS
        _observe(g, s_, feat, order, agent, h, aside, obs, mask)


@hot
def _step_all(s_: tuple[Arr, ...], actions: Arr, keys: Arr, sizes: Arr, h: int,
               seats: tuple[Arr, ...], scratch: tuple[Arr, ...], dead_end_scope: int,
               flip_pause: float, choice_timeout: float, agent: int, feat: Arr, order: Arr,
               step_seconds: float, idle_seconds: float, max_steps: int, obs: Arr, mask: Arr,
               rewards: Arr, terminated: Arr, truncated: Arr, refused: Arr,
               idle: Arr) -> None:  # fmt: skip
    """One step of every game: a game that ended in the previous step is dealt again (its
    action ignored, Gymnasium's next-step auto-reset); any other takes the learner's action at
    the step's start and runs to its end, or, with opponent policies, waits on the first one
    (``ex[g, X_WAIT]``; :func:`opponents_play` goes on). Writes each game's observation, mask,
    reward, end, truncation, refusal and whether the inactivity rule ended it
    (``idle_seconds`` 0: never)."""
    aside = (N_CARDS - sizes.sum()) / N_CARDS
    strat = seats[1]
    for g in range(actions.size):
        ex, cnt = s_[22][g], s_[9][g]
        rewards[g] = 0.0
        terminated[g] = False
        truncated[g] = False
        refused[g] = False
        idle[g] = False
        if ex[X_DONE]:
            _reset_one(g, s_, keys, sizes, h, seats, scratch, dead_end_scope, flip_pause,
                       choice_timeout, agent)  # fmt: skip
            _observe(g, s_, feat, order, agent, h, aside, obs, mask)
            continue
        t = ex[X_STEPS] * step_seconds
        ex[X_CHANGED] = 0
        if not _act(g, s_, seats, scratch, actions[g], t, h, dead_end_scope, flip_pause,
                    choice_timeout, agent, agent):  # fmt: skip
            refused[g] = True
        ex[X_WAIT] = -1 if cnt[C_PHASE] == OVER else _next_policy(strat, -1, agent)
        if ex[X_WAIT] < 0:
            _finish(g, s_, sizes, h, seats, scratch, dead_end_scope, flip_pause,
                    choice_timeout, agent, feat, order, step_seconds, idle_seconds, max_steps,
                    obs, mask, rewards, terminated, truncated, idle)  # fmt: skip


@kernel
def opponents_play(s_: tuple[Arr, ...], games: Arr, actions: Arr, keys: Arr, sizes: Arr,
                   h: int, seats: tuple[Arr, ...], scratch: tuple[Arr, ...],
                   dead_end_scope: int, flip_pause: float, choice_timeout: float, agent: int,
                   feat: Arr, order: Arr, step_seconds: float, idle_seconds: float,
                   max_steps: int, obs: Arr, mask: Arr, rewards: Arr, terminated: Arr,
                   truncated: Arr, refused: Arr, idle: Arr) -> None:  # fmt: skip
    """The opponent policy each of ``games`` waits on plays its action (checked legal) at the
    step's start, as in the single environment (after the learner, in seat order); the game
    then waits on the next policy seat, or, when none is left or it is over, runs to the
    step's end as :func:`step_games` does."""
    strat = seats[1]
    for i in range(games.size):
        g = games[i]
        ex, cnt = s_[22][g], s_[9][g]
        seat = ex[X_WAIT]
        t = ex[X_STEPS] * step_seconds
        _act(g, s_, seats, scratch, actions[i], t, h, dead_end_scope, flip_pause,
             choice_timeout, agent, seat)  # fmt: skip
        ex[X_WAIT] = -1 if cnt[C_PHASE] == OVER else _next_policy(strat, seat, agent)
        if ex[X_WAIT] < 0:
            _finish(g, s_, sizes, h, seats, scratch, dead_end_scope, flip_pause,
                    choice_timeout, agent, feat, order, step_seconds, idle_seconds, max_steps,
                    obs, mask, rewards, terminated, truncated, idle)  # fmt: skip


@kernel
def opponent_views(s_: tuple[Arr, ...], games: Arr, seat: int, sizes: Arr, h: int, feat: Arr,
                   order: Arr, obs: Arr, mask: Arr) -> None:  # fmt: skip
    """``seat``'s observation and mask of each of ``games`` in ``obs[i]`` and ``mask[i]``
    (``order``: that seat's pile order)."""
    aside = (N_CARDS - sizes.sum()) / N_CARDS
    for i in range(games.size):
        _encode(games[i], s_, feat, order, seat, h, aside, obs[i], mask[i])


@kernel
def step_games(s_: tuple[Arr, ...], actions: Arr, keys: Arr, sizes: Arr, h: int,
               seats: tuple[Arr, ...], scratch: tuple[Arr, ...], dead_end_scope: int,
               flip_pause: float, choice_timeout: float, agent: int, feat: Arr, order: Arr,
               step_seconds: float, idle_seconds: float, max_steps: int, obs: Arr, mask: Arr,
               rewards: Arr, terminated: Arr, truncated: Arr, refused: Arr,
               idle: Arr) -> None:  # fmt: skip
    """One step of every game: a game that ended in the previous step is dealt again (its
    action ignored, Gymnasium's next-step auto-reset); any other takes the learner's action at
    the step's start and runs to its end. Writes each game's observation, mask, reward, end,
    truncation, refusal and whether the inactivity rule ended it (``idle_seconds`` 0: never).
    With opponent policies a game may instead wait on one (``ex[g, X_WAIT]``).
    The work is :func:`_step_all`'s, compiled without reference counting. A game's rows of
    ``obs`` and ``mask`` are encoded again only when the step changed the game (``obs`` and
    ``mask`` are the same arrays from step to step)."""
    _step_all(s_, actions, keys, sizes, h, seats, scratch, dead_end_scope, flip_pause,
              choice_timeout, agent, feat, order, step_seconds, idle_seconds, max_steps, obs,
              mask, rewards, terminated, truncated, refused, idle)  # fmt: skip
