"""``blink play --record FILE``: the record of the game (or series) played, written as it ends
and on quitting; a path it cannot be written to is refused before the game, in one sentence."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.tui.helpers import VirtualTime, stage, wait_for
from tests.tui.test_vs_bots import play_to_the_end, reveal, vs_bots

from blink.games.classic.cli.play import finish_record, record_to, save_record
from blink.games.classic.record import GameRecord
from blink.games.classic.tui.table import Stage
from blink.model.records import SeriesRecord, load

SRC = str(Path(__file__).resolve().parents[2] / "src")


async def test_a_game_against_bots_is_recorded_and_loads_back(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    vt = VirtualTime()
    table, app = vs_bots(2, vt, seed=21)
    failures = record_to(table, str(path))
    async with app.run_test() as pilot:
        await reveal(pilot, app, table, vt)
        await play_to_the_end(pilot, app, table, vt)
        await wait_for(pilot, lambda: stage(app) is Stage.OVER)
        assert path.exists()  # written as the game ended, before quitting
    assert failures == []
    record = load(json.loads(path.read_text(encoding="utf-8")))
    assert isinstance(record, GameRecord)
    game = record.verify()
    assert game.over and table.game is not None
    assert game.outcome == table.game.outcome
    assert record.names == ["You", "inhuman first"]
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]  # no temporary file left


async def test_quitting_a_series_mid_game_keeps_the_games_so_far(tmp_path: Path) -> None:
    path = tmp_path / "series.json"
    vt = VirtualTime()
    table, app = vs_bots(2, vt, seed=5, best_of=3)
    failures = record_to(table, str(path))
    async with app.run_test() as pilot:
        await reveal(pilot, app, table, vt)
        await play_to_the_end(pilot, app, table, vt)
        await wait_for(pilot, lambda: stage(app) is Stage.OVER)
        table.rematch()
        await reveal(pilot, app, table, vt)
        vt.advance(table, 0.5)  # a few bot plays into game 2, then quit
        await pilot.pause()
    assert finish_record(table, str(path), failures) and failures == []
    record = load(json.loads(path.read_text(encoding="utf-8")))
    assert isinstance(record, SeriesRecord) and record.best_of == 3
    games = record.verify()
    assert len(games) == 2 and games[0].over and not games[1].over
    assert record.games[1].actions  # the unfinished game's moves so far


def test_a_write_failure_is_one_sentence(tmp_path: Path) -> None:
    vt = VirtualTime()
    table, _ = vs_bots(2, vt, seed=3)
    table.deal()
    failures: list[str] = []
    missing = tmp_path / "gone" / "x.json"
    assert not save_record(table, str(missing), failures)
    assert len(failures) == 1 and failures[0].startswith("could not write the record to ")
    assert "\n" not in failures[0]


def _play(*args: str, cwd: Path, game: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run(
        [sys.executable, "-m", "blink", *game, "play", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("game", [(), ("goblink",)], ids=["classic", "goblink"])
@pytest.mark.parametrize(
    ("where", "words"),
    [
        ("folder", "it is a folder"),
        ("missing", "there is no folder"),
        ("denied", "Permission denied"),
    ],
)
def test_a_bad_record_path_is_refused_before_the_game(
    tmp_path: Path, where: str, words: str, game: tuple[str, ...]
) -> None:
    target = {
        "folder": str(tmp_path),
        "missing": str(tmp_path / "no" / "such" / "game.json"),
        "denied": "/sys/blink-game.json",  # sysfs refuses new files, even to root
    }[where]
    result = _play("--record", target, "--seed", "1", cwd=tmp_path, game=game)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    prefix = " ".join(("blink", *game, "play"))
    assert len(lines) == 1 and lines[0].startswith(f"{prefix}: --record {target}: ")
    assert words in lines[0]
    assert "Traceback" not in result.stderr
    assert result.stdout == ""  # refused before the game: nothing drawn


def test_record_is_refused_online(tmp_path: Path) -> None:
    result = _play("--record", "x.json", "--server", "http://127.0.0.1:9", cwd=tmp_path)
    assert result.returncode == 2
    assert "--record is for games in this terminal" in result.stderr
    assert not (tmp_path / "x.json").exists()
