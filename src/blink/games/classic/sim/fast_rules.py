"""The fast simulator's rules: compiled (numba) functions that deal and play classic Blink.

The second statement of the classic rules, written as small functions over one game's arrays
for :mod:`blink.games.classic.sim.fast`, which checks it against the engine of record
(:class:`~blink.games.classic.engine.ClassicGame`) by replaying its games. A game's state is a
handful of arrays (see :func:`new_state`): the hands, draw piles and tops as card numbers
(``DECK[i]``, ``NONE`` for no card), the hands as bit sets, and two small arrays of counters
(``cnt``, indexed by the ``C_*`` constants) and of 64-bit words (``u``: the cards shown, the
game's random key and its counter). The random numbers are a counter-based stream keyed by
the game's seed (SplitMix64's finaliser, :func:`mix`), so a game depends only on its seed.

:func:`random_games` plays random-legal games with these rules (the ceiling the bots' kernel
of :mod:`blink.games.classic.sim.fast_bots` is measured against).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar, cast

import numpy as np
import numpy.typing as npt
from numba import njit, types
from numba.extending import intrinsic

from blink.games.classic.rules import DeadEnd
from blink.games.classic.sim.fast_tables import (
    BIT,
    COLOR,
    COST,
    EXP_F,
    EXP_K,
    EXP_R,
    EXP_W,
    MATCH,
    N_CARDS,
    NORMAL_F,
    NORMAL_K,
    NORMAL_R,
    NORMAL_W,
    SHAPE_ONLY,
)

__all__ = [
    "ACTION_FIELDS",
    "C_CHOICES",
    "C_DEAD_ENDS",
    "C_DEFAULTS",
    "C_FLIPS",
    "C_NLOG",
    "C_PHASE",
    "C_PLAYS",
    "C_REASON",
    "C_STALLS",
    "C_STATUS",
    "C_WINNERS",
    "N_COUNTERS",
    "kernel",
    "random_games",
]

Arr = npt.NDArray[Any]
F = TypeVar("F", bound=Callable[..., Any])

TABLES_DIGEST = "f5ae90a3a6cbc1c1"
"""The start of the SHA-256 of fast_tables.py, whose tables are compiled into this module's
functions. numba's disk cache checks only the file a function is written in, so a change to
fast_tables.py must change this line too (tests/sim/test_fast.py checks it): then this file
changes, and its compiled functions are rebuilt."""


def kernel(fn: F) -> F:
    """Compile ``fn`` with numba (no Python objects, cached on disk), keeping its type."""
    return cast(F, njit(cache=True, nogil=True)(fn))


def hot(fn: F) -> F:
    """Compile ``fn`` as :func:`kernel` does, without reference counting: for the functions of
    every step, which allocate no array (counting the arrays' references, atomically, was
    most of the kernels' time)."""
    options: dict[str, Any] = {"cache": True, "nogil": True, "_nrt": False}
    return cast(F, njit(**options)(fn))


def hot_inline(fn: F) -> F:
    """:func:`hot`, and inlined by numba into its callers (the bots' searches: 25 % faster;
    inlining every small function was slower, and slower to compile)."""
    options: dict[str, Any] = {"cache": True, "nogil": True, "_nrt": False, "inline": "always"}
    return cast(F, njit(**options)(fn))


@intrinsic
def _ctpop(typingctx: Any, x: Any) -> Any:
    if x != types.uint64:
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return types.int64(types.uint64), codegen


_CTPOP: Any = _ctpop


# -- constants (module globals: numba compiles them in) ---------------------------------------

NONE = N_CARDS
_BIT = BIT
_MATCH = MATCH
_COLOR = COLOR
_SHAPE_ONLY = SHAPE_ONLY
_COST = COST
_ZERO = np.uint64(0)
_DECK = np.uint64((1 << N_CARDS) - 1)
_GOLD = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_STREAM = np.uint64(0x5851F42D4C957F2D)
_S30, _S27, _S31, _S11 = (np.uint64(k) for k in (30, 27, 31, 11))
_TWO53 = 2.0**-53
_ONE = np.uint64(1)
_S1, _S3, _S8 = np.uint64(1), np.uint64(3), np.uint64(8)
_BYTE = np.uint64(0xFF)
_LOW52 = np.uint64((1 << 52) - 1)
_NORMAL_K, _NORMAL_W, _NORMAL_F, _NORMAL_R = NORMAL_K, NORMAL_W, NORMAL_F, NORMAL_R
_EXP_K, _EXP_W, _EXP_F, _EXP_R = EXP_K, EXP_W, EXP_F, EXP_R
_BUCKETS = 64
_BUCKET_SHIFT = np.uint64(58)

# Counters of a game (``cnt``) and of its result row.
C_PLAYS, C_STALLS, C_FLIPS, C_CHOICES, C_DEAD_ENDS, C_DEFAULTS = 0, 1, 2, 3, 4, 5
C_WINNERS, C_REASON, C_PHASE, C_NLOG, C_STATUS = 6, 7, 8, 9, 10
N_COUNTERS = 11
# 64-bit words of a game (``u``).
U_SHOWN, U_KEY, U_CTR = 0, 1, 2
PLAYING, OVER = 0, 1
OUT_OF_CARDS, STALL_PLACEMENT, FEWEST_CARDS = 0, 1, 2
PLAY, FLIP, CHOOSE = 0, 1, 2
ACTION_FIELDS = 5
"""A logged action: kind (0 play, 1 flip, 2 choose), seat, card, pile, time in ms."""


# -- bits and random numbers ------------------------------------------------------------------


@hot
def popc(x: np.uint64) -> int:
    """The number of cards in the bit set ``x``."""
    return _CTPOP(x)  # type: ignore[no-any-return]


@hot
def mix(z: np.uint64) -> np.uint64:
    """SplitMix64's finaliser (a bijection of uint64 with good avalanche)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@hot
def uniform(u: Arr) -> float:
    """The game's next uniform number in [0, 1) (its key and counter are ``u``)."""
    c = u[U_CTR]
    u[U_CTR] = c + np.uint64(1)
    z = mix(u[U_KEY] + c * _GOLD)
    return float(z >> _S11) * _TWO53


@hot
def bits64(u: Arr) -> np.uint64:
    """The game's next 64 random bits (its key and counter are ``u``)."""
    c = u[U_CTR]
    u[U_CTR] = c + np.uint64(1)
    return mix(u[U_KEY] + c * _GOLD)


@hot
def normal(u: Arr) -> float:
    """A standard normal number from the game's stream (the ziggurat method: one draw of 64
    bits nearly every time, exact in distribution)."""
    while True:
        r = bits64(u)
        i = r & _BYTE
        r >>= _S8
        rabs = (r >> _S1) & _LOW52
        x = float(rabs) * _NORMAL_W[i]
        negative = (r & _ONE) != _ZERO
        if rabs < _NORMAL_K[i]:
            return -x if negative else x  # type: ignore[no-any-return]
        if i == _ZERO:
            # The tail beyond NORMAL_R (Marsaglia's method).
            while True:
                xx = -np.log1p(-uniform(u)) / _NORMAL_R
                yy = -np.log1p(-uniform(u))
                if yy + yy > xx * xx:
                    z = _NORMAL_R + xx
                    return -z if negative else z  # type: ignore[no-any-return]
        else:
            y = (_NORMAL_F[i - _ONE] - _NORMAL_F[i]) * uniform(u) + _NORMAL_F[i]
            if y < np.exp(-0.5 * x * x):
                return -x if negative else x  # type: ignore[no-any-return]


@hot
def exponential(u: Arr) -> float:
    """A standard exponential number from the game's stream (the ziggurat method)."""
    while True:
        r = bits64(u) >> _S3
        i = r & _BYTE
        r >>= _S8
        x = float(r) * _EXP_W[i]
        if r < _EXP_K[i]:
            return x  # type: ignore[no-any-return]
        if i == _ZERO:
            return _EXP_R - np.log1p(-uniform(u))  # type: ignore[no-any-return]
        if (_EXP_F[i - _ONE] - _EXP_F[i]) * uniform(u) + _EXP_F[i] < np.exp(-x):
            return x  # type: ignore[no-any-return]


# -- a game's state ---------------------------------------------------------------------------


@kernel
def new_state(players: int, h: int, dmax: int, nlog: int) -> tuple[Arr, ...]:
    """Empty arrays for one game: hand, hcount, draw, dptr, dleft, tops, hm, pbs, deficit,
    cnt, u, clock, log, perm, and the deal's scratch (its keys, raw and sorted, and the
    buckets' counts)."""
    return (
        np.full((players, h), NONE, dtype=np.int64),
        np.zeros(players, dtype=np.int64),
        np.full((players, max(dmax, 1)), NONE, dtype=np.int64),
        np.zeros(players, dtype=np.int64),
        np.zeros(players, dtype=np.int64),
        np.zeros(players, dtype=np.int64),
        np.zeros(players, dtype=np.uint64),
        np.zeros(players, dtype=np.int64),
        np.zeros(players, dtype=np.int64),
        np.zeros(N_COUNTERS, dtype=np.int64),
        np.zeros(3, dtype=np.uint64),
        np.zeros(1, dtype=np.float64),
        np.zeros((max(nlog, 1), ACTION_FIELDS), dtype=np.int64),
        np.zeros(N_CARDS, dtype=np.int64),
        np.zeros(2 * N_CARDS, dtype=np.uint64),
        np.zeros(_BUCKETS, dtype=np.int64),
    )


@hot
def shuffle(key0: np.uint64, perm: Arr, keys: Arr, buckets: Arr) -> None:
    """The deck's order for the game keyed ``key0`` in ``perm``: the cards sorted by a random
    key each (``keys``, ``buckets``: scratch).

    The order of numpy's argsort of the keys, the order the seeds' games have always been
    dealt in: the keys are distinct, so it is the one sorted order. They are placed by their
    top six bits (a bucket sort: about one key a bucket), then an insertion sort puts the few
    keys sharing a bucket in order (an insertion sort of the whole deck took a fifth of a
    random-legal game)."""
    n = perm.size
    for b in range(_BUCKETS):
        buckets[b] = 0
    for j in range(n):
        key = mix(key0 + np.uint64(j + 1) * _GOLD)
        keys[j] = key
        buckets[key >> _BUCKET_SHIFT] += 1
    start = 0
    for b in range(_BUCKETS):
        c = buckets[b]
        buckets[b] = start
        start += c
    for j in range(n):
        key = keys[j]
        top = key >> _BUCKET_SHIFT
        i = buckets[top]
        buckets[top] = i + 1
        keys[n + i] = key
        perm[i] = j
    for j in range(1, n):
        key = keys[n + j]
        card = perm[j]
        i = j
        while i > 0 and keys[n + i - 1] > key:
            keys[n + i] = keys[n + i - 1]
            perm[i] = perm[i - 1]
            i -= 1
        keys[n + i] = key
        perm[i] = card


@hot
def deal(
    key0: np.uint64,
    sizes: Arr,
    h: int,
    hand: Arr,
    hcount: Arr,
    draw: Arr,
    dptr: Arr,
    dleft: Arr,
    tops: Arr,
    hm: Arr,
    u: Arr,
    perm: Arr,
    keys: Arr,
    buckets: Arr,
) -> None:
    """Deal the game keyed ``key0`` (the deck ordered by a random key per card, see
    :func:`shuffle`) and set its random stream."""
    shuffle(key0, perm, keys, buckets)
    u[U_KEY] = mix(key0 ^ _STREAM)
    u[U_CTR] = _ZERO
    shown = _ZERO
    start = 0
    for p in range(sizes.size):
        n = sizes[p]
        tops[p] = perm[start]
        shown |= _BIT[perm[start]]
        held = min(h, n - 1)
        bits = _ZERO
        for k in range(h):
            c = perm[start + 1 + k] if k < held else NONE
            hand[p, k] = c
            bits |= _BIT[c]
        hm[p] = bits
        hcount[p] = held
        rest = n - 1 - held
        for k in range(rest):
            draw[p, k] = perm[start + 1 + held + k]
        dptr[p] = 0
        dleft[p] = rest
        start += n
    u[U_SHOWN] = shown


@hot
def reset_counters(cnt: Arr, pbs: Arr, deficit: Arr, clock: Arr) -> None:
    """Zero a game's counters and clock before it starts."""
    for i in range(cnt.size):
        cnt[i] = 0
    for p in range(pbs.size):
        pbs[p] = 0
        deficit[p] = 0
    clock[0] = 0.0


@hot
def log_action(cnt: Arr, log: Arr, kind: int, seat: int, card: int, pile: int, ms: int) -> None:
    """Append an action to the game's log (if it keeps one)."""
    i = cnt[C_NLOG]
    if i < log.shape[0]:
        log[i, 0] = kind
        log[i, 1] = seat
        log[i, 2] = card
        log[i, 3] = pile
        log[i, 4] = ms
    cnt[C_NLOG] = i + 1


# -- the rules --------------------------------------------------------------------------------


@hot
def stalled(reach: Arr, tops: Arr, hm: Arr) -> bool:
    """No player has a hand card matching a top they can reach."""
    for p in range(hm.size):
        if hm[p] & (_MATCH[tops[reach[p, 0]]] | _MATCH[tops[reach[p, 1]]]) != _ZERO:
            return False
    return True


@hot
def can_flip(dleft: Arr) -> bool:
    """A stall is broken by a flip when every player still has a draw pile."""
    for p in range(dleft.size):  # noqa: SIM110 (numba compiles loops, not all() of a generator)
        if dleft[p] == 0:
            return False
    return True


DEAD_END_NEVER: Final = 0
DEAD_END_NO_DRAW_LEFT: Final = 1
DEAD_END_ANY_EMPTY: Final = 2
DEAD_END_SCOPES: Final = {
    DeadEnd.CHOOSE: DEAD_END_NEVER,
    DeadEnd.FEWEST_CARDS: DEAD_END_NO_DRAW_LEFT,
    DeadEnd.FEWEST_CARDS_ANY_EMPTY: DEAD_END_ANY_EMPTY,
}
"""Each dead-end ruling as the kernels' ``dead_end_scope``."""


@hot
def ends_in_dead_end(dead_end_scope: int, dleft: Arr) -> bool:
    """Whether a stall that cannot be flipped ends the game (fewest cards left win), for the
    ruleset's :data:`DEAD_END_SCOPES` value: never (``choose``), once no draw pile is left
    (``fewest-cards-no-draw-left``), or as soon as any is empty (the earlier ruling,
    ``fewest-cards``). The one place the fast engine states the dead-end rule's scope (asked
    only when :func:`can_flip` said no, so some draw pile is empty)."""
    if dead_end_scope == DEAD_END_NEVER:
        return False
    if dead_end_scope == DEAD_END_ANY_EMPTY:
        return True
    for p in range(dleft.size):  # noqa: SIM110 (numba compiles loops, not any() of a generator)
        if dleft[p] > 0:
            return False
    return True


@hot
def take(seat: int, slot: int, card: int, hand: Arr, hcount: Arr, draw: Arr, dptr: Arr,
         dleft: Arr, hm: Arr) -> None:  # fmt: skip
    """``card`` left ``seat``'s hand from ``slot``: refilled from the draw pile, or the hand
    closes up (the engine's order of slots)."""
    if dleft[seat] > 0:
        new = draw[seat, dptr[seat]]
        dptr[seat] += 1
        dleft[seat] -= 1
        hand[seat, slot] = new
        hm[seat] ^= _BIT[card] | _BIT[new]
        return
    h = hand.shape[1]
    for k in range(slot, h - 1):
        hand[seat, k] = hand[seat, k + 1]
    hand[seat, h - 1] = NONE
    hcount[seat] -= 1
    hm[seat] ^= _BIT[card]


@hot
def slot_of(hand: Arr, seat: int, card: int) -> int:
    """The slot of ``card`` in ``seat``'s hand."""
    for k in range(hand.shape[1]):
        if hand[seat, k] == card:
            return k
    return 0


@hot
def flip_all(draw: Arr, dptr: Arr, dleft: Arr, tops: Arr, u: Arr) -> None:
    """Every player flips their draw pile's top onto their own pile."""
    for p in range(tops.size):
        c = draw[p, dptr[p]]
        dptr[p] += 1
        dleft[p] -= 1
        tops[p] = c
        u[U_SHOWN] |= _BIT[c]


@hot
def end_fewest(hcount: Arr, dleft: Arr, cnt: Arr) -> None:
    """The dead end: the players with the fewest cards left win."""
    fewest = hcount[0] + dleft[0]
    for p in range(1, hcount.size):
        fewest = min(fewest, hcount[p] + dleft[p])
    w = 0
    for p in range(hcount.size):
        if hcount[p] + dleft[p] == fewest:
            w |= 1 << p
    cnt[C_WINNERS] = w
    cnt[C_REASON] = FEWEST_CARDS
    cnt[C_PHASE] = OVER
    cnt[C_DEAD_ENDS] += 1


@hot
def end_if_empty(hcount: Arr, cnt: Arr) -> None:
    """After the chosen cards are placed: the players whose hands are empty win."""
    w = 0
    for p in range(hcount.size):
        if hcount[p] == 0:
            w |= 1 << p
    if w:
        cnt[C_WINNERS] = w
        cnt[C_REASON] = STALL_PLACEMENT
        cnt[C_PHASE] = OVER


@hot
def update_deficit(hcount: Arr, dleft: Arr, deficit: Arr) -> None:
    """Each seat's most cards left beyond the leader, after a play."""
    lead = hcount[0] + dleft[0]
    for p in range(1, hcount.size):
        lead = min(lead, hcount[p] + dleft[p])
    for p in range(hcount.size):
        deficit[p] = max(deficit[p], hcount[p] + dleft[p] - lead)


# -- random-legal games -----------------------------------------------------------------------


@hot
def _random_play(reach: Arr, tops: Arr, hm: Arr, u: Arr, scratch: Arr) -> tuple[int, int, int]:
    """One of every player's legal plays, uniformly: (seat, card, pile), seat -1 if none."""
    players = hm.size
    masks = scratch
    total = 0
    for p in range(players):
        a, b = reach[p, 0], reach[p, 1]
        m = hm[p] & _MATCH[tops[a]]
        masks[2 * p] = m
        total += popc(m)
        m = hm[p] & _MATCH[tops[b]] if b != a else _ZERO
        masks[2 * p + 1] = m
        total += popc(m)
    if total == 0:
        return -1, NONE, 0
    r = int(uniform(u) * total)
    for i in range(2 * players):
        m = masks[i]
        n = popc(m)
        if r < n:
            for _ in range(r):
                m &= m - np.uint64(1)
            card = popc((m & (_ZERO - m)) - np.uint64(1))
            return i // 2, card, reach[i // 2, i % 2]
        r -= n
    return -1, NONE, 0


@hot
def _random_stall(dead_end_scope: int, hand: Arr, hcount: Arr, draw: Arr, dptr: Arr,
                  dleft: Arr, tops: Arr, hm: Arr, reach: Arr, cnt: Arr, u: Arr,
                  log: Arr) -> None:  # fmt: skip
    """A stall of a random-legal game: flips, or each player's default choice (the first hand
    card), until a play is possible or the game is over."""
    while True:
        cnt[C_STALLS] += 1
        if can_flip(dleft):
            cnt[C_FLIPS] += 1
            flip_all(draw, dptr, dleft, tops, u)
            log_action(cnt, log, FLIP, 0, 0, 0, cnt[C_NLOG])
        elif ends_in_dead_end(dead_end_scope, dleft):
            end_fewest(hcount, dleft, cnt)
            return
        else:
            cnt[C_CHOICES] += 1
            for p in range(hcount.size):
                c = hand[p, 0]
                log_action(cnt, log, CHOOSE, p, c, 0, cnt[C_NLOG])
                tops[p] = c
                u[U_SHOWN] |= _BIT[c]
                take(p, 0, c, hand, hcount, draw, dptr, dleft, hm)
            end_if_empty(hcount, cnt)
            if cnt[C_PHASE] == OVER:
                return
        if not stalled(reach, tops, hm):
            return


@hot
def write_result(g: int, cnt: Arr, pbs: Arr, deficit: Arr, hcount: Arr, dleft: Arr,
                 log: Arr, perm: Arr, nlog: int, out: Arr, seat_out: Arr, logs: Arr,
                 perms: Arr) -> None:  # fmt: skip
    """Game ``g``'s counters, seats' figures and (when ``nlog`` is positive) actions and deal
    into the outputs."""
    for i in range(cnt.size):
        out[g, i] = cnt[i]
    for p in range(pbs.size):
        seat_out[g, p, 0] = pbs[p]
        seat_out[g, p, 1] = deficit[p]
        seat_out[g, p, 2] = hcount[p] + dleft[p]
    if nlog > 0:
        n = min(cnt[C_NLOG], nlog)
        for i in range(n):
            for f in range(ACTION_FIELDS):
                logs[g, i, f] = log[i, f]
        for i in range(perm.size):
            perms[g, i] = perm[i]


@hot
def _random_loop(keys: Arr, sizes: Arr, h: int, reach: Arr, dead_end_scope: int, nlog: int,
                 st: tuple[Arr, ...], scratch: Arr, out: Arr, seat_out: Arr, logs: Arr,
                 perms: Arr) -> None:  # fmt: skip
    """The games of :func:`random_games`, in the arrays ``st`` of :func:`new_state`."""
    hand, hcount, draw, dptr, dleft, tops, hm = st[0], st[1], st[2], st[3], st[4], st[5], st[6]
    pbs, deficit, cnt, u, clock, log, perm = st[7], st[8], st[9], st[10], st[11], st[12], st[13]
    for g in range(keys.size):
        reset_counters(cnt, pbs, deficit, clock)
        deal(keys[g], sizes, h, hand, hcount, draw, dptr, dleft, tops, hm, u, perm, st[14],
             st[15])  # fmt: skip
        while cnt[C_PHASE] == PLAYING:
            seat, card, pile = _random_play(reach, tops, hm, u, scratch)
            if seat < 0:  # no legal play: the game is stalled (as stalled() says)
                _random_stall(dead_end_scope, hand, hcount, draw, dptr, dleft, tops, hm,
                              reach, cnt, u, log)  # fmt: skip
                continue
            log_action(cnt, log, PLAY, seat, card, pile, cnt[C_NLOG])
            slot = slot_of(hand, seat, card)
            tops[pile] = card
            u[U_SHOWN] |= _BIT[card]
            cnt[C_PLAYS] += 1
            pbs[seat] += 1
            take(seat, slot, card, hand, hcount, draw, dptr, dleft, hm)
            if hcount[seat] == 0:
                cnt[C_WINNERS] = 1 << seat
                cnt[C_REASON] = OUT_OF_CARDS
                cnt[C_PHASE] = OVER
            update_deficit(hcount, dleft, deficit)
        write_result(g, cnt, pbs, deficit, hcount, dleft, log, perm, nlog, out, seat_out, logs,
                     perms)  # fmt: skip


@kernel
def random_games(keys: Arr, sizes: Arr, h: int, reach: Arr, dead_end_scope: int,
                 nlog: int, out: Arr, seat_out: Arr, logs: Arr, perms: Arr) -> None:  # fmt: skip
    """Play one random-legal game per key: uniformly one of every player's legal plays at each
    step; a stall is flipped, or every player places their first hand card (the default
    choice), or ends the game under the dead-end rule. Results go to ``out`` (the ``C_*``
    counters), ``seat_out`` (plays, max deficit, cards left per seat) and, when ``nlog`` is
    positive, the actions and deals to ``logs`` and ``perms``.

    This function makes the arrays; the games are played without counting their references
    (:func:`hot`)."""
    players = sizes.size
    dmax = 0
    for p in range(players):
        dmax = max(dmax, sizes[p] - 1 - h)
    st = new_state(players, h, dmax, nlog)
    scratch = np.zeros(2 * players, dtype=np.uint64)
    _random_loop(keys, sizes, h, reach, dead_end_scope, nlog, st, scratch, out, seat_out, logs,
                 perms)  # fmt: skip
