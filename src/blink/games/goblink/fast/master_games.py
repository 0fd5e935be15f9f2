"""Whole Go Blink games with a master seat, compiled, for the master bot's strength study.

:func:`play_master_games` plays games as the fast engine's loop does (``play_games`` of
:mod:`blink.games.goblink.fast.bots`), with one seat played by the master bot's search
(:mod:`blink.games.goblink.fast.master`), which learns only what its seat may see; with
``omni`` it sees every hand (1), also the draw pile's order (2), or every hand when it asks
only (3): the ceiling of what knowledge is worth. ``benchmarks/master_study.py`` runs it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from blink.games.goblink.fast.belief import EV_ASK, EV_FIELDS, EV_LAY, _learn_event, new_trace
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
from blink.games.goblink.fast.master import MASTER, believe, decide
from blink.games.goblink.fast.rules import (
    _GOLD,
    _ONE,
    _ZERO,
    ASK,
    ASKING,
    G_CUR,
    G_PHASE,
    G_STATUS,
    LAY,
    N_CARDS,
    N_VALUES,
    OPENING,
    OVER,
    U_CTR,
    U_DISCARD,
    U_KEY,
    ask,
    deal,
    end_turn,
    kernel,
    lay,
    log_action,
    mix,
    popc,
)
from blink.games.goblink.fast.tree_search import decide_tree

__all__ = ["MASTER", "SOURCES_DIGEST", "play_master_games"]

Arr = npt.NDArray[Any]

SOURCES_DIGEST = "145607d43edbac57"
"""The start of the SHA-256 of rules.py, bots.py, belief.py, master.py and tree_search.py
together, whose functions are compiled into this module's (numba's disk cache checks only this
file: a change there must change this line, tests/games/goblink/test_master.py checks it)."""

_SALT = np.uint64(0xD1B54A32D192ED03)
_MAX_EVENTS = 4096
"""The master seat's log holds this many events (a game of 1,000 turns has at most about
2,000)."""


@kernel
def _master_turn(s: int, hands: Arr, g: Arr, u: Arr, perm: Arr, mk: Arr, ml: Arr, mn: Arr,
                 trace: tuple[Arr, Arr, Arr, Arr, Arr], events: Arr, budget: int,
                 omni: int, search: int,
                 explore: float) -> tuple[int, int, np.uint64, int]:  # fmt: skip
    """The master seat's action from what it may know (its hand, the hand sizes, the public
    fields, the discard pile, its knowledge, the events it saw); with ``omni`` the true hands
    too. ``search`` 0: the flat search (sequential halving); 1: the tree search
    (:mod:`blink.games.goblink.fast.tree_search`, exploration ``explore``)."""
    players = hands.size
    counts = np.zeros(players, dtype=np.int64)
    for p in range(players):
        counts[p] = popc(hands[p])
    c = u[U_CTR]
    u[U_CTR] = c + _ONE
    key = mix(u[U_KEY] ^ _SALT ^ (c * _GOLD))
    if g[G_PHASE] == OPENING:
        parts = np.zeros(0, dtype=np.uint64)
        weights = np.zeros(0, dtype=np.float64)
    else:
        parts, weights = believe(s, events, hands[s], u[U_DISCARD], mk, key)
    if search == 1:
        return decide_tree(s, hands[s], counts, g.copy(), u[U_DISCARD], mk, ml, mn, trace, parts,
                           weights, key, budget, omni, hands.copy(), perm, explore)  # fmt: skip
    return decide(s, hands[s], counts, g.copy(), u[U_DISCARD], mk, ml, mn, trace, parts, weights,
                  key, budget, omni, hands.copy(), perm)  # fmt: skip


@kernel
def _keep(ev: Arr, evs: Arr, nev: Arr) -> None:
    """Append the event to the master seat's log (``nev[0]`` rows used; the oldest are kept
    when it is full)."""
    if nev[0] < evs.shape[0]:
        evs[nev[0], :] = ev
        nev[0] += 1


@kernel
def _apply(ms: int, s: int, kind: int, arg: int, cards: np.uint64, bots: Arr, hands: Arr,
           g: Arr, u: Arr, perm: Arr, log: Arr, known: Arr, least: Arr, none: Arr, mk: Arr,
           ml: Arr, mn: Arr, trace: tuple[Arr, Arr, Arr, Arr, Arr], ev: Arr, evs: Arr,
           nev: Arr) -> bool:  # fmt: skip
    """Apply seat ``s``'s action if legal (False if not); the remembering seats learn from it
    as in fast.bots' loop, and the master seat ``ms`` (if any) from what it may see."""
    if not _legal(s, kind, arg, cards, hands, g):
        return False
    log_action(g, log, kind, s, arg, cards)
    players = bots.size
    if kind == ASK:
        target, v = arg // 32, arg % 32
        passed, drew, target_drew = ask(s, target, v, perm, hands, g)
        for me in range(players):
            if bots[me] == MEMORY:
                remember_ask(me, s, target, v, passed, drew, target_drew, known, least, none)
        if ms >= 0:
            seen = passed if ms in (s, target) else _ZERO
            ev[0], ev[1], ev[2], ev[3], ev[4] = EV_ASK, s, target, v, popc(passed)
            ev[5], ev[6], ev[7] = np.int64(seen), 1 if drew else 0, 1 if target_drew else 0
            _learn_event(ms, ev, mk, ml, mn, trace[0], trace[1], trace[2], trace[3], trace[4])
            _keep(ev, evs, nev)
    elif kind == LAY:
        lay(s, cards, hands, g, u)
        for me in range(players):
            if me != s and bots[me] == MEMORY:
                remember_lay(me, s, cards, known, least)
        if ms >= 0:
            ev[0], ev[1], ev[2], ev[3], ev[4] = EV_LAY, s, 0, 0, 0
            ev[5], ev[6], ev[7] = np.int64(cards), 0, 0
            _learn_event(ms, ev, mk, ml, mn, trace[0], trace[1], trace[2], trace[3], trace[4])
            _keep(ev, evs, nev)
    else:
        end_turn(s, hands, g)
    return True


