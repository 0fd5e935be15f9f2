"""The fast engine (blink.games.classic.sim.fast): every game it plays is a legal game of the
rules engine with the result the engine gives it, its results depend only on each game's seed,
and its statistics agree with the exact engine's.

The kernels are compiled once and cached on disk by numba (beside the modules, in
__pycache__), so only the first run on a machine pays the compile time.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.games.classic.bots.helpers import temporary_strategy
from tests.sim.helpers import SETTINGS, bot_specs, check_against_engine
from typer.testing import CliRunner

from blink.cli import app
from blink.games.classic.bots import LEVELS, STRATEGIES, BotConfigError, BotSpec, make_bot
from blink.games.classic.bots.strategies import FlexibleStrategy
from blink.games.classic.engine import ClassicGame, Phase
from blink.games.classic.record import GameRecord, SeriesRecord, loads
from blink.games.classic.rules import DEAD_END, OFFICIAL, Ruleset
from blink.games.classic.sim import fast
from blink.games.classic.sim.core import SimConfig, simulate_game
from blink.games.classic.sim.fast import (
    KERNEL_FORMS,
    NoKernelFormError,
    games_of,
    run_bots,
    simulate_fast,
    simulate_random,
    to_record,
)
from blink.games.classic.sim.runner import (
    GameColumns,
    Job,
    UnknownEngineError,
    chunk_columns,
    default_engine,
    run,
    run_chunk,
)
from blink.games.classic.sim.stats import summarize, summarize_run
from blink.sim import compiled
from blink.sim.seeds import derive_seed


@pytest.mark.parametrize(("specs", "ruleset", "sizes", "config"), SETTINGS)
def test_every_fast_game_is_a_legal_engine_game(
    specs: tuple[BotSpec, ...],
    ruleset: Ruleset,
    sizes: tuple[int, ...] | None,
    config: SimConfig,
) -> None:
    seeds = [derive_seed(11, i) for i in range(600)]
    games = simulate_fast(specs, seeds, ruleset=ruleset, sizes=sizes, config=config, records=True)
    assert [g.result.seed for g in games] == seeds
    check_against_engine(games, ruleset, sizes)
    if config.choice_timeout < 0.1:
        assert sum(g.result.defaults for g in games) > 0


@settings(max_examples=25, deadline=None)
@given(
    # The fast engine plays the reaction-time model's levels (not a trained policy's).
    levels=st.lists(
        st.sampled_from(sorted(n for n, lv in LEVELS.items() if not lv.policy)),
        min_size=2,
        max_size=3,
    ),
    strategies=st.lists(st.sampled_from([s.name for s in KERNEL_FORMS]), min_size=3, max_size=3),
    speeds=st.lists(st.sampled_from([0.5, 1.0, 1.7, 3.0]), min_size=3, max_size=3),
    dead_end=st.booleans(),
    hand_size=st.integers(1, 5),
    extra=st.integers(-6, 6),
    timing=st.sampled_from([SimConfig(), SimConfig(0.0, 0.05), SimConfig(2.5, 3.0)]),
    seed=st.integers(0, 2**32),
)
def test_random_settings_replay_through_the_engine(
    levels: list[str],
    strategies: list[str],
    speeds: list[float],
    dead_end: bool,
    hand_size: int,
    extra: int,
    timing: SimConfig,
    seed: int,
) -> None:
    players = len(levels)
    specs = tuple(BotSpec(lv, strategies[i], speeds[i]) for i, lv in enumerate(levels))
    ruleset = Ruleset("h", DEAD_END.dead_end if dead_end else OFFICIAL.dead_end, hand_size)
    each = 60 // players
    sizes = (each + extra, each - extra, *([each] * (players - 2))) if extra else None
    seeds = [derive_seed(seed, i) for i in range(120)]
    games = simulate_fast(specs, seeds, ruleset=ruleset, sizes=sizes, config=timing, records=True)
    check_against_engine(games, ruleset, sizes)


@settings(max_examples=15, deadline=None)
@given(
    players=st.integers(2, 3),
    dead_end=st.booleans(),
    hand_size=st.integers(1, 5),
    extra=st.integers(-6, 6),
    seed=st.integers(0, 2**32),
)
def test_random_legal_games_replay_through_the_engine(
    players: int, dead_end: bool, hand_size: int, extra: int, seed: int
) -> None:
    ruleset = Ruleset("h", DEAD_END.dead_end if dead_end else OFFICIAL.dead_end, hand_size)
    each = 60 // players
    sizes = (each + extra, each - extra, *([each] * (players - 2))) if extra else None
    seeds = [derive_seed(seed, i) for i in range(200)]
    out = simulate_random(players, seeds, ruleset=ruleset, sizes=sizes, records=True)
    check_against_engine(games_of(out, ["random"] * players), ruleset, sizes, timed=False)


def test_a_game_depends_only_on_its_seed() -> None:
    specs = bot_specs("expert:blocker", "skilled:first", "casual:flexible")
    seeds = [derive_seed(5, i) for i in range(40)]
    whole = simulate_fast(specs, seeds)
    alone = simulate_fast(specs, seeds[17:18])
    reordered = simulate_fast(specs, seeds[::-1])
    assert alone[0].result == whole[17].result
    assert [g.result for g in reordered] == [g.result for g in whole][::-1]
    again = simulate_fast(specs, seeds)
    assert [g.result for g in again] == [g.result for g in whole]
    rand = simulate_random(3, seeds)
    assert (simulate_random(3, seeds[::-1]).counters[::-1] == rand.counters).all()


_MASK = 2**64 - 1


def _mix(z: int) -> int:
    """SplitMix64's finaliser in Python (fast_rules.mix)."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def test_the_deal_is_the_deck_sorted_by_the_cards_keys() -> None:
    """The deal (a bucket sort of the cards' random keys) is numpy's argsort of the keys, the
    order the seeds' games have always been dealt in."""
    seeds = [derive_seed(9, i) for i in range(300)]
    out = simulate_random(2, seeds, records=True)
    assert out.perms is not None
    for seed, perm in zip(seeds, out.perms.tolist(), strict=True):
        key0 = derive_seed(seed, "random")
        keys = [_mix((key0 + (j + 1) * 0x9E3779B97F4A7C15) & _MASK) for j in range(60)]
        assert perm == np.argsort(np.array(keys, dtype=np.uint64), kind="stable").tolist()


