"""The vector environment's kernels: many Go Blink games at once, one seat of each played by a
learner, one of its actions a step (for :mod:`blink.games.goblink.envs.vector`).

Each game is the fast engine's (:mod:`blink.games.goblink.fast.rules` deals and judges,
:mod:`blink.games.goblink.fast.bots` plays the other seats), and a step is the single-seat
environment's (:class:`~blink.games.goblink.envs.single.GoBlinkSingle`): the learner's action,
then the bots' turns until it is the learner's turn again or the game is over; then the
learner's observation and mask, encoded as :class:`~blink.games.goblink.envs.codec.GoCodec`
encodes a view. The observation's public logs (the matches laid down, the cards passed, the
window of asks) only grow, so each game's row of ``obs`` is kept from step to step and updated
as its actions happen; the hand, the counts and the phase are written afresh.

An opponent seat can be a policy asked from Python (``POLICY`` in ``bots``): a game stops at
its turn with its step (or its deal) unfinished, :func:`opponent_views` gives that seat's
observations and masks (each policy seat's observation row is kept as the learner's is, in
``S_VIEWS``), and :func:`opponents_play` plays the answers and goes on, finishing the step
when the learner's turn comes. Without policies no game ever stops there.

The games' arrays are one row per game (``S_*`` for the row's index in the tuple
:func:`new_games` returns); a game's row of ``log`` holds its episode's actions (kind, seat,
``target * 32 + value``, cards: the learner's too), from which the tests replay each episode
through the rules engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from blink.games.goblink.fast.bots import (
    GREEDY,
    MEMORY,
    RANDOM,
    _greedy_act,
    _legal,
    _memory_ask,
    _memory_lay,
    _random_act,
    remember_ask,
    remember_lay,
)
from blink.games.goblink.fast.rules import (
    _GOLD,
    _ONE,
    _VMASK,
    _ZERO,
    ASK,
    ASKING,
    G_CUR,
    G_DEALER,
    G_DPTR,
    G_LAID,
    G_PHASE,
    G_QUIET,
    G_REASON,
    G_STATUS,
    G_TURNS,
    G_WINNERS,
    LAY,
    LAYING,
    N_CARDS,
    N_VALUES,
    OPENING,
    OVER,
    ask,
    deal,
    end_turn,
    held_values,
    hot,
    kernel,
    lay,
    lay_limit,
    log_action,
    lowest,
    mix,
    popc,
)
from blink.games.goblink.values import MIN_MATCH

__all__ = ["new_games", "opponent_views", "opponents_play", "reset_games", "step_games"]

Arr = npt.NDArray[Any]

SOURCES_DIGEST = "ad712a0cc1482a6c"
"""The start of the SHA-256 of rules.py and bots.py together, whose functions are compiled
into this module's. numba's disk cache checks only the file a function is written in, so a
change there must change this line too (the tests check it): then this file changes, and its
compiled functions are rebuilt."""

# The games' arrays (the tuple new_games returns).
S_HANDS, S_G, S_U, S_PERM, S_LOG, S_KNOWN, S_LEAST, S_NONE, S_EX, S_MHAND, S_VIEWS = range(11)
# A game's integers (``ex``).
X_STEPS, X_DONE, X_EPISODES, X_MPHASE, X_PENDING = 0, 1, 2, 3, 4
N_EX = 5
# What a game waiting on an opponent policy (``X_PENDING``) finishes once the learner's turn
# comes: nothing (it waits on the learner), a step, or a deal.
NOT_PENDING, PENDING_STEP, PENDING_DEAL = 0, 1, 2
# The observation's offsets (``offs``, from the codec): the cards given and received, the
# hand counts, the draw pile, the phase, the current player, the dealer, the three numbers,
# the asks' window, a row of it, and the window's rows.
O_GIVEN, O_RECEIVED, O_COUNTS, O_DRAW, O_PHASE, O_CURRENT, O_DEALER, O_SCALARS = range(8)
O_LOG, O_ROW, O_WINDOW, O_FIRST_LAY = 8, 9, 10, 11
N_OFFS = 12
NOT_BOT = -1
"""The learner's seat in ``bots``: no bot plays it and no bot's memory is kept for it."""
POLICY = -2
"""An opponent policy's seat in ``bots``: the kernels stop at its turn (the caller asks the
policy, from the seat's observation kept in ``S_VIEWS``, and :func:`opponents_play` plays
its answer)."""
_DEALER_STREAM = np.uint64(0xD1B54A32D192ED03)


@kernel
def new_games(n: int, players: int, nlog: int, size: int) -> tuple[Arr, ...]:
    """Empty arrays for ``n`` games: hands, fields, words, deal, log, the remembering bots'
    memories (known, least, none), ``ex``, the hand each mask was last written for and each
    seat's observation of ``size`` numbers (0 without opponent policies: only theirs are
    kept)."""
    p = players
    return (
        np.zeros((n, p), dtype=np.uint64),
        np.zeros((n, 16), dtype=np.int64),
        np.zeros((n, 3), dtype=np.uint64),
        np.zeros((n, N_CARDS), dtype=np.int64),
        np.zeros((n, max(nlog, 1), 4), dtype=np.int64),
        np.zeros((n, p, p), dtype=np.uint64),
        np.zeros((n, p, p, N_VALUES), dtype=np.int64),
        np.zeros((n, p, p), dtype=np.int64),
        np.zeros((n, N_EX), dtype=np.int64),
        np.zeros(n, dtype=np.uint64),
        np.zeros((n, p, size), dtype=np.float32),
    )


# -- the observation --------------------------------------------------------------------------


@hot
def _see_ask(o: Arr, offs: Arr, agent: int, p: int, q: int, v: int, passed: np.uint64,
             drew: bool, target_drew: bool, players: int) -> None:  # fmt: skip
    """What the learner's observation keeps of ``p``'s answered ask of ``q`` for ``v``: the
    cards it gave or received, and the ask at the head of the window."""
    rp, rq = (p - agent) % players, (q - agent) % players
    if q == agent or p == agent:
        if q == agent:
            base = offs[O_GIVEN] + (rp - 1) * N_CARDS
        else:
            base = offs[O_RECEIVED] + (rq - 1) * N_CARDS
        rest = passed
        while rest:
            o[base + lowest(rest)] = 1.0
            rest &= rest - _ONE
    start, row = offs[O_LOG], offs[O_ROW]
    for i in range(offs[O_WINDOW] * row - 1, row - 1, -1):
        o[start + i] = o[start + i - row]
    for i in range(row):
        o[start + i] = 0.0
    o[start + rp] = 1.0
    o[start + players + rq] = 1.0
    o[start + 2 * players + v] = 1.0
    o[start + 2 * players + N_VALUES] = popc(passed) / 12
    o[start + 2 * players + N_VALUES + 1] = 1.0 if drew else 0.0
    o[start + 2 * players + N_VALUES + 2] = 1.0 if target_drew else 0.0


@hot
def _observe(o: Arr, offs: Arr, agent: int, hands: Arr, g: Arr) -> None:
    """Write the learner's hand, the counts, the phase, the seats and the numbers."""
    players = hands.size
    o[:N_CARDS] = 0.0
    rest = hands[agent]
    while rest:
        o[lowest(rest)] = 1.0
        rest &= rest - _ONE
    for i in range(players):
        o[offs[O_COUNTS] + i] = popc(hands[(agent + i) % players]) / N_CARDS
    o[offs[O_DRAW]] = (N_CARDS - g[G_DPTR]) / N_CARDS
    o[offs[O_PHASE] : offs[O_PHASE] + 4] = 0.0
    o[offs[O_PHASE] + g[G_PHASE]] = 1.0
    o[offs[O_CURRENT] : offs[O_CURRENT] + 2 * players] = 0.0
    if g[G_CUR] >= 0:
        o[offs[O_CURRENT] + (g[G_CUR] - agent) % players] = 1.0
    o[offs[O_DEALER] + (g[G_DEALER] - agent) % players] = 1.0
    base = offs[O_SCALARS]
    laid = g[G_LAID]
    o[base] = laid / 5 if laid < 5 else 1.0
    o[base + 1] = g[G_QUIET] / players
    turns = g[G_TURNS]
    o[base + 2] = turns / 1000 if turns < 1000 else 1.0


