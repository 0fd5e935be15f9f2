"""Go Blink simulation: reproducible for any worker count; the CLI's table, JSON, plot, records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from blink.cli import app
from blink.games.goblink.record import GoRecord
from blink.games.goblink.sim import GoJob, parse_bots, run_games, summarize_go

runner = CliRunner()


def test_identical_results_for_any_worker_count() -> None:
    job = GoJob(("memory", "greedy", "random"), seed=5)
    one = run_games(job, 24, workers=1)
    two = run_games(job, 24, workers=2)
    assert one == two
    assert [r.game_index for r in one] == list(range(24))
    other = run_games(GoJob(("memory", "greedy", "random"), seed=6), 24, workers=1)
    assert other != one


def test_summary_counts_every_game() -> None:
    rows = run_games(GoJob(("greedy", "greedy"), seed=1), 40)
    summary = summarize_go(rows, ["greedy", "greedy"])
    assert sum(summary.wins) + summary.ties == 40
    data = summary.to_dict()
    assert data["games"] == 40 and len(data["wins"]) == 2
    assert data["plays"] == pytest.approx(sum(r.plays for r in rows) / 40)
    assert set(data["by_bot"]) == {"greedy"}


def test_parse_bots_cycles_and_checks() -> None:
    assert parse_bots(["memory,greedy"], 4) == ["memory", "greedy", "memory", "greedy"]
    assert parse_bots([], 3) == ["greedy"] * 3
    with pytest.raises(ValueError):
        parse_bots(["a", "b", "c"], 2)
    with pytest.raises(ValueError):
        parse_bots(["genius"], 2)
    with pytest.raises(ValueError):
        parse_bots([], 7)


def test_cli_json(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "simulate",
            "--game",
            "goblink",
            "--games",
            "30",
            "--players",
            "3",
            "--bot",
            "memory",
            "--bot",
            "greedy",
            "--seed",
            "2",
            "--workers",
            "1",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout.strip().splitlines()[-1])
    assert data["games"] == 30 and len(data["wins"]) == 3
    assert data["bots"] == ["memory", "greedy", "memory"]
    assert sum(data["wins"]) + data["ties"] == 30
    assert data["plays"] > 0


def test_cli_table_plot_and_records(tmp_path: Path) -> None:
    png = tmp_path / "go.png"
    recs = tmp_path / "records"
    result = runner.invoke(
        app,
        [
            "simulate",
            "--game",
            "goblink",
            "--games",
            "12",
            "--players",
            "2",
            "--bot",
            "memory",
            "--bot",
            "random",
            "--workers",
            "2",
            "--plot",
            str(png),
            "--records",
            str(recs),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "95% CI" in result.stdout and "turns" in result.stdout
    assert png.stat().st_size > 1000 and png.read_bytes()[:4] == b"\x89PNG"
    files = sorted(recs.glob("*.json"))
    assert len(files) == 12
    record = GoRecord.loads(files[0].read_text())
    record.verify()


@pytest.mark.parametrize(
    "args",
    [
        ["--players", "7"],
        ["--players", "2", "--bot", "genius"],
        ["--players", "2", "--bot", "memory", "--bot", "greedy", "--bot", "random"],
        ["--players", "2", "--plot", "out.svg"],
    ],
)
def test_cli_bad_input_exits_2(args: list[str]) -> None:
    result = runner.invoke(app, ["simulate", "--game", "goblink", "--games", "3", *args])
    assert result.exit_code == 2, result.output


@pytest.mark.parametrize(
    "args",
    [
        ["--players", "7"],
        ["--players", "3", "--humans", "4"],
        ["--humans", "0"],
        ["--bot", "genius"],
        ["--delay", "-1"],
        ["--players", "3", "--dealer", "4"],
    ],
)
def test_play_bad_input_exits_2(args: list[str]) -> None:
    result = runner.invoke(app, ["goblink", "play", *args])
    assert result.exit_code == 2, result.output


def test_goblink_simulate_command() -> None:
    result = runner.invoke(
        app, ["goblink", "simulate", "--games", "5", "--players", "6", "--bot", "memory", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.strip().splitlines()[-1])["players"] == 6


def test_comma_separated_bots_set_the_player_count() -> None:
    result = runner.invoke(
        app,
        [
            "simulate",
            "--game",
            "goblink",
            "--games",
            "4",
            "--bot",
            "memory,greedy,random",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.strip().splitlines()[-1])["bots"] == [
        "memory",
        "greedy",
        "random",
    ]


def test_every_bot_has_its_colour_in_the_charts() -> None:
    from blink.games.goblink.bots import GOBOTS
    from blink.games.goblink.sim import _COLORS

    assert set(_COLORS) == set(GOBOTS)
    assert len(set(_COLORS.values())) == len(_COLORS)