@kernel
def play_master_games(seeds: Arr, dealers: Arr, bots: Arr, limit: int, budget: int, omni: int,
                      search: int, explore: float, out: Arr, counts: Arr,
                      stats: Arr) -> None:  # fmt: skip
    """Play one game per seed as fast.bots' ``play_games`` does, with seat code :data:`MASTER`
    for the master bot (one seat at most; ``search`` and ``explore`` as :func:`_master_turn`'s).
    ``stats[i]``: the master's searched decisions and rollouts in game ``i``."""
    players = bots.size
    hands = np.zeros(players, dtype=np.uint64)
    g = np.zeros(out.shape[1], dtype=np.int64)
    u = np.zeros(3, dtype=np.uint64)
    perm = np.zeros(N_CARDS, dtype=np.int64)
    log = np.zeros((1, 4), dtype=np.int64)
    known = np.zeros((players, players), dtype=np.uint64)
    least = np.zeros((players, players, N_VALUES), dtype=np.int64)
    none = np.zeros((players, players), dtype=np.int64)
    mk = np.zeros((players, players), dtype=np.uint64)
    ml = np.zeros((players, players, N_VALUES), dtype=np.int64)
    mn = np.zeros((players, players), dtype=np.int64)
    scores = np.zeros(players * N_VALUES, dtype=np.float64)
    sargs = np.zeros(players * N_VALUES, dtype=np.int64)
    ev = np.zeros(EV_FIELDS, dtype=np.int64)
    evs = np.zeros((_MAX_EVENTS, EV_FIELDS), dtype=np.int64)
    nev = np.zeros(1, dtype=np.int64)
    ms = -1
    for p in range(players):
        if bots[p] == MASTER:
            ms = p
    for i in range(seeds.size):
        deal(seeds[i], players, dealers[i], limit, perm, hands, g, u)
        known[:] = _ZERO
        mk[:] = _ZERO
        least[:] = 0
        ml[:] = 0
        none[:] = 0
        mn[:] = 0
        trace = new_trace(players)
        nev[0] = 0
        while g[G_PHASE] != OVER:
            s = g[G_CUR]
            code = bots[s]
            if code == MASTER:
                kind, arg, cards, used = _master_turn(s, hands, g, u, perm, mk, ml, mn, trace,
                                                      evs[: nev[0]], budget, omni, search,
                                                      explore)  # fmt: skip
                if used:
                    stats[i, 0] += 1
                    stats[i, 1] += used
            elif code == RANDOM:
                kind, arg, cards = _random_act(s, hands, g, u)
            elif code == GREEDY:
                kind, arg, cards = _greedy_act(s, hands, g, u)
            elif g[G_PHASE] == ASKING:
                kind, arg = ASK, _memory_ask(s, hands, u, known, least, none, scores, sargs)
                cards = _ZERO
            else:
                kind, arg, cards = _memory_lay(s, hands, g, u, known, least)
            if not _apply(ms, s, kind, arg, cards, bots, hands, g, u, perm, log, known, least,
                          none, mk, ml, mn, trace, ev, evs, nev):  # fmt: skip
                g[G_STATUS] = 1
                break
        out[i, :] = g
        for p in range(players):
            counts[i, p] = popc(hands[p])
