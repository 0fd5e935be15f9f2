"""benchmarks/master_study.py, the command docs/strategy.md gives for the master bot's figures:
it refuses what it cannot run in one sentence with exit status 2, and a small study prints its
JSON report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

STUDY = Path(__file__).resolve().parents[2] / "benchmarks" / "master_study.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(STUDY), *args],
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
