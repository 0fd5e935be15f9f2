"""What the master bot's seat knows, as compiled (numba) functions: the remembering bot's memory
of the log, a model of each opponent's, and, heads-up, a particle filter over the cards the
opponent holds that the seat has not seen.

:func:`learn_all` rebuilds, from a seat's events (its view's log: asks and lay-downs, with the
cards passed when the seat gave or received them), the remembering bot's memory of the log for
that seat (``known``: cards it knows each opponent holds; ``least``: how many cards of each
value each surely holds; ``none``: values each surely lacks) and its model of what each
opponent's remembering bot has learned (rows of the same arrays for the other seats), with a
trace of each opponent's last ask (:func:`_ask_likelihood`, which the deals of three or more
players are weighted by).

Heads-up, every card passed goes to or from the seat, so the model of the opponent's memory is
exact and :func:`filter_hidden` can follow the opponent's hand through the whole game: each
particle is one guess at the opponent's cards that the seat has not seen. The guesses draw a
card when the opponent draws, lose the cards the seat sees leave the opponent's hand, hold no
card of a value the opponent has just said "Go Blink" to, and are weighted, at each of the
opponent's asks, by how likely a remembering bot holding them was to make that ask (and less
likely when they hold three cards of a value, which it would have laid down). A guess that the
log contradicts is repaired (the card it lacked swapped in for one of its own) rather than
dropped, so that the particles stay many and varied; when their weights grow uneven they are
resampled.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from blink.games.goblink.fast.bots import EXPLORE, ask_scores, learn_ask, remember_lay
from blink.games.goblink.fast.rules import (
    _ONE,
    _VMASK,
    _ZERO,
    N_VALUES,
    U_DISCARD,
    below,
    count,
    kernel,
    nth_bit,
    popc,
    random_subset,
    uniform,
)
from blink.games.goblink.values import MIN_MATCH

__all__ = [
    "BELIEF_DIGEST",
    "EV_ASK",
    "EV_FIELDS",
    "EV_LAY",
    "PARTICLES",
    "filter_hidden",
    "learn_all",
    "new_trace",
]

Arr = npt.NDArray[Any]

BELIEF_DIGEST = "ad712a0cc1482a6c"
"""The start of the SHA-256 of rules.py and bots.py together, whose functions are compiled into
this module's (numba's disk cache checks only this file: a change there must change this line,
tests/games/goblink/test_master.py checks it)."""

PARTICLES = 256
"""How many guesses at the opponent's unseen cards :func:`filter_hidden` follows."""
TRIPLE_ODDS = 0.1
"""How much less likely a guess is for holding three cards of a value when the opponent asked:
a remembering bot lays a match down unless holding it back keeps pairs worth more."""
_FLOOR = 1e-3
"""The weight left to a guess that could not be repaired to agree with the log."""

EV_ASK, EV_LAY = 0, 1
"""The kinds of :func:`learn_all`'s events."""
EV_FIELDS = 8
"""An event: kind, player, target, value, cards passed (a number), the cards passed or laid
(a bit set; 0 when the seat did not see them), whether the asker drew, whether the target
drew."""


@kernel
def new_trace(players: int) -> tuple[Arr, Arr, Arr, Arr, Arr]:
    """An empty trace of the opponents' last asks (see :func:`_trace_event`)."""
    ti = np.zeros((players + 1, 4 + players), dtype=np.int64)
    ti[players, 4:] = 4  # the deal: four cards each
    tm = np.zeros((players + 1, 4), dtype=np.uint64)
    tk = np.zeros((players, players), dtype=np.uint64)
    tl = np.zeros((players, players, N_VALUES), dtype=np.int64)
    tn = np.zeros((players, players), dtype=np.int64)
    return ti, tm, tk, tl, tn


