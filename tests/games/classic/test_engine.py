"""Classic Blink rules, one by one, on hand-built deals (deck orders written out in notation)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from blink.cards import STANDARD_DECK, Card, card, shuffled_deck
from blink.games.classic.engine import (
    ChoiceMade,
    Choose,
    ClassicGame,
    Dealt,
    Ended,
    Flip,
    Flipped,
    IllegalAction,
    Outcome,
    Phase,
    Placed,
    Play,
    Played,
    Reason,
    Refilled,
    Reveal,
    Revealed,
    Stalled,
    StallKind,
    legal_plays_in_view,
    own_pile,
    reach,
    redact,
)
from blink.games.classic.rules import DEAD_END, OFFICIAL, DeadEnd, DealError, Ruleset

# --- helpers ---------------------------------------------------------------------------------


def cards(text: str) -> list[Card]:
    """Cards in notation, separated by spaces."""
    return [card(t) for t in text.split()]


def deal(*seats: str, aside: str = "", ruleset: Ruleset = OFFICIAL) -> ClassicGame:
    """A game from each seat's "center | hand | draw pile (top first)", plus set-aside cards."""
    deck: list[Card] = []
    sizes = []
    for seat in seats:
        center, hand, draw = (part.strip() for part in seat.split("|"))
        block = cards(center) + cards(hand) + cards(draw)
        deck += block
        sizes.append(len(block))
    deck += cards(aside)
    return ClassicGame(deck, len(seats), ruleset, sizes)


def refused(game: ClassicGame, reason: Reason, act: Callable[[], object]) -> IllegalAction:
    """Check ``act`` is refused with ``reason`` and changes nothing at all."""
    before = (game.snapshot(), list(game.events), game.history, game.stalls)
    with pytest.raises(IllegalAction) as info:
        act()
    assert info.value.reason is reason
    assert info.value.code == reason.value
    assert info.value.message == str(info.value) and len(str(info.value)) > 10
    assert (game.snapshot(), list(game.events), game.history, game.stalls) == before
    return info.value


def rebuilt_equal(game: ClassicGame) -> None:
    """The event log rebuilds the same state."""
    again = ClassicGame.from_events(game.events)
    assert again.snapshot() == game.snapshot()
    assert again.events == game.events
    assert again.stalls == game.stalls
    assert [a for a, _ in again.history] == [a for a, _ in game.history]


# Tops 1RM / 2OP; every hand card is yellow, green, blue or purple, a star, water, flower or
# lightning, and three to five: no one can play. The draw cards are red or orange moons and
# pyramids of one or two: flipping them keeps the stall.
STALL_P0 = "1RM | 3YS 4GW 5BF |"
STALL_P1 = "2OP | 3PL 4YF 5GL |"


# --- setup -----------------------------------------------------------------------------------


def test_setup_follows_the_rules() -> None:
    deck = shuffled_deck(3)
    game = ClassicGame(deck)
    assert game.sizes == (30, 30)
    for seat in (0, 1):
        block = deck[30 * seat : 30 * seat + 30]
        assert game.pile(seat) == (block[0],)  # top card, face down, as the center pile
        assert game.hand(seat) == tuple(block[1:4])  # next three as the hand
        assert game.draw_pile(seat) == tuple(block[4:])  # the rest, top first
    assert game.set_aside == ()
    assert game.phase is Phase.DEALT
    assert game.events == [Dealt(2, OFFICIAL, (30, 30), tuple(deck))]
    view = game.view(0)
    assert view.tops == (None, None) and view.piles == ((), ())  # face down until the reveal
    events = game.reveal()
    assert events[0] == Revealed((deck[0], deck[30]))
    assert game.phase in (Phase.PLAYING, Phase.STALLED)
    assert game.view(1).tops == (deck[0], deck[30])


