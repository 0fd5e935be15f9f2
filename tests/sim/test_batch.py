"""The batch engine (blink.games.classic.sim.batch): every game it plays is a legal game of the
rules engine,
its results depend only on each game's seed, and its statistics agree with the exact engine's."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.bots.helpers import temporary_strategy
from tests.sim.helpers import SETTINGS, bot_specs, check_against_engine
from typer.testing import CliRunner

from blink.cli import app
from blink.games.classic.bots import LEVELS, STRATEGIES, BotConfigError, BotSpec
from blink.games.classic.bots.strategies import FlexibleStrategy
from blink.games.classic.record import GameRecord, SeriesRecord, loads
from blink.games.classic.rules import DeadEnd, Ruleset
from blink.games.classic.sim.batch import (
    VECTOR_FORMS,
    NoVectorFormError,
    simulate_batch,
    to_record,
)
from blink.games.classic.sim.core import SimConfig, simulate_game
from blink.games.classic.sim.runner import Job, SimulationError, run
from blink.sim.seeds import derive_seed


@pytest.mark.parametrize(("specs", "ruleset", "sizes", "config"), SETTINGS)
def test_every_batch_game_is_a_legal_engine_game(
    specs: tuple[BotSpec, ...],
    ruleset: Ruleset,
    sizes: tuple[int, ...] | None,
    config: SimConfig,
) -> None:
    seeds = [derive_seed(11, i) for i in range(300)]
    games = simulate_batch(specs, seeds, ruleset=ruleset, sizes=sizes, config=config, records=True)
    assert [g.result.seed for g in games] == seeds
    check_against_engine(games, ruleset, sizes)
    if ruleset.dead_end is not DeadEnd.CHOOSE and len(specs) == 2:
        # Both sides of the dead end's ruling (three bots stall too rarely to show them).
        results = [g.result for g in games]
        assert any(r.outcome.reason == "fewest_cards" for r in results)
        assert any(r.choices for r in results) is (ruleset.dead_end is DeadEnd.FEWEST_CARDS)
    if config.choice_timeout < 0.1:
        assert sum(g.result.defaults for g in games) > 0


@settings(max_examples=25, deadline=None)
@given(
    levels=st.lists(st.sampled_from(sorted(LEVELS)), min_size=2, max_size=3),
    strategies=st.lists(st.sampled_from(sorted(STRATEGIES)), min_size=3, max_size=3),
    dead_end=st.sampled_from(list(DeadEnd)),
    hand_size=st.integers(1, 5),
    extra=st.integers(-6, 6),
    seed=st.integers(0, 2**32),
)
def test_random_settings_replay_through_the_engine(
    levels: list[str],
    strategies: list[str],
    dead_end: DeadEnd,
    hand_size: int,
    extra: int,
    seed: int,
) -> None:
    players = len(levels)
    specs = tuple(BotSpec(lv, strategies[i]) for i, lv in enumerate(levels))
    ruleset = Ruleset("h", dead_end, hand_size)
    each = 60 // players
    sizes = (each + extra, each - extra, *([each] * (players - 2))) if extra else None
    seeds = [derive_seed(seed, i) for i in range(12)]
    games = simulate_batch(specs, seeds, ruleset=ruleset, sizes=sizes, records=True)
    check_against_engine(games, ruleset, sizes)


def test_a_game_depends_only_on_its_seed() -> None:
    specs = bot_specs("expert:blocker", "skilled:first", "casual:flexible")
    seeds = [derive_seed(5, i) for i in range(40)]
    whole = simulate_batch(specs, seeds)
    alone = simulate_batch(specs, seeds[17:18])
    reordered = simulate_batch(specs, seeds[::-1])
    assert alone[0].result == whole[17].result
    assert [g.result for g in reordered] == [g.result for g in whole][::-1]
    again = simulate_batch(specs, seeds)
    assert [g.result for g in again] == [g.result for g in whole]


def _rates(results: list[tuple[tuple[int, ...], int, float, int]], seat: int) -> float:
    return sum(1 for w, *_ in results if w == (seat,)) / len(results)


@pytest.mark.parametrize(
    "texts",
    [("expert:blocker", "expert:random"), ("skilled:first", "expert:first", "casual:flexible")],
)
def test_statistics_agree_with_the_exact_engine(texts: tuple[str, ...]) -> None:
    specs = bot_specs(*texts)
    n = 1200
    batch = [
        (g.result.outcome.winners, g.result.plays, g.result.duration, g.result.stalls)
        for g in simulate_batch(specs, [derive_seed(1, i) for i in range(n)])
    ]
    exact = []
    for i in range(n):
        r = simulate_game(specs, derive_seed(2, i), keep_game=False)
        exact.append((r.outcome.winners, r.plays, r.duration, r.stalls))
    for seat in range(len(specs)):
        p1, p2 = _rates(batch, seat), _rates(exact, seat)
        pooled = (p1 + p2) / 2
        se = math.sqrt(2 * pooled * (1 - pooled) / n) or 1e-9
        assert abs(p1 - p2) < 4.5 * se, (seat, p1, p2)
    for k in (1, 2):
        a = [row[k] for row in batch]
        b = [row[k] for row in exact]
        se = math.sqrt((statistics.pvariance(a) + statistics.pvariance(b)) / n)
        assert abs(statistics.fmean(a) - statistics.fmean(b)) < 4.5 * se, k
    stalls_a = sum(row[3] for row in batch)
    stalls_b = sum(row[3] for row in exact)
    assert abs(stalls_a - stalls_b) < 4.5 * math.sqrt(stalls_a + stalls_b + 1)


def test_runner_results_do_not_depend_on_workers_or_chunks() -> None:
    job = Job(bot_specs("expert:blocker", "expert:random"), seed=4, engine="batch")
    one = run(job, 500, workers=1)
    two = run(job, 500, workers=2)
    assert one.rows == two.rows
    assert [r.number for r in one.rows] == list(range(500))


def test_runner_series_and_records(tmp_path: Path) -> None:
    job = Job(
        bot_specs("champion:first", "beginner:random"),
        seed=8,
        best_of=3,
        records=str(tmp_path),
        engine="batch",
    )
    res = run(job, 30, workers=1)
    assert len(res.rows) == 30
    for row in res.rows:
        assert 2 <= len(row.games) <= 3 or any(len(g.winners) > 1 for g in row.games)
        rec = loads((tmp_path / f"series-{row.number:06d}.json").read_text())
        assert isinstance(rec, SeriesRecord)
        rec.verify()
        assert [g.verify().outcome.winners for g in rec.games] == [g.winners for g in row.games]


def test_to_record_round_trips() -> None:
    (g,) = simulate_batch(bot_specs("expert:first", "expert:first"), [123], records=True)
    rec = to_record(g)
    again = loads(rec.to_json())
    assert isinstance(again, GameRecord)
    assert again.verify().outcome == g.result.outcome
    assert again.meta["engine"] == "batch"


def test_unknown_engine_is_refused() -> None:
    with pytest.raises(ValueError, match="exact, batch"):
        Job(bot_specs("expert", "expert"), engine="turbo")


def test_cli_batch_engine(tmp_path: Path) -> None:
    cli = CliRunner()
    args = ["simulate", "--engine", "batch", "--games", "400", "--workers", "1", "--json"]
    bots = ["--bot", "champion:blocker", "--bot", "beginner:random"]
    res = cli.invoke(app, [*args, *bots, "--records", str(tmp_path)])
    assert res.exit_code == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["engine"] == "batch"
    assert data["games"] == 400
    assert data["wins"][0] > 350
    rec = loads((tmp_path / "game-000399.json").read_text())
    assert isinstance(rec, GameRecord)
    rec.verify()
    bad = cli.invoke(app, ["simulate", "--game", "goblink", "--engine", "batch"])
    assert bad.exit_code == 2
    assert "classic Blink only" in bad.stderr


class _Flexible2(FlexibleStrategy):
    """The flexible strategy under another name: a strategy the batch engine has no form for."""

    name = "flexible2"
    description = "flexible under another name (a test strategy)"


def test_every_registered_strategy_has_a_vector_form() -> None:
    assert list(VECTOR_FORMS) == list(STRATEGIES.values())


def test_a_strategy_without_a_vector_form_is_refused() -> None:
    with temporary_strategy(_Flexible2()) as odd:
        specs = bot_specs("expert:flexible2", "expert:first")
        with pytest.raises(NoVectorFormError) as info:
            simulate_batch(specs, [1, 2])
        message = str(info.value)
        assert "'flexible2'" in message and "exact" in message
        assert info.value.strategy is odd
        assert info.value.field == "strategy" and info.value.reason == "no_vector_form"
        assert info.value.allowed == tuple(s.name for s in VECTOR_FORMS)
        assert isinstance(info.value, BotConfigError)
        with pytest.raises(NoVectorFormError):
            simulate_batch(specs, [])  # refused before any game, even for no games
        # Through the runner: the same sentence; the exact engine plays it.
        with pytest.raises(SimulationError, match="no vector form of the 'flexible2' strategy"):
            run(Job(specs, seed=1, engine="batch"), 4, workers=1)
        exact = run(Job(specs, seed=1, engine="exact"), 4, workers=1)
        assert len(exact.rows) == 4


def test_an_unknown_strategy_is_refused_listing_the_names() -> None:
    with temporary_strategy(_Flexible2()):
        specs = bot_specs("expert:flexible2", "expert:first")
    with pytest.raises(BotConfigError) as info:
        simulate_batch(specs, [1])
    assert not isinstance(info.value, NoVectorFormError)
    assert info.value.field == "strategy" and info.value.reason == "unknown_strategy"
    assert ", ".join(STRATEGIES) in str(info.value)
