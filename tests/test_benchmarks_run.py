"""Every benchmark script runs, with tiny arguments, and prints its figures.

Each script in ``benchmarks/`` is run as a subprocess from the checkout (its ``src`` first on
``PYTHONPATH``) with the smallest arguments that still take it through its whole path, and
its output is read: the JSON when it prints JSON, the figure lines otherwise. No figure is
compared with a speed (the machine may be busy): a rate or a time need only be a positive
number. A benchmark that breaks (a signature it calls has changed, an import has moved)
fails here at once instead of on the next measurement.

Left out: the benchmarks of a local cluster of server nodes (``bench_cluster_scale.py``,
``bench_failover.py``: PostgreSQL, Redis and HAProxy, started afresh for each run), the long
studies that take half a minute or more even with the fewest games (``master_study.py``,
``master_belief.py``; ``master_peek_plot.py`` plots their reports), ``masked_ppo.py`` (the
trainer ``bench_factored_actions.py`` runs) and ``bench_sim.py``'s compile timings (fresh
processes compiling with an empty cache: close to a minute).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
TIMEOUT = 300
"""Seconds a script may take: each takes a few once numba's cache holds the compiled kernels
(the suite's environment and simulator tests, run before this file, fill it), up to about a
minute on a busy machine when it compiles them afresh (the classic vector environment)."""

NUMBER = r"[0-9][0-9,]*(?:\.[0-9]+)?"


def _run(script: str, *args: str) -> str:
    """Run ``benchmarks/<script>`` with ``args``; its standard output once it exits 0."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert proc.returncode == 0, f"{script} exited {proc.returncode}:\n{proc.stderr[-3000:]}"
    return proc.stdout


def _positive(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def _figure(text: str) -> float:
    return float(text.replace(",", ""))


def _lines(out: str, *patterns: str) -> list[re.Match[str]]:
    """The first match of each regex ``pattern`` among ``out``'s lines (each must match)."""
    found = []
    for pattern in patterns:
        match = re.search(pattern, out, re.MULTILINE)
        assert match is not None, f"no line matches {pattern!r} in:\n{out}"
        found.append(match)
    return found


def _json_lines(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def check_room(out: str) -> None:
    (row,) = _json_lines(out)
    assert row["games"] == 2
    assert row["plays"] > 0
    assert _positive(row["cpu_us_per_play"])


def check_engine(out: str) -> None:
    engine, wall, bare, ratio = _lines(
        out,
        rf"^engine: median ({NUMBER}) games/s of CPU time",
        rf"^\s+median ({NUMBER}) games/s of wall-clock time",
        rf"^bare loop \(bench_bare_loop.py\): median ({NUMBER}) games/s",
        rf"^engine / bare loop: ({NUMBER})$",
    )
    for match in (engine, wall, bare, ratio):
        assert _figure(match[1]) > 0
    _lines(out, r"^games per run: 5, runs: 1$", rf"^mean plays per game: {NUMBER}$")


def check_bare_loop(out: str) -> None:
    (rate,) = _lines(out, rf"^bare loop: median ({NUMBER}) games/s of CPU time")
    assert _figure(rate[1]) > 0
    _lines(out, r"^games per run: 5, runs: 1$", rf"^mean plays per game: {NUMBER}$")


def check_envs(out: str) -> None:
    data = json.loads(out)
    assert data["meta"]["steps"] == 40
    assert data["results"], "no environment measured"
    for name, row in data["results"].items():
        assert _positive(row["cpu_steps_per_s"]), name
        assert _positive(row["wall_steps_per_s"]), name


def check_storage(out: str) -> None:
    rows = _json_lines(out)
    assert len(rows) == 1
    assert rows[0]["commits"] > 0
    assert _positive(rows[0]["cpu_us_per_commit"])
    assert rows[0]["wal_max_mb"] >= 0


def check_bot_quota(out: str) -> None:
    rows = _lines(
        out,
        rf"^the node's own window\s+({NUMBER}) us a message",
        rf"^Redis, chunks of 16\s+({NUMBER}) us a message",
        rf"^Redis, every message\s+({NUMBER}) us a message",
    )
    for match in rows:
        assert _figure(match[1]) > 0
    _lines(out, r"^messages: 40$", r"^fallbacks: 0$")


def check_factored_actions(out: str) -> None:
    data = json.loads(out)
    assert data["steps"] == 32
    for kind in ("flat", "factored"):
        assert len(data["runs"][kind]) == 1
        assert _positive(data["median"][kind])
    assert _positive(data["ratio"])


def _check_vector(game: str, actions: str, policy: bool) -> Callable[[str], None]:
    def check(out: str) -> None:
        data = json.loads(out)
        assert (data["game"], data["actions"], data["policy"]) == (game, actions, policy)
        assert set(data["rows"]) == {"single", "vector-1", "vector-3"}
        for name, row in data["rows"].items():
            assert _positive(row["cpu"]) and _positive(row["wall"]), name
            assert _positive(row["ratio"]), name

    return check


def check_sim(out: str) -> None:
    for engine in ("exact", "fast"):
        for workers in (1, 2):
            (row,) = _lines(
                out, rf"^{engine}, workers={workers}, 4 games: median ({NUMBER}) games/s wall"
            )
            assert _figure(row[1]) > 0
    random, ratio = _lines(
        out,
        rf"^random-legal \(fast kernel\), one core: median ({NUMBER}) games per CPU-second",
        rf"^fast / exact, games per CPU-second with one worker: ({NUMBER})x$",
    )
    assert _figure(random[1]) > 0 and _figure(ratio[1]) > 0
    for engine, games in (("gofast", 4), ("goexact", 2)):
        for kind in ("greedy vs memory", "random"):
            (row,) = _lines(
                out,
                rf"^Go Blink {kind}, 4 players, {engine}, one worker, {games} games: "
                rf"median ({NUMBER}) games per CPU-second",
            )
            assert _figure(row[1]) > 0


def check_cluster(out: str) -> None:
    for way in ("cluster", "local"):
        (row,) = _lines(out, rf"^{way}\s+fast 4 games, 1 workers: ({NUMBER}) games/s")
        assert _figure(row[1]) > 0
    _lines(out, r"^same summary both ways: True$")


def check_trained_level(out: str) -> None:
    rows = json.loads(out.splitlines()[-1])
    assert rows, "no house bot played"
    for house, row in rows.items():
        assert row["games"] == 2, house
        assert 0 <= row["low"] <= row["high"] <= 1, house


def check_lag_study(out: str) -> None:
    rows = _json_lines(out)
    assert rows, "no lag measured"
    for row in rows:
        assert row["games"] == 2
        assert 0 <= row["lagging_wins"] <= 1


def check_parity_sim(out: str) -> None:
    fast, exact = _lines(out, rf"^fast ({NUMBER}) s, exact ({NUMBER}) s \(wall\)$")[0].groups()
    assert _figure(fast) >= 0 and _figure(exact) >= 0
    _lines(out, r"blocker-random: expert:blocker vs expert:random", r"seat 0 wins")


def check_push(out: str) -> None:
    data = json.loads(out)
    assert (data["streams_per_node"], data["rooms"]) == (1, 2)
    for node in ("same_node", "other_node"):
        assert data[node]["events"] == data[node]["expected"] == 2, node
        assert data[node]["median_ms"] >= 0, node


def _counted(value: Any) -> bool:
    """A figure of a window measured on the wall clock: a number, zero allowed (on a busy
    machine a short window may hold no play; what is checked is that the script ran)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


def check_spectators(out: str) -> None:
    (row,) = _json_lines(out)
    assert row["spectators"] == 2
    assert _counted(row["spectator_joins"])
    assert _counted(row["acks"])
    if row["acks"]:
        assert _positive(row["ack_p50_ms"])
    assert _counted(row["room_frames_per_player_per_s"])


def _check_load_row(row: dict[str, Any]) -> None:
    assert (row["games"], row["connections"]) == (2, 4)
    assert (row["errors"], row["client_failures"]) == (0, 0)
    assert _counted(row["latency_samples"]) and _counted(row["plays_per_s"])
    if row["latency_samples"]:
        assert _positive(row["p50_ms"])


def check_load(out: str) -> None:
    (row,) = _json_lines(out)
    _check_load_row(row)


CASES: list[tuple[str, list[str], Callable[[str], None]]] = [
    ("bench_room.py", ["--games", "2"], check_room),
    ("bench_engine.py", ["--games", "5", "--repeat", "1"], check_engine),
    ("bench_engine.py", ["--games", "5", "--repeat", "1", "--list", "--seeded"], check_engine),
    ("bench_bare_loop.py", ["--games", "5", "--repeat", "1"], check_bare_loop),
    ("bench_envs.py", ["--steps", "40", "--repeat", "1", "--json"], check_envs),
    ("bench_bot_quota.py", ["--messages", "40"], check_bot_quota),
    (
        "bench_factored_actions.py",
        ["--steps", "32", "--repeat", "1", "--json"],
        check_factored_actions,
    ),
    (
        "bench_vector_env.py",
        ["--sizes", "1", "3", "--steps", "30", "--repeat", "1", "--policy", "--json"],
        _check_vector("classic", "flat", True),
    ),
    (
        "bench_vector_env.py",
        [
            "--game", "goblink", "--actions", "factored", "--sizes", "1", "3",
            "--steps", "30", "--repeat", "1", "--json",
        ],
        _check_vector("goblink", "factored", False),
    ),
    (
        "bench_sim.py",
        [
            "--games", "4", "--fast-games", "4", "--go-games", "4", "--go-exact-games", "2",
            "--repeat", "1", "--workers", "1,2", "--engines", "exact,fast,random,gofast,goexact",
            "--no-startup",
        ],
        check_sim,
    ),
    ("bench_cluster.py", ["--games", "4", "--repeat", "1", "--workers", "1"], check_cluster),
    ("trained_level.py", ["--games", "2", "--json"], check_trained_level),
    ("lag_study.py", ["--games", "1"], check_lag_study),
    ("parity_sim.py", ["--games", "2", "--workers", "1"], check_parity_sim),
    ("bench_push.py", ["--streams", "1", "--rooms", "2"], check_push),
    # The game starts after a 1 s countdown; the players then race for the other 2 s.
    ("bench_spectators.py", ["--spectators", "2", "--duration", "3"], check_spectators),
    ("bench_load.py", [
        "--games", "2", "--duration", "1", "--warmup", "1.5", "--rate", "5", "--json",
    ], check_load),
    # Bot games pause 1.5 s between games (0.5 s, then a 1 s countdown): 3 s hold some play.
    ("bench_bot_games.py", ["--games", "2", "--duration", "3", "--warmup", "0.5"], check_load),
]  # fmt: skip


def _case_id(script: str, args: list[str]) -> str:
    name = script.removesuffix(".py").removeprefix("bench_")
    extra = [a.removeprefix("--") for a in args if a in ("--list", "--seeded", "--policy")]
    for option in ("--game", "--actions"):
        if option in args:
            extra.append(args[args.index(option) + 1])
    return "-".join([name, *extra])


@pytest.mark.parametrize(
    ("script", "args", "check"), CASES, ids=[_case_id(s, a) for s, a, _ in CASES]
)
def test_benchmark_runs_and_prints_its_figures(
    script: str, args: list[str], check: Callable[[str], None]
) -> None:
    check(_run(script, *args))


def test_storage_benchmark_runs_and_prints_its_figures(tmp_path: Path) -> None:
    out = _run(
        "bench_storage.py",
        *("--seconds", "0.3", "--games", "2", "--repeat", "1", "--json", "--dir", str(tmp_path)),
    )
    check_storage(out)


def test_every_benchmark_script_is_run_or_left_out_on_purpose() -> None:
    run = {script for script, _, _ in CASES} | {"bench_storage.py"}
    left_out = {
        "bench_cluster_scale.py",
        "bench_failover.py",
        "master_study.py",
        "masked_ppo.py",
        "master_belief.py",
        "master_peek_plot.py",
    }
    scripts = {p.name for p in BENCHMARKS.glob("*.py")}
    assert scripts - run - left_out == set(), "a benchmark script no test runs"
    assert (run | left_out) - scripts == set(), "a benchmark named here is gone"
