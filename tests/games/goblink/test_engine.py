"""Every Go Blink rule and ruling, one scenario at a time."""

from __future__ import annotations

import pytest

from blink.cards import Attribute, Color, Shape, parse_card
from blink.games.goblink.engine import (
    Ask,
    Asked,
    Dealt,
    Drew,
    Ended,
    EndTurn,
    GoBlinked,
    GoGame,
    IllegalAction,
    LaidDown,
    LayDown,
    Passed,
    Phase,
    Reason,
    Skipped,
    TurnBegan,
    attribute_of,
    match_value,
    matches_in,
    parse_value,
    redact,
    value_from_wire,
    value_label,
    value_to_wire,
)

from .helpers import cards, deal, deck_for, skip_opening

RED, BLUE, GREEN = Color.RED, Color.BLUE, Color.GREEN
STAR, MOON = Shape.STAR, Shape.MOON


def refused(game: GoGame, action: object, reason: Reason) -> IllegalAction:
    """Apply ``action``, expect a refusal with ``reason`` and no change to the game."""
    before = game.snapshot()
    with pytest.raises(IllegalAction) as info:
        game.apply(action)  # type: ignore[arg-type]
    assert info.value.reason is reason
    assert info.value.code == reason.value
    assert str(info.value)
    assert game.snapshot() == before
    return info.value


# --- values and matches ----------------------------------------------------------------------


def test_match_value_finds_the_shared_attribute() -> None:
    assert match_value(cards("1RS 2RM 3RW")) is RED
    assert match_value(cards("1RS 2BS 3GS")) is STAR
    assert match_value(cards("4RS 4BM 4GW 4YF")) == 4
    assert match_value(cards("1RS 2BM 3GW")) is None
    assert match_value(cards("1RS 2RM")) is None
    assert match_value(cards("1RS 1RS 2RM")) is None


def test_matches_in_lists_every_subset() -> None:
    found = matches_in(cards("1RS 2RM 3RW 4RF"))
    assert len(found) == 5  # four triples and the quadruple
    assert all(match_value(m) is RED for m in found)
    assert matches_in(cards("1RS 2BM")) == []


def test_values_parse_and_round_trip() -> None:
    assert parse_value("Yellow") is Color.YELLOW
    assert parse_value("stars") is STAR
    assert parse_value("four") == 4
    assert parse_value("fours") == 4
    assert parse_value("3") == 3
    with pytest.raises(ValueError):
        parse_value("banana")
    for v in (*Color, *Shape, 1, 2, 3, 4, 5):
        assert value_from_wire(*value_to_wire(v)) == v
        assert value_label(v)
    assert attribute_of(RED) is Attribute.COLOR
    assert attribute_of(STAR) is Attribute.SHAPE
    assert attribute_of(4) is Attribute.COUNT
    for bad in (("color", "mauve"), ("shape", "cube"), ("count", 6), ("count", True), ("x", 1)):
        with pytest.raises(ValueError):
            value_from_wire(*bad)


# --- the deal --------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_deal_four_each_rest_is_the_draw_pile(players: int) -> None:
    game = GoGame.new(players, seed=3, dealer=players - 1)
    assert all(len(game.hand(p)) == 4 for p in range(players))
    assert len(game.draw_pile()) == 60 - 4 * players
    # Dealt one at a time from the player after the dealer (seat 0 here).
    assert game.hand(0)[0] == game.deck[0]
    assert game.hand(1)[0] == game.deck[1]
    assert game.draw_pile()[0] == game.deck[4 * players]
    assert game.phase is Phase.OPENING
    assert game.current == 0
    assert isinstance(game.events[0], Dealt)
    assert game.events[1] == TurnBegan(0, True)


def test_the_player_after_the_dealer_goes_first() -> None:
    for dealer in range(4):
        game = GoGame.new(4, seed=1, dealer=dealer)
        assert game.current == game.first_player == (dealer + 1) % 4
        skip_opening(game)
        assert game.current == (dealer + 1) % 4
        assert game.phase is Phase.ASKING