def _two_sample(a: list[float], b: list[float]) -> float:
    """The difference of the means of ``a`` and ``b`` in standard errors."""
    se = math.sqrt(statistics.pvariance(a) / len(a) + statistics.pvariance(b) / len(b)) or 1e-9
    return abs(statistics.fmean(a) - statistics.fmean(b)) / se


@pytest.mark.parametrize(
    "texts",
    [("expert:blocker", "expert:random"), ("skilled:first", "expert:first", "casual:flexible")],
)
def test_statistics_agree_with_the_exact_engine(texts: tuple[str, ...]) -> None:
    specs = bot_specs(*texts)
    n = 1200
    f = run_bots(specs, [derive_seed(1, i) for i in range(n)])
    winners = f.column("winners").tolist()
    fast_rows = list(
        zip(winners, f.column("plays").tolist(), f.duration.tolist(), f.column("stalls").tolist(),
            strict=True)
    )  # fmt: skip
    exact = []
    for i in range(n):
        r = simulate_game(specs, derive_seed(2, i), keep_game=False)
        w = sum(1 << p for p in r.outcome.winners)
        exact.append((w, r.plays, r.duration, r.stalls))
    for seat in range(len(specs)):
        a = [float(row[0] == 1 << seat) for row in fast_rows]
        b = [float(row[0] == 1 << seat) for row in exact]
        assert _two_sample(a, b) < 4.5, seat
    for k in (1, 2, 3):
        assert _two_sample([row[k] for row in fast_rows], [row[k] for row in exact]) < 4.5, k


