"""`blink simulate` end to end: JSON, tables, records, plots, sweeps, bad input, Ctrl-C."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from blink.cli import app
from blink.games.classic.record import GameRecord, SeriesRecord, loads

runner = CliRunner()


def _run(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, ["simulate", *args])
    return res.exit_code, res.stdout, res.stderr


def test_json_summary() -> None:
    code, out, _ = _run(
        "--games",
        "40",
        "--bot",
        "champion:blocker",
        "--bot",
        "beginner:random",
        "--seed",
        "3",
        "--workers",
        "1",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert data["games"] == 40
    assert len(data["wins"]) == 2
    assert sum(data["wins"]) + data["ties"] == 40
    assert data["wins"][0] > data["wins"][1]
    assert 25 < data["plays"] < 60
    assert data["bots"] == ["champion:blocker", "beginner:random"]
    assert data["stalls"]["total"] == data["stalls_per_game"] * 40


def test_json_independent_of_workers() -> None:
    args = ["--games", "30", "--bot", "expert:blocker", "--bot", "expert:random", "--seed", "9"]
    _, a, _ = _run(*args, "--workers", "1", "--json")
    _, b, _ = _run(*args, "--workers", "2", "--json")
    da, db = json.loads(a), json.loads(b)
    da.pop("elapsed_s")
    db.pop("elapsed_s")
    assert da == db


def test_table_output_three_players_handicap() -> None:
    code, out, _ = _run(
        "--games",
        "20",
        "--players",
        "3",
        "--bot",
        "expert",
        "--handicap",
        "24:18:18",
        "--workers",
        "1",
    )
    assert code == 0, out
    for text in (
        "Wins over 20 games",
        "95% CI",
        "ties",
        "plays",
        "virtual seconds",
        "broken by a flip",
        "won from behind",
    ):
        assert text in out


def test_records_replay(tmp_path: Path) -> None:
    code, _, _ = _run(
        "--games",
        "3",
        "--bot",
        "expert:flexible",
        "--bot",
        "casual",
        "--records",
        str(tmp_path / "recs"),
        "--workers",
        "2",
        "--json",
    )
    assert code == 0
    files = sorted((tmp_path / "recs").glob("*.json"))
    assert len(files) == 3
    for f in files:
        rec = loads(f.read_text())
        assert isinstance(rec, GameRecord)
        assert rec.verify().over


def test_series_records_and_plot(tmp_path: Path) -> None:
    png = tmp_path / "out.png"
    code, out, _ = _run(
        "--games",
        "4",
        "--best-of",
        "3",
        "--bot",
        "skilled",
        "--bot",
        "skilled:blocker",
        "--records",
        str(tmp_path),
        "--plot",
        str(png),
        "--workers",
        "1",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert data["games"] == 4 and data["best_of"] == 3
    assert data["games_played"] >= 8
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for f in tmp_path.glob("series-*.json"):
        rec = loads(f.read_text())
        assert isinstance(rec, SeriesRecord)
        for g in rec.games:
            g.verify()


def test_dead_end_ruleset() -> None:
    code, out, _ = _run("--games", "60", "--ruleset", "dead-end", "--workers", "1", "--json")
    assert code == 0
    data = json.loads(out)
    stalls = data["stalls"]
    assert stalls["dead_end"] > 0
    assert stalls["total"] == stalls["flip"] + stalls["choose"] + stalls["dead_end"]
    assert stalls["dead_end"] == sum(n for k, n in data["endings"].items() if "fewest" in k)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games", "0"], "--games must be a positive"),
        (["--games", "-5"], "--games must be a positive"),
        (["--players", "4"], "--players must be 2 or 3"),
        (
            ["--bot", "wizard:first"],
            "beginner, casual, skilled, expert, champion, trained, inhuman",
        ),
        (["--bot", "trained", "--players", "3"], "plays 2-player games only, not 3"),
        (["--bot", "expert:cheat"], "random, first, blocker, flexible"),
        (["--bot", "expert", "--bot", "expert", "--bot", "expert", "--players", "2"], "3 --bot"),
        (["--handicap", "58:2"], "at least 4"),
        (["--handicap", "50:40"], "60"),
        (["--handicap", "lots"], "35:25"),
        (["--ruleset", "house"], "official, dead-end"),
        (["--best-of", "2"], "positive odd number"),
        (["--workers", "0"], "--workers must be at least 1"),
        (["--plot", "x.jpg"], ".png"),
    ],
)
def test_bad_input_refused(args: list[str], message: str, tmp_path: Path) -> None:
    code, out, err = _run(*args, "--records", str(tmp_path / "never"))
    assert code == 2
    assert message in err
    assert out == ""
    assert not (tmp_path / "never").exists()


def test_bad_game_kind_lists_choices() -> None:
    code, _, err = _run("--game", "poker")
    assert code == 2
    assert "classic" in err and "goblink" in err


def test_goblink_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "blink.games.goblink.sim", None)  # makes the import fail
    code, _, err = _run("--game", "goblink", "--games", "3")
    assert code == 2
    assert "Go Blink simulation is unavailable" in err


def test_goblink_delegates(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    from blink.cli.simrun import SimulationOptions

    calls: list[SimulationOptions] = []
    fake = types.ModuleType("blink.games.goblink.simulate_cli")
    fake.simulate_cli = lambda options: calls.append(options) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "blink.games.goblink.simulate_cli", fake)
    code, _, _ = _run(
        "--game",
        "goblink",
        "--games",
        "7",
        "--players",
        "4",
        "--bot",
        "a",
        "--bot",
        "b",
        "--seed",
        "2",
        "--workers",
        "1",
        "--json",
    )
    assert code == 0
    assert calls == [
        SimulationOptions(
            games=7,
            players=4,
            bots=("a", "b"),
            seed=2,
            workers=1,
            json_out=True,
            plot=None,
            records=None,
        )
    ]
    # blink goblink simulate is the same entry point, with the same options.
    go = ["goblink", "simulate", "--games", "7", "-p", "4", "-b", "a", "-b", "b", "--seed", "2"]
    res = runner.invoke(app, [*go, "--workers", "1", "--json"])
    assert res.exit_code == 0, res.output
    assert calls[1] == calls[0]


def test_sweep_speed(tmp_path: Path) -> None:
    png = tmp_path / "sweep.png"
    res = runner.invoke(
        app,
        [
            "simulate",
            "sweep",
            "--param",
            "speed",
            "--values",
            "0.5,1,2",
            "--games",
            "30",
            "--bot",
            "expert",
            "--bot",
            "expert",
            "--workers",
            "1",
            "--json",
            "--plot",
            str(png),
        ],
    )
    assert res.exit_code == 0, res.stderr
    data = json.loads(res.stdout)
    rates = [p["rate"] for p in data["points"]]
    assert [p["value"] for p in data["points"]] == [0.5, 1.0, 2.0]
    assert rates[0] < rates[1] < rates[2]
    assert data["points"][2]["bots"][0] == "expert:first@2"
    assert png.exists()


def test_sweep_handicap_table() -> None:
    res = runner.invoke(
        app,
        [
            "simulate",
            "sweep",
            "--param",
            "handicap",
            "--values",
            "0,10",
            "--games",
            "20",
            "--bot",
            "champion",
            "--bot",
            "beginner",
            "--workers",
            "1",
        ],
    )
    assert res.exit_code == 0, res.stderr
    assert "extra cards dealt to seat 0" in res.stdout


def test_sweep_bad_values() -> None:
    res = runner.invoke(app, ["simulate", "sweep", "--param", "handicap", "--values", "1,x"])
    assert res.exit_code == 2
    assert "numbers separated by commas" in res.stderr
    res = runner.invoke(app, ["simulate", "sweep", "--param", "handicap", "--values", "40"])
    assert res.exit_code == 2
    assert "at least 4" in res.stderr


def _read_line(proc: subprocess.Popen[bytes], timeout: float) -> bytes:
    """The first line ``proc`` writes on its (unbuffered) stdout; fail after a generous
    ``timeout``, or if it ends its output first."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    line = b""
    deadline = time.monotonic() + timeout
    while not line.endswith(b"\n"):
        left = deadline - time.monotonic()
        assert left > 0, f"no line within {timeout:.0f} s (so far {line!r})"
        if select.select([fd], [], [], left)[0]:
            chunk = os.read(fd, 1)
            assert chunk, f"the output ended before a line: {line!r}"
            line += chunk
    return line