def test_bad_setups_are_refused() -> None:
    with pytest.raises(ValueError):
        GoGame.new(1, seed=1)
    with pytest.raises(ValueError):
        GoGame.new(7, seed=1)
    with pytest.raises(ValueError):
        GoGame.new(3, seed=1, dealer=3)
    with pytest.raises(ValueError):
        GoGame(list(cards("1RS 1RS 2RM 3RW 4RF 5RL 1BS 2BM")), 2)
    with pytest.raises(ValueError):
        GoGame(list(cards("1RS 2RM 3RW")), 2)
    with pytest.raises(ValueError):
        GoGame.new(2)
    with pytest.raises(ValueError):
        GoGame.new(2, seed=1, turn_limit=0)


# --- the opening -----------------------------------------------------------------------------


def test_opening_each_player_in_seat_order_once() -> None:
    game = GoGame.new(3, seed=5, dealer=1)
    order = []
    while game.phase is Phase.OPENING:
        order.append(game.current)
        game.apply(EndTurn(game.current))  # type: ignore[arg-type]
    assert order == [2, 0, 1]
    assert game.phase is Phase.ASKING and game.current == 2
    assert game.turns == 1  # the first turn has begun


def test_opening_lay_down_but_never_all_cards() -> None:
    game = deal(["1RS 2RM 3RW 4RF", "1BS 2BM 3GW 4GF"], rest=True, dealer=1)
    assert game.current == 0
    refused(game, LayDown(0, cards("1RS 2RM 3RW 4RF")), Reason.EMPTIES_HAND_IN_OPENING)
    refused(game, Ask(0, 1, RED), Reason.NO_ASK_IN_OPENING)
    refused(game, LayDown(1, cards("1BS 2BM 3GW")), Reason.OUT_OF_TURN)
    events = game.apply(LayDown(0, cards("1RS 2RM 3RW")))
    assert events == [LaidDown(0, cards("1RS 2RM 3RW"), RED)]
    assert game.hand(0) == cards("4RF")
    # The last card can never go down in the opening (no match of one card anyway).
    refused(game, LayDown(0, cards("4RF")), Reason.NOT_A_MATCH)
    game.apply(EndTurn(0))
    assert game.current == 1 and game.phase is Phase.OPENING


def test_opening_with_a_five_card_deal_is_impossible_so_a_four_card_deal_keeps_one() -> None:
    game = deal(["1RS 1BM 1GW 1YF", "2BS 3BM 4GW 5GF"], rest=True, dealer=1)
    refused(game, LayDown(0, cards("1RS 1BM 1GW 1YF")), Reason.EMPTIES_HAND_IN_OPENING)
    game.apply(LayDown(0, cards("1RS 1BM 1YF")))
    assert game.hand(0) == cards("1GW")


# --- asking ----------------------------------------------------------------------------------


def two_player_game() -> GoGame:
    game = deal(["1RS 2RM 3BW 4GF", "5RS 1BM 2BL 3YF"], draw="4YL 5YP", rest=True, dealer=1)
    skip_opening(game)
    return game


def test_ask_refusals() -> None:
    game = two_player_game()
    assert game.current == 0 and game.phase is Phase.ASKING
    refused(game, Ask(0, 0, RED), Reason.ASK_YOURSELF)
    refused(game, Ask(0, 1, Color.PURPLE), Reason.ATTRIBUTE_NOT_HELD)
    refused(game, Ask(0, 1, Shape.LIGHTNING), Reason.ATTRIBUTE_NOT_HELD)
    refused(game, Ask(0, 1, 5), Reason.ATTRIBUTE_NOT_HELD)
    refused(game, Ask(0, 1, 9), Reason.BAD_VALUE)
    refused(game, Ask(0, 1, True), Reason.BAD_VALUE)
    refused(game, Ask(0, 4, RED), Reason.NO_SUCH_PLAYER)
    refused(game, Ask(1, 0, 5), Reason.OUT_OF_TURN)
    refused(game, Ask(7, 0, 5), Reason.NO_SUCH_PLAYER)
    refused(game, LayDown(0, cards("1RS 2RM 3BW")), Reason.ASK_FIRST)
    refused(game, EndTurn(0), Reason.ASK_FIRST)