def _exact_random_game(seed: int, players: int) -> tuple[int, int, int]:
    """A random-legal game through ClassicGame (uniform legal plays, default stall choices):
    its plays, stalls and winners (as a bit set)."""
    rng = random.Random(seed)
    game = ClassicGame.new(players, rng)
    game.reveal()
    while not game.over:
        p = game.random_legal_play(rng)
        if p is not None:
            game.play(*p)
        elif game.phase is Phase.STALLED:
            game.flip()
        else:
            for seat in range(players):
                game.choose(seat, game.default_choice(seat))
    assert game.outcome is not None
    return game.plays, game.stalls, sum(1 << w for w in game.outcome.winners)


@pytest.mark.parametrize("players", [2, 3])
def test_random_legal_statistics_agree_with_the_engine(players: int) -> None:
    n = 4000
    out = simulate_random(players, list(range(n)))
    exact = [_exact_random_game(10**6 + i, players) for i in range(n)]
    fast_plays = out.column("plays").tolist()
    fast_stalls = out.column("stalls").tolist()
    assert _two_sample(fast_plays, [float(e[0]) for e in exact]) < 4.5
    assert _two_sample(fast_stalls, [float(e[1]) for e in exact]) < 4.5
    a = [float(w == 1) for w in out.column("winners").tolist()]
    assert _two_sample(a, [float(e[2] == 1) for e in exact]) < 4.5


def test_runner_results_do_not_depend_on_workers_or_chunks() -> None:
    specs = bot_specs("expert:blocker", "expert:random")
    one = run(Job(specs, seed=4, engine="fast"), 500, workers=1)
    two = run(Job(specs, seed=4, engine="fast"), 500, workers=2)
    assert one.rows == two.rows
    assert [r.number for r in one.rows] == list(range(500))
    # Chunks of other sizes, and the same matches one at a time, give the same rows.
    job = Job(specs, seed=4, engine="fast")
    pieces = [r for start in range(0, 500, 37) for r in run_chunk(job, start, min(500, start + 37))]
    assert pieces == one.rows
    assert run_chunk(job, 321, 322) == [one.rows[321]]


def test_columns_are_the_rows_and_give_their_summary() -> None:
    # Three players under the dead-end rules: ties, every ending and wins from behind occur.
    specs = bot_specs("expert:blocker", "expert:random", "casual:first")
    job = Job(specs, seed=6, ruleset=DEAD_END, engine="fast")
    two = run(job, 700, workers=2)
    cols = two.columns
    assert cols is not None and len(cols) == two.matches == 700
    assert cols.numbers.tolist() == list(range(700))
    # Any chunking gives the same columns, and their rows are the rows of run_chunk.
    pieces = GameColumns.join([chunk_columns(job, a, min(700, a + 53)) for a in range(0, 700, 53)])
    for f in dataclasses.fields(GameColumns):
        mine, theirs = getattr(cols, f.name), getattr(pieces, f.name)
        assert (mine == theirs).all() if f.name not in ("players", "reasons") else mine == theirs
    assert two.rows == cols.rows() == run_chunk(job, 0, 700) == run(job, 700, workers=1).rows
    names = [str(s) for s in specs]
    from_columns = summarize_run(two, 3, names)
    from_rows = summarize(two.rows, 3, names, requested=700)
    assert from_columns.to_dict() == from_rows.to_dict()
    assert from_columns.plays_values == from_rows.plays_values
    assert from_columns.duration_values == from_rows.duration_values
    assert from_rows.ties > 0 and from_rows.from_behind > 0
    assert {"fewest_cards (tie)", "stall_placement", "out_of_cards"} <= set(from_rows.endings)


