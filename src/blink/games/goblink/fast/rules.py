"""Go Blink's rules as compiled (numba) functions over one game's arrays, for the fast engine.

The second statement of the rules of :class:`~blink.games.goblink.engine.GoGame`, checked
against it by replaying the fast engine's games (tests/games/goblink/test_fast.py). Card ``i`` is
``STANDARD_DECK[i]``; a hand, the discard pile and a bot's knowledge are bit sets of cards
(``uint64``). A value is a small integer: the colours 0-5, the shapes 6-11 and the counts 1-5
as 12-16 (:data:`VALUES` maps them back). A game's state is three arrays: ``hands`` (one bit
set a seat), ``g`` (the ``G_*`` counters and fields) and ``u`` (the discard pile's cards, the
game's random key and its counter), plus ``perm``, the deal (card numbers, top first).

The random numbers are a counter-based stream keyed by the game's seed (SplitMix64's
finaliser, :func:`mix`), so a game depends only on its seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final, TypeVar, cast

import numpy as np
import numpy.typing as npt
from numba import njit, types
from numba.extending import intrinsic

from blink.cards import COUNTS, STANDARD_DECK, Color, Shape
from blink.games.goblink.values import MIN_MATCH

__all__ = [
    "G_FIELDS",
    "N_VALUES",
    "VALUES",
    "hot",
    "kernel",
]

Arr = npt.NDArray[Any]
F = TypeVar("F", bound=Callable[..., Any])


def kernel(fn: F) -> F:
    """Compile ``fn`` with numba (no Python objects, cached on disk), keeping its type."""
    return cast(F, njit(cache=True, nogil=True)(fn))


def hot(fn: F) -> F:
    """Compile ``fn`` as :func:`kernel` does, without reference counting: the functions of
    every step, which allocate no array."""
    options: dict[str, Any] = {"cache": True, "nogil": True, "_nrt": False}
    return cast(F, njit(**options)(fn))


@intrinsic
def _ctpop(typingctx: Any, x: Any) -> Any:
    if x != types.uint64:
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return types.int64(types.uint64), codegen


@intrinsic
def _cttz(typingctx: Any, x: Any) -> Any:
    if x != types.uint64:
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.cttz(args[0], context.get_constant(types.boolean, False))

    return types.int64(types.uint64), codegen


_CTPOP: Any = _ctpop
_CTTZ: Any = _cttz

# -- tables (module globals: numba compiles them in) ------------------------------------------

VALUES: Final = (*Color, *Shape, *COUNTS)
"""Value ``v`` of the kernels is ``VALUES[v]``: the colours, the shapes, then the counts."""
N_VALUES: Final = len(VALUES)
N_CARDS: Final = len(STANDARD_DECK)


def _value_index(value: object) -> int:
    for i, v in enumerate(VALUES):
        if v is value or (isinstance(v, int) and v == value):
            return i
    raise ValueError(f"not a value: {value!r}")


_CV = np.array(
    [[_value_index(c.color), _value_index(c.shape), _value_index(c.count)] for c in STANDARD_DECK],
    dtype=np.int64,
)
"""The three values of card ``i`` (colour, shape, count: the order of ``values_of``)."""
_VMASK = np.array(
    [sum(1 << i for i in range(N_CARDS) if v in _CV[i]) for v in range(N_VALUES)],
    dtype=np.uint64,
)
"""The cards of each value."""
_BINOM = np.array([[math.comb(n, k) for k in range(64)] for n in range(64)], dtype=np.int64)
"""Binomial coefficients ``C(n, k)`` for ``n, k < 64``."""
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_ALL = np.uint64((1 << N_CARDS) - 1)
NO_PLAN = np.uint64(0xFFFFFFFFFFFFFFFF)
""":func:`first_group`'s answer when no partition exists."""
_GOLD = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_STREAM = np.uint64(0x5851F42D4C957F2D)
_S30, _S27, _S31, _S11 = (np.uint64(k) for k in (30, 27, 31, 11))
_TWO53 = 2.0**-53
HAND = 4

# A game's fields (``g``).
G_PHASE, G_CUR, G_TURNS, G_ASKS, G_QUIET, G_LAID, G_OPEN_LEFT, G_DPTR = 0, 1, 2, 3, 4, 5, 6, 7
G_WINNERS, G_REASON, G_NACT, G_MATCHES, G_FIRST, G_DEALER, G_LIMIT, G_STATUS = (
    8, 9, 10, 11, 12, 13, 14, 15,
)  # fmt: skip
G_FIELDS = 16
# 64-bit words of a game (``u``).
U_DISCARD, U_KEY, U_CTR = 0, 1, 2
OPENING, ASKING, LAYING, OVER = 0, 1, 2, 3
BLUNK, FEWEST, TURN_LIMIT = 0, 1, 2
ASK, LAY, END = 0, 1, 2
LOG_FIELDS = 4
"""A logged action: kind (ask, lay, end), seat, the ask's ``target * 32 + value``, the lay's
cards (a bit set)."""


# -- bits and random numbers ------------------------------------------------------------------