@hot
def _mark_matches(m: Arr, hand: np.uint64, limit: int, first: int, mkeys: Arr, midx: Arr,
                  value: int) -> None:  # fmt: skip
    """Set ``value`` at the index of every match of ``MIN_MATCH`` to ``limit`` cards of
    ``hand``."""
    for v in range(N_VALUES):
        group = hand & _VMASK[v]
        if popc(group) < MIN_MATCH:
            continue
        sub = group
        while sub:
            k = popc(sub)
            if MIN_MATCH <= k <= limit:
                m[first + midx[np.searchsorted(mkeys, sub)]] = value
            sub = (sub - _ONE) & group


@hot
def _write_mask(gi: int, s_: tuple[Arr, ...], m: Arr, offs: Arr, agent: int, mkeys: Arr,
                midx: Arr) -> None:  # fmt: skip
    """The learner's mask: its legal actions now (action 0 alone once the game is over),
    clearing the last mask's entries (the asks, and the matches of the hand it was for)."""
    hands, g, ex = s_[S_HANDS][gi], s_[S_G][gi], s_[S_EX][gi]
    first = offs[O_FIRST_LAY]
    m[:first] = 0
    old = ex[X_MPHASE]
    if old in (OPENING, LAYING):
        _mark_matches(m, s_[S_MHAND][gi], 60, first, mkeys, midx, 0)
    phase = g[G_PHASE]
    hand = hands[agent]
    ex[X_MPHASE] = phase
    s_[S_MHAND][gi] = hand
    _mark_legal(m, hand, phase, hands.size, first, mkeys, midx)


