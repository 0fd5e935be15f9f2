"""A tree search over the master seat's own decisions (single-observer information-set Monte
Carlo tree search, Cowling, Powley and Whitehouse 2012), an alternative to the flat search of
:mod:`blink.games.goblink.fast.master`.

Each iteration deals the unseen cards as the flat search does (:func:`sample_world`), then walks
a tree whose nodes are the seat's own decisions, keyed by the sequence of its own actions from
the root. Between two of the seat's decisions the other seats play the remembering bot in that
deal; every seat's memory is kept up to date as a rollout keeps it. At a node, the actions legal
in this deal are scored by UCB1 with availability counts (a child's "visits when available" is
its parent count); one new node is added per iteration, then every seat plays the remembering bot
to the end (or :data:`ROLLOUT_TURNS` more turns from the root). The reward is the seat's share of
the win. The root's most-visited child is the choice.

Forced choices are not nodes: a single legal action, a hand that splits into matches (laid at
once, as :func:`~blink.games.goblink.fast.master.decide` does) and, from turn
:data:`PATIENCE` on, the remembering bot's choice (the walk stops there and the rollout plays on).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from blink.games.goblink.fast.bots import MEMORY, _step
from blink.games.goblink.fast.master import (
    _MAX_OPTIONS,
    _SALT,
    PATIENCE,
    ROLLOUT_TURNS,
    _options,
    candidates,
    sample_world,
    take,
)
from blink.games.goblink.fast.rules import (
    _GOLD,
    _ZERO,
    G_CUR,
    G_DPTR,
    G_FIELDS,
    G_LIMIT,
    G_PHASE,
    G_TURNS,
    G_WINNERS,
    LAY,
    LAYING,
    N_CARDS,
    N_VALUES,
    NO_PLAN,
    OVER,
    U_CTR,
    U_DISCARD,
    U_KEY,
    first_group,
    kernel,
    mix,
    popc,
    uniform,
)

__all__ = ["EXPLORATION", "SEARCH_DIGEST", "decide_tree"]

Arr = npt.NDArray[Any]

SEARCH_DIGEST = "46a64d377a57fa87"
"""The start of the SHA-256 of rules.py, bots.py, belief.py and master.py together, whose
functions are compiled into this module's (numba's disk cache checks only this file: a change
there must change this line, tests/games/goblink/test_master.py checks it)."""

EXPLORATION = 0.7
"""UCB1's exploration constant (rewards are win shares, 0 to 1)."""


@kernel
def _child(node: int, m: int, ok_kinds: Arr, ok_args: Arr, ok_cards: Arr, nodes: int, cap: int,
           parent: Arr, first_child: Arr, sibling: Arr, nkind: Arr, narg: Arr, ncards: Arr,
           visits: Arr, avail: Arr, reward: Arr, ok: Arr, child: Arr, su: Arr,
           explore: float) -> tuple[int, int, int, bool]:  # fmt: skip
    """At ``node``, among the ``m`` options this deal allows: a new child for one without a
    child yet, at random, or else the child with the best UCB1 score (availability counts).
    The option's index (-1: none), its node, the nodes now in the tree, and whether the walk
    ends there (a new node, or a root child's first visit)."""
    fresh = 0
    for i in range(m):
        child[i] = -1
        c = first_child[node]
        while c >= 0:
            same = nkind[c] == ok_kinds[i] and narg[c] == ok_args[i]
            if same and ncards[c] == ok_cards[i]:
                child[i] = c
                break
            c = sibling[c]
        if child[i] < 0:
            ok[fresh] = i
            fresh += 1
    for i in range(m):
        if child[i] >= 0:
            avail[child[i]] += 1.0
    if fresh > 0 and nodes < cap:  # expand one option at random
        i = ok[min(int(uniform(su) * fresh), fresh - 1)]
        c = nodes
        nkind[c], narg[c], ncards[c] = ok_kinds[i], ok_args[i], ok_cards[i]
        parent[c] = node
        sibling[c] = first_child[node]
        first_child[node] = c
        avail[c] = 1.0
        return i, c, nodes + 1, True
    best, top = -1, -1.0
    for i in range(m):
        c = child[i]
        if c < 0:
            continue
        if visits[c] == 0.0:
            score = 1e9 - i  # a root child not visited yet: in order
        else:
            score = reward[c] / visits[c] + explore * np.sqrt(np.log(avail[c]) / visits[c])
        if score > top:
            best, top = i, score
    if best < 0:
        return -1, -1, nodes, False
    c = child[best]
    return best, c, nodes, visits[c] == 0.0