@hot
def popc(x: np.uint64) -> int:
    """The number of cards in the bit set ``x``."""
    return _CTPOP(x)  # type: ignore[no-any-return]


@hot
def lowest(x: np.uint64) -> int:
    """The lowest card of the (non-empty) bit set ``x``."""
    return _CTTZ(x)  # type: ignore[no-any-return]


@hot
def mix(z: np.uint64) -> np.uint64:
    """SplitMix64's finaliser (a bijection of uint64 with good avalanche)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@hot
def uniform(u: Arr) -> float:
    """The game's next uniform number in [0, 1)."""
    c = u[U_CTR]
    u[U_CTR] = c + _ONE
    z = mix(u[U_KEY] + c * _GOLD)
    return float(z >> _S11) * _TWO53


@hot
def below(u: Arr, n: int) -> int:
    """A uniform integer in ``0 .. n - 1`` (``n`` at least 1)."""
    return min(int(uniform(u) * n), n - 1)


@hot
def nth_bit(x: np.uint64, r: int) -> int:
    """The ``r``-th lowest card of ``x`` (0-based)."""
    for _ in range(r):
        x &= x - _ONE
    return lowest(x)


@hot
def random_subset(group: np.uint64, k: int, u: Arr) -> np.uint64:
    """A uniformly random ``k``-card subset of ``group`` (selection sampling)."""
    left = popc(group)
    out = _ZERO
    while k > 0:
        c = lowest(group)
        group ^= _ONE << np.uint64(c)
        if uniform(u) * left < k:
            out |= _ONE << np.uint64(c)
            k -= 1
        left -= 1
    return out


@hot
def count(hand: np.uint64, v: int) -> int:
    """How many cards of ``hand`` have value ``v``."""
    return popc(hand & _VMASK[v])


@hot
def held_values(hand: np.uint64) -> int:
    """The values ``hand`` holds, as a bit set of values."""
    out = 0
    for v in range(N_VALUES):
        if hand & _VMASK[v]:
            out |= 1 << v
    return out


@hot
def binom(n: int, k: int) -> int:
    """``C(n, k)``."""
    return _BINOM[n, k]  # type: ignore[no-any-return]


# -- matches ----------------------------------------------------------------------------------


@hot
def lay_limit(hand: np.uint64, phase: int) -> int:
    """The most cards one lay-down may hold now (an opening match keeps a card of the deal)."""
    n = popc(hand)
    return n - 1 if phase == OPENING else n


@hot
def count_matches(hand: np.uint64, limit: int) -> int:
    """How many matches of 3 to ``limit`` cards ``hand`` holds (every subset of 3+ cards of one
    value: in the standard deck three cards never share two values, so none is counted twice)."""
    total = 0
    for v in range(N_VALUES):
        n = count(hand, v)
        for k in range(3, min(n, limit) + 1):
            total += binom(n, k)
    return total


@hot
def nth_match(hand: np.uint64, limit: int, r: int, u: Arr) -> np.uint64:
    """Match ``r`` of :func:`count_matches`'s (value by value, size by size); within one value
    and size, a uniformly random one of them (every match is equally likely over ``r``)."""
    for v in range(N_VALUES):
        group = hand & _VMASK[v]
        n = popc(group)
        for k in range(3, min(n, limit) + 1):
            b = binom(n, k)
            if r < b:
                return random_subset(group, k, u)
            r -= b
    return _ZERO


@hot
def _coverable(h: np.uint64) -> bool:
    """Every card of ``h`` has a value that at least three cards of ``h`` share."""
    rest = h
    while rest:
        c = lowest(rest)
        rest &= rest - _ONE
        if (
            count(h, _CV[c, 0]) < MIN_MATCH
            and count(h, _CV[c, 1]) < MIN_MATCH
            and count(h, _CV[c, 2]) < MIN_MATCH
        ):
            return False
    return True


@hot
def first_group(h: np.uint64) -> np.uint64:
    """The match holding ``h``'s lowest card in a partition of ``h`` into matches (0 for an empty
    ``h``), or :data:`NO_PLAN` when there is none, and for more than 24 cards (as the bots'
    ``winning_partition``, which gives up there).

    Only matches of 3 to 5 cards are tried: a bigger one splits into two of the same value."""
    if h == _ZERO:
        return _ZERO
    n = popc(h)
    if n < MIN_MATCH or n > 24 or not _coverable(h):
        return NO_PLAN
    c = lowest(h)
    low = _ONE << np.uint64(c)
    for a in range(3):
        others = (h & _VMASK[_CV[c, a]]) ^ low
        if popc(others) < 2:
            continue
        sub = others
        while sub:
            k = popc(sub)
            if 2 <= k <= 4 and first_group(h ^ (sub | low)) != NO_PLAN:
                return np.uint64(sub | low)
            sub = (sub - _ONE) & others
    return NO_PLAN


# -- the game ---------------------------------------------------------------------------------