@kernel
def _trace_event(s: int, ev: Arr, known: Arr, least: Arr, none: Arr, ti: Arr, tm: Arr,
                 tk: Arr, tl: Arr, tn: Arr) -> None:  # fmt: skip
    """Keep, for each opponent, its last ask and what it knew then (``ti[o]``: valid, value,
    whether it drew, target, the hand sizes then; ``tm[o]``: the cards it was passed by seat
    ``s``, laid since, given ``s`` since, the discard pile then; ``tk``/``tl``/``tn``: its
    memory then, as ``s`` models it), while the hand it held then can be told from its hand now
    (it stops being valid when it is passed or gives cards ``s`` does not see, or draws
    emptied). Row ``players`` of ``ti``/``tm`` keeps the hand sizes and the discard pile."""
    players = known.shape[0]
    kind, p, q, v, k = ev[0], ev[1], ev[2], ev[3], ev[4]
    cards = np.uint64(ev[5])
    if kind == EV_ASK:
        if p != s:
            tk[p, :] = known[p, :]
            tl[p, :, :] = least[p, :, :]
            tn[p, :] = none[p, :]
            ti[p, 4:] = ti[players, 4:]
            ti[p, 0], ti[p, 1], ti[p, 2], ti[p, 3] = 1, v, ev[6], q
            tm[p, 0] = cards if q == s else _ZERO
            tm[p, 1], tm[p, 2], tm[p, 3] = _ZERO, _ZERO, tm[players, 3]
            if k > 0 and q != s:
                ti[p, 0] = 0
        if q != s and k > 0:
            if p == s:
                tm[q, 2] |= cards
            else:
                ti[q, 0] = 0
        if ev[7] != 0:
            ti[q, 0] = 0
        ti[players, 4 + p] += k + (1 if ev[6] != 0 else 0)
        ti[players, 4 + q] += (1 if ev[7] != 0 else 0) - k
    else:
        if p != s:
            tm[p, 1] |= cards
        ti[players, 4 + p] -= popc(cards)
        tm[players, 3] |= cards


@kernel
def _learn_event(s: int, ev: Arr, known: Arr, least: Arr, none: Arr, ti: Arr, tm: Arr,
                 tk: Arr, tl: Arr, tn: Arr) -> None:  # fmt: skip
    """Seat ``s``'s knowledge (row ``s``) and its model of the others' (the other rows) after
    one event (:data:`EV_FIELDS`), and the trace of the opponents' last asks."""
    _trace_event(s, ev, known, least, none, ti, tm, tk, tl, tn)
    players = known.shape[0]
    kind, p, q, v, k = ev[0], ev[1], ev[2], ev[3], ev[4]
    cards = np.uint64(ev[5])
    if kind == EV_ASK:
        seen = cards if (p == s or q == s) else _ZERO
        for me in range(players):
            learn_ask(me, p, q, v, k, seen, ev[6] != 0, ev[7] != 0, known, least, none)
    else:
        for me in range(players):
            if me != p:
                remember_lay(me, p, cards, known, least)


@kernel
def learn_all(s: int, events: Arr, known: Arr, least: Arr, none: Arr, ti: Arr, tm: Arr,
              tk: Arr, tl: Arr, tn: Arr) -> None:  # fmt: skip
    """Rebuild seat ``s``'s knowledge and trace (:func:`new_trace`) from its view's events in
    order (``events``: one row of :data:`EV_FIELDS` each, cards passed between two others as
    0)."""
    known[:] = _ZERO
    least[:] = 0
    none[:] = 0
    for i in range(events.shape[0]):
        _learn_event(s, events[i], known, least, none, ti, tm, tk, tl, tn)