@kernel
def _tree(s: int, n: int, kinds: Arr, args: Arr, cards: Arr, hand: np.uint64, counts: Arr,
          g: Arr, discard: np.uint64, known: Arr, least: Arr, none: Arr,
          trace: tuple[Arr, Arr, Arr, Arr, Arr], parts: Arr, weights: Arr, key: np.uint64,
          budget: int, omni: int, true_hands: Arr, true_perm: Arr,
          explore: float) -> tuple[int, int]:  # fmt: skip
    """``budget`` iterations of the tree search over the root's ``n`` options; the chosen
    option's index (the most visited; earlier options win ties) and the iterations run."""
    players = counts.size
    cap = budget + n + 2
    parent = np.full(cap, -1, dtype=np.int64)
    first_child = np.full(cap, -1, dtype=np.int64)
    sibling = np.full(cap, -1, dtype=np.int64)
    nkind = np.zeros(cap, dtype=np.int64)
    narg = np.zeros(cap, dtype=np.int64)
    ncards = np.zeros(cap, dtype=np.uint64)
    visits = np.zeros(cap, dtype=np.float64)
    avail = np.zeros(cap, dtype=np.float64)
    reward = np.zeros(cap, dtype=np.float64)
    nodes = 1  # node 0: the root
    path = np.zeros(cap, dtype=np.int64)
    hands = np.zeros(players, dtype=np.uint64)
    perm = np.zeros(N_CARDS, dtype=np.int64)
    gw = np.zeros(G_FIELDS, dtype=np.int64)
    u = np.zeros(3, dtype=np.uint64)
    su = np.zeros(3, dtype=np.uint64)
    kw = np.zeros_like(known)
    lw = np.zeros_like(least)
    nw = np.zeros_like(none)
    bots = np.full(players, MEMORY, dtype=np.int64)
    log = np.zeros((1, 4), dtype=np.int64)
    scores = np.zeros(players * N_VALUES, dtype=np.float64)
    sargs = np.zeros(players * N_VALUES, dtype=np.int64)
    ok = np.zeros(_MAX_OPTIONS, dtype=np.int64)
    child = np.zeros(_MAX_OPTIONS, dtype=np.int64)
    ok_kinds = np.zeros(_MAX_OPTIONS, dtype=np.int64)
    ok_args = np.zeros(_MAX_OPTIONS, dtype=np.int64)
    ok_cards = np.zeros(_MAX_OPTIONS, dtype=np.uint64)
    # the root's children, in the root's option order
    for i in range(n):
        nkind[nodes], narg[nodes], ncards[nodes] = kinds[i], args[i], cards[i]
        parent[nodes] = 0
        if i == 0:
            first_child[0] = nodes
        else:
            sibling[nodes - 1] = nodes
        nodes += 1
    used = 0
    for w in range(budget):
        su[U_KEY], su[U_CTR] = mix(key + np.uint64(w) * _GOLD), _ZERO
        first = sample_world(s, hand, counts, g[G_DPTR], discard, known, least, none, trace,
                             parts, weights, omni, true_hands, true_perm, hands, perm,
                             su)  # fmt: skip
        gw[:] = g
        gw[G_DPTR] = first
        gw[G_CUR] = s
        u[U_DISCARD], u[U_KEY], u[U_CTR] = discard, mix(key ^ (np.uint64(w + 1) * _SALT)), _ZERO
        kw[:] = known
        lw[:] = least
        nw[:] = none
        limit = gw[G_TURNS] + ROLLOUT_TURNS
        if gw[G_LIMIT] == 0 or gw[G_LIMIT] > limit:
            gw[G_LIMIT] = limit
        node = 0
        depth = 0
        path[0] = 0
        expanded = False
        while not expanded and gw[G_PHASE] != OVER:
            if gw[G_CUR] != s:  # the others play the remembering bot
                if not _step(bots, hands, gw, u, perm, log, kw, lw, nw, scores, sargs):
                    break  # never: the remembering bot plays only legal actions
                continue
            if gw[G_TURNS] >= PATIENCE:
                break  # the rollout plays the remembering bot's choice from here
            phase = gw[G_PHASE]
            h = hands[s]
            if phase == LAYING:
                plan = first_group(h)
                if plan != NO_PLAN and plan != _ZERO:
                    take(s, LAY, 0, plan, hands, gw, u, perm, kw, lw, nw)
                    continue
            if node == 0:
                m = n
                for i in range(n):
                    ok_kinds[i], ok_args[i], ok_cards[i] = kinds[i], args[i], cards[i]
            else:
                m = _options(s, h, phase, players, ok_kinds, ok_args, ok_cards)
            if m == 1:
                take(s, ok_kinds[0], ok_args[0], ok_cards[0], hands, gw, u, perm, kw, lw, nw)
                continue
            i, c, nodes, expanded = _child(node, m, ok_kinds, ok_args, ok_cards, nodes, cap,
                                           parent, first_child, sibling, nkind, narg, ncards,
                                           visits, avail, reward, ok, child, su,
                                           explore)  # fmt: skip
            if i < 0:
                break
            take(s, ok_kinds[i], ok_args[i], ok_cards[i], hands, gw, u, perm, kw, lw, nw)
            depth += 1
            path[depth] = c
            node = c
        while gw[G_PHASE] != OVER:
            if not _step(bots, hands, gw, u, perm, log, kw, lw, nw, scores, sargs):
                break  # never
        r = 0.0
        wn = gw[G_WINNERS]
        if gw[G_PHASE] == OVER and wn >> s & 1:
            r = 1.0 / popc(np.uint64(wn))
        for d in range(depth + 1):
            visits[path[d]] += 1.0
            reward[path[d]] += r
        used += 1
    best, most = 0, -1.0
    for i in range(n):  # the root's children are nodes 1..n
        if visits[1 + i] > most:
            best, most = i, visits[1 + i]
    return best, used