@hot
def _mark_legal(m: Arr, hand: np.uint64, phase: int, players: int, first: int, mkeys: Arr,
                midx: Arr) -> None:  # fmt: skip
    """Set the legal actions of the seat holding ``hand`` (whose turn it is) in ``m``."""
    if phase == OVER:
        m[0] = 1
    elif phase == ASKING:
        vals = held_values(hand)
        for k in range(players - 1):
            for v in range(N_VALUES):
                if vals >> v & 1:
                    m[1 + k * N_VALUES + v] = 1
    else:
        m[0] = 1
        _mark_matches(m, hand, lay_limit(hand, phase), first, mkeys, midx, 1)


# -- the game ---------------------------------------------------------------------------------


@hot
def _see_lay(o: Arr, cards: np.uint64) -> None:
    """What an observation keeps of a lay: the cards laid down."""
    rest = cards
    while rest:
        o[N_CARDS + lowest(rest)] = 1.0
        rest &= rest - _ONE


@hot
def _apply(gi: int, s_: tuple[Arr, ...], bots: Arr, s: int, kind: int, arg: int,
           cards: np.uint64, o: Arr, offs: Arr, agent: int) -> None:  # fmt: skip
    """Seat ``s``'s legal action, with what the remembering bots and the learner's
    observation learn from it."""
    hands, g, u, perm = s_[S_HANDS][gi], s_[S_G][gi], s_[S_U][gi], s_[S_PERM][gi]
    known, least, none = s_[S_KNOWN][gi], s_[S_LEAST][gi], s_[S_NONE][gi]
    views = s_[S_VIEWS][gi]
    log_action(g, s_[S_LOG][gi], kind, s, arg, cards)
    if kind == ASK:
        target, v = arg // 32, arg % 32
        passed, drew, target_drew = ask(s, target, v, perm, hands, g)
        for me in range(bots.size):
            if bots[me] == MEMORY:
                remember_ask(me, s, target, v, passed, drew, target_drew, known, least, none)
            elif bots[me] == POLICY:
                _see_ask(views[me], offs, me, s, target, v, passed, drew, target_drew, bots.size)
        _see_ask(o, offs, agent, s, target, v, passed, drew, target_drew, bots.size)
    elif kind == LAY:
        lay(s, cards, hands, g, u)
        for me in range(bots.size):
            if bots[me] == MEMORY and me != s:
                remember_lay(me, s, cards, known, least)
            elif bots[me] == POLICY:
                _see_lay(views[me], cards)
        _see_lay(o, cards)
    else:
        end_turn(s, hands, g)