def test_ask_passes_every_card_of_the_value() -> None:
    game = two_player_game()
    events = game.apply(Ask(0, 1, Color.BLUE))
    assert events == [Asked(0, 1, BLUE), Passed(1, 0, BLUE, 2, cards("1BM 2BL"))]
    assert set(game.hand(0)) == set(cards("1RS 2RM 3BW 4GF 1BM 2BL"))
    assert game.hand(1) == cards("5RS 3YF")
    assert game.phase is Phase.LAYING
    refused(game, Ask(0, 1, RED), Reason.ALREADY_ASKED)
    # The others learn the value, who and how many, never which cards.
    assert redact(events[1], None) == Passed(1, 0, BLUE, 2, None)
    assert redact(events[1], 0) == events[1]
    assert redact(events[1], 1) == events[1]
    assert game.view(0).received == ((1, cards("1BM 2BL")),)
    assert game.view(1).given == ((0, cards("1BM 2BL")),)
    log = game.view(None).asks[-1]
    assert (log.player, log.target, log.value, log.passed, log.drew) == (0, 1, BLUE, 2, False)


def test_go_blink_draws_one_card() -> None:
    game = two_player_game()
    events = game.apply(Ask(0, 1, Color.GREEN))
    assert events == [Asked(0, 1, GREEN), GoBlinked(1, 0), Drew(0, parse_card("4YL"), "go_blink")]
    assert game.hand(0)[-1] == parse_card("4YL")
    assert redact(events[2], 1) == Drew(0, None, "go_blink")
    assert game.view(None).asks[-1].drew
    assert game.turns == 1
    game.apply(EndTurn(0))
    assert game.current == 1 and game.phase is Phase.ASKING
    assert game.turns == 2


def test_go_blink_with_an_empty_draw_pile_draws_nothing() -> None:
    game = deal(["1RS 2RM 3BW 4GF", "5RS 1BM 2BL 3YF"], dealer=1)
    skip_opening(game)
    events = game.apply(Ask(0, 1, Color.GREEN))
    assert events == [Asked(0, 1, GREEN), GoBlinked(1, 0)]
    assert len(game.hand(0)) == 4
    assert not game.view(None).asks[-1].drew


def test_one_ask_per_turn_whatever_the_answer() -> None:
    game = two_player_game()
    game.apply(Ask(0, 1, Color.GREEN))
    refused(game, Ask(0, 1, RED), Reason.ALREADY_ASKED)


def test_a_player_emptied_by_others_draws_at_once() -> None:
    game = deal(["1RS 2RM 3BW 4GF", "5RS 1RM 2RL 3RF"], draw="4YL 5YP", rest=True, dealer=1)
    skip_opening(game)
    events = game.apply(Ask(0, 1, RED))
    assert events[1] == Passed(1, 0, RED, 4, cards("5RS 1RM 2RL 3RF"))
    assert events[2] == Drew(1, parse_card("4YL"), "emptied")
    assert game.hand(1) == cards("4YL")


def test_emptied_with_an_empty_draw_pile_stays_empty_and_is_skipped() -> None:
    game = deal(["1RS 2RM 3BW 4GF", "5RS 1RM 2RL 3RF", "1YS 2YM 3GW 4BF"], dealer=2)
    skip_opening(game)
    assert game.current == 0
    game.apply(Ask(0, 1, RED))
    assert game.hand(1) == ()
    events = game.apply(EndTurn(0))
    assert events == [TurnBegan(1, False), Skipped(1), TurnBegan(2, False)]
    assert game.current == 2 and game.turns == 3