def test_new_from_seed_or_deck() -> None:
    assert ClassicGame.new(2, 5).deck == tuple(shuffled_deck(5))
    order = list(STANDARD_DECK)
    assert ClassicGame.new(2, deck=order).deck == tuple(order)
    assert ClassicGame.new(3, 5, deck=order[:56]).deck == tuple(shuffled_deck(5, order[:56]))
    with pytest.raises(ValueError, match="seed or an explicit deck"):
        ClassicGame.new(2)
    with pytest.raises(ValueError, match="duplicate"):
        ClassicGame([card("1RM")] * 8)
    with pytest.raises(DealError):
        ClassicGame(STANDARD_DECK, players=4)


def test_three_players_deal_a_third_each_and_set_aside_the_remainder() -> None:
    deck = shuffled_deck(8, STANDARD_DECK[:56])  # the rulebook's original 56-card deck
    game = ClassicGame(deck, 3)
    assert game.sizes == (18, 18, 18)
    assert game.set_aside == tuple(deck[54:])
    for seat in range(3):
        assert game.pile(seat) == (deck[18 * seat],)
        assert game.cards_left(seat) == 17
    assert game.view(0).set_aside == 2
    assert ClassicGame(STANDARD_DECK, 3).sizes == (20, 20, 20)


def test_handicap_unequal_draw_piles_with_remainder_set_aside() -> None:
    deck = shuffled_deck(4)
    game = ClassicGame(deck, 2, sizes=(35, 25))
    assert game.cards_left(0) == 34 and game.cards_left(1) == 24
    assert game.pile(1) == (deck[35],)
    game = ClassicGame(deck, 2, sizes=(30, 20))
    assert game.set_aside == tuple(deck[50:])
    view = game.view(None)
    assert view.draw_counts == (26, 16) and view.set_aside == 10
    with pytest.raises(DealError, match="at least 4"):
        ClassicGame(deck, 2, sizes=(57, 3))


# --- reach -----------------------------------------------------------------------------------


def test_two_players_reach_both_piles() -> None:
    assert reach(2, 0) == (0, 1) and reach(2, 1) == (0, 1)
    assert own_pile(0) == 0 and own_pile(1) == 1


def test_three_players_reach_the_piles_on_their_left_and_right() -> None:
    # Pile i lies between seat i and the seat on its right (i + 1): a triangle.
    assert [reach(3, s) for s in range(3)] == [(0, 2), (1, 0), (2, 1)]
    game = ClassicGame.new(3, 21)
    game.reveal()
    for seat in range(3):
        assert game.reach(seat) == reach(3, seat)
        assert set(own_pile(seat) for _ in [0]) <= set(reach(3, seat))
        (far,) = set(range(3)) - set(reach(3, seat))
        for c in game.hand(seat):
            err = refused(
                game, Reason.PILE_OUT_OF_REACH, lambda c=c, s=seat, f=far: game.play(s, c, f)
            )
            assert f"pile {far} is out of your reach" in str(err)
        assert all(p.pile in reach(3, seat) for p in game.legal_plays(seat))


# --- plays and races -------------------------------------------------------------------------

RACE_P0 = "1RM | 1BS 4GW 5GF | 4PF 5YL"
RACE_P1 = "2OP | 3RW 4YS 5GL | 4BL 5PL"


def test_a_play_matches_colour_shape_or_count_and_refills_the_same_slot() -> None:
    game = deal(RACE_P0, RACE_P1)
    game.reveal()
    assert Play(0, card("1BS"), 0) in game.legal_plays(0)  # count
    assert Play(1, card("3RW"), 0) in game.legal_plays(1)  # colour
    events = game.play(0, card("1BS"), 0, t=120)
    assert events == [
        Played(0, card("1BS"), 0, 0, card("1RM")),
        Refilled(0, 0, card("4PF")),
    ]
    assert game.hand(0) == tuple(cards("4PF 4GW 5GF"))
    assert game.top(0) == card("1BS") and game.pile(0) == tuple(cards("1RM 1BS"))
    assert game.plays == 1
    assert game.history[-1] == (Play(0, card("1BS"), 0), 120)
    rebuilt_equal(game)


