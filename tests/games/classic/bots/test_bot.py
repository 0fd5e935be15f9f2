"""The bot sees only views, is deterministic, re-judges plans and follows its strategy."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from blink.cards import STANDARD_DECK, Card
from blink.games.classic.bots import STRATEGIES, HumanBot, Intent, make_bot
from blink.games.classic.engine import Choose, ClassicGame, Phase, Play, PlayerView

from .helpers import cards, position


def _views_of_a_game(seed: int) -> list[PlayerView]:
    """Seat 0's views along a random-legal game."""
    rng = random.Random(seed)
    game = ClassicGame.new(2, seed)
    game.reveal()
    out = [game.view(0)]
    while not game.over:
        if game.phase is Phase.PLAYING:
            plays = game.all_legal_plays()
            p = plays[rng.randrange(len(plays))]
            game.play(*p)
        elif game.phase is Phase.STALLED:
            game.flip()
        else:
            for s in (0, 1):
                game.choose(s, game.default_choice(s))
        out.append(game.view(0))
    return out


def _feed(bot: HumanBot, views: list[PlayerView]) -> list[Intent | None]:
    return [bot.plan(v, now=float(i)) for i, v in enumerate(views)]


@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_deterministic_for_a_seed(strategy: str) -> None:
    views = _views_of_a_game(4)
    a = _feed(make_bot("expert", strategy, 0, 21), views)
    b = _feed(make_bot("expert", strategy, 0, 21), views)
    c = _feed(make_bot("expert", strategy, 0, 22), views)
    assert a == b
    assert a != c
    assert any(i is not None for i in a)


@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_intents_are_legal_in_the_view(strategy: str) -> None:
    bot = make_bot("casual", strategy, 0, 3)
    for i, view in enumerate(_views_of_a_game(5)):
        intent = bot.plan(view, now=float(i))
        if intent is None:
            continue
        assert intent.delay >= 0
        if isinstance(intent.action, Play):
            assert intent.action in view.legal_plays()
        else:
            assert view.phase is Phase.CHOOSING
            assert intent.action == Choose(0, intent.action.card)
            assert intent.action.card in view.hand


def _swap_hidden(seed: int) -> tuple[ClassicGame, ClassicGame]:
    """Two deals identical for seat 0 but with the opponent's hidden cards rearranged.

    Seat 0 can play at the reveal (the shuffle is redrawn until it can: about 3 % of shuffles
    are), so neither deal stalls there, whatever seat 1 holds: a stall needs every seat to be
    stuck. Otherwise seat 1's rearranged hand could stall one deal and not the other (seed 1182
    did, and a dozen others below 10,000), and seat 0's views would differ by the phase.
    """
    rng = random.Random(seed)
    while True:
        deck = list(STANDARD_DECK)
        rng.shuffle(deck)
        a = ClassicGame(deck)
        a.reveal()
        if a.legal_plays(0):
            break
    other = deck[:]
    hidden = other[31:60]  # seat 1's hand and draw pile (its center card, 30, stays)
    random.Random(seed + 1).shuffle(hidden)
    other[31:60] = hidden
    b = ClassicGame(other)
    b.reveal()
    return a, b


def test_swapped_deals_start_alike_for_seat_0() -> None:
    # The premise of the test below, checked over many seeds (1182 stalled one deal only).
    for seed in range(3000):
        a, b = _swap_hidden(seed)
        assert a.phase is b.phase is Phase.PLAYING, seed
        assert a.legal_plays(0) == b.legal_plays(0) != [], seed
        assert a.view(0) == b.view(0), seed
        assert a.hand(1) != b.hand(1) or a.draw_pile(1) != b.draw_pile(1), seed


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), strategy=st.sampled_from(list(STRATEGIES)))
@example(seed=1182, strategy="blocker")  # once a stall in one deal only
def test_decisions_depend_only_on_the_view(seed: int, strategy: str) -> None:
    a, b = _swap_hidden(seed)
    assert a.view(0) == b.view(0)  # the premise (see _swap_hidden)
    assert a.hand(1) != b.hand(1) or a.draw_pile(1) != b.draw_pile(1)
    ia = make_bot("skilled", strategy, 0, seed).plan(a.view(0), now=0.0)
    ib = make_bot("skilled", strategy, 0, seed).plan(b.view(0), now=0.0)
    assert ia is not None  # seat 0 has a play: the decision is a real one
    assert ia == ib