# --- laying down and winning -----------------------------------------------------------------


def test_lay_down_after_the_ask_any_number_of_matches() -> None:
    game = deal(["1RS 2RM 1BW 2BF", "3RW 3BL 5YF 4YP"], draw="5GS", rest=True, dealer=1)
    skip_opening(game)
    game.apply(Ask(0, 1, RED))  # receives 3RW
    game.apply(LayDown(0, cards("1RS 2RM 3RW")))
    refused(game, LayDown(0, cards("1BW 2BF")), Reason.NOT_A_MATCH)
    refused(game, LayDown(0, cards("1BW 2BF 3RW")), Reason.CARD_NOT_IN_HAND)
    assert game.phase is Phase.LAYING
    game.apply(EndTurn(0))
    game.apply(Ask(1, 0, BLUE))  # receives 1BW 2BF
    game.apply(LayDown(1, cards("1BW 2BF 3BL")))
    assert [m for _, m in game.discard()] == [cards("1RS 2RM 3RW"), cards("1BW 2BF 3BL")]
    assert game.hand(1) == cards("5YF 4YP")
    assert not game.over


def test_blunk_with_two_matches_in_one_turn() -> None:
    game = deal(["1RS 2RS 1BM 2BM", "3RM 4RS 5YF 4YP"], draw="1GL", rest=True, dealer=1)
    skip_opening(game)
    game.apply(Ask(0, 1, RED))  # receives 3RM 4RS
    game.apply(LayDown(0, cards("1RS 2RS 4RS")))
    assert not game.over
    events = game.apply(LayDown(0, cards("1BM 2BM 3RM")))
    assert game.over and game.outcome is not None
    assert game.outcome.winners == (0,) and game.outcome.reason == "blunk"
    assert events[-1] == Ended(game.outcome, (0, 2))


def test_winning_from_the_go_blink_draw() -> None:
    game = deal(["1RS 2RM 1BW 2BL", "3YW 4YL 5YF 4GP"], draw="3RF 3BS", rest=True, dealer=1)
    skip_opening(game)
    game.apply(Ask(0, 1, RED))  # Go Blink: draws 3RF -> 1RS 2RM 1BW 2BL 3RF
    game.apply(LayDown(0, cards("1RS 2RM 3RF")))
    game.apply(EndTurn(0))
    game.apply(Ask(1, 0, 5))  # Go Blink: seat 1 draws 3BS
    game.apply(EndTurn(1))
    game.apply(Ask(0, 1, BLUE))  # takes 3BS -> 1BW 2BL 3BS
    events = game.apply(LayDown(0, cards("1BW 2BL 3BS")))
    assert game.over
    assert events[-1] == Ended(game.outcome, (0, 4))  # type: ignore[arg-type]
    assert game.outcome is not None
    assert game.outcome.winners == (0,) and game.outcome.reason == "blunk"
    assert game.outcome.winner == 0 and not game.outcome.is_tie
    assert game.current is None and game.phase is Phase.OVER
    refused(game, EndTurn(0), Reason.GAME_OVER)
    refused(game, Ask(1, 0, 3), Reason.GAME_OVER)
    assert game.legal_actions() == [] and game.default_action() is None


# --- the end without a win -------------------------------------------------------------------


def test_empty_pile_and_a_quiet_round_ends_fewest_cards_wins() -> None:
    game = deal(["1RS 2BM 3GW 4YF", "5RS 1BM 2PL 3YF"], dealer=1)
    skip_opening(game)
    assert game.draw_pile() == ()
    game.apply(Ask(0, 1, Color.GREEN))
    game.apply(EndTurn(0))
    assert game.quiet_turns == 1 and not game.over
    game.apply(Ask(1, 0, 5))
    events = game.apply(EndTurn(1))
    assert game.over
    assert game.outcome is not None
    # Seat 0 holds 4 cards, seat 1 holds 4 (gave none, received none): a tie.
    assert game.outcome.winners == (0, 1) and game.outcome.is_tie and game.outcome.winner is None
    assert game.outcome.reason == "fewest_cards"
    assert isinstance(events[-1], Ended)