def test_race_the_second_play_is_judged_against_the_new_top() -> None:
    game = deal(RACE_P0, RACE_P1)
    game.reveal()
    game.play(0, card("1BS"), 0)
    err = refused(game, Reason.NO_COMMON_ATTRIBUTE, lambda: game.play(1, card("3RW"), 0))
    assert "three red waters" in str(err) and "one blue star" in str(err)

    game = deal(RACE_P0, RACE_P1)
    game.reveal()
    game.play(1, card("3RW"), 0)  # the other order: now the blue star loses the race
    refused(game, Reason.NO_COMMON_ATTRIBUTE, lambda: game.play(0, card("1BS"), 0))


def test_first_player_out_of_cards_wins_at_once_and_nothing_follows() -> None:
    game = deal("1RM | 1YS 1GW 1BF |", "2OP | 3PL 4YF 5GL | 4BL")
    game.reveal()
    game.play(0, card("1YS"), 0)
    assert game.hand(0) == tuple(cards("1GW 1BF"))  # no draw pile: the hand shrinks
    game.play(0, card("1GW"), 0)
    events = game.play(0, card("1BF"), 0)
    assert events == [
        Played(0, card("1BF"), 0, 0, card("1GW")),
        Ended(Outcome((0,), "out_of_cards")),
    ]
    assert game.over and game.outcome == Outcome((0,), "out_of_cards")
    assert game.outcome.winner == 0 and not game.outcome.is_tie
    assert game.legal_plays(1) == [] and game.all_legal_plays() == []
    refused(game, Reason.GAME_OVER, lambda: game.play(1, card("4YF"), 1))
    rebuilt_equal(game)


# --- stalls ----------------------------------------------------------------------------------


def test_stall_with_draw_cards_flips_onto_own_piles_and_repeats_while_stalled() -> None:
    game = deal(STALL_P0 + "1RP 2RM", STALL_P1 + "1OM 3OM")
    events = game.reveal()
    assert events == [Revealed(tuple(cards("1RM 2OP"))), Stalled(StallKind.FLIP)]
    assert game.phase is Phase.STALLED and game.stalls == 1
    assert game.legal_plays(0) == [] and game.legal_play_count() == 0
    refused(game, Reason.FLIP_AWAITED, lambda: game.play(0, card("3YS"), 0))
    refused(game, Reason.FLIP_AWAITED, lambda: game.choose(0, card("3YS")))
    assert game.flip(t=900) == [
        Flipped(0, card("1RP"), 0),
        Flipped(1, card("1OM"), 1),
        Stalled(StallKind.FLIP),  # still stalled: flip again
    ]
    assert game.stalls == 2
    assert game.flip() == [Flipped(0, card("2RM"), 0), Flipped(1, card("3OM"), 1)]
    assert game.phase is Phase.PLAYING
    assert sorted(game.all_legal_plays()) == sorted(
        [Play(0, card("3YS"), 1), Play(1, card("3PL"), 1)]
    )
    assert [a for a, _ in game.history] == [Reveal(), Flip(), Flip()]
    refused(game, Reason.NOT_STALLED, game.flip)
    rebuilt_equal(game)


def test_stall_with_an_empty_draw_pile_asks_every_player_to_choose_in_secret() -> None:
    game = deal(STALL_P0 + "1RP", STALL_P1 + "1OM")
    game.reveal()
    events = game.flip()
    assert events[-1] == Stalled(StallKind.CHOOSE)
    assert game.phase is Phase.CHOOSING
    assert game.awaiting_choice() == (0, 1)
    refused(game, Reason.CHOICE_AWAITED, lambda: game.play(0, card("3YS"), 0))
    refused(game, Reason.CHOICE_AWAITED, game.flip)
    refused(game, Reason.CARD_NOT_IN_HAND, lambda: game.choose(0, card("3PL")))

    assert game.choose(0, card("5BF"), t=3000) == [ChoiceMade(0, card("5BF"))]
    # Secret until all chose: the others see that seat 0 chose, not what.
    assert redact(ChoiceMade(0, card("5BF")), 1) == ChoiceMade(0, None)
    assert redact(ChoiceMade(0, card("5BF")), None) == ChoiceMade(0, None)
    assert game.view(1).chosen == (True, False) and game.view(1).my_choice is None
    assert game.view(0).my_choice == card("5BF")
    assert game.pile(0) == tuple(cards("1RM 1RP"))  # nothing placed yet
    assert game.awaiting_choice() == (1,)
    refused(game, Reason.ALREADY_CHOSEN, lambda: game.choose(0, card("3YS")))

    events = game.choose(1, card("4YF"), t=3100)
    assert events == [
        ChoiceMade(1, card("4YF")),
        Placed(0, card("5BF"), 0, 2),  # all placed at once, each on their own pile
        Placed(1, card("4YF"), 1, 1),
    ]
    assert game.hand(0) == tuple(cards("3YS 4GW")) and game.hand(1) == tuple(cards("3PL 5GL"))
    assert (game.top(0), game.top(1)) == (card("5BF"), card("4YF"))
    assert game.phase is Phase.PLAYING  # 5BF / 5GL share a count: play resumes
    assert game.choices == {} and game.awaiting_choice() == ()
    assert [a for a, _ in game.history][-2:] == [
        Choose(0, card("5BF")),
        Choose(1, card("4YF")),
    ]
    rebuilt_equal(game)


