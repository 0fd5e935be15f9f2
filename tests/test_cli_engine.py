"""``blink deck`` and ``blink replay`` on real files, through the real command-line app."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from blink.cards import STANDARD_DECK
from blink.cli import app
from blink.games.classic.engine import ClassicGame, Phase
from blink.games.classic.record import GameRecord
from blink.games.goblink.engine import GoGame
from blink.games.goblink.record import GoRecord
from blink.model.records import SeriesRecord

runner = CliRunner()


def invoke(*args: str) -> Any:
    """Run ``blink ARGS`` in-process."""
    return runner.invoke(app, list(args))


def played_game(seed: int) -> ClassicGame:
    """A complete random-legal game with action times."""
    game = ClassicGame.new(2, seed)
    rng = random.Random(seed)
    t = 0
    game.reveal(t)
    while not game.over:
        t += rng.randrange(100, 900)
        if game.phase is Phase.PLAYING:
            p = game.random_legal_play(rng)
            assert p is not None
            game.play(p.player, p.card, p.pile, t)
        elif game.phase is Phase.STALLED:
            game.flip(t)
        else:
            for seat in game.awaiting_choice():
                game.choose(seat, game.default_choice(seat), t)
    return game


def write_record(tmp_path: Path, seed: int = 1, name: str = "game.json") -> Path:
    """A finished game's record in a file."""
    path = tmp_path / name
    path.write_text(GameRecord.from_game(played_game(seed), ["Ann", "Bob"]).to_json(indent=1))
    return path


# --- blink deck ------------------------------------------------------------------------------


def test_deck_table_lists_all_60_cards() -> None:
    result = invoke("deck")
    assert result.exit_code == 0
    out = result.stdout
    assert "60 cards" in out
    for c in STANDARD_DECK:
        assert str(c) in out and c.long_name in out


