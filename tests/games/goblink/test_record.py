"""Go Blink records: round trip, verification with index and reason, summary and describe."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from blink.games.goblink.engine import Ask, GoGame
from blink.games.goblink.record import (
    GoRecord,
    GoRecordError,
    go_action_from_dict,
    go_action_to_dict,
)
from blink.model.records import RecordError

from .helpers import deal, skip_opening


def played(players: int = 3, seed: int = 4, dealer: int = 1) -> GoGame:
    rng = random.Random(seed)
    game = GoGame.new(players, seed=seed, dealer=dealer)
    i = 0
    while not game.over:
        game.apply(rng.choice(game.legal_actions()), t=100 * i)
        i += 1
    return game


def test_round_trip_and_verify() -> None:
    game = played()
    record = GoRecord.from_game(game, names=["Ann", "Bob", "Cy"], meta={"seed": 4})
    data = json.loads(record.to_json())
    assert data["format"] == "blink-record" and data["version"] == 1
    assert data["game"] == "goblink" and data["dealer"] == 1
    assert [p["name"] for p in data["players"]] == ["Ann", "Bob", "Cy"]
    assert len(data["deck"]) == 60
    again = GoRecord.from_dict(data)
    assert again == record
    final = again.verify()
    assert final.snapshot() == game.snapshot()
    assert GoRecord.loads(record.to_json()).to_dict() == record.to_dict()


def test_summary_and_describe() -> None:
    game = played(4, seed=9, dealer=3)
    record = GoRecord.from_game(game)
    summary = record.summary()
    assert game.outcome is not None
    assert summary["result"] == ("tie" if game.outcome.is_tie else "win")
    assert summary["winners"] == list(game.outcome.winners)
    assert summary["plays"] == len(game.history)
    assert summary["turns"] == game.turns and summary["asks"] == game.asks
    lines = record.describe()
    assert len(lines) == len(game.history)
    assert "game over" in lines[-1]
    assert any(" asks " in line for line in lines)


def test_describe_names_passes_and_go_blink() -> None:
    game = deal(["1RS 2RM 3BW 4GF", "5RS 1BM 2BL 3YF"], draw="4YL", rest=True, dealer=1)
    skip_opening(game)
    game.apply(Ask(0, 1, game.hand(0)[2].color))
    lines = GoRecord.from_game(game, names=["Ann", "Bob"]).describe()
    assert lines[0] == "1. Ann ends the opening"
    assert lines[2] == "3. Ann asks Bob for blues: Bob passes 2 (1BM 2BL)"
    assert GoRecord.from_game(game).result is None
    assert GoRecord.from_game(game).summary()["result"] is None


def test_an_illegal_action_is_reported_with_index_and_reason() -> None:
    data = GoRecord.from_game(played()).to_dict()
    data["result"] = None
    bad = data["actions"][5]
    data["actions"][5] = {"type": "end", "seat": (bad["seat"] + 1) % 3}
    with pytest.raises(GoRecordError) as info:
        GoRecord.from_dict(data).verify()
    assert isinstance(info.value, RecordError)
    assert info.value.index == 5
    assert info.value.reason == "out_of_turn"


def test_a_wrong_result_is_a_mismatch() -> None:
    data = GoRecord.from_game(played()).to_dict()
    data["result"]["winners"] = [9]
    with pytest.raises(GoRecordError) as info:
        GoRecord.from_dict(data).verify()
    assert info.value.reason == "result_mismatch" and info.value.index is None


@pytest.mark.parametrize(
    ("change", "index"),
    [
        ({"format": "chess"}, None),
        ({"version": 2}, None),
        ({"game": "classic"}, None),
        ({"variant": {"players": 7}}, None),
        ({"dealer": 5}, None),
        ({"deck": ["4YS", "4YS"]}, None),
        ({"deck": ["9ZZ"]}, None),
        ({"deck": None}, None),
        ({"actions": None}, None),
        ({"actions": [{"type": "fly", "seat": 0}]}, 0),
        ({"actions": [{"type": "end", "seat": "x"}]}, 0),
        ({"actions": [{"type": "end", "seat": 0, "t": -1}]}, 0),
        ({"actions": [{"type": "ask", "seat": 0, "target": 1, "attribute": "x", "value": 1}]}, 0),
        ({"actions": [{"type": "lay", "seat": 0, "cards": "1RS"}]}, 0),
        ({"actions": [{"type": "lay", "seat": 0, "cards": ["1ZZ"]}]}, 0),
        ({"actions": ["end"]}, 0),
    ],
)
def test_malformed_records_are_refused(change: dict[str, object], index: int | None) -> None:
    data = GoRecord.from_game(played()).to_dict()
    data.update(change)
    with pytest.raises(GoRecordError) as info:
        GoRecord.from_dict(data)
    assert info.value.index == index
    assert info.value.reason == "malformed"


def test_not_json() -> None:
    with pytest.raises(GoRecordError):
        GoRecord.loads("{nope")
    with pytest.raises(GoRecordError):
        GoRecord.from_dict([])  # type: ignore[arg-type]


def test_action_dicts_round_trip() -> None:
    game = played(2, seed=3, dealer=0)
    for action, t in game.history:
        assert go_action_from_dict(go_action_to_dict(action, t)) == (action, t)


def test_blink_replay_reads_go_blink_records(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from blink.cli import app

    game = played(3, seed=6, dealer=2)
    path = tmp_path / "go.json"
    path.write_text(GoRecord.from_game(game, names=["Ann", "Bob", "Cy"]).to_json())
    runner = CliRunner()
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert result.stdout.count("\n") >= len(game.history)
    result = runner.invoke(app, ["replay", "--json", str(path)])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["plays"] == len(game.history)
    data = json.loads(path.read_text())
    data["actions"][3] = {"type": "ask", "seat": 0, "target": 0, "attribute": "count", "value": 1}
    path.write_text(json.dumps(data))
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 1


def test_the_example_in_the_record_format_document_verifies() -> None:
    doc = (Path(__file__).parents[3] / "docs" / "record-format.md").read_text()
    blocks = [b.split("```", 1)[0] for b in doc.split("```json\n")[1:]]
    (block,) = [b for b in blocks if '"game": "goblink"' in b]
    record = GoRecord.loads(block)
    game = record.verify()
    assert game.outcome is not None and game.outcome.winners == (0,)
    assert game.outcome.reason == "blunk" and record.dealer == 1
    assert [len(game.hand(p)) for p in range(2)] == [0, 2]
    assert record.describe()[-1].endswith('"I Blunk!"; game over (blunk): Ann wins')