def test_placement_refills_from_a_draw_pile_that_is_not_empty() -> None:
    game = deal(STALL_P0 + "1RP", STALL_P1 + "1OM 4PS")  # a handicap: 5 and 6 cards
    game.reveal()
    game.flip()
    assert game.phase is Phase.CHOOSING  # seat 0's draw pile is empty, seat 1's is not
    game.choose(1, card("5GL"))
    events = game.choose(0, card("3YS"))
    assert events == [
        ChoiceMade(0, card("3YS")),
        Placed(0, card("3YS"), 0, 0),
        Placed(1, card("5GL"), 1, 2),
        Refilled(1, 2, card("4PS")),
    ]
    assert game.hand(1) == tuple(cards("3PL 4YF 4PS"))
    rebuilt_equal(game)


def test_default_choice_is_the_first_hand_card() -> None:
    game = deal(STALL_P0 + "1RP", STALL_P1 + "1OM")
    game.reveal()
    game.flip()
    assert game.default_choice(0) == card("3YS") and game.default_choice(1) == card("3PL")
    for seat in game.awaiting_choice():
        game.choose(seat, game.default_choice(seat))
    assert (game.top(0), game.top(1)) == (card("3YS"), card("3PL"))


def test_both_players_placing_their_last_card_is_a_tie() -> None:
    # Found by search: both play down to one card each, stall, and place their last cards.
    game = deal("2RP | 5RF 5OL 1YP |", "3PL | 4GL 5RP 1GS |")
    game.reveal()
    game.play(1, card("4GL"), 1)
    game.play(0, card("5OL"), 1)
    game.play(1, card("5RP"), 0)
    events = game.play(0, card("5RF"), 0)
    assert events[-1] == Stalled(StallKind.CHOOSE)
    assert game.hand(0) == (card("1YP"),) and game.hand(1) == (card("1GS"),)
    game.choose(0, card("1YP"))
    events = game.choose(1, card("1GS"))
    assert events[-1] == Ended(Outcome((0, 1), "stall_placement"))
    assert game.outcome is not None and game.outcome.is_tie and game.outcome.winner is None
    rebuilt_equal(game)


def test_placing_the_last_card_alone_wins() -> None:
    game = deal("4YF | 2RF 5OL 4RS |", "1YP | 5PW 5RF 4BW |")
    game.reveal()
    game.play(1, card("5RF"), 0)
    game.play(1, card("5PW"), 0)
    assert game.play(0, card("5OL"), 0)[-1] == Stalled(StallKind.CHOOSE)
    game.choose(0, card("2RF"))
    events = game.choose(1, card("4BW"))
    assert events[-1] == Ended(Outcome((1,), "stall_placement"))
    assert game.hand(0) == (card("4RS"),)
    rebuilt_equal(game)