@kernel
def _ask_likelihood(s: int, o: int, world: np.uint64, ti: Arr, tm: Arr, tk: Arr, tl: Arr,
                    tn: Arr, mine: np.uint64, u: Arr) -> float:  # fmt: skip
    """How likely opponent ``o``'s last ask was, for a remembering bot holding ``world`` now,
    relative to the likeliest (1 when nothing can be told)."""
    players = tk.shape[0]
    if ti[o, 0] == 0:
        return 1.0
    now = world
    if ti[o, 2] != 0:  # it drew a card since: one of its cards that ``s`` did not give it
        cand = now & ~mine
        if cand == _ZERO:
            return 0.0
        now &= ~(_ONE << np.uint64(nth_bit(cand, below(u, popc(cand)))))
    then = (now & ~tm[o, 0]) | tm[o, 1] | tm[o, 2]
    if popc(then) != ti[o, 4 + o]:
        return 1.0  # the trace does not add up: tell nothing
    v, target = ti[o, 1], ti[o, 3]
    if count(then, v) == 0:
        return 0.0
    hands = np.zeros(players, dtype=np.uint64)
    for p in range(players):
        hands[p] = then if p == o else (_ONE << np.uint64(ti[o, 4 + p])) - _ONE
    known = np.zeros((players, players), dtype=np.uint64)
    least = np.zeros((players, players, N_VALUES), dtype=np.int64)
    none = np.zeros((players, players), dtype=np.int64)
    known[o, :] = tk[o, :]
    least[o, :, :] = tl[o, :, :]
    none[o, :] = tn[o, :]
    fu = np.zeros(3, dtype=np.uint64)
    fu[U_DISCARD] = tm[o, 3]
    scores = np.zeros(players * N_VALUES, dtype=np.float64)
    sargs = np.zeros(players * N_VALUES, dtype=np.int64)
    n = ask_scores(o, hands, fu, known, least, none, scores, sargs)
    top = -1.0
    mine_score = -1.0
    for i in range(n):
        top = max(top, scores[i])
        if sargs[i] == target * 32 + v:
            mine_score = scores[i]
    ties = 0
    for i in range(n):
        if scores[i] >= top - 1e-9:
            ties += 1
    e = EXPLORE if top < 1.0 else 0.0
    best = (1.0 - e) + e / n
    like = e / n
    if mine_score >= top - 1e-9:
        like += (1.0 - e) / ties
    return like / best


# -- heads-up: a particle filter over the opponent's unseen cards ------------------------------


@kernel
def _random_card(pool: np.uint64, u: Arr) -> np.uint64:
    """One card of ``pool`` (not empty) at random, as a bit set."""
    return _ONE << np.uint64(nth_bit(pool, below(u, popc(pool))))


@kernel
def _resize(part: np.uint64, need: int, pool: np.uint64, u: Arr) -> np.uint64:
    """``part`` with cards taken out at random, or cards of ``pool`` put in at random, until it
    holds ``need`` cards (or ``pool`` runs out)."""
    while popc(part) > need:
        part ^= _random_card(part, u)
    pool &= ~part
    short = min(need - popc(part), popc(pool))
    if short > 0:
        part |= random_subset(pool, short, u)
    return part


@kernel
def _has_triple(hand: np.uint64) -> bool:
    """Whether ``hand`` holds three cards of one value."""
    most = 0
    for v in range(N_VALUES):
        most = max(most, count(hand, v))
    return most >= MIN_MATCH


@kernel
def _ask_probability(o: int, hands: Arr, fu: Arr, known: Arr, least: Arr, none: Arr, arg: int,
                     scores: Arr, sargs: Arr) -> float:  # fmt: skip
    """The probability that a remembering bot in seat ``o`` with ``hands[o]`` (the others'
    hand sizes as the sizes of ``hands``) and the memory in row ``o`` asks ``arg``
    (``target * 32 + value``): one of its best asks, or now and then any."""
    n = ask_scores(o, hands, fu, known, least, none, scores, sargs)
    if n == 0:
        return 0.0
    top = -1.0
    mine = -1.0
    for i in range(n):
        top = max(top, scores[i])
        if sargs[i] == arg:
            mine = scores[i]
    if mine < 0.0:
        return 0.0
    ties = 0
    for i in range(n):
        if scores[i] >= top - 1e-9:
            ties += 1
    e = EXPLORE if top < 1.0 else 0.0
    like = e / n
    if mine >= top - 1e-9:
        like += (1.0 - e) / ties
    return like


@kernel
def _weigh_ask(s: int, o: int, v: int, sizes: Arr, discard: np.uint64, unseen: np.uint64,
               known: Arr, least: Arr, none: Arr, parts: Arr, weights: Arr,
               u: Arr) -> None:  # fmt: skip
    """Weigh each guess by how likely the opponent's ask of ``s`` for value ``v`` was."""
    hands = np.zeros(2, dtype=np.uint64)
    hands[s] = (_ONE << np.uint64(sizes[s])) - _ONE
    fu = np.zeros(3, dtype=np.uint64)
    fu[U_DISCARD] = discard
    scores = np.zeros(2 * N_VALUES, dtype=np.float64)
    sargs = np.zeros(2 * N_VALUES, dtype=np.int64)
    for j in range(parts.size):
        if count(known[s, o] | parts[j], v) == 0:  # it holds a card of the value: swap one in
            pool = unseen & ~parts[j] & ~known[s, o] & _VMASK[v]
            if parts[j] == _ZERO or pool == _ZERO:
                weights[j] *= _FLOOR
                continue
            parts[j] ^= _random_card(parts[j], u)
            parts[j] |= _random_card(pool, u)
        hands[o] = known[s, o] | parts[j]
        w = _ask_probability(o, hands, fu, known, least, none, s * 32 + v, scores, sargs)
        if _has_triple(hands[o]):
            w *= TRIPLE_ODDS
        weights[j] *= max(w, _FLOOR * _FLOOR)


