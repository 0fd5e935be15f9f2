"""blink.model.study and each game's study: reaction times, missed chances, both hands over
time and each seat's summary, checked against the engines on random classic and Go Blink
games, and on steps made by hand."""

from __future__ import annotations

import json
import random
from collections.abc import Hashable
from typing import Any

import msgspec
import pytest
from highcard import HIGH_CARD, high_card_game
from hypothesis import given, settings
from hypothesis import strategies as st

from blink.games.classic.engine import ClassicGame, Play
from blink.games.classic.record import GameRecord, SeriesRecord
from blink.games.goblink.engine import EndTurn, GoGame, LayDown
from blink.games.goblink.record import GoRecord
from blink.model.records import RecordError
from blink.model.registry import NoStudy, get_game, get_study, register, unregister
from blink.model.study import (
    STUDY_FORMAT,
    Chance,
    GameStudy,
    Step,
    analyse,
    median,
    study_document,
)
from randomgames import play_randomly, random_game, random_go_game


def step(
    t: int | None,
    seat: int | None = None,
    *,
    play: bool = False,
    can: tuple[frozenset[Hashable], ...] = (frozenset(), frozenset()),
    chances: tuple[tuple[Chance, ...], ...] = ((), ()),
) -> Step:
    """A two-seat step made by hand (hands of five, nothing else left)."""
    return Step(t, seat, play, play, can, chances, (5, 5), (5, 5))


A = Chance((0, "1RS"), ("1RM",), 0)
B = Chance((1, "2GS"), ("2GL",), 1)


def test_reactions_are_timed_from_the_last_change_of_what_the_seat_could_do() -> None:
    a, b, c = frozenset({"a"}), frozenset({"b"}), frozenset({"c"})
    steps = [
        step(None),
        step(100, can=(a, c)),  # the reveal: both seats may play from 100 ms
        step(400, 1, play=True, can=(a, b)),  # seat 1 plays 300 ms later; seat 0's: the same
        step(1000, 0, play=True, can=(b, b)),  # seat 0 plays 900 ms after its last change
        step(1300, 1, play=True, can=(b, c)),  # seat 1: 900 ms after its change at 400
    ]
    study = analyse(steps, 2, ["Ana", ""])
    assert [(p.step, p.seat, p.t, p.reaction_ms) for p in study.plays] == [
        (2, 1, 400, 300),
        (3, 0, 1000, 900),
        (4, 1, 1300, 900),
    ]
    assert study.names == ["Ana", "Player 2"]
    assert [(s.plays, s.median_reaction_ms) for s in study.summary] == [(1, 900), (2, 600)]


def test_a_play_reaction_without_times_is_none() -> None:
    steps = [step(None), step(None, 0, play=True)]
    (play,) = analyse(steps, 2, []).plays
    assert play.reaction_ms is None
    assert analyse(steps, 2, []).summary[0].median_reaction_ms is None


def test_a_chance_covered_by_another_seat_is_missed_and_one_taken_is_not() -> None:
    steps = [
        step(None),
        step(100, chances=((A, B), ())),  # seat 0 may play on piles 0 and 1
        step(700, 1, play=True, chances=((B,), ())),  # seat 1 covers pile 0: missed
        step(900, 0, play=True, chances=((), ())),  # seat 0 takes pile 1: not missed
        step(1200, chances=((A,), ())),
        step(1500, chances=((A,), ())),
    ]
    study = analyse(steps, 2, [])
    (missed,) = study.missed
    assert (missed.seat, missed.start, missed.end, missed.pile) == (0, 1, 2, 0)
    assert (missed.start_t, missed.end_t, missed.duration_ms, missed.cards) == (
        100,
        700,
        600,
        ["1RM"],
    )
    # A chance still open at the last step is not missed: nothing took it away.
    assert study.summary[0].missed == 1 and study.summary[1].missed == 0
    assert [s.plays for s in study.summary] == [1, 1]


def test_median() -> None:
    assert median([]) is None
    assert median([640]) == 640
    assert median([900, 100, 640]) == 640
    assert median([100, 200, 300, 1000]) == 250


# --- classic, against the engine -------------------------------------------------------------


def check_classic(record: GameRecord, study: GameStudy) -> None:
    """Every figure of ``study`` is what the engine says of ``record``'s game."""
    game = ClassicGame(record.deck, record.players, record.ruleset, record.sizes)
    n = game.players
    states: list[tuple[Any, ...]] = []

    def snap() -> None:
        plays = {(p.player, str(p.card), p.pile) for s in range(n) for p in game.legal_plays(s)}
        tops = tuple(str(game.top(i)) for i in range(n))
        states.append((plays, tops, [len(game.hand(s)) for s in range(n)]))
        states[-1] += ([game.cards_left(s) for s in range(n)],)

    snap()
    for action, t in record.actions:
        game.apply(action, t)
        snap()
    assert len(study.timeline) == len(record.actions) + 1
    for k, point in enumerate(study.timeline):
        assert point.hands == states[k][2] and point.left == states[k][3]
    # Every play of the record, with its seat and a reaction that is a time since a change.
    plays = [(k + 1, a.player) for k, (a, _) in enumerate(record.actions) if isinstance(a, Play)]
    assert [(p.step, p.seat) for p in study.plays] == plays
    for p in study.plays:
        assert p.reaction_ms is not None and p.reaction_ms >= 0
        assert p.t == record.actions[p.step - 1][1]
    # Every missed chance is an interval during which a card of the seat's fitted the pile,
    # ended by something else than the seat's own play.
    for m in study.missed:
        assert 0 <= m.start < m.end <= len(record.actions) and m.pile is not None
        top = states[m.start][1][m.pile]
        for k in range(m.start, m.end):
            legal, tops = states[k][0], states[k][1]
            assert tops[m.pile] == top
            assert any((m.seat, c, m.pile) in legal for c in m.cards)
        ended_by = record.actions[m.end - 1][0]
        assert not (isinstance(ended_by, Play) and ended_by.player == m.seat)
        assert m.duration_ms is not None and m.duration_ms >= 0
    # The counts add up.
    for s in study.summary:
        assert s.plays == sum(1 for p in study.plays if p.seat == s.seat)
        assert s.missed == sum(1 for m in study.missed if m.seat == s.seat)
    assert sum(s.plays for s in study.summary) == len(plays)