def test_three_players_flip_onto_their_own_right_hand_piles_then_choose() -> None:
    game = deal(
        "1RM | 3YS 4GS 5BS | 2RL",
        "2OP | 3GF 4BF 5PF | 1OL",
        "1OW | 3BS 4PS 5YF | 2RW",
    )
    assert game.reveal()[-1] == Stalled(StallKind.FLIP)
    assert game.flip() == [
        Flipped(0, card("2RL"), 0),
        Flipped(1, card("1OL"), 1),
        Flipped(2, card("2RW"), 2),
        Stalled(StallKind.CHOOSE),
    ]
    game.choose(2, card("3BS"))
    game.choose(0, card("4GS"))
    assert game.pile(2) == tuple(cards("1OW 2RW"))  # secret: nothing placed yet
    events = game.choose(1, card("3GF"))
    assert [e for e in events if isinstance(e, Placed)] == [
        Placed(0, card("4GS"), 0, 1),
        Placed(1, card("3GF"), 1, 0),
        Placed(2, card("3BS"), 2, 0),
    ]
    rebuilt_equal(game)


def test_three_players_two_emptying_at_once_tie() -> None:
    game = deal("5GP | 2OS 3GW 3BF |", "2RF | 4YP 2BL 1OW |", "4PP | 5RF 3OF 4GL |")
    game.reveal()
    for seat, c, pile in [(1, "2BL", 1), (2, "4GL", 1), (1, "4YP", 1), (0, "3GW", 0)]:
        game.play(seat, card(c), pile)
    assert game.play(0, card("3BF"), 0)[-1] == Stalled(StallKind.CHOOSE)
    game.choose(0, card("2OS"))
    game.choose(1, card("1OW"))
    events = game.choose(2, card("5RF"))
    assert events[-1] == Ended(Outcome((0, 1), "stall_placement"))  # seat 2 still has a card
    assert game.outcome is not None and game.outcome.is_tie


def test_three_players_all_emptying_at_once_tie() -> None:
    game = deal("2BS | 2OL 5PM 4RS |", "4GL | 5BL 4OW 1YF |", "3RW | 2OS 5BS 5YM |")
    game.reveal()
    plays = [(0, "2OL", 0), (1, "5BL", 1), (1, "4OW", 0), (0, "4RS", 0), (2, "5BS", 1)]
    for seat, c, pile in plays:
        game.play(seat, card(c), pile)
    game.play(2, card("2OS"), 1)
    for seat, c in [(0, "5PM"), (1, "1YF"), (2, "5YM")]:
        events = game.choose(seat, card(c))
    assert events[-1] == Ended(Outcome((0, 1, 2), "stall_placement"))
    rebuilt_equal(game)


# --- the dead-end ruleset --------------------------------------------------------------------


# Ruling: the dead end needs every draw pile empty. While some player still has draw cards a
# stall the flip cannot break goes to the official choose branch.
LEGACY_DEAD_END = Ruleset("dead-end", DeadEnd.FEWEST_CARDS_ANY_EMPTY)
"""The earlier ruling, as records written before it changed hold it."""

# Seat 1 still has a draw card (2RF) after the flip; every placed card and 2RF keep the stall.
DRAW_LEFT_P0 = "1RM | 3YS 5BF 5BL | 1RP"
DRAW_LEFT_P1 = "2OP | 4GW 5PF 5PL | 1OM 2RF"


def test_dead_end_waits_for_the_choose_branch_while_a_draw_pile_is_left() -> None:
    game = deal(DRAW_LEFT_P0, DRAW_LEFT_P1, ruleset=DEAD_END)
    game.reveal()
    assert game.flip()[-1] == Stalled(StallKind.CHOOSE)
    assert game.draw_counts == (0, 1) and game.phase is Phase.CHOOSING
    game.choose(0, card("3YS"))
    events = game.choose(1, card("4GW"))
    assert Refilled(1, 0, card("2RF")) in events
    # Now no draw pile is left, and the stall goes on: the fewest cards left wins.
    assert events[-2:] == [Stalled(StallKind.DEAD_END), Ended(Outcome((0,), "fewest_cards"))]
    assert game.draw_counts == (0, 0) and (game.cards_left(0), game.cards_left(1)) == (2, 3)
    refused(game, Reason.GAME_OVER, lambda: game.choose(0, card("5BF")))
    rebuilt_equal(game)


