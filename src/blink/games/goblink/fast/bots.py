"""Go Blink's bots as compiled (numba) functions, and the loop that plays whole games with them.

The ``random``, ``greedy`` and ``memory`` bots of :mod:`blink.games.goblink.bots`, making the
same decisions from the same facts (a view's: the bot's own hand, every hand's size, the
discard pile, the public log of asks and the cards it passed and received), with the game's
own random stream instead of each bot's generator: the same play, other games. A remembering
bot's memory (``known``: the cards it knows each opponent holds; ``least``: how many cards of
each value each opponent surely holds; ``none``: the values each surely lacks) is updated as
each ask is answered and each match is laid down, in the order the Python bot reads its log.
The rules are :mod:`blink.games.goblink.fast.rules`'.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from blink.games.goblink.fast.rules import (
    _ALL,
    _CV,
    _ONE,
    _VMASK,
    _ZERO,
    ASK,
    ASKING,
    END,
    G_CUR,
    G_DPTR,
    G_NACT,
    G_PHASE,
    G_STATUS,
    LAY,
    LAYING,
    N_CARDS,
    N_VALUES,
    NO_PLAN,
    OPENING,
    OVER,
    U_DISCARD,
    ask,
    below,
    binom,
    count,
    count_matches,
    deal,
    end_turn,
    first_group,
    held_values,
    hot,
    kernel,
    lay,
    lay_limit,
    log_action,
    lowest,
    nth_bit,
    nth_match,
    popc,
    random_subset,
    uniform,
)
from blink.games.goblink.values import MIN_MATCH

__all__ = ["GREEDY", "MEMORY", "RANDOM", "play_games"]

Arr = npt.NDArray[Any]

RULES_DIGEST = "e85da3339437de35"
"""The start of the SHA-256 of rules.py, whose functions are compiled into this module's.
numba's disk cache checks only the file a function is written in, so a change to rules.py must
change this line too (tests/games/goblink/test_fast.py checks it): then this file changes, and its
compiled functions are rebuilt instead of running the old rules."""

RANDOM, GREEDY, MEMORY = 0, 1, 2
"""The bots' kernel codes."""

# MemoryBot's weights (blink.games.goblink.bots.MemoryBot; a test checks they agree).
PAIR_WORTH = 0.5
SURE_PAIR_WORTH = 1.5
FINISH_WORTH = 1.0
WIN_BONUS = 3.0
EXPLORE = 0.05
_EPS = 1e-9


# -- random and greedy ------------------------------------------------------------------------


@hot
def _random_act(s: int, hands: Arr, g: Arr, u: Arr) -> tuple[int, int, np.uint64]:
    """A uniformly random legal action: (kind, ask argument, lay-down cards)."""
    hand = hands[s]
    players = hands.size
    if g[G_PHASE] == ASKING:
        vals = np.uint64(held_values(hand))
        nv = popc(vals)
        r = below(u, (players - 1) * nv)
        target = r // nv
        if target >= s:
            target += 1
        return ASK, target * 32 + nth_bit(vals, r % nv), _ZERO
    limit = lay_limit(hand, g[G_PHASE])
    m = count_matches(hand, limit)
    r = below(u, m + 1)
    if r == m:
        return END, 0, _ZERO
    return LAY, 0, nth_match(hand, limit, r, u)


@hot
def _greedy_act(s: int, hands: Arr, g: Arr, u: Arr) -> tuple[int, int, np.uint64]:
    """Ask the opponent holding most for the value held most; lay the biggest match at once."""
    hand = hands[s]
    players = hands.size
    if g[G_PHASE] == ASKING:
        best, ties = 0, 0
        for v in range(N_VALUES):
            n = count(hand, v)
            if n > best:
                best, ties = n, 1
            elif n == best:
                ties += 1
        r = below(u, ties)
        value = 0
        for v in range(N_VALUES):
            if count(hand, v) == best:
                if r == 0:
                    value = v
                    break
                r -= 1
        most, ties = -1, 0
        for p in range(players):
            if p != s:
                n = popc(hands[p])
                if n > most:
                    most, ties = n, 1
                elif n == most:
                    ties += 1
        r = below(u, ties)
        target = 0
        for p in range(players):
            if p != s and popc(hands[p]) == most:
                if r == 0:
                    target = p
                    break
                r -= 1
        return ASK, target * 32 + value, _ZERO
    limit = lay_limit(hand, g[G_PHASE])
    biggest = 0
    for v in range(N_VALUES):
        biggest = max(biggest, min(count(hand, v), limit))
    if biggest < MIN_MATCH:
        return END, 0, _ZERO
    total = 0
    for v in range(N_VALUES):
        n = count(hand, v)
        if n >= biggest:
            total += binom(n, biggest)
    r = below(u, total)
    for v in range(N_VALUES):
        n = count(hand, v)
        if n >= biggest:
            b = binom(n, biggest)
            if r < b:
                return LAY, 0, random_subset(hand & _VMASK[v], biggest, u)
            r -= b
    return END, 0, _ZERO