def _wait_for_files(files: list[Path], proc: subprocess.Popen[bytes], timeout: float) -> None:
    """Wait until every one of ``files`` exists (while ``proc`` runs); fail after a generous
    ``timeout``: a slow machine only makes this slower."""
    deadline = time.monotonic() + timeout
    todo = list(files)
    while todo:
        todo = [f for f in todo if not f.exists()]
        assert proc.poll() is None, f"the run ended first ({proc.returncode})"
        assert time.monotonic() < deadline, f"{len(todo)} records missing after {timeout:.0f} s"
        time.sleep(0.05)


def test_ctrl_c_prints_the_summary_of_finished_games(tmp_path: Path) -> None:
    """Ctrl-C during a run on two workers prints the summary of the games finished so far.

    Nothing waits for a guessed time. A FIFO stands where the last game's record goes: the
    worker playing the last batch blocks writing it until the test reads it, so the run cannot
    end before Ctrl-C, however fast the machine. Every other record written means every other
    batch is done; the parent hands out a batch only after it took a finished one in (it keeps
    six in flight, of sixteen), so the summary has games to count.
    """
    games = 160  # sixteen batches of ten
    recs = tmp_path / "recs"
    recs.mkdir()
    gate = recs / f"game-{games - 1:06d}.json"
    os.mkfifo(gate)
    others = [recs / f"game-{i:06d}.json" for i in range(games - 1)]
    cmd = ["simulate", "--games", str(games), "--workers", "2", "--json", "--records", str(recs)]
    with (tmp_path / "stderr.txt").open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "blink.cli", *cmd, "--bot", "inhuman", "--bot", "inhuman"],
            stdout=subprocess.PIPE,
            stderr=err,
            bufsize=0,
            env=dict(os.environ, PYTHONUNBUFFERED="1"),
            start_new_session=True,  # its own process group: the cleanup reaches the workers
        )
    release = threading.Thread(target=gate.read_bytes, daemon=True)
    try:
        _wait_for_files(others, proc, timeout=300)
        proc.send_signal(signal.SIGINT)
        line = _read_line(proc, timeout=300)  # the summary comes before the workers finish
        release.start()  # the last game's record: its worker ends its batch, the run its exit
        rest, _ = proc.communicate(timeout=300)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        if release.is_alive():  # no writer came: open the FIFO's other end to let it go
            with contextlib.suppress(OSError):
                os.close(os.open(gate, os.O_WRONLY | os.O_NONBLOCK))
    assert proc.returncode == 130, (tmp_path / "stderr.txt").read_text()
    assert rest == b""
    data = json.loads(line)
    assert data["interrupted"] is True
    assert 0 < data["games"] < games
    assert sum(data["wins"]) + data["ties"] == data["games"]