def test_series_and_records_come_back_as_rows(tmp_path: Path) -> None:
    specs = bot_specs("expert:blocker", "expert:random")
    series = Job(specs, seed=2, best_of=3, engine="fast")
    recorded = Job(specs, seed=2, records=str(tmp_path), engine="fast")
    for job in (series, recorded, Job(specs, seed=2, engine="exact")):
        res = run(job, 6, workers=1)
        assert res.columns is None and len(res.rows) == res.matches == 6
        assert summarize_run(res, 2, best_of=job.best_of) == summarize(
            res.rows, 2, best_of=job.best_of, requested=6
        )
    with pytest.raises(ValueError, match="single games without records"):
        chunk_columns(series, 0, 3)


def test_a_series_depends_only_on_its_seed() -> None:
    job = Job(bot_specs("champion:first", "expert:random"), seed=3, best_of=5, engine="fast")
    whole = run(job, 60, workers=1).rows
    assert run_chunk(job, 40, 41) == [whole[40]]
    assert run(job, 60, workers=2).rows == whole


def test_runner_series_and_records(tmp_path: Path) -> None:
    job = Job(
        bot_specs("champion:first", "beginner:random"),
        seed=8,
        best_of=3,
        records=str(tmp_path),
        engine="fast",
    )
    res = run(job, 30, workers=1)
    assert len(res.rows) == 30
    for row in res.rows:
        rec = loads((tmp_path / f"series-{row.number:06d}.json").read_text())
        assert isinstance(rec, SeriesRecord)
        assert rec.meta["engine"] == "fast"
        rec.verify()
        assert [g.verify().outcome.winners for g in rec.games] == [g.winners for g in row.games]


def test_to_record_round_trips() -> None:
    (g,) = simulate_fast(bot_specs("expert:first", "expert:first"), [123], records=True)
    rec = to_record(g)
    again = loads(rec.to_json())
    assert isinstance(again, GameRecord)
    assert again.verify().outcome == g.result.outcome
    assert again.meta["engine"] == "fast"


class _Flexible2(FlexibleStrategy):
    """The flexible strategy under another name: a strategy the fast engine has no form for."""

    name = "flexible2"
    description = "flexible under another name (a test strategy)"


def test_every_registered_strategy_has_a_kernel_form() -> None:
    assert list(KERNEL_FORMS) == list(STRATEGIES.values())


def test_what_the_fast_engine_cannot_play_is_refused_with_a_sentence() -> None:
    with temporary_strategy(_Flexible2()) as odd:
        specs = bot_specs("expert:flexible2", "expert:first")
        with pytest.raises(NoKernelFormError) as info:
            simulate_fast(specs, [1, 2])
        message = str(info.value)
        assert "'flexible2'" in message and "random, first, blocker, flexible" in message
        assert info.value.strategy is odd and info.value.reason == "no_kernel_form"
        assert isinstance(info.value, BotConfigError)
        with pytest.raises(NoKernelFormError, match="no kernel form of the 'flexible2' strategy"):
            Job(specs, seed=1, engine="fast")  # refused before any game
        # Without --engine, the exact engine plays it (the default for bots the fast one
        # cannot play); the summary names the engine.
        exact = run(Job(specs, seed=1, engine=default_engine(specs)), 4, workers=1)
        assert len(exact.rows) == 4 and default_engine(specs) == "exact"
        cli = CliRunner()
        res = cli.invoke(app, ["simulate", "--engine", "fast", "--bot", "expert:flexible2"])
        assert res.exit_code == 2
        assert "no kernel form" in res.stderr and "Traceback" not in res.stderr
        args = ["simulate", "--bot", "expert:flexible2", "-n", "3", "-w", "1", "--json"]
        res = cli.invoke(app, args)
        assert res.exit_code == 0, res.stderr
        assert json.loads(res.stdout)["engine"] == "exact"
    bot = make_bot("expert", "first", 0, 1)
    with pytest.raises(NoKernelFormError, match="not a level:strategy spec"):
        simulate_fast([bot, BotSpec("expert")], [1])