@given(seed=st.integers(0, 10_000), small=st.booleans())
@settings(max_examples=25)
def test_a_classic_study_is_what_the_engine_says(seed: int, small: bool) -> None:
    record = GameRecord.from_game(random_game(seed, small=small))
    check_classic(record, get_study("classic")(record))


def test_a_random_classic_game_misses_plays() -> None:
    record = GameRecord.from_game(random_game(1, players=2))
    study = get_study("classic")(record)
    assert study.missed, "random players let chances go"
    assert all(s.median_reaction_ms is not None for s in study.summary)


# --- Go Blink --------------------------------------------------------------------------------


@given(seed=st.integers(0, 10_000))
@settings(max_examples=15)
def test_a_go_blink_study_is_what_the_engine_says(seed: int) -> None:
    record = GoRecord.from_game(random_go_game(seed))
    study = get_study("goblink")(record)
    game = GoGame(record.deck, record.players, record.dealer, record.turn_limit)
    lays: list[set[tuple[int, str]]] = []

    def snap() -> None:
        lays.append(
            {
                (s, str(c))
                for s in range(game.players)
                for a in game.legal_actions(s)
                if isinstance(a, LayDown)
                for c in a.cards
            }
        )

    snap()
    for action, t in record.actions:
        game.apply(action, t)
        snap()
    plays = [
        (k + 1, a.player) for k, (a, _) in enumerate(record.actions) if not isinstance(a, EndTurn)
    ]
    assert [(p.step, p.seat) for p in study.plays] == plays
    assert all(p.reaction_ms is None or p.reaction_ms >= 0 for p in study.plays)
    for m in study.missed:
        for k in range(m.start, m.end):
            assert any((m.seat, c) in lays[k] for c in m.cards)
        assert not isinstance(record.actions[m.end - 1][0], LayDown)
    for s in study.summary:
        assert s.missed == sum(1 for m in study.missed if m.seat == s.seat)
    assert [p.hands for p in study.timeline][-1] == [len(game.hand(s)) for s in range(game.players)]


def test_ending_a_turn_with_a_match_in_hand_misses_it() -> None:
    # Players who mostly end their turns rather than lay down: matches held at a turn's end
    # are missed, and a missed match ends by its seat's turn ending or another seat's action.
    go = get_game("goblink")
    never: GoGame = go.new(2, seed=5, options={"dealer": 0, "turn_limit": 40})
    play_randomly(go, never, random.Random(5), prefer=lambda a: not isinstance(a, LayDown))
    study = get_study("goblink")(GoRecord.from_game(never))
    history = never.history
    assert any(isinstance(history[m.end - 1][0], EndTurn) for m in study.missed)
    for m in study.missed:
        ended_by = history[m.end - 1][0]
        assert not isinstance(ended_by, LayDown) or ended_by.player != m.seat


# --- documents and the registry --------------------------------------------------------------


def test_the_study_document_of_a_record_and_of_a_series() -> None:
    one = GameRecord.from_game(random_game(2), ["Ana", "Ben"], {"game": 7})
    doc = study_document(json.loads(one.to_json()))
    assert (doc.format, doc.game, doc.meta, len(doc.games)) == (
        STUDY_FORMAT,
        "classic",
        {"game": 7},
        1,
    )
    assert doc.games[0].names[:2] == ["Ana", "Ben"]
    data = msgspec.to_builtins(doc)
    assert data["games"][0]["summary"][0].keys() == {
        "seat",
        "plays",
        "missed",
        "median_reaction_ms",
    }
    series = SeriesRecord(3, [GameRecord.from_game(random_game(s, players=2)) for s in (3, 5)])
    assert len(study_document(series.to_dict()).games) == 2


def test_a_record_that_does_not_verify_is_refused_with_its_action() -> None:
    data = json.loads(GameRecord.from_game(random_game(2)).to_json())
    data["actions"][3] = {"type": "play", "seat": 0, "card": "1RS", "pile": 0, "t": 9}
    with pytest.raises(RecordError) as caught:
        study_document(data)
    assert caught.value.index is not None


def test_a_game_without_a_study_says_so() -> None:
    register(high_card_game())
    try:
        with pytest.raises(NoStudy) as caught:
            get_study("highcard")
        assert caught.value.code == "no_study"
        state = HIGH_CARD.new(2, seed=1)
        play_randomly(HIGH_CARD, state, random.Random(1))
        data = HIGH_CARD.record_codec.record(state).to_dict()
        with pytest.raises(RecordError) as refused:
            study_document(data)
        assert refused.value.reason == "no_study"
        assert str(refused.value) == "the game 'highcard' cannot be studied"
    finally:
        unregister(HIGH_CARD.info.name)