def test_nothing_to_do_before_the_reveal_and_after_the_end() -> None:
    game = ClassicGame.new(2, 1)
    bot = make_bot("expert", "first", 0, 1)
    assert bot.plan(game.view(0), now=0.0) is None


def test_no_match_means_no_plan() -> None:
    # 1RM matches nothing of 2OP / 3YS... choose a hand sharing nothing with either center.
    game = position("2OP 3YW", ["1RM 1GF 1BL", "4PS 5OS 4YP"])
    assert game.legal_plays(0) == []
    assert make_bot("expert", "first", 0, 1).plan(game.view(0), now=0.0) is None


def test_plan_kept_when_its_pile_is_untouched() -> None:
    # Seat 0 can only play 1RM on pile 0 (red); seat 1 plays on pile 1.
    game = position("1RP 2OS", ["3RW 4GF 5BL", "2YS 4YM 3PL"])
    bot = make_bot("expert", "first", 0, 7)
    first = bot.plan(game.view(0), now=0.0)
    assert first is not None
    assert first.action == Play(0, cards("3RW")[0], 0)
    game.play(1, cards("2YS")[0], 1)
    again = bot.plan(game.view(0), now=0.25)
    assert again == Intent(first.action, pytest.approx(first.delay - 0.25))


def test_plan_rejudged_when_its_pile_changes() -> None:
    # Seat 0 plans 3RW on pile 0 (red). Seat 1 covers pile 0 with a card 3RW cannot follow.
    game = position("1RP 5OS", ["3RW 4GF 2BL", "1YP 4YM 2PS"])
    bot = make_bot("expert", "first", 0, 7)
    first = bot.plan(game.view(0), now=0.0)
    assert first is not None and first.action == Play(0, cards("3RW")[0], 0)
    game.play(1, cards("1YP")[0], 0)  # 1YP on 1RP (count): 3RW shares nothing with 1YP
    assert Play(0, cards("3RW")[0], 0) not in game.legal_plays(0)
    after = bot.plan(game.view(0), now=0.1)
    if after is not None:
        assert after.action in game.legal_plays(0)
        assert after.action != first.action


def test_rejudged_plan_can_survive_when_still_legal() -> None:
    # After the change the planned card still matches: the bot looks again (a new delay from
    # now) and may play it, but never by its stale due time alone.
    game = position("1RP 5OS", ["3RW 4GF 2BL", "1RS 4YM 2PS"])
    bot = make_bot("expert", "first", 0, 7)
    first = bot.plan(game.view(0), now=0.0)
    assert first is not None and first.action == Play(0, cards("3RW")[0], 0)
    game.play(1, cards("1RS")[0], 0)  # still red on pile 0
    after = bot.plan(game.view(0), now=0.1)
    assert after is not None
    assert after.action in game.legal_plays(0)
    assert after.delay >= bot.level.floor


def test_own_play_replans_from_the_new_hand() -> None:
    game = position("1RP 5OS", ["3RW 4GF 2BL", "1YM 4YM 2PS"], draws=["2RF 3GS", "3PM"])
    bot = make_bot("inhuman", "first", 0, 1)
    seen = []
    for _ in range(5):
        intent = bot.plan(game.view(0), now=0.0)
        if intent is None or game.over:
            break
        seen.append(intent.action)
        game.apply(intent.action)
    assert len(seen) >= 2
    assert all(a != b for a, b in pairwise(seen))


def _unknown(view: PlayerView) -> set[Card]:
    seen = {c for pile in view.piles for c in pile}
    return set(STANDARD_DECK) - seen - set(view.hand)


