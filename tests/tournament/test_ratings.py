"""Ratings: OpenSkill updates for 2 and 3 players, bot ratings, handicap suggestions."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blink.games.classic.bots import LEVELS
from blink.games.classic.rules import parse_handicap
from blink.ratings import (
    BOT_RATINGS,
    HANDICAP_STEPS,
    Rating,
    RatingError,
    RatingTable,
    bot_rating,
    rate_game,
    suggest_handicap,
    win_probability,
)


def test_two_player_game_moves_winner_up_and_loser_down() -> None:
    a, b = Rating(), Rating()
    na, nb = rate_game([a, b], [0])
    assert na.mu > a.mu and nb.mu < b.mu
    assert na.sigma < a.sigma and nb.sigma < b.sigma
    assert na.mu - a.mu == pytest.approx(b.mu - nb.mu)


def test_upset_moves_more_than_expected_result() -> None:
    strong, weak = Rating(35, 3), Rating(20, 3)
    s1, _w1 = rate_game([strong, weak], [0])
    _s2, w2 = rate_game([strong, weak], [1])
    assert (w2.mu - weak.mu) > (s1.mu - strong.mu) > 0


def test_three_player_game_winner_beat_both_losers_not_compared() -> None:
    r = [Rating(), Rating(), Rating()]
    a, b, c = rate_game(r, [1])
    assert b.mu > 25 > a.mu
    assert a.mu == pytest.approx(c.mu)
    # the winner gains more than for beating one player
    assert b.mu > rate_game(r[:2], [1])[1].mu
    # a weak loser does not gain from losing alongside a strong one
    weak, strong, winner = Rating(10, 2), Rating(40, 2), Rating(25, 2)
    w2, s2, _ = rate_game([weak, strong, winner], [2])
    assert w2.mu < weak.mu and s2.mu < strong.mu


def test_ties() -> None:
    a, b = Rating(30, 4), Rating(20, 4)
    assert rate_game([a, b], [0, 1]) == [a, b]  # everyone tied: no change
    x, y, z = rate_game([Rating(), Rating(), Rating()], [0, 2])
    assert x.mu == pytest.approx(z.mu) and x.mu > y.mu


def test_fixed_bot_ratings_never_move() -> None:
    me, bot = Rating(), bot_rating("expert:blocker")
    new_me, new_bot = rate_game([me, bot], [0], fixed=[False, True])
    assert new_bot == bot and new_me.mu > me.mu
    assert bot_rating("Champion") == BOT_RATINGS["champion"]
    with pytest.raises(RatingError) as e:
        bot_rating("wizard")
    assert e.value.code == "bad-level"


def test_every_bot_level_has_a_rating_in_order() -> None:
    assert set(BOT_RATINGS) == set(LEVELS)
    mus = [BOT_RATINGS[name].mu for name in LEVELS]  # LEVELS runs slowest to fastest
    assert mus == sorted(mus)


def test_newcomer_converges_towards_a_bot_level() -> None:
    table = RatingTable()
    for i in range(40):  # wins 3 of 4 against 'skilled'
        table.record(["me", "bot"], ["me" if i % 4 else "bot"], bots={"bot": "skilled"})
    r = table.get("me")
    assert r.mu > BOT_RATINGS["skilled"].mu
    assert r.sigma < 4
    assert "bot" not in table.ratings and table.games["me"] == 40


@pytest.mark.parametrize(
    ("ratings", "winners"),
    [
        ([Rating()], [0]),
        ([Rating()] * 4, [0]),
        ([Rating()] * 2, []),
        ([Rating()] * 2, [2]),
        ([Rating()] * 2, [0, 0]),
    ],
)
def test_bad_games_are_refused(ratings: list[Rating], winners: list[int]) -> None:
    with pytest.raises(RatingError):
        rate_game(ratings, winners)


def test_bad_ratings_are_refused() -> None:
    with pytest.raises(RatingError):
        Rating(25, 0)
    with pytest.raises(RatingError):
        Rating(float("nan"), 1)
    with pytest.raises(RatingError):
        Rating.from_dict({"mu": "x"})


def test_win_probability_is_symmetric_and_ordered() -> None:
    a, b = Rating(30, 2), Rating(20, 2)
    p = win_probability(a, b)
    assert p > 0.5
    assert p + win_probability(b, a) == pytest.approx(1.0)
    assert win_probability(a, a) == pytest.approx(0.5)


def test_handicap_equal_players_get_an_equal_deal() -> None:
    h = suggest_handicap(Rating(25, 2), Rating(25.5, 2))
    assert h.sizes is None and h.text == "0" and parse_handicap(h.text, 2) is None


@pytest.mark.parametrize("gap", [0, 2, 5, 10, 15, 20, 35])
def test_handicap_grows_with_the_gap_and_favours_the_stronger(gap: float) -> None:
    strong, weak = Rating(25 + gap, 1.5), Rating(25, 1.5)
    h = suggest_handicap(strong, weak)
    h2 = suggest_handicap(weak, strong)
    assert h.extra == h2.extra
    if h.sizes is not None:
        assert h.stronger == 0 and h2.stronger == 1
        assert h.sizes[0] > h.sizes[1] and h2.sizes == (h.sizes[1], h.sizes[0])
        assert sum(h.sizes) == 60
        assert parse_handicap(h.text, 2) == h.sizes
    assert h.extra in {e for _, e in HANDICAP_STEPS}


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 40), st.floats(0, 40))
def test_handicap_is_monotonic(g1: float, g2: float) -> None:
    lo, hi = sorted((g1, g2))
    base = Rating(20, 2)
    assert (
        suggest_handicap(Rating(20 + lo, 2), base).extra
        <= suggest_handicap(Rating(20 + hi, 2), base).extra
    )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.floats(5, 45), st.floats(0.5, 9)), min_size=2, max_size=3),
    st.data(),
)
def test_rating_updates_stay_finite_and_reward_winners(
    rs: list[tuple[float, float]], data: st.DataObject
) -> None:
    ratings = [Rating(m, s) for m, s in rs]
    w = data.draw(st.integers(0, len(ratings) - 1))
    new = rate_game(ratings, [w])
    assert new[w].mu >= ratings[w].mu
    for old, r in zip(ratings, new, strict=True):
        # the model adds its dynamics term tau = 25/300 before each (pairwise) update
        assert r.sigma <= math.sqrt(old.sigma**2 + 2 * (25 / 300) ** 2) + 1e-9
        assert math.isfinite(r.mu)
    for i, (old, r) in enumerate(zip(ratings, new, strict=True)):
        if i != w:
            assert r.mu <= old.mu


def test_table_round_trips_and_sorts() -> None:
    t = RatingTable()
    t.record(["Ann", "Bo"], ["Ann"])
    t.record(["Ann", "Bo", "Cy"], ["Cy"])
    again = RatingTable.from_dict(json.loads(json.dumps(t.to_dict())))
    assert again == t
    board = t.leaderboard()
    assert [n for n, _, _ in board] == sorted(t.ratings, key=lambda n: -t.ratings[n].ordinal)
    with pytest.raises(RatingError):
        t.record(["Ann", "Bo"], ["Cy"])
    with pytest.raises(RatingError):
        RatingTable.from_dict({"format": "nope"})


@pytest.mark.parametrize(("strong", "weak"), [("skilled", "casual"), ("expert", "skilled")])
def test_suggested_handicap_evens_neighbouring_bot_levels_in_the_simulator(
    strong: str, weak: str
) -> None:
    from blink.games.classic.bots import BotSpec
    from blink.games.classic.sim import derive_seed, simulate_game

    h = suggest_handicap(bot_rating(strong), bot_rating(weak))
    assert h.sizes is not None and h.stronger == 0

    def win_rate(sizes: tuple[int, int] | None, n: int = 120) -> float:
        wins = decided = 0
        for i in range(n):
            flip = i % 2 == 1
            specs = [BotSpec.parse(strong), BotSpec.parse(weak)]
            sz = None if sizes is None else list(sizes)
            if flip:
                specs.reverse()
                sz = None if sz is None else sz[::-1]
            g = simulate_game(specs, derive_seed(3, strong, i), sizes=sz, keep_game=False)
            if g.outcome.is_tie:
                continue
            decided += 1
            wins += g.outcome.winner == (1 if flip else 0)
        return wins / decided

    assert win_rate(None) > 0.85  # an equal deal is lopsided
    assert 0.2 < win_rate(h.sizes) < 0.8  # the suggested deal is close to even