def test_fewest_cards_wins_alone() -> None:
    game = deal(["1RS 2BM 3GW 4YF", "5RS 1BM 2PL 3YF"], dealer=1)
    skip_opening(game)
    game.apply(Ask(0, 1, RED))  # receives 5RS: 5 cards against 3
    game.apply(EndTurn(0))
    game.apply(Ask(1, 0, Color.YELLOW))  # takes 4YF: 4 against 4
    game.apply(EndTurn(1))
    assert game.over and game.outcome is not None and game.outcome.is_tie


def test_a_match_resets_the_quiet_round() -> None:
    game = deal(["1RS 2RM 3BW 4GF", "3RW 1BM 2BL 3YF"], dealer=1)
    skip_opening(game)
    game.apply(Ask(0, 1, Color.GREEN))
    game.apply(EndTurn(0))
    assert game.quiet_turns == 1
    game.apply(Ask(1, 0, BLUE))  # takes 3BW
    game.apply(LayDown(1, cards("1BM 2BL 3BW")))
    game.apply(EndTurn(1))
    assert game.quiet_turns == 0 and not game.over
    game.apply(Ask(0, 1, RED))  # takes 3RW
    game.apply(LayDown(0, cards("1RS 2RM 3RW")))
    assert game.hand(0) == cards("4GF")
    game.apply(EndTurn(0))
    game.apply(Ask(1, 0, 3))  # Go Blink
    game.apply(EndTurn(1))
    assert game.quiet_turns == 1
    game.apply(Ask(0, 1, 4))  # Go Blink
    game.apply(EndTurn(0))
    assert game.over and game.outcome is not None
    assert game.outcome.winners == (0, 1) and game.outcome.reason == "fewest_cards"


def test_turn_limit_ends_by_fewest_cards() -> None:
    game = GoGame.new(3, seed=11, turn_limit=2)
    skip_opening(game)
    for _ in range(2):
        seat = game.current
        assert seat is not None
        game.apply(game.legal_actions()[0])
        game.apply(EndTurn(seat))
    assert game.over and game.outcome is not None and game.outcome.reason == "turn_limit"
    assert game.turns == 2


# --- views, defaults and legality -------------------------------------------------------------


def test_views_show_only_what_the_viewer_may_know() -> None:
    game = two_player_game()
    game.apply(Ask(0, 1, BLUE))
    view = game.view(1)
    assert view.hand == game.hand(1)
    assert view.hand_counts == (6, 2)
    assert view.draw_count == len(game.draw_pile())
    assert view.current == 0 and not view.my_turn
    assert view.legal_actions() == []
    spectator = game.view(None)
    assert spectator.hand == () and spectator.received == () and spectator.given == ()
    assert all(isinstance(e, Dealt) and e.deck is None for e in game.events_for(1)[:1])
    with pytest.raises(IllegalAction):
        game.view(5)


