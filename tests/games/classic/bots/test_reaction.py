"""The reaction-time model: its distribution and the levels' calibrated pace."""

from __future__ import annotations

import random
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blink.games.classic.bots import LEVELS, BotSpec
from blink.games.classic.sim.pace import measure_pace


@given(
    level=st.sampled_from(list(LEVELS)),
    comparisons=st.integers(0, 18),
    options=st.integers(1, 6),
    seed=st.integers(0, 2**32),
)
def test_never_below_the_floor(level: str, comparisons: int, options: int, seed: int) -> None:
    lv = LEVELS[level]
    t = lv.sample(random.Random(seed), comparisons, options)
    assert t >= lv.floor
    assert t < 120


def _sample(level: str, comparisons: int, options: int = 1, n: int = 4000) -> list[float]:
    rng = random.Random(1)
    lv = LEVELS[level]
    return [lv.sample(rng, comparisons, options) for _ in range(n)]


@pytest.mark.parametrize("level", ["beginner", "expert", "champion"])
def test_more_comparisons_take_longer(level: str) -> None:
    means = [statistics.fmean(_sample(level, k)) for k in (0, 6, 12, 18)]
    assert means == sorted(means)
    # Roughly linear: each comparison adds about per_comparison seconds on average.
    slope = (means[-1] - means[0]) / 18
    assert slope == pytest.approx(LEVELS[level].per_comparison, rel=0.2)


def test_more_options_take_longer() -> None:
    one = statistics.fmean(_sample("expert", 6, 1))
    four = statistics.fmean(_sample("expert", 6, 4))
    assert four > one + 1.5 * LEVELS["expert"].per_bit  # log2(4) = 2 bits


@pytest.mark.parametrize("level", ["beginner", "casual", "skilled", "expert", "champion"])
def test_right_skewed_like_human_times(level: str) -> None:
    xs = _sample(level, 8)
    mean = statistics.fmean(xs)
    median = statistics.median(xs)
    sd = statistics.stdev(xs)
    assert mean > median  # a long right tail
    skew = statistics.fmean(((x - mean) / sd) ** 3 for x in xs)
    assert skew > 0.5
    assert 0.15 < sd / mean < 0.6  # human-like variability


def test_levels_are_ordered_at_every_search_size() -> None:
    names = ["beginner", "casual", "skilled", "expert", "champion", "inhuman"]
    for k in (0, 9, 18):
        means = [statistics.fmean(_sample(n, k, n=1000)) for n in names]
        assert means == sorted(means, reverse=True)


def test_deterministic_for_a_seed() -> None:
    lv = LEVELS["casual"]
    a = [lv.sample(random.Random(3), 5, 2) for _ in range(3)]
    b = [lv.sample(random.Random(3), 5, 2) for _ in range(3)]
    assert a == b


def test_speed_factor_divides_times() -> None:
    base = statistics.fmean(_sample("expert", 8))
    rng = random.Random(1)
    fast = LEVELS["expert"].scaled(2.0)
    assert statistics.fmean(fast.sample(rng, 8) for _ in range(4000)) == pytest.approx(base / 2)


@pytest.mark.parametrize("level", ["beginner", "casual", "skilled", "expert", "champion"])
def test_calibrated_pace(level: str) -> None:
    """Alone, with the ``first`` strategy, a bot plays at its level's nominal mean pace."""
    pace = measure_pace(BotSpec(level, "first"), games=60, seed=11)
    assert pace == pytest.approx(LEVELS[level].mean_play, rel=0.08)


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 1000))
def test_choosing_well_costs_time(seed: int) -> None:
    """Strategies that weigh every play search exhaustively, so they are slower alone."""
    first = measure_pace(BotSpec("expert", "first"), games=15, seed=seed)
    blocker = measure_pace(BotSpec("expert", "blocker"), games=15, seed=seed)
    assert blocker > first