def test_cli_fast_engine(tmp_path: Path) -> None:
    cli = CliRunner()
    args = ["simulate", "--engine", "fast", "--games", "400", "--workers", "1", "--json"]
    bots = ["--bot", "champion:blocker", "--bot", "beginner:random"]
    res = cli.invoke(app, [*args, *bots, "--records", str(tmp_path)])
    assert res.exit_code == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["engine"] == "fast"
    assert data["games"] == 400
    assert data["wins"][0] > 350
    rec = loads((tmp_path / "game-000399.json").read_text())
    assert isinstance(rec, GameRecord)
    rec.verify()
    goblink = cli.invoke(
        app, ["simulate", "--game", "goblink", "--engine", "fast", "--games", "20", "--json"]
    )
    assert goblink.exit_code == 0, goblink.stderr
    assert json.loads(goblink.stdout)["engine"] == "fast"
    sweep = cli.invoke(
        app,
        ["simulate", "sweep", "--engine", "fast", "--values", "1,2", "--games", "50",
         "--workers", "1", "--json"],
    )  # fmt: skip
    assert sweep.exit_code == 0, sweep.stderr
    assert json.loads(sweep.stdout)["engine"] == "fast"


def test_without_numba_the_fast_engine_says_so_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in list(sys.modules):
        if name == "numba" or name.startswith("numba."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "numba", None)
    for name in ("blink.games.classic.sim.fast_bots", "blink.games.classic.sim.fast_rules"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(compiled, "_LOADED", {})
    why = fast.unavailable()
    assert why is not None and "numba" in why and "\n" not in why
    res = CliRunner().invoke(app, ["simulate", "--engine", "fast", "--games", "5"])
    assert res.exit_code == 2
    assert res.stderr.strip() == f"Error: {why}"


def test_the_compiled_modules_name_the_files_compiled_into_them() -> None:
    """numba's cache checks only a function's own file: a module whose functions compile in
    another module's code records that file's digest, so a change there changes it too."""
    import hashlib

    from blink.games.classic.sim import fast_bots, fast_rules, fast_tables

    def digest(module: object) -> str:
        path = Path(str(getattr(module, "__file__", "")))
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]

    assert digest(fast_tables) == fast_rules.TABLES_DIGEST, "update TABLES_DIGEST in fast_rules"
    assert digest(fast_rules) == fast_bots.RULES_DIGEST, "update RULES_DIGEST in fast_bots"


def test_the_fast_engine_is_the_default_where_it_plays_the_bots() -> None:
    cli = CliRunner()
    args = ["simulate", "--games", "30", "--workers", "1", "--json", "--bot", "expert:blocker"]
    res = cli.invoke(app, args)
    assert res.exit_code == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["engine"] == "fast"
    asked = cli.invoke(app, [*args, "--engine", "fast"])
    assert json.loads(asked.stdout)["wins"] == data["wins"]
    exact = cli.invoke(app, [*args, "--engine", "exact"])
    assert json.loads(exact.stdout)["engine"] == "exact"
    sweep = cli.invoke(
        app, ["simulate", "sweep", "--param", "handicap", "--values", "0,4", "--games", "20",
              "--workers", "1", "--json"],
    )  # fmt: skip
    assert sweep.exit_code == 0, sweep.stderr
    assert json.loads(sweep.stdout)["engine"] == "fast"
    goblink = cli.invoke(app, ["simulate", "--game", "goblink", "--games", "3", "--json"])
    assert goblink.exit_code == 0, goblink.stderr


@pytest.mark.parametrize("name", ["batch", "turbo"])
def test_an_engine_that_is_not_there_is_refused_naming_the_engines(name: str) -> None:
    with pytest.raises(UnknownEngineError, match="the engines are exact, fast"):
        Job(bot_specs("expert", "expert"), engine=name)
    for command in (["simulate"], ["simulate", "sweep"]):
        res = CliRunner().invoke(app, [*command, "--engine", name, "--games", "5"])
        assert res.exit_code == 2
        assert res.stderr.strip().startswith("Error: unknown engine")
        assert "exact, fast" in res.stderr and "Traceback" not in res.stderr
    assert ("replaced by the fast one" in str(UnknownEngineError(name))) is (name == "batch")