def test_legal_actions_are_all_accepted_and_match_the_view() -> None:
    game = GoGame.new(4, seed=21)
    for _ in range(60):
        if game.over:
            break
        seat = game.current
        assert seat is not None
        actions = game.legal_actions()
        assert actions == game.view(seat).legal_actions()
        assert game.legal_actions((seat + 1) % 4) == []
        for a in actions:
            copy = GoGame.replay(game.deck, 4, game.dealer, game.history)
            copy.apply(a)
        game.apply(actions[len(actions) // 2])


def test_default_action_is_always_legal() -> None:
    for seed in range(20):
        game = GoGame.new(5, seed=seed, dealer=seed % 5)
        while not game.over:
            action = game.default_action()
            assert action is not None
            game.apply(action)
            assert game.turns < 2000


def test_apply_rejects_non_actions() -> None:
    game = GoGame.new(2, seed=1)
    with pytest.raises(TypeError):
        game.apply("ask")  # type: ignore[arg-type]


def test_replay_rebuilds_the_same_state() -> None:
    game = GoGame.new(3, seed=8, dealer=2)
    i = 0
    while not game.over:
        actions = game.legal_actions()
        game.apply(actions[i % len(actions)], t=i)
        i += 1
    again = GoGame.replay(game.deck, 3, 2, game.history)
    assert again.snapshot() == game.snapshot()
    assert again.events == game.events
    assert deck_for(["1RS 2RM 3BW 4GF", "5RS 1BM 2BL 3YF"], dealer=1)[:2] == list(cards("1RS 5RS"))


def test_events_and_views_as_json() -> None:
    import json

    from blink.games.goblink.engine import event_to_dict, view_to_dict

    game = deal(["1RS 2RM 3BW 4GF", "5RS 1RM 2RL 3RF", "1YS 2YM 3GW 4BF"], dealer=2)
    skip_opening(game)
    game.apply(Ask(0, 1, RED))  # seat 1 is emptied; the draw pile is empty
    game.apply(LayDown(0, cards("1RS 2RM 5RS")))
    game.apply(EndTurn(0))  # seat 1 is skipped
    kinds = set()
    for seat in (0, 1, 2, None):
        for e in game.events_for(seat):
            d = event_to_dict(e)
            kinds.add(d["type"])
            json.dumps(d)
        data = view_to_dict(game.view(seat))
        json.dumps(data)
        assert data["hand"] == [str(c) for c in game.view(seat).hand]
    assert {"dealt", "turn", "asked", "passed", "laid_down", "skipped"} <= kinds
    hidden = [event_to_dict(e) for e in game.events_for(2) if isinstance(e, Passed)]
    assert hidden == [
        {
            "type": "passed",
            "giver": 1,
            "receiver": 0,
            "number": 4,
            "cards": None,
            "attribute": "color",
            "value": "red",
        }
    ]
    over = GoGame.new(2, seed=1)
    while not over.over:
        over.apply(over.legal_actions()[0])
    ended = event_to_dict(over.events[-1])
    assert ended["type"] == "ended" and "winners" in ended
    assert view_to_dict(over.view(0))["outcome"] is not None
    blink = GoGame.new(2, seed=2)
    skip_opening(blink)
    seat = blink.current
    assert seat is not None
    for e in blink.apply(blink.legal_actions()[0]):
        json.dumps(event_to_dict(redact(e, None)))


def test_turns_go_clockwise_from_the_player_after_the_dealer() -> None:
    game = GoGame.new(4, seed=17, dealer=1)
    skip_opening(game)
    order = []
    for _ in range(8):
        seat = game.current
        assert seat is not None
        order.append(seat)
        ask = next(a for a in game.legal_actions() if isinstance(a, Ask))
        game.apply(ask)
        if game.over:
            break
        game.apply(EndTurn(seat))
    assert order == [2, 3, 0, 1, 2, 3, 0, 1][: len(order)]


def test_win_with_the_card_drawn_after_go_blink() -> None:
    game = deal(["1RS 2RM 3RW 4RF", "2BS 3BM 4GW 5GF"], draw="5RL", rest=True, dealer=1)
    skip_opening(game)  # seat 0 keeps its four reds through the opening
    events = game.apply(Ask(0, 1, 1))  # nobody else holds a 1: "Go Blink", draws 5RL
    assert events[-1] == Drew(0, parse_card("5RL"), "go_blink")
    game.apply(LayDown(0, cards("1RS 2RM 3RW 4RF 5RL")))
    assert game.over and game.outcome is not None and game.outcome.winners == (0,)


def test_being_emptied_by_others_is_not_a_win() -> None:
    game = deal(["1RS 2RM 3BW 4GF", "5RS 1RM 2RL 3RF"], dealer=1)
    skip_opening(game)
    game.apply(Ask(0, 1, RED))
    assert game.hand(1) == () and not game.over