@kernel
def decide_tree(s: int, hand: np.uint64, counts: Arr, g: Arr, discard: np.uint64, known: Arr,
                least: Arr, none: Arr, trace: tuple[Arr, Arr, Arr, Arr, Arr], parts: Arr,
                weights: Arr, key: np.uint64, budget: int, omni: int, true_hands: Arr,
                true_perm: Arr, explore: float) -> tuple[int, int, np.uint64, int]:  # fmt: skip
    """As :func:`~blink.games.goblink.fast.master.decide` (the same unsearched choices, from
    :func:`~blink.games.goblink.fast.master.candidates`), with the tree search instead of
    sequential halving: ``budget`` iterations, exploration ``explore``."""
    kinds = np.zeros(_MAX_OPTIONS, dtype=np.int64)
    args = np.zeros(_MAX_OPTIONS, dtype=np.int64)
    cards = np.zeros(_MAX_OPTIONS, dtype=np.uint64)
    n, kind, arg, laid, seen = candidates(s, hand, counts, g, discard, known, least, none, key,
                                          budget, omni, kinds, args, cards)  # fmt: skip
    if n == 0:
        return kind, arg, laid, 0
    i, used = _tree(s, n, kinds, args, cards, hand, counts, g, discard, known, least, none,
                    trace, parts, weights, key, budget, seen, true_hands, true_perm,
                    explore)  # fmt: skip
    return kinds[i], args[i], cards[i], used