@hot
def _bots_play(gi: int, s_: tuple[Arr, ...], bots: Arr, scores: Arr, args: Arr, o: Arr,
               offs: Arr, agent: int) -> None:  # fmt: skip
    """The bots' turns until the learner's, an opponent policy's or the end (``G_STATUS`` 1
    if a bot's action was not legal: the game stops there)."""
    hands, g, u = s_[S_HANDS][gi], s_[S_G][gi], s_[S_U][gi]
    known, least, none = s_[S_KNOWN][gi], s_[S_LEAST][gi], s_[S_NONE][gi]
    while g[G_PHASE] != OVER and g[G_CUR] != agent:
        s = g[G_CUR]
        code = bots[s]
        if code == POLICY:
            return
        if code == RANDOM:
            kind, arg, cards = _random_act(s, hands, g, u)
        elif code == GREEDY:
            kind, arg, cards = _greedy_act(s, hands, g, u)
        elif g[G_PHASE] == ASKING:
            kind, arg, cards = (
                ASK,
                _memory_ask(s, hands, u, known, least, none, scores, args),
                _ZERO,
            )
        else:
            kind, arg, cards = _memory_lay(s, hands, g, u, known, least)
        if not _legal(s, kind, arg, cards, hands, g):
            g[G_STATUS] = 1
            return
        _apply(gi, s_, bots, s, kind, arg, cards, o, offs, agent)


@hot
def _reset_one(gi: int, s_: tuple[Arr, ...], keys: Arr, bots: Arr, limit: int, scores: Arr,
               args: Arr, o: Arr, offs: Arr, agent: int) -> None:  # fmt: skip
    """Deal game ``gi``'s next episode (the next key of its sequence; the dealer drawn from
    it) and play the bots up to the learner's first decision."""
    ex = s_[S_EX][gi]
    key = mix(keys[gi] + np.uint64(ex[X_EPISODES]) * _GOLD)
    ex[X_EPISODES] += 1
    players = bots.size
    dealer = int(mix(key ^ _DEALER_STREAM) % np.uint64(players))
    deal(key, players, dealer, limit, s_[S_PERM][gi], s_[S_HANDS][gi], s_[S_G][gi], s_[S_U][gi])
    s_[S_KNOWN][gi][:] = _ZERO
    s_[S_LEAST][gi][:] = 0
    s_[S_NONE][gi][:] = 0
    s_[S_VIEWS][gi][:] = 0.0
    ex[X_STEPS] = 0
    ex[X_DONE] = 0
    o[:] = 0.0
    _bots_play(gi, s_, bots, scores, args, o, offs, agent)
    ex[X_PENDING] = PENDING_DEAL if _waits(s_[S_G][gi], agent) else NOT_PENDING


@hot
def _waits(g: Arr, agent: int) -> bool:
    """Whether the game waits on an opponent policy (not over, not the learner's turn)."""
    return bool(g[G_PHASE] != OVER and g[G_CUR] != agent)


@hot
def _reset_all(s_: tuple[Arr, ...], which: Arr, keys: Arr, bots: Arr, limit: int, scores: Arr,
               args: Arr, offs: Arr, agent: int, mkeys: Arr, midx: Arr, obs: Arr,
               mask: Arr) -> None:  # fmt: skip
    for gi in range(which.size):
        if which[gi]:
            _reset_one(gi, s_, keys, bots, limit, scores, args, obs[gi], offs, agent)
            if s_[S_EX][gi][X_PENDING]:
                continue
            _observe(obs[gi], offs, agent, s_[S_HANDS][gi], s_[S_G][gi])
            _write_mask(gi, s_, mask[gi], offs, agent, mkeys, midx)


@kernel
def reset_games(s_: tuple[Arr, ...], which: Arr, keys: Arr, bots: Arr, limit: int, scores: Arr,
                args: Arr, offs: Arr, agent: int, mkeys: Arr, midx: Arr, obs: Arr,
                mask: Arr) -> None:  # fmt: skip
    """Deal a new episode in each game ``gi`` with ``which[gi]``: episode ``ex[gi, X_EPISODES]``
    of the key sequence ``keys[gi]`` (a seed sets the key and that count to 0), the bots played
    up to the learner's turn; its observation and mask. The work is :func:`_reset_all`'s,
    compiled without reference counting (the games' rows are views)."""
    _reset_all(s_, which, keys, bots, limit, scores, args, offs, agent, mkeys, midx, obs, mask)


