"""The master bot's search as compiled (numba) functions: determinized rollouts to the game's end.

At each decision the master bot (:class:`blink.games.goblink.fast.master_bot.MasterBot`) deals
the cards it cannot see in ways consistent with everything its seat has seen, and plays each
candidate action out to the end of the game on each deal, with every seat (its own included)
playing the remembering bot (:mod:`blink.games.goblink.fast.bots`); it takes the action that
won most often. The candidates share their deals and random streams (common random numbers), and
sequential halving spends the budget of rollouts on the better half, round after round.

What the seat knows is the remembering bot's memory of it (``known``: cards it knows each
opponent holds; ``least``: how many cards of each value each surely holds; ``none``: values
each surely lacks) and a model of each opponent's memory, rebuilt from the seat's own view by
:func:`~blink.games.goblink.fast.belief.learn_all`. Heads-up, a deal is one of the guesses of
:func:`~blink.games.goblink.fast.belief.filter_hidden`, a particle filter that follows the
opponent's hand through the whole game, drawn by weight. With more players (the others' passes
are not seen), a deal gives each opponent the cards the seat knows they hold, then at least
``least`` cards of each value, no card of a value in ``none``, and the rest of the unseen cards
at random but never a third card of one value (a remembering bot would have laid the match
down); it is kept with the probability that each opponent's last ask was the remembering bot's
choice for the hand the deal gives it back then. What is left is the draw pile, in random
order.

:mod:`blink.games.goblink.fast.master_games` plays whole games with a master seat, for the
strength study (``benchmarks/master_study.py``); there, with ``omni``, :func:`decide` is given
the true hands (1), also the draw pile (2), or the true hands when it asks only (3): the
ceiling of what knowledge is worth, and where.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from blink.cards import STANDARD_DECK, Card
from blink.games.goblink.actions import Ask, EndTurn, GoAction, LayDown, Phase
from blink.games.goblink.fast.belief import (
    EV_ASK,
    EV_FIELDS,
    EV_LAY,
    PARTICLES,
    _ask_likelihood,
    filter_hidden,
    learn_all,
    new_trace,
)
from blink.games.goblink.fast.bots import (
    MEMORY,
    _memory_ask,
    _memory_lay,
    _step,
    remember_ask,
    remember_lay,
)
from blink.games.goblink.fast.rules import (
    _ALL,
    _GOLD,
    _ONE,
    _VMASK,
    _ZERO,
    ASK,
    ASKING,
    END,
    G_CUR,
    G_DEALER,
    G_DPTR,
    G_FIELDS,
    G_LAID,
    G_LIMIT,
    G_PHASE,
    G_QUIET,
    G_TURNS,
    G_WINNERS,
    LAY,
    LAYING,
    N_CARDS,
    N_VALUES,
    NO_PLAN,
    OPENING,
    OVER,
    U_CTR,
    U_DISCARD,
    U_KEY,
    VALUES,
    _value_index,
    ask,
    below,
    count,
    end_turn,
    first_group,
    held_values,
    kernel,
    lay,
    lay_limit,
    lowest,
    mix,
    nth_bit,
    popc,
    random_subset,
    uniform,
)
from blink.games.goblink.values import MIN_MATCH

__all__ = [
    "KERNELS_DIGEST",
    "MASTER",
    "PATIENCE",
    "PEEK",
    "ROLLOUT_TURNS",
    "believe",
    "candidates",
    "choose",
    "decide",
    "events_of",
    "standard",
    "take",
]

if TYPE_CHECKING:
    from blink.games.goblink.view import GoView

Arr = npt.NDArray[Any]
Act = tuple[int, int, np.uint64]
"""An action in the kernels: kind, ``target * 32 + value``, the cards laid."""

KERNELS_DIGEST = "cd088a8dd519712d"
"""The start of the SHA-256 of rules.py, bots.py and belief.py together, whose functions are
compiled into this module's (numba's disk cache checks only this file: a change there must
change this line, tests/games/goblink/test_master.py checks it)."""

MASTER = 3
"""The master bot's kernel code in ``master_games.play_master_games`` (the others: fast.bots')."""

ROLLOUT_TURNS = 60
"""A rollout ends after this many more turns, by the fewest cards (as the turn limit does)."""

PATIENCE = 200
"""From this turn on the master plays the remembering bot's choice. Its search may find
holding cards as good as laying them, turn after turn, so two bots could pass cards to and fro
for ever (a real game has no turn limit); the remembering bot's occasional random ask ends that.
Games take 15 to 25 turns on average."""

_MAX_OPTIONS = 96
_TRIES = 12
_LIKELY = 48
_SALT = np.uint64(0xD1B54A32D192ED03)
_PEEK_SALT = np.uint64(0x9E6C63D0676A9A99)

PEEK = 100
"""``omni`` from ``PEEK`` to ``PEEK + 100`` (the study's ``--peek``): the search sees the true
hands at ``omni - PEEK`` in 100 of its asks, drawn afresh at each, and deals from its knowledge
otherwise (how much knowing the opponent's hand at the asks is worth, by how often it is known)."""


# -- deals consistent with what the seat knows --------------------------------------------------


@kernel
def _try_deal(s: int, counts: Arr, unseen: np.uint64, known: Arr, least: Arr, none: Arr,
              strict: int, hands: Arr, u: Arr) -> np.uint64:  # fmt: skip
    """One attempt at the opponents' hidden cards (into ``hands``); the cards left for the draw
    pile, or :data:`NO_PLAN` when the constraints could not be met this time (``strict`` 3:
    ``none``, ``least`` and no three cards of a value, which a remembering bot would have laid
    down; 2: ``none`` and ``least``; 1: ``none`` only; 0: none of them)."""
    players = counts.size
    pool = unseen
    start = below(u, players)
    for j in range(players):
        p = (start + j) % players
        if p == s:
            continue
        mine = known[s, p]
        need = counts[p] - popc(mine)
        if need < 0:
            return NO_PLAN
        allowed = pool
        if strict >= 1:
            for v in range(N_VALUES):
                if none[s, p] >> v & 1:
                    allowed &= ~_VMASK[v]
        chosen = _ZERO
        if strict >= 2:
            for v in range(N_VALUES):
                short = least[s, p, v] - count(mine | chosen, v)
                if short > 0:
                    group = allowed & _VMASK[v] & ~chosen
                    if popc(group) < short:
                        return NO_PLAN
                    chosen |= random_subset(group, short, u)
        left = need - popc(chosen)
        if left < 0:
            return NO_PLAN
        if strict == 3:
            held = mine | chosen
            for v in range(N_VALUES):
                if count(held, v) >= MIN_MATCH:
                    return NO_PLAN
            for _ in range(left):  # card by card, never a third card of a value
                cand = allowed & ~held
                for v in range(N_VALUES):
                    if count(held, v) >= 2:
                        cand &= ~_VMASK[v]
                if cand == _ZERO:
                    return NO_PLAN
                held |= _ONE << np.uint64(nth_bit(cand, below(u, popc(cand))))
            chosen = held & ~mine
            left = 0
        rest = allowed & ~chosen
        if popc(rest) < left:
            return NO_PLAN
        chosen |= random_subset(rest, left, u)
        hands[p] = mine | chosen
        pool &= ~chosen
    return pool


@kernel
def sample_world(s: int, hand: np.uint64, counts: Arr, dptr: int, discard: np.uint64,
                 known: Arr, least: Arr, none: Arr, trace: tuple[Arr, Arr, Arr, Arr, Arr],
                 parts: Arr, weights: Arr, omni: int, true_hands: Arr, true_perm: Arr,
                 hands: Arr, perm: Arr, u: Arr) -> int:  # fmt: skip
    """A deal of the unseen cards consistent with seat ``s``'s knowledge (``omni`` 1: the true
    hands, 2: the true hands and draw pile; heads-up, one of the guesses ``parts`` of
    :func:`~blink.games.goblink.fast.belief.filter_hidden`, by ``weights``): the hands into
    ``hands``, the draw pile into ``perm[dptr:]``. Returns the draw pile's first index
    (``dptr`` unless the knowledge did not add up)."""
    players = counts.size
    if omni > 0:
        for p in range(players):
            hands[p] = true_hands[p]
        perm[:] = true_perm
        if omni == 2:
            return dptr
        pile = _ZERO
        for i in range(dptr, N_CARDS):
            pile |= _ONE << np.uint64(true_perm[i])
    elif parts.size > 0:  # heads-up: one of the particle filter's guesses, by weight
        o = 1 - s
        at = uniform(u) * weights.sum()
        j = 0
        while j < parts.size - 1 and at > weights[j]:
            at -= weights[j]
            j += 1
        hands[s] = hand
        hands[o] = known[s, o] | parts[j]
        pile = _ALL & ~(hand | discard | hands[o])
    else:
        seen = hand | discard
        for p in range(players):
            if p != s:
                seen |= known[s, p]
        unseen = _ALL & ~seen
        ti, tm, tk, tl, tn = trace
        pile = NO_PLAN
        accepted = False
        for _ in range(_LIKELY):  # every constraint, and the opponents' last asks' likelihood
            hands[:] = _ZERO
            pile = _try_deal(s, counts, unseen, known, least, none, 3, hands, u)
            if pile == NO_PLAN:
                continue
            accept = 1.0
            for o in range(players):
                if o != s:
                    accept *= _ask_likelihood(s, o, hands[o], ti, tm, tk, tl, tn, known[s, o], u)
            if uniform(u) < accept:
                accepted = True
                break
        for attempt in range(0 if accepted else 3 * _TRIES + 1):
            hands[:] = _ZERO
            strict = 3 - attempt // _TRIES  # every constraint, then fewer, then none
            pile = _try_deal(s, counts, unseen, known, least, none, strict, hands, u)
            if pile != NO_PLAN:
                break
        if pile == NO_PLAN:  # inconsistent knowledge (never in a real game): guess freely
            pile = unseen
            for p in range(players):
                if p != s:
                    take = min(counts[p], popc(pile))
                    hands[p] = random_subset(pile, take, u)
                    pile &= ~hands[p]
        hands[s] = hand
    n = popc(pile)
    first = N_CARDS - n
    i = first
    while pile:  # a uniformly random order: selection by rank
        r = below(u, popc(pile))
        rest = pile
        for _ in range(r):
            rest &= rest - _ONE
        c = lowest(rest)
        perm[i] = c
        pile ^= _ONE << np.uint64(c)
        i += 1
    return first


@kernel
def believe(s: int, events: Arr, hand: np.uint64, discard: np.uint64, known: Arr,
            key: np.uint64) -> tuple[Arr, Arr]:  # fmt: skip
    """Heads-up, :data:`~blink.games.goblink.fast.belief.PARTICLES` guesses at the opponent's
    unseen cards and their weights, after the seat's ``events`` (``known``: the seat's
    knowledge now, :func:`learn_all`'s); with more players, none (the deals are drawn as
    :func:`sample_world` says)."""
    players = known.shape[0]
    k = PARTICLES if players == 2 else 0
    parts = np.zeros(k, dtype=np.uint64)
    weights = np.ones(k, dtype=np.float64)
    if k > 0:
        unseen = _ALL & ~(hand | discard | known[s, 1 - s])
        u = np.zeros(3, dtype=np.uint64)
        u[U_KEY] = mix(key ^ _SALT ^ _GOLD)
        filter_hidden(s, events, unseen, parts, weights, u)
    return parts, weights


# -- the search ---------------------------------------------------------------------------------


@kernel
def _options(s: int, hand: np.uint64, phase: int, players: int, kinds: Arr, args: Arr,
             cards: Arr) -> int:  # fmt: skip
    """Every legal action of ``s`` (asks, or ending the turn and each lay-down); how many."""
    n = 0
    if phase == ASKING:
        vals = held_values(hand)
        for target in range(players):
            if target == s:
                continue
            for v in range(N_VALUES):
                if vals >> v & 1 and n < kinds.size:
                    kinds[n], args[n], cards[n] = ASK, target * 32 + v, _ZERO
                    n += 1
        return n
    kinds[0], args[0], cards[0] = END, 0, _ZERO
    n = 1
    limit = lay_limit(hand, phase)
    for v in range(N_VALUES):
        group = hand & _VMASK[v]
        if popc(group) < MIN_MATCH:
            continue
        sub = group
        while sub:
            if MIN_MATCH <= popc(sub) <= limit and n < kinds.size:
                kinds[n], args[n], cards[n] = LAY, 0, sub
                n += 1
            sub = (sub - _ONE) & group
    return n


@kernel
def take(s: int, kind: int, arg: int, cards: np.uint64, hands: Arr, g: Arr, u: Arr, perm: Arr,
         known: Arr, least: Arr, none: Arr) -> None:  # fmt: skip
    """Seat ``s`` takes the action in a deal; every seat's memory learns from it."""
    players = hands.size
    if kind == ASK:
        target, v = arg // 32, arg % 32
        passed, drew, target_drew = ask(s, target, v, perm, hands, g)
        for me in range(players):
            remember_ask(me, s, target, v, passed, drew, target_drew, known, least, none)
    elif kind == LAY:
        lay(s, cards, hands, g, u)
        for me in range(players):
            if me != s:
                remember_lay(me, s, cards, known, least)
    else:
        end_turn(s, hands, g)


@kernel
def _rollout(s: int, kind: int, arg: int, cards: np.uint64, hands: Arr, g: Arr, u: Arr,
             perm: Arr, known: Arr, least: Arr, none: Arr, bots: Arr, log: Arr,
             scores: Arr, sargs: Arr) -> float:  # fmt: skip
    """Seat ``s`` takes the action, then every seat plays the remembering bot to the end (or
    :data:`ROLLOUT_TURNS` more turns, then the fewest cards win): ``s``'s share of the win."""
    take(s, kind, arg, cards, hands, g, u, perm, known, least, none)
    cap = g[G_TURNS] + ROLLOUT_TURNS
    if g[G_LIMIT] == 0 or g[G_LIMIT] > cap:
        g[G_LIMIT] = cap
    while g[G_PHASE] != OVER:
        if not _step(bots, hands, g, u, perm, log, known, least, none, scores, sargs):
            return 0.0  # never: the remembering bot plays only legal actions
    w = g[G_WINNERS]
    if not w >> s & 1:
        return 0.0
    return 1.0 / popc(np.uint64(w))


@kernel
def _memory_choice(s: int, hand: np.uint64, counts: Arr, g: Arr, discard: np.uint64, known: Arr,
                   least: Arr, none: Arr, key: np.uint64) -> Act:  # fmt: skip
    """The remembering bot's own action in the seat's place (its hand, the hand sizes)."""
    players = counts.size
    hands = np.zeros(players, dtype=np.uint64)
    for p in range(players):
        hands[p] = hand if p == s else (_ONE << np.uint64(counts[p])) - _ONE
    u = np.zeros(3, dtype=np.uint64)
    u[U_DISCARD], u[U_KEY] = discard, key
    if g[G_PHASE] == ASKING:
        scores = np.zeros(players * N_VALUES, dtype=np.float64)
        sargs = np.zeros(players * N_VALUES, dtype=np.int64)
        return ASK, _memory_ask(s, hands, u, known, least, none, scores, sargs), _ZERO
    return _memory_lay(s, hands, g, u, known, least)


@kernel
def candidates(s: int, hand: np.uint64, counts: Arr, g: Arr, discard: np.uint64, known: Arr,
               least: Arr, none: Arr, key: np.uint64, budget: int, omni: int, kinds: Arr,
               args: Arr, cards: Arr) -> tuple[int, int, int, np.uint64, int]:  # fmt: skip
    """What a search of seat ``s``'s choice starts from (:func:`decide`'s arguments): the
    number of options put into ``kinds``/``args``/``cards`` (the remembering bot's choice
    first, so that it wins ties) and the ``omni`` the search sees; or 0 options and the action
    to take unsearched. The opening is the remembering bot's, and so is every choice from turn
    :data:`PATIENCE` on, or with one option or no budget; a winning partition is laid at once."""
    players = counts.size
    phase = g[G_PHASE]
    mem = _memory_choice(s, hand, counts, g, discard, known, least, none, mix(key ^ _SALT))
    if phase == OPENING or g[G_TURNS] >= PATIENCE:
        return 0, mem[0], mem[1], mem[2], 0
    if phase == LAYING:
        plan = first_group(hand)
        if plan != NO_PLAN and plan != _ZERO:
            return 0, LAY, 0, plan, 0
    n = _options(s, hand, phase, players, kinds, args, cards)
    for i in range(n):  # the remembering bot's choice first: it wins ties
        if kinds[i] == mem[0] and args[i] == mem[1] and cards[i] == mem[2]:
            kinds[0], kinds[i] = kinds[i], kinds[0]
            args[0], args[i] = args[i], args[0]
            cards[0], cards[i] = cards[i], cards[0]
            break
    if n <= 1 or budget <= 0:
        return 0, mem[0], mem[1], mem[2], 0
    seen = omni
    if omni == 3:  # the true hands at its asks only
        seen = 1 if phase == ASKING else 0
    elif omni >= PEEK:  # the true hands at a share of its asks: (omni - PEEK) in 100
        share = np.uint64(omni - PEEK)
        seen = 1 if phase == ASKING and mix(key ^ _PEEK_SALT) % np.uint64(100) < share else 0
    return n, 0, 0, _ZERO, seen


@kernel
def decide(s: int, hand: np.uint64, counts: Arr, g: Arr, discard: np.uint64, known: Arr,
           least: Arr, none: Arr, trace: tuple[Arr, Arr, Arr, Arr, Arr], parts: Arr,
           weights: Arr, key: np.uint64, budget: int, omni: int, true_hands: Arr,
           true_perm: Arr) -> tuple[int, int, np.uint64, int]:  # fmt: skip
    """Seat ``s``'s action (kind, ``target * 32 + value``, cards) and the rollouts it ran.

    ``counts`` are the hand sizes, ``g`` the game's public fields (:data:`G_FIELDS`: phase,
    turns, quiet turns, the draw pile's index...), ``known``/``least``/``none`` the seat's
    knowledge (:func:`learn_all`), ``key`` the decision's random key, ``budget`` the rollouts to
    spend. What is not searched is :func:`candidates`'; the rest, by sequential halving."""
    kinds = np.zeros(_MAX_OPTIONS, dtype=np.int64)
    args = np.zeros(_MAX_OPTIONS, dtype=np.int64)
    cards = np.zeros(_MAX_OPTIONS, dtype=np.uint64)
    n, kind, arg, laid, seen = candidates(s, hand, counts, g, discard, known, least, none, key,
                                          budget, omni, kinds, args, cards)  # fmt: skip
    if n == 0:
        return kind, arg, laid, 0
    i, used = _halving(s, n, kinds, args, cards, hand, counts, g, discard, known, least, none,
                       trace, parts, weights, key, budget, seen, true_hands,
                       true_perm)  # fmt: skip
    return kinds[i], args[i], cards[i], used


@kernel
def _halving(s: int, n: int, kinds: Arr, args: Arr, cards: Arr, hand: np.uint64, counts: Arr,
             g: Arr, discard: np.uint64, known: Arr, least: Arr, none: Arr,
             trace: tuple[Arr, Arr, Arr, Arr, Arr], parts: Arr, weights: Arr, key: np.uint64,
             budget: int, omni: int, true_hands: Arr,
             true_perm: Arr) -> tuple[int, int]:  # fmt: skip
    """Sequential halving over the ``n`` options (:func:`decide`'s arguments): each round
    plays every live option on the same new deals, then keeps the better half. The chosen
    option's index and the rollouts run."""
    players = counts.size
    total = np.zeros(n, dtype=np.float64)
    alive = np.arange(n)
    m = n
    rounds = 0
    while (1 << rounds) < n:
        rounds += 1
    done = 0  # worlds played by every live option so far
    used = 0
    wh = np.zeros(players, dtype=np.uint64)
    wperm = np.zeros(N_CARDS, dtype=np.int64)
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
    for _ in range(rounds):
        per = max(1, budget // (rounds * m))
        for w in range(done, done + per):
            su[U_KEY], su[U_CTR] = mix(key + np.uint64(w) * _GOLD), _ZERO
            first = sample_world(s, hand, counts, g[G_DPTR], discard, known, least, none, trace,
                                 parts, weights, omni, true_hands, true_perm, wh, wperm,
                                 su)  # fmt: skip
            rkey = mix(key ^ (np.uint64(w + 1) * _SALT))
            for j in range(m):
                i = alive[j]
                hands[:] = wh
                perm[:] = wperm
                gw[:] = g
                gw[G_DPTR] = first
                gw[G_CUR] = s
                u[U_DISCARD], u[U_KEY], u[U_CTR] = discard, rkey, _ZERO
                kw[:] = known
                lw[:] = least
                nw[:] = none
                total[i] += _rollout(s, kinds[i], args[i], cards[i], hands, gw, u, perm, kw,
                                     lw, nw, bots, log, scores, sargs)  # fmt: skip
                used += 1
        done += per
        if m == 1:
            break
        keep = (m + 1) // 2
        for a in range(keep):  # the best ``keep`` first (stable: earlier options win ties)
            best = a
            for b in range(a + 1, m):
                if total[alive[b]] > total[alive[best]] + 1e-9:
                    best = b
            alive[a], alive[best] = alive[best], alive[a]
        m = keep
        if m == 1:
            break
    return alive[0], used


# -- from a seat's view (the master bot of blink.games.goblink.bots) -------------------------------

_INDEX = {card: i for i, card in enumerate(STANDARD_DECK)}
_PHASES = {Phase.OPENING: OPENING, Phase.ASKING: ASKING, Phase.LAYING: LAYING, Phase.OVER: OVER}


def _mask(cards: Iterable[Card]) -> int:
    """Cards as a bit set (card ``i``: ``STANDARD_DECK[i]``)."""
    out = 0
    for c in cards:
        out |= 1 << _INDEX[c]
    return out


def standard(view: GoView) -> bool:
    """Whether the view's game is dealt from the standard deck: the kernels know only its 60
    cards, as bits of one word."""
    laid = [c for _, m in view.discard for c in m]
    passed = [c for _, m in (*view.given, *view.received) for c in m]
    total = sum(view.hand_counts) + view.draw_count + len(laid)
    return total == N_CARDS and all(c in _INDEX for c in (*view.hand, *laid, *passed))


def events_of(view: GoView) -> Arr:
    """The view's log as :func:`learn_all`'s events: asks and lay-downs in the order they
    happened (as the remembering bot reads them), with the cards passed when the viewer gave or
    received them."""
    seat = view.seat
    rows: list[tuple[int, ...]] = []
    laid = given = received = 0

    def catch_up(upto: int) -> None:
        nonlocal laid
        while laid < upto:
            player, cards = view.discard[laid]
            rows.append((EV_LAY, player, 0, 0, 0, _mask(cards), 0, 0))
            laid += 1

    for a in view.asks:
        catch_up(a.matches_before)
        passed = 0
        if a.passed and a.target == seat:
            passed = _mask(view.given[given][1])
            given += 1
        elif a.passed and a.player == seat:
            passed = _mask(view.received[received][1])
            received += 1
        value = _value_index(a.value)
        rows.append((EV_ASK, a.player, a.target, value, a.passed, passed, a.drew, a.target_drew))
    catch_up(len(view.discard))
    return np.array(rows, dtype=np.int64).reshape(len(rows), EV_FIELDS)


def _fields(view: GoView, seat: int) -> Arr:
    """The kernels' game fields (``G_*``) that a view shows."""
    g = np.zeros(G_FIELDS, dtype=np.int64)
    g[G_PHASE] = _PHASES[view.phase]
    g[G_CUR] = seat
    g[G_TURNS] = view.turns
    g[G_QUIET] = view.quiet_turns
    g[G_LAID] = view.laid_this_turn
    g[G_DPTR] = N_CARDS - view.draw_count
    g[G_DEALER] = view.dealer
    return g


def _action(seat: int, kind: int, arg: int, cards: int) -> GoAction:
    """A kernel action as the engine's."""
    if kind == ASK:
        return Ask(seat, arg // 32, VALUES[arg % 32])
    if kind == LAY:
        return LayDown(seat, tuple(STANDARD_DECK[i] for i in range(N_CARDS) if cards >> i & 1))
    return EndTurn(seat)


def choose(view: GoView, seat: int, key: int, budget: int) -> tuple[GoAction, int]:
    """Seat ``seat``'s action in its own ``view`` (searched with random key ``key`` and
    ``budget`` rollouts), and the rollouts run."""
    players = view.players
    known = np.zeros((players, players), dtype=np.uint64)
    least = np.zeros((players, players, N_VALUES), dtype=np.int64)
    none = np.zeros((players, players), dtype=np.int64)
    trace = new_trace(players)
    events = events_of(view)
    learn_all(seat, events, known, least, none, *trace)
    discard = _mask(c for _, m in view.discard for c in m)
    hand = np.uint64(_mask(view.hand))
    parts, weights = believe(seat, events, hand, np.uint64(discard), known, np.uint64(key))
    kind, arg, cards, used = decide(
        seat, hand, np.array(view.hand_counts, dtype=np.int64), _fields(view, seat),
        np.uint64(discard), known, least, none, trace, parts, weights, np.uint64(key), budget, 0,
        np.zeros(players, dtype=np.uint64), np.zeros(N_CARDS, dtype=np.int64),
    )  # fmt: skip
    return _action(seat, int(kind), int(arg), int(cards)), int(used)