_NO_NUMBA = """
import sys
class _Refuse:
    def find_spec(self, name, path=None, target=None):
        if name == "numba" or name.startswith("numba."):
            raise ImportError("No module named 'numba' (hidden for a test)")
        return None
sys.meta_path.insert(0, _Refuse())
"""


@pytest.mark.parametrize("engine", [[], ["--engine", "fast"], ["sweep"]])
def test_without_numba_the_cli_says_so_in_one_line_and_exits_2(
    tmp_path: Path, engine: list[str]
) -> None:
    """A real process whose numba cannot be imported (a sitecustomize that refuses it)."""
    (tmp_path / "sitecustomize.py").write_text(_NO_NUMBA)
    src = Path(fast.__file__).parents[4]
    env = {"PYTHONPATH": f"{tmp_path}:{src}", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-m", "blink", "simulate", *engine, "--games", "5", "--workers", "1"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: the fast engine needs numba"), lines
    assert "--engine exact" in lines[0] and "Traceback" not in out.stderr
    exact = subprocess.run(
        [sys.executable, "-m", "blink", "simulate", "--engine", "exact", "--games", "3",
         "--workers", "1", "--json"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert exact.returncode == 0, exact.stderr
    assert json.loads(exact.stdout)["engine"] == "exact"


def _ks(a: list[float], b: list[float]) -> float:
    """The two-sample Kolmogorov-Smirnov statistic of ``a`` and ``b`` (both sorted)."""
    i = j = 0
    d = 0.0
    while i < len(a) and j < len(b):
        if a[i] <= b[j]:
            i += 1
        else:
            j += 1
        d = max(d, abs(i / len(a) - j / len(b)))
    return d


def test_the_kernels_draws_have_their_distributions() -> None:
    """The fast engine's normal and exponential draws (the ziggurat method) and its reaction
    times, against the exact distributions and the exact engine's draws (Kolmogorov-Smirnov at
    the 0.1 % level; fixed seeds, so the test does not flake)."""
    compiled.load_kernels("blink.games.classic.sim.fast_bots")
    from blink.games.classic.sim import fast_bots, fast_rules

    n = 50_000
    limit = 1.95 * math.sqrt(1 / n)  # one sample against a distribution
    u = np.zeros(3, dtype=np.uint64)
    u[1] = 2024
    normals = sorted(fast_rules.normal(u) for _ in range(n))
    cdf = [0.5 * (1 + math.erf(x / math.sqrt(2))) for x in normals]
    assert max(max(abs(c - (i + 1) / n), abs(c - i / n)) for i, c in enumerate(cdf)) < limit
    assert abs(statistics.fmean(normals)) < 4 / math.sqrt(n)
    assert abs(statistics.pvariance(normals) - 1) < 4 * math.sqrt(2 / n)
    exps = sorted(fast_rules.exponential(u) for _ in range(n))
    cdf = [1 - math.exp(-x) for x in exps]
    assert max(max(abs(c - (i + 1) / n), abs(c - i / n)) for i, c in enumerate(cdf)) < limit
    assert abs(statistics.fmean(exps) - 1) < 4 / math.sqrt(n)
    rng = random.Random(5)
    for name, comps, options in (("expert", 7, 3), ("beginner", 2, 1), ("champion", 12, 6)):
        level = LEVELS[name]
        row = [level.floor, level.encode, level.per_comparison, level.per_bit, level.sigma]
        lv = np.array([[*row, level.tau]])
        mine = sorted(fast_bots.sample(lv, 0, comps, options, u) for _ in range(n))
        theirs = sorted(level.sample(rng, comps, options) for _ in range(n))
        assert _ks(mine, theirs) < 1.95 * math.sqrt(2 / n), name