@hot
def _decode(a: int, agent: int, players: int, first: int, mbits: Arr) -> tuple[int, int, np.uint64]:
    """The learner's action index as (kind, ``target * 32 + value``, cards); kind -1 outside
    the action space."""
    if a == 0:
        return 2, 0, _ZERO
    if 0 < a < first:
        k, v = (a - 1) // N_VALUES, (a - 1) % N_VALUES
        return ASK, ((agent + k + 1) % players) * 32 + v, _ZERO
    if first <= a < first + mbits.size:
        return LAY, 0, mbits[a - first]
    return -1, 0, _ZERO


@hot
def _step_all(s_: tuple[Arr, ...], actions: Arr, keys: Arr, bots: Arr, limit: int,
              scores: Arr, args: Arr, offs: Arr, agent: int, mkeys: Arr, midx: Arr,
              mbits: Arr, max_steps: int, obs: Arr, mask: Arr, rewards: Arr, terminated: Arr,
              truncated: Arr, refused: Arr, reasons: Arr) -> None:  # fmt: skip
    players = bots.size
    first = offs[O_FIRST_LAY]
    for gi in range(actions.size):
        ex, g = s_[S_EX][gi], s_[S_G][gi]
        hands = s_[S_HANDS][gi]
        o = obs[gi]
        rewards[gi] = 0.0
        terminated[gi] = False
        truncated[gi] = False
        refused[gi] = False
        reasons[gi] = -1
        if ex[X_DONE]:
            _reset_one(gi, s_, keys, bots, limit, scores, args, o, offs, agent)
            if ex[X_PENDING]:
                continue
            _observe(o, offs, agent, hands, g)
            _write_mask(gi, s_, mask[gi], offs, agent, mkeys, midx)
            continue
        kind, arg, cards = _decode(actions[gi], agent, players, first, mbits)
        ok = (
            kind >= 0
            and g[G_PHASE] != OVER
            and g[G_CUR] == agent
            and _legal(agent, kind, arg, cards, hands, g)
        )
        if ok:
            _apply(gi, s_, bots, agent, kind, arg, cards, o, offs, agent)
            _bots_play(gi, s_, bots, scores, args, o, offs, agent)
            if _waits(g, agent):
                ex[X_PENDING] = PENDING_STEP
                continue
        else:
            refused[gi] = True
        _finish(gi, s_, ok, agent, offs, mkeys, midx, max_steps, o, mask, rewards, terminated,
                truncated, reasons)  # fmt: skip


@hot
def _finish(gi: int, s_: tuple[Arr, ...], ok: bool, agent: int, offs: Arr, mkeys: Arr,
            midx: Arr, max_steps: int, o: Arr, mask: Arr, rewards: Arr, terminated: Arr,
            truncated: Arr, reasons: Arr) -> None:  # fmt: skip
    """The end of game ``gi``'s step, the learner's turn come or the game over: the step
    counted, the reward, the end or the truncation, and the observation and mask (where the
    step changed the game, ``ok``)."""
    ex, g, hands = s_[S_EX][gi], s_[S_G][gi], s_[S_HANDS][gi]
    ex[X_STEPS] += 1
    if g[G_PHASE] == OVER:
        w = g[G_WINNERS]
        if w & (1 << agent) == 0:
            rewards[gi] = -1.0
        elif w == 1 << agent:
            rewards[gi] = 1.0
        terminated[gi] = True
        reasons[gi] = g[G_REASON]
    elif ex[X_STEPS] >= max_steps:
        truncated[gi] = True
    ex[X_DONE] = terminated[gi] or truncated[gi]
    if ok:  # else the game is as the row last encoded it
        _observe(o, offs, agent, hands, g)
        _write_mask(gi, s_, mask[gi], offs, agent, mkeys, midx)


@kernel
def step_games(s_: tuple[Arr, ...], actions: Arr, keys: Arr, bots: Arr, limit: int,
               scores: Arr, args: Arr, offs: Arr, agent: int, mkeys: Arr, midx: Arr,
               mbits: Arr, max_steps: int, obs: Arr, mask: Arr, rewards: Arr, terminated: Arr,
               truncated: Arr, refused: Arr, reasons: Arr) -> None:  # fmt: skip
    """One step of every game: a game that ended in the previous step is dealt again (its
    action ignored, Gymnasium's next-step auto-reset); any other takes the learner's action (a
    refused one changes nothing) and the bots' turns after it. Writes each game's observation
    and mask (only where the step changed the game), reward, end, truncation, refusal and the
    end's reason (the rules' code, -1 while the game goes on). A game whose turn comes to an
    opponent policy (``POLICY`` in ``bots``) stops there, its step unfinished
    (``ex[gi, X_PENDING]``) until :func:`opponents_play` brings the learner's turn. The work is
    :func:`_step_all`'s, compiled without reference counting."""
    _step_all(s_, actions, keys, bots, limit, scores, args, offs, agent, mkeys, midx, mbits,
              max_steps, obs, mask, rewards, terminated, truncated, refused, reasons)  # fmt: skip


