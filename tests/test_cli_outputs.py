"""Output paths given on the command line are checked before the work starts, run for real:
a folder that is missing, a file where a folder should be, a folder that takes no files (such
as /proc) or a folder given for a file is one sentence on stderr and exit status 2, with no
traceback, at once. The commands are given far more games than they could play within the
test's time limit: only a check made before the simulation lets them return."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(600)

MANY = "100000000"
"""Games no command could simulate before the subprocess's time limit."""


def blink(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m blink ARGS`` to its end."""
    return subprocess.run(
        [sys.executable, "-m", "blink", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "100"},
    )


def refused(done: subprocess.CompletedProcess[str], start: str, *words: str) -> str:
    """Exit status 2, one line on stderr whose message (after "Error: " or "blink COMMAND: ")
    starts with ``start`` and holds ``words``, no traceback; that line."""
    assert done.returncode == 2, (done.returncode, done.stdout[-500:], done.stderr[-2000:])
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    message = lines[0].split(": ", 1)[1]
    assert lines[0].startswith(("Error: ", "blink ")) and message.startswith(start), lines[0]
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("game", ["classic", "goblink"])
def test_simulate_refuses_a_plot_in_a_missing_folder(tmp_path: Path, game: str) -> None:
    missing = tmp_path / "missing" / "dir"
    done = blink("simulate", "--game", game, "-n", MANY, "--plot", str(missing / "x.png"))
    refused(done, "--plot ", f"there is no folder {missing}")
    assert not missing.exists()


@pytest.mark.parametrize("game", ["classic", "goblink"])
def test_simulate_refuses_records_where_no_file_can_be_made(game: str) -> None:
    done = blink("simulate", "--game", game, "-n", MANY, "--records", "/proc/nope")
    refused(done, "--records /proc/nope: cannot write in /proc")


def test_simulate_refuses_records_in_a_file_and_a_plot_that_is_a_folder(tmp_path: Path) -> None:
    (tmp_path / "notes").write_text("x")
    done = blink("simulate", "-n", MANY, "--records", str(tmp_path / "notes"))
    refused(done, "--records ", "it is a file, not a folder")
    done = blink("simulate", "-n", MANY, "--records", str(tmp_path / "notes" / "games"))
    refused(done, "--records ", f"{tmp_path / 'notes'} is a file, not a folder")
    (tmp_path / "fig.png").mkdir()
    done = blink("simulate", "-n", MANY, "--plot", str(tmp_path / "fig.png"))
    refused(done, "--plot ", "it is a folder; give a file name")


def test_a_missing_records_folder_in_a_folder_that_exists_is_made(tmp_path: Path) -> None:
    done = blink("simulate", "-n", "2", "--workers", "1", "--records", str(tmp_path / "games"))
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "games").glob("*.json"))) == 2


def test_sweep_and_goblink_simulate_check_their_outputs_first(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    done = blink("simulate", "sweep", "-n", MANY, "--plot", str(missing / "x.png"))
    refused(done, "--plot ", f"there is no folder {missing}")
    done = blink("goblink", "simulate", "-g", MANY, "--records", "/proc/nope")
    refused(done, "--records /proc/nope")


def test_tournament_outputs_are_checked_before_the_games(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    done = blink("tournament", "bots", "--field", "64", "--save", str(missing / "t.json"))
    refused(done, "--save ", f"there is no folder {missing}")
    done = blink("tournament", "bots", "--field", "64", "--records", "/proc/nope")
    refused(done, "--records /proc/nope")
    done = blink("tournament", "bracket", str(tmp_path / "t.json"), "--png", str(missing / "b.png"))
    refused(done, "--png ", f"there is no folder {missing}")