@hot
def deal(seed: np.uint64, players: int, dealer: int, limit: int, perm: Arr, hands: Arr,
         g: Arr, u: Arr) -> None:  # fmt: skip
    """Deal the game of ``seed`` (a shuffle of its own random stream) as the engine deals a
    deck: four cards each from the player after the dealer; set up its opening."""
    u[U_KEY] = mix(seed ^ _STREAM)
    u[U_CTR] = _ZERO
    u[U_DISCARD] = _ZERO
    for i in range(N_CARDS):
        perm[i] = i
    for i in range(N_CARDS - 1, 0, -1):
        j = below(u, i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    first = (dealer + 1) % players
    for p in range(players):
        hands[p] = _ZERO
    for i in range(HAND * players):
        hands[(first + i) % players] |= _ONE << np.uint64(perm[i])
    g[:] = 0
    g[G_DPTR] = HAND * players
    g[G_OPEN_LEFT] = players - 1
    g[G_PHASE] = OPENING
    g[G_CUR] = first
    g[G_FIRST] = first
    g[G_DEALER] = dealer
    g[G_LIMIT] = limit


@hot
def draw(seat: int, perm: Arr, hands: Arr, g: Arr) -> bool:
    """``seat`` draws the top card of the draw pile, if there is one."""
    i = g[G_DPTR]
    if i >= N_CARDS:
        return False
    hands[seat] |= _ONE << np.uint64(perm[i])
    g[G_DPTR] = i + 1
    return True


@hot
def ask(p: int, q: int, v: int, perm: Arr, hands: Arr, g: Arr) -> tuple[np.uint64, bool, bool]:
    """``p`` asks ``q`` for value ``v``: the cards passed, whether ``p`` drew (a "Go Blink"),
    whether ``q``, emptied, drew."""
    passed = hands[q] & _VMASK[v]
    g[G_ASKS] += 1
    g[G_PHASE] = LAYING
    drew = False
    target_drew = False
    if passed:
        hands[q] ^= passed
        hands[p] |= passed
        if hands[q] == _ZERO:
            target_drew = draw(q, perm, hands, g)
    else:
        drew = draw(p, perm, hands, g)
    return passed, drew, target_drew


@hot
def end_by_count(hands: Arr, g: Arr, reason: int) -> None:
    """The game ends: the fewest cards in hand win."""
    players = hands.size
    fewest = popc(hands[0])
    for p in range(1, players):
        fewest = min(fewest, popc(hands[p]))
    w = 0
    for p in range(players):
        if popc(hands[p]) == fewest:
            w |= 1 << p
    g[G_WINNERS] = w
    g[G_REASON] = reason
    g[G_PHASE] = OVER
    g[G_CUR] = -1


@hot
def lay(p: int, cards: np.uint64, hands: Arr, g: Arr, u: Arr) -> None:
    """``p`` lays down the match ``cards``; the game is won when it empties the hand."""
    hands[p] ^= cards
    u[U_DISCARD] |= cards
    g[G_LAID] += 1
    g[G_MATCHES] += 1
    if hands[p] == _ZERO:
        g[G_WINNERS] = 1 << p
        g[G_REASON] = BLUNK
        g[G_PHASE] = OVER
        g[G_CUR] = -1


@hot
def _finish_turn(hands: Arr, g: Arr) -> None:
    """Count a finished turn; end the game after a quiet round or at the turn limit."""
    if g[G_DPTR] >= N_CARDS and g[G_LAID] == 0:
        g[G_QUIET] += 1
    else:
        g[G_QUIET] = 0
    g[G_LAID] = 0
    if g[G_QUIET] >= hands.size:
        end_by_count(hands, g, FEWEST)
    elif g[G_LIMIT] > 0 and g[G_TURNS] >= g[G_LIMIT]:
        end_by_count(hands, g, TURN_LIMIT)


@hot
def _begin_turn(seat: int, hands: Arr, g: Arr) -> None:
    """Give the turn to ``seat``, skipping players who hold nothing (empty draw pile)."""
    while True:
        g[G_CUR] = seat
        g[G_TURNS] += 1
        if hands[seat] != _ZERO:
            g[G_PHASE] = ASKING
            return
        _finish_turn(hands, g)
        if g[G_PHASE] == OVER:
            return
        seat = (seat + 1) % hands.size


@hot
def end_turn(p: int, hands: Arr, g: Arr) -> None:
    """``p`` ends their opening decision or their turn."""
    if g[G_PHASE] == OPENING:
        g[G_LAID] = 0
        if g[G_OPEN_LEFT] > 0:
            g[G_OPEN_LEFT] -= 1
            g[G_CUR] = (p + 1) % hands.size
        else:
            _begin_turn(g[G_FIRST], hands, g)
        return
    _finish_turn(hands, g)
    if g[G_PHASE] != OVER:
        _begin_turn((p + 1) % hands.size, hands, g)


@hot
def log_action(g: Arr, log: Arr, kind: int, seat: int, arg: int, cards: np.uint64) -> None:
    """Count an action, and append it to the game's log (if it keeps one)."""
    i = g[G_NACT]
    if i < log.shape[0]:
        log[i, 0] = kind
        log[i, 1] = seat
        log[i, 2] = arg
        log[i, 3] = np.int64(cards)
    g[G_NACT] = i + 1