def test_official_rules_choose_again_where_the_dead_end_ends_the_game() -> None:
    game = deal(DRAW_LEFT_P0, DRAW_LEFT_P1)
    game.reveal()
    game.flip()
    game.choose(0, card("3YS"))
    assert game.choose(1, card("4GW"))[-1] == Stalled(StallKind.CHOOSE)


def test_the_earlier_ruling_ended_the_game_at_the_first_empty_draw_pile() -> None:
    game = deal(DRAW_LEFT_P0, DRAW_LEFT_P1, ruleset=LEGACY_DEAD_END)
    game.reveal()
    events = game.flip()
    assert events[-2:] == [Stalled(StallKind.DEAD_END), Ended(Outcome((0,), "fewest_cards"))]
    assert (game.cards_left(0), game.cards_left(1)) == (3, 4)  # seat 1's draw card counted
    rebuilt_equal(game)


def test_dead_end_equal_fewest_is_a_tie() -> None:
    game = deal(STALL_P0 + "1RP", STALL_P1 + "1OM", ruleset=DEAD_END)
    game.reveal()
    assert game.flip()[-2:] == [Stalled(StallKind.DEAD_END), Ended(Outcome((0, 1), "fewest_cards"))]
    assert game.draw_counts == (0, 0)


# Three players: the placed cards (3YS, 3GF, 4BL) and the draw cards keep the stall going.
THREE_P0 = "1RM | 3YS 5GF 5PF | 2RM"
THREE_P2 = "1OW | 4BL 5YS 5PS | 2RP 1RW"


@pytest.mark.parametrize(
    ("seat1", "after_flip", "winners"),
    [
        ("2OP | 3GF 5BL 4PL | 1OM", (0, 0, 1), (0, 1)),  # two seats tie on two cards each
        ("2OP | 3GF 5BL 4PL | 1OM 2OW", (0, 1, 1), (0,)),  # seat 0 alone has two
    ],
)
def test_three_players_dead_end_only_once_no_draw_pile_is_left(
    seat1: str, after_flip: tuple[int, ...], winners: tuple[int, ...]
) -> None:
    game = deal(THREE_P0, seat1, THREE_P2, ruleset=DEAD_END)
    assert game.reveal()[-1] == Stalled(StallKind.FLIP)
    assert game.flip()[-1] == Stalled(StallKind.CHOOSE)
    assert game.draw_counts == after_flip
    for seat, c in [(0, "3YS"), (1, "3GF")]:
        game.choose(seat, card(c))
    events = game.choose(2, card("4BL"))
    assert events[-2:] == [Stalled(StallKind.DEAD_END), Ended(Outcome(winners, "fewest_cards"))]
    assert game.draw_counts == (0, 0, 0)
    rebuilt_equal(game)
    # The earlier ruling ended the same game at the flip, counting the draw cards left.
    legacy = deal(THREE_P0, seat1, THREE_P2, ruleset=LEGACY_DEAD_END)
    legacy.reveal()
    assert legacy.flip()[-1] == Ended(Outcome(winners, "fewest_cards"))


def test_three_players_all_out_of_draw_cards_at_once_tie_three_ways() -> None:
    game = deal(
        "1RM | 3YS 4GS 5BS | 2RL",
        "2OP | 3GF 4BF 5PF | 1OL",
        "1OW | 3BS 4PS 5YF | 2RW",
        ruleset=DEAD_END,
    )
    game.reveal()
    assert game.flip()[-1] == Ended(Outcome((0, 1, 2), "fewest_cards"))


def test_dead_end_still_flips_while_every_player_has_draw_cards() -> None:
    game = deal(STALL_P0 + "1RP 2RM", STALL_P1 + "1OM 3OM", ruleset=DEAD_END)
    game.reveal()
    assert game.phase is Phase.STALLED
    game.flip()
    assert game.phase is Phase.STALLED


# --- refusals: every reason, and nothing changes -----------------------------------------------


def _choosing() -> ClassicGame:
    game = deal(STALL_P0 + "1RP", STALL_P1 + "1OM")
    game.reveal()
    game.flip()
    return game


