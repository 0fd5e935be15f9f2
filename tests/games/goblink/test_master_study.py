"""benchmarks/master_study.py, master_belief.py and master_peek_plot.py, the commands
docs/strategy.md gives for the master bot's figures: they refuse what they cannot run in one
sentence with exit status 2, a small study prints its JSON report, and the figure is drawn."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"


def _run(*args: str, script: str = "master_study.py") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--games", "0"], "--games and --workers must be at least 1"),
        (["--players", "9"], "2 to 6 players, not 9"),
        (["--budget", "-3"], "--budget must be 0 or more"),
        (["--explore", "0"], "--explore must be above 0"),
        (["--opponent", "nobody"], "unknown bot 'nobody'"),
        (["--opponent", "master"], "the fast engine plays one master seat"),
        (["--engine", "exact", "--search", "tree"], "no --search tree"),
        (["--engine", "exact", "--omni", "1"], "no --omni"),
        (["--engine", "exact", "--peek", "50"], "no --omni or --peek"),
        (["--peek", "101"], "--peek is a share of the asks in 100: 0 to 100"),
        (["--peek", "50", "--omni", "3"], "--peek and --omni are two ways"),
    ],
)
def test_the_study_refuses_what_it_cannot_run(args: list[str], says: str) -> None:
    done = _run(*args)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert says in done.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("search", ["flat", "tree"])
def test_a_small_study_reports_in_json(search: str) -> None:
    done = _run("--games", "4", "--budget", "16", "--search", search, "--seed", "5")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["games"] == 4
    assert report["search"] == search
    assert 0 <= report["wins"] <= 4
    assert report["searched_decisions"] > 0
    lo, hi = report["wilson95"]
    assert lo <= report["win_rate"] <= hi


def _report(*args: str) -> dict[str, object]:
    done = _run("--games", "6", "--budget", "16", "--seed", "5", *args)
    assert done.returncode == 0, done.stderr
    report: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def test_peeking_at_every_ask_or_none_is_the_same_as_omni_3_or_0() -> None:
    keys = ("wins", "turns_per_game", "searched_decisions")
    for peek, omni in (("100", "3"), ("0", "0")):
        seen = _report("--peek", peek)
        assert seen["peek"] == int(peek)
        assert [seen[k] for k in keys] == [_report("--omni", omni)[k] for k in keys]


@pytest.mark.parametrize("args", [["--games", "0"], ["--worlds", "0"]])
def test_the_belief_study_refuses_an_empty_run(args: list[str]) -> None:
    done = _run(*args, script="master_belief.py")
    assert done.returncode == 2
    assert "--games and --worlds must be at least 1" in done.stderr.strip().splitlines()[-1]


def test_a_small_belief_study_reports_how_sure_each_belief_is() -> None:
    done = _run("--games", "3", "--worlds", "20", script="master_belief.py")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert 0 < report["base_rate"] < 1
    for name in ("particles", "deals"):
        sure = report[name]["sure"]
        assert sure["asks"] > 0
        for key in ("pairs", "right", "asks_with_a_hit", "asks_sure_hit", "asks_likeliest_held"):
            assert 0.0 <= sure[key] <= 1.0
        # The likeliest value can only be held at an ask where the opponent held one.
        assert sure["asks_likeliest_held"] <= sure["asks_with_a_hit"]


def test_the_peek_figure_is_drawn_from_reports_and_refuses_others(tmp_path: Path) -> None:
    reports = []
    for peek, wins in ((0, 48), (100, 67)):
        path = tmp_path / f"peek{peek}.txt"
        report = {"peek": peek, "games": 100, "win_rate": wins / 100,
                  "wilson95": [wins / 100 - 0.09, wins / 100 + 0.09]}  # fmt: skip
        path.write_text("a line for people\n" + json.dumps(report) + "\n", encoding="utf-8")
        reports.append(str(path))
    figure = tmp_path / "figures" / "peek.png"
    done = _run(*reports, "--out", str(figure), script="master_peek_plot.py")
    assert done.returncode == 0, done.stderr
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    other = tmp_path / "other.json"
    other.write_text('{"games": 3}\n', encoding="utf-8")
    for bad, says in ((other, "not a report of master_study.py --peek"),
                      (tmp_path / "missing.txt", "not a report of master_study.py")):  # fmt: skip
        done = _run(str(bad), "--out", str(figure), script="master_peek_plot.py")
        assert done.returncode == 2
        assert says in done.stderr.strip().splitlines()[-1]