@kernel
def _resample(parts: Arr, weights: Arr, u: Arr) -> None:
    """Systematic resampling when the weights have grown uneven (fewer than half the guesses'
    worth); the weights are normalised either way."""
    k = parts.size
    total = weights.sum()
    if total <= 0.0:
        weights[:] = 1.0
        return
    weights /= total
    if 1.0 / (weights * weights).sum() >= k / 2:
        return
    old = parts.copy()
    step = 1.0 / k
    at = uniform(u) * step
    acc = weights[0]
    i = 0
    for j in range(k):
        while at > acc and i < k - 1:
            i += 1
            acc += weights[i]
        parts[j] = old[i]
        at += step
    weights[:] = 1.0 / k


@kernel
def filter_hidden(s: int, events: Arr, unseen: np.uint64, parts: Arr, weights: Arr,
                  u: Arr) -> None:  # fmt: skip
    """Heads-up, guesses at the cards the opponent holds that seat ``s`` has not seen (into
    ``parts``, each a bit set of cards among ``unseen``, with its weight in ``weights``), after
    the seat's events in order (see :func:`learn_all`). See the module for how they follow the
    game."""
    o = 1 - s
    known = np.zeros((2, 2), dtype=np.uint64)
    least = np.zeros((2, 2, N_VALUES), dtype=np.int64)
    none = np.zeros((2, 2), dtype=np.int64)
    ti, tm, tk, tl, tn = new_trace(2)
    sizes = np.full(2, 4, dtype=np.int64)
    discard = _ZERO
    for j in range(parts.size):
        parts[j] = random_subset(unseen, min(4, popc(unseen)), u)
        weights[j] = 1.0
    for i in range(events.shape[0]):
        ev = events[i]
        kind, p, q, v, k = ev[0], ev[1], ev[2], ev[3], ev[4]
        cards = np.uint64(ev[5])
        if kind == EV_ASK and p == o:
            _weigh_ask(s, o, v, sizes, discard, unseen, known, least, none, parts, weights, u)
            _resample(parts, weights, u)
        _learn_event(s, ev, known, least, none, ti, tm, tk, tl, tn)
        if kind == EV_ASK:
            sizes[p] += k + (1 if ev[6] != 0 else 0)
            sizes[q] += (1 if ev[7] != 0 else 0) - k
        else:
            sizes[p] -= popc(cards)
            discard |= cards
        hidden = sizes[o] - popc(known[s, o])
        for j in range(parts.size):
            part = parts[j] & ~known[s, o]
            pool = unseen & ~known[s, o]
            if kind == EV_ASK and p == o and ev[6] != 0:  # it drew a card
                part = _resize(part, hidden, pool, u)
            elif kind == EV_ASK and p == s:  # it passed every card of the value, or had none
                emptied = 1 if ev[7] != 0 else 0
                part = _resize(part & ~_VMASK[v] & ~cards, hidden - emptied, pool & ~_VMASK[v], u)
                part = _resize(part, hidden, pool, u)
            elif kind == EV_LAY and p == o:
                part = _resize(part & ~cards, hidden, pool, u)
            parts[j] = part
    for j in range(parts.size):  # cards seen since a guess took them: guess again
        parts[j] = _resize(parts[j] & unseen & ~known[s, o], sizes[o] - popc(known[s, o]),
                           unseen & ~known[s, o], u)  # fmt: skip
        if _has_triple(known[s, o] | parts[j]):
            weights[j] *= TRIPLE_ODDS
    _resample(parts, weights, u)