def _stalled() -> ClassicGame:
    game = deal(STALL_P0 + "1RP 2RM", STALL_P1 + "1OM 3OM")
    game.reveal()
    return game


def _playing() -> ClassicGame:
    game = deal(RACE_P0, RACE_P1)
    game.reveal()
    return game


def _over() -> ClassicGame:
    game = deal("1RM | 1YS 1GW 1BF |", "2OP | 3PL 4YF 5GL | 4BL")
    game.reveal()
    for c in ("1YS", "1GW", "1BF"):
        game.play(0, card(c), 0)
    return game


def _three() -> ClassicGame:
    game = ClassicGame.new(3, 21)
    game.reveal()
    return game


REFUSALS: list[tuple[Reason, Callable[[], ClassicGame], Callable[[ClassicGame], Any]]] = [
    (Reason.NOT_REVEALED, lambda: deal(RACE_P0, RACE_P1), lambda g: g.play(0, card("1BS"), 0)),
    (Reason.NOT_REVEALED, lambda: deal(RACE_P0, RACE_P1), lambda g: g.flip()),
    (Reason.NOT_REVEALED, lambda: deal(RACE_P0, RACE_P1), lambda g: g.choose(0, card("1BS"))),
    (Reason.ALREADY_REVEALED, _playing, lambda g: g.reveal()),
    (Reason.ALREADY_REVEALED, _stalled, lambda g: g.apply(Reveal())),
    (Reason.GAME_OVER, _over, lambda g: g.play(1, card("3PL"), 0)),
    (Reason.GAME_OVER, _over, lambda g: g.reveal()),
    (Reason.GAME_OVER, _over, lambda g: g.flip()),
    (Reason.GAME_OVER, _over, lambda g: g.choose(1, card("3PL"))),
    (Reason.NO_SUCH_PLAYER, _playing, lambda g: g.play(2, card("1BS"), 0)),
    (Reason.NO_SUCH_PLAYER, _playing, lambda g: g.play(-1, card("1BS"), 0)),
    (Reason.NO_SUCH_PLAYER, _playing, lambda g: g.play("0", card("1BS"), 0)),
    (Reason.NO_SUCH_PLAYER, _choosing, lambda g: g.choose(5, card("3YS"))),
    (Reason.NO_SUCH_PLAYER, _playing, lambda g: g.view(2)),
    (Reason.NO_SUCH_PLAYER, _playing, lambda g: g.legal_plays(3)),
    (Reason.NO_SUCH_PILE, _playing, lambda g: g.play(0, card("1BS"), 2)),
    (Reason.NO_SUCH_PILE, _playing, lambda g: g.play(0, card("1BS"), -1)),
    (Reason.NO_SUCH_PILE, _three, lambda g: g.play(0, g.hand(0)[0], 3)),
    (Reason.NO_SUCH_PILE, _playing, lambda g: g.play(0, card("1BS"), True)),
    (Reason.NO_SUCH_PILE, _playing, lambda g: g.play(0, card("1BS"), 0.0)),
    (Reason.CARD_NOT_IN_HAND, _playing, lambda g: g.play(0, card("3RW"), 0)),
    (Reason.CARD_NOT_IN_HAND, _playing, lambda g: g.play(0, "1BS", 0)),
    (Reason.CARD_NOT_IN_HAND, _choosing, lambda g: g.choose(1, card("3YS"))),
    (Reason.PILE_OUT_OF_REACH, _three, lambda g: g.play(0, g.hand(0)[0], 1)),
    (Reason.NO_COMMON_ATTRIBUTE, _playing, lambda g: g.play(0, card("4GW"), 0)),
    (Reason.FLIP_AWAITED, _stalled, lambda g: g.play(0, card("3YS"), 0)),
    (Reason.FLIP_AWAITED, _stalled, lambda g: g.choose(0, card("3YS"))),
    (Reason.CHOICE_AWAITED, _choosing, lambda g: g.play(0, card("3YS"), 0)),
    (Reason.CHOICE_AWAITED, _choosing, lambda g: g.flip()),
    (Reason.NOT_STALLED, _playing, lambda g: g.flip()),
    (Reason.NO_CHOICE_NEEDED, _playing, lambda g: g.choose(0, card("1BS"))),
    (
        Reason.ALREADY_CHOSEN,
        _choosing,
        lambda g: (g.choose(0, card("3YS")), g.choose(0, card("4GW"))),
    ),
]