# -- the remembering bot ----------------------------------------------------------------------


@hot
def _at_least(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p) (MemoryBot's, in the same order of operations)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    below_k = 0.0
    term = (1.0 - p) ** n
    for i in range(k):
        below_k += term
        if p < 1.0:
            term *= (n - i) / (i + 1) * p / (1.0 - p)
    return max(0.0, 1.0 - below_k)


@hot
def learn_ask(me: int, p: int, q: int, v: int, k: int, passed: np.uint64, drew: bool,
              target_drew: bool, known: Arr, least: Arr, none: Arr) -> None:  # fmt: skip
    """What the remembering bot in seat ``me`` learns from ``p``'s answered ask of ``q`` for
    ``v``: ``k`` cards passed, and ``passed`` the cards when ``me`` saw them (0 when it did
    not; the master bot's model of another seat's memory knows only how many)."""
    # The cards it gave or received it saw; others' passes move what it knew of the giver.
    moved = passed if k and passed != _ZERO and (q == me or p == me) else known[me, q] & _VMASK[v]
    if p != me:
        least[me, p, v] = max(least[me, p, v], 1) + k
        if k:
            none[me, p] = 0  # the passed cards' other values are unknown
            known[me, p] |= moved
        if drew:
            none[me, p] = 0
    if q != me:
        known[me, q] &= ~moved
        for w in range(N_VALUES):
            if w != v and least[me, q, w] > 0:
                least[me, q, w] = max(0, least[me, q, w] - k)
        least[me, q, v] = 0
        none[me, q] |= 1 << v
        if target_drew:
            none[me, q] = 0


@hot
def remember_ask(me: int, p: int, q: int, v: int, passed: np.uint64, drew: bool,
                 target_drew: bool, known: Arr, least: Arr, none: Arr) -> None:  # fmt: skip
    """What the remembering bot in seat ``me`` learns from ``p``'s answered ask of ``q``, the
    cards ``passed`` in hand (:func:`learn_ask`)."""
    learn_ask(me, p, q, v, popc(passed), passed, drew, target_drew, known, least, none)


@hot
def remember_lay(me: int, p: int, cards: np.uint64, known: Arr, least: Arr) -> None:
    """What the remembering bot in seat ``me`` learns from ``p`` laying down ``cards``."""
    known[me, p] &= ~cards
    rest = cards
    while rest:
        c = lowest(rest)
        rest &= rest - _ONE
        for a in range(3):
            v = _CV[c, a]
            if least[me, p, v] > 0:
                least[me, p, v] -= 1


@hot
def _ask_chance(s: int, target: int, v: int, hand: np.uint64, unseen: np.uint64, total: int,
                hands: Arr, known: Arr, least: Arr, none: Arr) -> tuple[float, int]:  # fmt: skip
    """MemoryBot's chance that asking ``target`` for ``v`` completes a match, and the number
    of cards of ``v`` it is sure ``target`` holds."""
    held = count(hand, v)
    mine = known[s, target]
    hidden = max(0, popc(hands[target]) - popc(mine))
    known_v = count(mine, v)
    hidden_left = 0
    if none[s, target] >> v & 1:
        sure, chance = known_v, 0.0
    else:
        sure = max(known_v, least[s, target, v])
        chance = count(unseen, v) / total
        hidden_left = max(0, hidden - (sure - known_v))
    need = max(1, MIN_MATCH - held)
    if sure >= need:
        return 1.0, sure
    if chance == 0.0:
        return 0.0, sure
    return _at_least(need - sure, hidden_left, chance), sure


@hot
def ask_scores(s: int, hands: Arr, u: Arr, known: Arr, least: Arr, none: Arr, scores: Arr,
               args: Arr) -> int:  # fmt: skip
    """MemoryBot's score of each of its asks (where a match is likeliest, and a win behind
    it): how many, each ``target * 32 + value`` into ``args`` and its score into ``scores``.
    The master bot's model of a remembering opponent scores asks with it too."""
    hand = hands[s]
    players = hands.size
    seen = hand | u[U_DISCARD]
    for p in range(players):
        if p != s:
            seen |= known[s, p]
    unseen = _ALL & ~seen
    total = max(1, popc(unseen))
    can_win, no_win = 0, 0
    vals = held_values(hand)
    n = 0
    for target in range(players):
        if target == s:
            continue
        for v in range(N_VALUES):
            if not vals >> v & 1:
                continue
            chance, sure = _ask_chance(s, target, v, hand, unseen, total, hands, known, least,
                                       none)  # fmt: skip
            score = chance + 0.05 * count(hand, v) + 0.01 * sure
            bit = 1 << v
            if chance > 0.0 and not no_win & bit:
                if not can_win & bit:
                    if first_group(hand & ~_VMASK[v]) != NO_PLAN:
                        can_win |= bit
                    else:
                        no_win |= bit
                if can_win & bit:
                    score += WIN_BONUS * chance  # the answer would let it lay every card
            scores[n] = score
            args[n] = target * 32 + v
            n += 1
    return n


@hot
def _memory_ask(s: int, hands: Arr, u: Arr, known: Arr, least: Arr, none: Arr,
                scores: Arr, args: Arr) -> int:  # fmt: skip
    """MemoryBot's ask: where a match is likeliest (and a win behind it), now and then at
    random when no match is sure. The ask's ``target * 32 + value``."""
    n = ask_scores(s, hands, u, known, least, none, scores, args)
    top = -1.0
    for i in range(n):
        top = max(top, scores[i])
    if top < 1.0 and uniform(u) < EXPLORE:
        return args[below(u, n)]  # type: ignore[no-any-return]
    return args[_pick(n, top, u, scores)]  # type: ignore[no-any-return]


@hot
def _pick(n: int, top: float, u: Arr, scores: Arr) -> int:
    """The index of one of the best of ``n`` scores (within 1e-9 of ``top``), uniformly."""
    ties = 0
    for i in range(n):
        if scores[i] >= top - _EPS:
            ties += 1
    r = below(u, ties)
    for i in range(n):
        if scores[i] >= top - _EPS:
            if r == 0:
                return i
            r -= 1
    return 0


@hot
def _worth(rest: np.uint64, endgame: bool, sure: int, out_there: int) -> float:
    """MemoryBot's worth of keeping ``rest``: minus its cards, plus its pairs (more for one
    whose third card an opponent surely holds) and a hand one ask from a win."""
    n = popc(rest)
    score = -float(n)
    if endgame:
        return score
    finish = False
    for v in range(N_VALUES):
        c = count(rest, v)
        if c >= 2:
            if sure >> v & 1:
                score += SURE_PAIR_WORTH
            elif out_there >> v & 1:
                score += PAIR_WORTH
        if c == n:
            finish = True
    if 0 < n <= 2 and finish:
        score += FINISH_WORTH
    return score


@hot
def _lay_scores(hand: np.uint64, limit: int, endgame: bool, sure: int, out_there: int,
                top: float, pick: int) -> tuple[float, int, np.uint64]:  # fmt: skip
    """Every lay-down option of MemoryBot in order (ending the turn, then each match value by
    value): with ``pick`` -1 the best score and the number of options within 1e-9 of ``top``;
    otherwise the cards of the ``pick``-th such option (0: end the turn)."""
    best = _worth(hand, endgame, sure, out_there)
    ties = 1 if best >= top - _EPS else 0
    if pick == 0 and ties:
        return best, ties, _ZERO
    for v in range(N_VALUES):
        group = hand & _VMASK[v]
        if popc(group) < MIN_MATCH:
            continue
        sub = group
        while sub:
            k = popc(sub)
            if MIN_MATCH <= k <= limit:
                score = _worth(hand & ~sub, endgame, sure, out_there) + 0.01 * k
                best = max(best, score)
                if score >= top - _EPS:
                    if pick == ties:
                        return best, ties, sub
                    ties += 1
            sub = (sub - _ONE) & group
    return best, ties, _ZERO


@hot
def _memory_lay(s: int, hands: Arr, g: Arr, u: Arr, known: Arr,
                least: Arr) -> tuple[int, int, np.uint64]:  # fmt: skip
    """MemoryBot's lay-downs: every card when that wins; otherwise the option (ending the
    turn, or a match) that leaves the most promising hand."""
    hand = hands[s]
    phase = g[G_PHASE]
    if phase == LAYING:
        plan = first_group(hand)
        if plan != NO_PLAN and plan != _ZERO:
            return LAY, 0, plan
    out_there = held_values(_ALL & ~(hand | u[U_DISCARD]))
    sure = 0
    for p in range(hands.size):
        if p != s:
            sure |= held_values(known[s, p])
            for v in range(N_VALUES):
                if least[s, p, v] > 0:
                    sure |= 1 << v
    endgame = g[G_DPTR] >= N_CARDS
    limit = lay_limit(hand, phase)
    top, _, _ = _lay_scores(hand, limit, endgame, sure, out_there, 1e300, -1)
    _, ties, _ = _lay_scores(hand, limit, endgame, sure, out_there, top, -1)
    r = below(u, ties) if ties > 1 else 0
    _, _, cards = _lay_scores(hand, limit, endgame, sure, out_there, top, r)
    if cards == _ZERO:
        return END, 0, _ZERO
    return LAY, 0, cards


# -- the game loop ----------------------------------------------------------------------------


@hot
def _legal(s: int, kind: int, arg: int, cards: np.uint64, hands: Arr, g: Arr) -> bool:
    """Whether the bot's action is legal (a wrong one stops the game with a status)."""
    phase = g[G_PHASE]
    hand = hands[s]
    if kind == ASK:
        target, v = arg // 32, arg % 32
        ok_target = 0 <= target < hands.size and target != s
        return phase == ASKING and ok_target and v < N_VALUES and count(hand, v) > 0
    if phase in (ASKING, OVER):
        return False
    if kind == END:
        return True
    if cards & ~hand or popc(cards) < MIN_MATCH or (phase == OPENING and cards == hand):
        return False
    c = lowest(cards)
    for a in range(3):  # noqa: SIM110 (numba compiles loops, not any() of a generator)
        if cards & ~_VMASK[_CV[c, a]] == _ZERO:
            return True
    return False


@hot
def _step(bots: Arr, hands: Arr, g: Arr, u: Arr, perm: Arr, log: Arr, known: Arr,
          least: Arr, none: Arr, scores: Arr, args: Arr) -> bool:  # fmt: skip
    """The current player's bot acts; False (nothing changed) if its action is not legal."""
    s = g[G_CUR]
    code = bots[s]
    if code == RANDOM:
        kind, arg, cards = _random_act(s, hands, g, u)
    elif code == GREEDY:
        kind, arg, cards = _greedy_act(s, hands, g, u)
    elif g[G_PHASE] == ASKING:
        kind, arg, cards = ASK, _memory_ask(s, hands, u, known, least, none, scores, args), _ZERO
    else:
        kind, arg, cards = _memory_lay(s, hands, g, u, known, least)
    if not _legal(s, kind, arg, cards, hands, g):
        return False
    log_action(g, log, kind, s, arg, cards)
    if kind == ASK:
        target, v = arg // 32, arg % 32
        passed, drew, target_drew = ask(s, target, v, perm, hands, g)
        for me in range(bots.size):
            if bots[me] == MEMORY:
                remember_ask(me, s, target, v, passed, drew, target_drew, known, least, none)
    elif kind == LAY:
        lay(s, cards, hands, g, u)
        for me in range(bots.size):
            if bots[me] == MEMORY and me != s:
                remember_lay(me, s, cards, known, least)
    else:
        end_turn(s, hands, g)
    return True


@kernel
def play_games(seeds: Arr, dealers: Arr, bots: Arr, limit: int, nlog: int, out: Arr,
               counts: Arr, logs: Arr, perms: Arr) -> None:  # fmt: skip
    """Play one game per seed (``dealers[i]`` deals game ``i``; ``bots[s]`` is seat ``s``'s
    code; ``limit`` the turn limit, 0 for none). Each game's ``G_*`` fields go to ``out``
    (``G_STATUS`` 1 if a bot's action was not legal), the cards left in each hand to
    ``counts``, and when ``nlog`` is positive its actions (up to ``nlog``) and deal to
    ``logs`` and ``perms``."""
    players = bots.size
    hands = np.zeros(players, dtype=np.uint64)
    g = np.zeros(out.shape[1], dtype=np.int64)
    u = np.zeros(3, dtype=np.uint64)
    perm = np.zeros(N_CARDS, dtype=np.int64)
    log = np.zeros((max(nlog, 1), logs.shape[2]), dtype=np.int64)
    known = np.zeros((players, players), dtype=np.uint64)
    least = np.zeros((players, players, N_VALUES), dtype=np.int64)
    none = np.zeros((players, players), dtype=np.int64)
    scores = np.zeros(players * N_VALUES, dtype=np.float64)
    args = np.zeros(players * N_VALUES, dtype=np.int64)
    for i in range(seeds.size):
        deal(seeds[i], players, dealers[i], limit, perm, hands, g, u)
        known[:] = _ZERO
        least[:] = 0
        none[:] = 0
        while g[G_PHASE] != OVER:
            if not _step(bots, hands, g, u, perm, log, known, least, none, scores, args):
                g[G_STATUS] = 1
                break
        out[i, :] = g
        for p in range(players):
            counts[i, p] = popc(hands[p])
        if nlog > 0:
            n = min(g[G_NACT], nlog)
            logs[i, :n, :] = log[:n, :]
            perms[i, :] = perm