@hot
def _views_all(s_: tuple[Arr, ...], games: Arr, seat: int, offs: Arr, mkeys: Arr, midx: Arr,
               obs: Arr, mask: Arr) -> None:  # fmt: skip
    first = offs[O_FIRST_LAY]
    for j in range(games.size):
        gi = games[j]
        hands, g = s_[S_HANDS][gi], s_[S_G][gi]
        row = s_[S_VIEWS][gi][seat]
        _observe(row, offs, seat, hands, g)
        for k in range(row.size):
            obs[j, k] = row[k]
        _mark_legal(mask[j], hands[seat], g[G_PHASE], hands.size, first, mkeys, midx)


@kernel
def opponent_views(s_: tuple[Arr, ...], games: Arr, seat: int, offs: Arr, mkeys: Arr,
                   midx: Arr, obs: Arr, mask: Arr) -> None:  # fmt: skip
    """Row ``j`` of ``obs`` and ``mask``: the observation and the legal actions of ``seat`` (an
    opponent policy's, whose turn it is) in game ``games[j]``."""
    _views_all(s_, games, seat, offs, mkeys, midx, obs, mask)


@hot
def _opponents_all(s_: tuple[Arr, ...], games: Arr, actions: Arr, bots: Arr, scores: Arr,
                   args: Arr, offs: Arr, agent: int, mkeys: Arr, midx: Arr, mbits: Arr,
                   max_steps: int, obs: Arr, mask: Arr, rewards: Arr, terminated: Arr,
                   truncated: Arr, reasons: Arr) -> None:  # fmt: skip
    players = bots.size
    first = offs[O_FIRST_LAY]
    for j in range(games.size):
        gi = games[j]
        ex, g, hands = s_[S_EX][gi], s_[S_G][gi], s_[S_HANDS][gi]
        s = g[G_CUR]
        kind, arg, cards = _decode(actions[j], s, players, first, mbits)
        if kind < 0 or not _legal(s, kind, arg, cards, hands, g):
            g[G_STATUS] = 1
            continue
        _apply(gi, s_, bots, s, kind, arg, cards, obs[gi], offs, agent)
        _bots_play(gi, s_, bots, scores, args, obs[gi], offs, agent)
        if _waits(g, agent):
            continue
        pending = ex[X_PENDING]
        ex[X_PENDING] = NOT_PENDING
        if pending == PENDING_STEP:
            _finish(gi, s_, True, agent, offs, mkeys, midx, max_steps, obs[gi], mask, rewards,
                    terminated, truncated, reasons)  # fmt: skip
        else:
            _observe(obs[gi], offs, agent, hands, g)
            _write_mask(gi, s_, mask[gi], offs, agent, mkeys, midx)


@kernel
def opponents_play(s_: tuple[Arr, ...], games: Arr, actions: Arr, bots: Arr, scores: Arr,
                   args: Arr, offs: Arr, agent: int, mkeys: Arr, midx: Arr, mbits: Arr,
                   max_steps: int, obs: Arr, mask: Arr, rewards: Arr, terminated: Arr,
                   truncated: Arr, reasons: Arr) -> None:  # fmt: skip
    """Game ``games[j]``'s opponent policy, whose turn it is, plays ``actions[j]`` (an index
    of its seat's flat actions; ``G_STATUS`` 1 if it is not legal: the game stops there), then
    the bots until the learner's turn, another policy's or the end. Where the learner's turn
    comes (or the end), the step or the deal the game waited in is finished as
    :func:`step_games` or :func:`reset_games` finishes it: the learner's observation and mask,
    and a step's reward, end, truncation and reason."""
    _opponents_all(s_, games, actions, bots, scores, args, offs, agent, mkeys, midx, mbits,
                   max_steps, obs, mask, rewards, terminated, truncated, reasons)  # fmt: skip
