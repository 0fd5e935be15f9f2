"""Best-of-N series: majority wins, ties count for no one, the series goes on."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blink.match import Series, SeriesError


def test_best_of_three() -> None:
    s = Series(3)
    assert s.target == 2 and s.winner is None and not s.over
    s.record([0])
    s.record([1])
    assert s.score == (1, 1) and not s.over
    s.record([1])
    assert s.winner == 1 and s.over and s.games_played == 3
    with pytest.raises(SeriesError, match="already decided"):
        s.record([0])


def test_best_of_five_needs_three_wins() -> None:
    s = Series(5)
    for w in (0, 0, 1, 1):
        s.record([w])
    assert not s.over
    s.record([0])
    assert s.winner == 0


def test_a_tie_counts_for_no_one_and_the_series_goes_on() -> None:
    s = Series(3)
    s.record([0, 1])
    s.record([0, 1])
    assert s.score == (0, 0) and s.ties == 2 and not s.over
    s.record([0])
    s.record([0])
    assert s.winner == 0 and s.games_played == 4  # longer than three games


def test_three_players_and_any_odd_n() -> None:
    s = Series(7, players=3)
    assert s.target == 4
    for w in (2, 2, 1, 2, 0, 2):
        s.record([w])
    assert s.winner == 2 and s.score == (1, 1, 4)
    s3 = Series(1, players=3)
    s3.record([0, 2])  # a three-player tie between two seats
    assert not s3.over


def test_next_dealer_rotates() -> None:
    s = Series(5)
    assert s.next_dealer == 0
    s.record([1])
    assert s.next_dealer == 1
    s.record([0, 1])
    assert s.next_dealer == 0


@pytest.mark.parametrize("best_of", [0, 2, 4, -3])
def test_best_of_must_be_a_positive_odd_number(best_of: int) -> None:
    with pytest.raises(SeriesError, match="positive odd"):
        Series(best_of)


@pytest.mark.parametrize("players", [1, 7])
def test_players_bounds(players: int) -> None:
    with pytest.raises(SeriesError, match="2 to 6 players"):
        Series(3, players)


@pytest.mark.parametrize("winners", [[], [2], [-1], [0, 0]])
def test_invalid_results(winners: list[int]) -> None:
    with pytest.raises(SeriesError, match="not a valid result"):
        Series(3).record(winners)


def test_to_dict() -> None:
    s = Series(3)
    s.record([0])
    s.record([0, 1])
    assert s.to_dict() == {
        "best_of": 3,
        "first_to": 2,
        "play_all": False,
        "over": False,
        "players": 2,
        "results": [[0], [0, 1]],
        "score": [1, 0],
        "ties": 1,
        "winner": None,
    }


@given(
    st.sampled_from([1, 3, 5, 7]),
    st.lists(st.sampled_from([(0,), (1,), (0, 1)]), max_size=30),
)
def test_series_properties(best_of: int, results: list[tuple[int, ...]]) -> None:
    s = Series(best_of)
    for r in results:
        if s.over:
            break
        s.record(r)
    assert sum(s.score) + s.ties == s.games_played
    assert max(s.score) <= s.target
    assert (s.winner is not None) == (max(s.score) == s.target)
    if s.winner is not None:
        assert s.score[s.winner] == s.target
        assert s.score[1 - s.winner] < s.target


def test_a_set_of_three_plays_every_game_and_replays_ties() -> None:
    s = Series(3, play_all=True)
    assert s.first_to is None
    s.record([0])
    s.record([0])
    assert s.score == (2, 0) and not s.over and s.winner is None  # a majority does not end it
    s.record([0, 1])
    assert not s.over  # a tied game is replayed
    s.record([1])
    assert s.over and s.winner == 0 and s.decided_games == 3 and s.games_played == 4
    with pytest.raises(SeriesError, match="already decided"):
        s.record([1])
    d = s.to_dict()
    assert d["best_of"] == 3 and d["play_all"] is True and d["first_to"] is None
    assert d["over"] is True and d["winner"] == 0


def test_a_best_of_three_ends_at_two_wins() -> None:
    s = Series(3)
    assert s.first_to == 2 and s.to_dict()["first_to"] == 2
    s.record([1])
    s.record([1])
    assert s.over and s.to_dict()["over"] is True