def test_deck_json_is_60_objects() -> None:
    result = invoke("deck", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert len(data) == 60
    assert {(d["color"], d["shape"], d["count"]) for d in data} == {
        (c.color.label, c.shape.label, c.count) for c in STANDARD_DECK
    }
    assert data[0] == STANDARD_DECK[0].to_dict()


def test_deck_from_a_custom_file(tmp_path: Path) -> None:
    path = tmp_path / "deck.txt"
    path.write_text("# eight cards\n4YS 1RM\n2BW\n3GF\n5PL\none orange moon\n1RS\n4GW\n")
    result = invoke("deck", "--file", str(path), "--json")
    assert result.exit_code == 0
    assert [d["code"] for d in json.loads(result.stdout)] == [
        "4YS",
        "1RM",
        "2BW",
        "3GF",
        "5PL",
        "1OM",
        "1RS",
        "4GW",
    ]
    table = invoke("deck", "--file", str(path))
    assert table.exit_code == 0 and "8 cards" in table.stdout


def test_deck_file_errors_are_one_line_with_the_line_number(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("4YS\n1RM\n4ZS\n")
    result = invoke("deck", "--file", str(path))
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "line 3" in result.stderr and "unknown colour 'Z'" in result.stderr
    dup = tmp_path / "dup.txt"
    dup.write_text("4YS\n1RM\n4ys\n")
    result = invoke("deck", "--file", str(dup))
    assert result.exit_code == 2 and "line 3: duplicate card 4YS" in result.stderr


def test_deck_missing_file(tmp_path: Path) -> None:
    result = invoke("deck", "--file", str(tmp_path / "nope.txt"))
    assert result.exit_code == 2 and "cannot read" in result.stderr


def test_the_installed_console_command(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "blink.cli", "deck", "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert len(json.loads(out.stdout)) == 60


# --- blink replay ----------------------------------------------------------------------------


def test_replay_prints_the_game_move_by_move(tmp_path: Path) -> None:
    path = write_record(tmp_path)
    game = played_game(1)
    result = invoke("replay", str(path))
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Ann (seat 0)" in out and "Bob (seat 1)" in out
    assert "reveal" in out and "game over:" in out
    assert out.count(" plays ") == game.plays
    first = game.history[1][0]
    assert f"plays {first.card.long_name} [{first.card}] on pile {first.pile}" in out  # type: ignore[union-attr]
    assert " draws " in out  # a finished record shows everything


def test_replay_json_summary(tmp_path: Path) -> None:
    game = played_game(2)
    path = tmp_path / "g.json"
    path.write_text(GameRecord.from_game(game, ["Ann", "Bob"]).to_json())
    result = invoke("replay", "--json", str(path))
    assert result.exit_code == 0
    summary = json.loads(result.stdout)
    assert game.outcome is not None
    assert summary["result"] == ("tie" if game.outcome.is_tie else "win")
    assert summary["winners"] == list(game.outcome.winners)
    assert summary["plays"] == game.plays
    assert summary["ok"] is True


def test_replay_reports_an_illegal_action_with_index_and_reason(tmp_path: Path) -> None:
    data = GameRecord.from_game(played_game(3)).to_dict()
    data["actions"][5]["card"] = data["deck"][-1]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    result = invoke("replay", str(path))
    assert result.exit_code == 1
    assert "action 5" in result.stderr and "card_not_in_hand" in result.stderr
    result = invoke("replay", "--json", str(path))
    assert result.exit_code == 1
    error = json.loads(result.stdout)["error"]
    assert error["index"] == 5 and error["reason"] == "card_not_in_hand"


def test_replay_reports_a_wrong_result(tmp_path: Path) -> None:
    data = GameRecord.from_game(played_game(3)).to_dict()
    data["result"]["plays"] += 1
    path = tmp_path / "lie.json"
    path.write_text(json.dumps(data))
    result = invoke("replay", str(path))
    assert result.exit_code == 1 and "result_mismatch" in result.stderr


def test_replay_unreadable_files_exit_2(tmp_path: Path) -> None:
    cases = {
        "missing.json": None,
        "broken.json": "{not json",
        "list.json": "[1, 2]",
        "other.json": json.dumps({"format": "chess"}),
        "binary.json": b"\xff\xfe\x00",
    }
    for name, content in cases.items():
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif content is not None:
            path.write_text(content)
        result = invoke("replay", str(path))
        assert result.exit_code == 2, (name, result.stdout, result.stderr)
        assert result.stderr.startswith("blink replay: ") and result.stderr.count("\n") == 1


def test_replay_a_series_game_by_game(tmp_path: Path) -> None:
    games = [played_game(s) for s in (1, 2, 3, 4, 5, 6, 7)]
    record = SeriesRecord(3, [])
    wins = [0, 0]
    for g in games:
        assert g.outcome is not None
        record.games.append(GameRecord.from_game(g, ["Ann", "Bob"]))
        if not g.outcome.is_tie:
            wins[g.outcome.winners[0]] += 1
        if max(wins) == 2:
            break
    path = tmp_path / "series.json"
    path.write_text(record.to_json())
    result = invoke("replay", str(path))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("== game") == len(record.games)
    assert "series score" in result.stdout
    result = invoke("replay", "--json", str(path))
    summary = json.loads(result.stdout)
    assert summary["winner"] == wins.index(2) and summary["score"] == wins
    assert len(summary["games"]) == len(record.games)
    assert all(g["plays"] > 0 for g in summary["games"])


def test_replay_a_series_with_an_illegal_action(tmp_path: Path) -> None:
    record = SeriesRecord(3, [GameRecord.from_game(played_game(s)) for s in (1, 2)])
    data = record.to_dict()
    data["games"][1]["actions"][4]["card"] = data["games"][1]["deck"][-1]
    path = tmp_path / "series.json"
    path.write_text(json.dumps(data))
    result = invoke("replay", str(path))
    assert result.exit_code == 1
    assert "game 1" in result.stderr and "action 4" in result.stderr


def test_replay_go_blink_records(tmp_path: Path) -> None:
    game = GoGame.new(players=3, seed=4)
    for _ in range(2000):
        action = game.default_action()
        if game.over or action is None:
            break
        game.apply(action)
    data = GoRecord.from_game(game, ["Ann", "Bob", "Cy"]).to_dict()
    path = tmp_path / "go.json"
    path.write_text(json.dumps(data))
    result = invoke("replay", "--json", str(path))
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["game"] == "goblink" and "winners" in summary and "plays" in summary
    result = invoke("replay", str(path))
    assert result.exit_code == 0 and len(result.stdout.splitlines()) >= len(data["actions"])
    broken = tmp_path / "go-broken.json"
    broken.write_text(json.dumps({"format": "blink-record", "version": 1, "game": "goblink"}))
    result = invoke("replay", str(broken))
    assert result.exit_code == 2 and "Go Blink" in result.stderr


def test_replay_an_illegal_go_blink_action_names_it(tmp_path: Path) -> None:
    game = GoGame.new(players=2, seed=4)
    for _ in range(6):
        action = game.default_action()
        assert action is not None
        game.apply(action, 100)
    data = GoRecord.from_game(game, ["Ann", "Bob"]).to_dict()
    data["actions"][3]["seat"] = 1 - data["actions"][3]["seat"]
    path = tmp_path / "go-bad.json"
    path.write_text(json.dumps(data))
    result = invoke("replay", str(path))
    assert result.exit_code == 1
    assert f"action 3 ({data['actions'][3]['type']}, seat " in result.stderr
    assert "out_of_turn" in result.stderr
    result = invoke("replay", "--json", str(path))
    assert json.loads(result.stdout)["error"]["reason"] == "out_of_turn"


def test_replay_reads_every_fixture_record() -> None:
    fixtures = Path(__file__).parent / "fixtures" / "records" / "v1"
    for path in sorted(fixtures.glob("*.json")):
        result = invoke("replay", "--json", str(path))
        assert result.exit_code == 0, (path.name, result.stderr)
        assert json.loads(result.stdout)["ok"] is True