def test_every_reason_is_exercised() -> None:
    assert {r for r, _, _ in REFUSALS} == set(Reason)


@pytest.mark.parametrize(("reason", "make", "act"), REFUSALS)
def test_refused_actions_change_nothing(
    reason: Reason, make: Callable[[], ClassicGame], act: Callable[[ClassicGame], Any]
) -> None:
    game = make()
    if reason is Reason.ALREADY_CHOSEN:
        game.choose(0, card("3YS"))
        refused(game, reason, lambda: game.choose(0, card("4GW")))
    else:
        refused(game, reason, lambda: act(game))


def test_apply_rejects_non_actions() -> None:
    game = _playing()
    with pytest.raises(TypeError):
        game.apply("play")  # type: ignore[arg-type]


def test_apply_dispatches_every_action() -> None:
    game = deal(STALL_P0 + "1RP", STALL_P1 + "1OM")
    game.apply(Reveal(), 0)
    game.apply(Flip(), 10)
    game.apply(Choose(0, card("3YS")), 20)
    game.apply(Choose(1, card("3PL")), 30)
    game.apply(Play(1, card("4YF"), 0), 40)  # yellow on the three yellow stars
    assert [t for _, t in game.history] == [0, 10, 20, 30, 40]


# --- events, views, redaction ------------------------------------------------------------------


def test_views_show_own_hand_tops_and_counts_only() -> None:
    game = ClassicGame.new(2, 12)
    game.reveal()
    mine = game.view(0)
    assert mine.seat == 0 and mine.hand == game.hand(0)
    assert mine.tops == (game.top(0), game.top(1))
    assert mine.hand_counts == (3, 3) and mine.draw_counts == (26, 26)
    assert mine.reach == (0, 1)
    assert mine.legal_plays() == game.legal_plays(0) == legal_plays_in_view(mine)
    spectator = game.view(None)
    assert spectator.hand == () and spectator.reach == () and spectator.legal_plays() == []
    visible = {c for v in (mine, spectator) for c in v.tops if c is not None}
    assert not visible & set(game.hand(1))


def test_redact_hides_the_deck_other_refills_and_choices() -> None:
    game = ClassicGame.new(2, 12)
    game.reveal()
    while not game.over and game.plays < 5:
        p = game.all_legal_plays()[0] if game.phase is Phase.PLAYING else None
        if p is None:
            break
        game.play(*p)
    dealt = redact(game.events[0], 0)
    assert isinstance(dealt, Dealt) and dealt.deck is None
    for e in game.events_for(1):
        if isinstance(e, Refilled):
            assert (e.card is None) is (e.player != 1)
    assert game.events_for(None)[0] == Dealt(2, OFFICIAL, (30, 30), None)
    with pytest.raises(ValueError, match="full Dealt"):
        ClassicGame.from_events(game.events_for(0))
    with pytest.raises(ValueError, match="full Dealt"):
        ClassicGame.from_events([])


def test_from_events_refuses_a_log_that_does_not_fit_its_deal() -> None:
    game = _playing()
    game.play(0, card("1BS"), 0)
    bad = list(game.events)
    bad[2] = Played(0, card("4GW"), 0, 0, card("1RM"))  # not in slot 0
    with pytest.raises(ValueError, match="does not match"):
        ClassicGame.from_events(bad)
    bad = list(game.events)
    bad[3] = Refilled(0, 0, card("5YL"))  # the draw pile's top is 4PF
    with pytest.raises(ValueError, match="does not match"):
        ClassicGame.from_events(bad)


def test_every_change_is_an_event_type() -> None:
    names = {type(e).__name__ for g in (_over(), _choosing(), _stalled()) for e in g.events}
    assert {"Dealt", "Revealed", "Played", "Stalled", "Flipped", "Ended"} <= names
