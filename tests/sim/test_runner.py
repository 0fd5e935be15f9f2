"""Parallel runs: identical results whatever the number of workers; statistics."""

from __future__ import annotations

import math

import pytest

from blink.games.classic.bots import BotSpec
from blink.sim.runner import Job, run
from blink.sim.stats import Distribution, percentile, summarize, wilson

E = (BotSpec.parse("expert:blocker"), BotSpec.parse("expert:random"))


def test_same_results_whatever_the_workers() -> None:
    job = Job(E, seed=5)
    one = run(job, 60, workers=1)
    two = run(job, 60, workers=2)
    assert not one.interrupted and not two.interrupted
    assert [r.number for r in one.rows] == list(range(60))
    assert one.rows == two.rows
    s1 = summarize(one.rows, 2).to_dict()
    s2 = summarize(two.rows, 2).to_dict()
    assert s1 == s2


def test_series_rows_and_progress() -> None:
    seen: list[int] = []
    res = run(Job(E, seed=2, best_of=3), 12, workers=2, progress=seen.append)
    assert sum(seen) == 12
    for row in res.rows:
        assert 2 <= len(row.games) <= 5
        assert len(row.winners) == 1
    summary = summarize(res.rows, 2, best_of=3)
    assert summary.matches == 12
    assert sum(summary.wins) + summary.ties == 12
    assert summary.games_played == sum(len(r.games) for r in res.rows)


def test_records_written(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from blink.games.classic.record import loads

    run(Job(E, seed=1, records=str(tmp_path)), 4, workers=2)
    files = sorted(tmp_path.iterdir())
    assert [f.name for f in files] == [f"game-{i:06d}.json" for i in range(4)]
    for f in files:
        loads(f.read_text()).verify()  # type: ignore[union-attr]


def test_wilson() -> None:
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4)
    assert hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)


def test_percentiles() -> None:
    xs = [float(i) for i in range(11)]
    assert percentile(xs, 10) == 1.0
    assert percentile(xs, 90) == 9.0
    d = Distribution.of([3.0, 1.0, 2.0])
    assert (d.mean, d.median) == (2.0, 2.0)
    assert math.isnan(Distribution.of([]).mean)


def test_empty_summary_is_strict_json() -> None:
    import json

    data = summarize([], 2, interrupted=True, requested=10).to_dict()
    text = json.dumps(data, allow_nan=False)
    assert json.loads(text)["plays"] is None
    assert data["games"] == 0 and data["wins"] == [0, 0]