def _random_position(seed: int) -> ClassicGame:
    rng = random.Random(seed)
    game = ClassicGame.new(2, seed)
    game.reveal()
    for _ in range(rng.randrange(0, 30)):
        if game.phase is not Phase.PLAYING:
            break
        plays = game.all_legal_plays()
        game.play(*plays[rng.randrange(len(plays))])
    return game


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_blocker_leaves_fewest_likely_matches(seed: int) -> None:
    game = _random_position(seed)
    view = game.view(0)
    legal = view.legal_plays()
    if game.phase is not Phase.PLAYING or len(legal) < 2:
        return
    bot = make_bot("expert", "blocker", 0, seed)
    bot.plan(view, now=0.0)
    pending = bot.pending
    assert pending is not None
    chosen = pending[0]
    unknown = _unknown(view)

    def opp_matches(p: Play) -> int:
        tops = list(view.tops)
        tops[p.pile] = p.card
        return sum(1 for c in unknown if any(c.matches(t) for t in tops if t is not None))

    assert opp_matches(chosen) == min(opp_matches(p) for p in legal)  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_flexible_keeps_the_most_covering_hand(seed: int) -> None:
    game = _random_position(seed)
    view = game.view(0)
    legal = view.legal_plays()
    if game.phase is not Phase.PLAYING or len(legal) < 2:
        return
    bot = make_bot("expert", "flexible", 0, seed)
    bot.plan(view, now=0.0)
    assert bot.pending is not None
    chosen = bot.pending[0]
    unknown = _unknown(view)

    def coverage(p: Play) -> int:
        rest = [c for c in view.hand if c != p.card]
        return sum(1 for u in unknown if any(u.matches(c) for c in rest))

    assert coverage(chosen) == max(coverage(p) for p in legal)  # type: ignore[arg-type]


def test_random_strategy_uses_several_plays() -> None:
    game = position("1RP 1OS", ["2RS 3RM 1GW", "4YF 5BF 4PL"])
    assert len(game.legal_plays(0)) >= 4
    picks = {make_bot("expert", "random", 0, s).plan(game.view(0), 0.0).action for s in range(40)}  # type: ignore[union-attr]
    assert len(picks) >= 3


def test_first_plays_the_match_it_finds_first() -> None:
    # Only one card matches: every seed finds that one.
    game = position("1RP 2OS", ["3RW 4GF 5BL", "2YS 4YM 3PL"])
    for s in range(10):
        intent = make_bot("champion", "first", 0, s).plan(game.view(0), 0.0)
        assert intent is not None and intent.action == Play(0, cards("3RW")[0], 0)


def _choosing_game(hand0: str, hand1: str) -> ClassicGame:
    # Draw piles hold just the center card + hand: a stall is a choosing stall at once.
    game = position("1RM 1OM", [hand0, hand1], draws=["", ""])
    return game


def test_stall_choices_follow_the_strategy() -> None:
    game = _choosing_game("2YS 3GF 4BL", "2PW 3YP 4GS")
    game2 = _choosing_game("2YS 3GF 4BL", "2PW 3YP 4GS")
    assert game.phase is Phase.CHOOSING and game2.phase is Phase.CHOOSING
    view = game.view(0)
    first = make_bot("expert", "first", 0, 1).plan(view, 0.0)
    assert first is not None and first.action == Choose(0, game.default_choice(0))
    unknown = _unknown(view)
    blocker = make_bot("expert", "blocker", 0, 1).plan(view, 0.0)
    assert blocker is not None and isinstance(blocker.action, Choose)

    def matches(c: Card) -> int:
        return sum(1 for u in unknown if u.matches(c))

    assert matches(blocker.action.card) == min(matches(c) for c in view.hand)
    picks = {make_bot("expert", "random", 0, s).plan(view, 0.0).action for s in range(30)}  # type: ignore[union-attr]
    assert len(picks) >= 2
    # Once chosen, nothing more to do.
    game.choose(0, cards("2YS")[0])
    assert make_bot("expert", "first", 0, 1).plan(game.view(0), 0.0) is None


def test_a_new_stall_after_a_default_placement_is_a_new_decision() -> None:
    # Seat 0 plans a choice but the deadline places its default card instead; the placement
    # stalls again at once. The stale plan must not be sent: the bot decides anew.
    game = _choosing_game("2YS 3GF 4BL", "2PW 3BF 4GL")
    seed = 0
    while True:  # a seed whose choice is not the default card
        bot = make_bot("expert", "random", 0, seed)
        first = bot.plan(game.view(0), 0.0)
        assert first is not None and isinstance(first.action, Choose)
        if first.action.card != game.default_choice(0):
            break
        seed += 1
    pile_cards = sum(len(p) for p in game.view(0).piles)
    game.choose(0, game.default_choice(0))
    game.choose(1, game.default_choice(1))
    view = game.view(0)
    assert sum(len(p) for p in view.piles) > pile_cards
    assert view.phase is Phase.CHOOSING
    again = bot.plan(view, 50.0)
    assert again is not None
    assert again.delay >= bot.level.floor  # a fresh decision, not a stale one due at once
