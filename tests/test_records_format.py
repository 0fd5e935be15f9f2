"""blink.model.records, the record format of every game: the codec registry, loading any record by
its header, series of any game, the shared checks and the errors, with their messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from blink.cards import STANDARD_DECK
from blink.cli import app
from blink.games.classic.record import CODEC as CLASSIC
from blink.games.classic.record import GameRecord
from blink.games.goblink.engine import GoGame
from blink.games.goblink.record import CODEC as GOBLINK
from blink.games.goblink.record import GoRecord, GoRecordError
from blink.match import Series
from blink.model.records import (
    RecordError,
    SeriesRecord,
    codec_for,
    codecs,
    explain,
    load,
    loads,
)
from blink.model.registry import DEFAULT_GAME
from blink.model.replays import replay_document
from randomgames import random_game, random_go_game


def classic_record(seed: int = 2) -> GameRecord:
    """A finished two-player classic game's record."""
    return GameRecord.from_game(random_game(seed, players=2), ["Ann", "Bob"])


def go_record(seed: int = 3, players: int = 3) -> GoRecord:
    """A finished Go Blink game's record."""
    return GoRecord.from_game(random_go_game(seed, players), ["Ann", "Bob", "Cy"][:players])


def go_series(best_of: int = 3) -> SeriesRecord:
    """A decided two-player Go Blink series."""
    series = Series(best_of, 2)
    games = []
    seed = 0
    while not series.over:
        record = go_record(seed, 2)
        seed += 1
        assert record.result is not None
        series.record(record.result["winners"])
        games.append(record)
    return SeriesRecord(best_of, games, {"room": "GHJKLM"})


# --- the registry ---------------------------------------------------------------------------


def test_every_game_has_its_codec_by_name() -> None:
    known = codecs()
    assert set(known) == {"classic", "goblink"}
    assert known["classic"] is CLASSIC and known["goblink"] is GOBLINK
    assert all(name == codec.game for name, codec in known.items())
    assert classic_record().codec is codec_for("classic")
    assert go_record().codec is codec_for("goblink")
    assert DEFAULT_GAME in known


def test_an_unknown_game_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(RecordError, match=r"unknown game 'chess' \(known: classic, goblink\)"):
        codec_for("chess")
    data = classic_record().to_dict() | {"game": "chess"}
    with pytest.raises(RecordError, match="unknown game 'chess'") as info:
        load(data)
    assert info.value.reason == "malformed"
    # A file that is not a record at all says so first.
    with pytest.raises(RecordError, match="not a blink-record file"):
        load({"format": "chess", "game": "chess"})


@pytest.mark.parametrize("game", ["classic", "goblink"])
def test_codecs_round_trip_their_actions(game: str) -> None:
    record = classic_record(5) if game == "classic" else go_record(5)
    codec = codec_for(game)
    for i, (action, t) in enumerate(record.actions):
        raw = json.loads(json.dumps(codec.encode_action(action, t)))
        assert codec.decode_action(raw, i) == (action, t)
    assert codec.winners(record.verify()) == tuple(record.result["winners"])  # type: ignore[index]


# --- loading any record ---------------------------------------------------------------------


def test_load_dispatches_on_the_header() -> None:
    classic = classic_record()
    go = go_record()
    assert load(classic.to_dict()) == classic
    assert load(go.to_dict()) == go
    assert loads(go.to_json(indent=2)) == go
    no_game = classic.to_dict()
    del no_game["game"]
    assert load(no_game) == classic  # a record without a game is a classic one
    series = loads(SeriesRecord(3, [classic]).to_json())
    assert isinstance(series, SeriesRecord) and series.games == [classic]


@pytest.mark.parametrize("bad", [[], "x", 3, None])
def test_anything_but_an_object_is_refused(bad: object) -> None:
    with pytest.raises(RecordError, match="must be a JSON object"):
        load(bad)


def test_text_that_is_not_json() -> None:
    with pytest.raises(RecordError, match=r"not valid JSON \(line 1"):
        loads("{")
    with pytest.raises(RecordError, match="not valid JSON"):
        loads(b"\xff\xfe")


def test_a_games_errors_are_its_own_and_every_one_is_a_record_error() -> None:
    data = go_record().to_dict()
    data["deck"][1] = data["deck"][0]
    with pytest.raises(GoRecordError, match="duplicate") as info:
        load(data)
    assert isinstance(info.value, RecordError) and info.value.reason == "malformed"
    data = classic_record().to_dict()
    data["deck"][1] = data["deck"][0]
    with pytest.raises(RecordError) as classic_info:
        load(data)
    assert not isinstance(classic_info.value, GoRecordError)


def test_an_error_in_a_series_game_keeps_its_class_and_names_the_game() -> None:
    exc = GoRecordError("it is player 1's turn, not player 0's", 3, "out_of_turn")
    moved = exc.in_game(2)
    assert type(moved) is GoRecordError
    assert (moved.index, moved.reason, moved.game, moved.detail) == (
        3,
        "out_of_turn",
        2,
        exc.detail,
    )
    assert str(moved) == "game 2: action 3: it is player 1's turn, not player 0's"


# --- the shared checks, for every game ------------------------------------------------------


def test_go_blink_times_must_not_go_backwards_either() -> None:
    data = go_record().to_dict()
    data["actions"][4]["t"] = data["actions"][3]["t"] - 1
    with pytest.raises(GoRecordError) as info:
        load(data).verify()
    assert info.value.reason == "time_order" and info.value.index == 4


def test_an_impossible_go_blink_deal() -> None:
    data = go_record().to_dict()
    data["deck"] = data["deck"][:5]  # three players need twelve cards
    data["actions"] = []
    data["result"] = None
    with pytest.raises(GoRecordError) as info:
        load(data).verify()
    assert info.value.reason == "impossible_deal" and "at least 12 cards" in str(info.value)


def test_seats_without_names_get_one_when_written() -> None:
    record = GoRecord(list(STANDARD_DECK), 3, 0, [], ["Ann"])
    assert record.seats() == ["Ann", "Player 2", "Player 3"]
    assert [p["name"] for p in record.to_dict()["players"]] == record.seats()
    classic = GameRecord(list(STANDARD_DECK), 2, names=["", "Bob"])
    assert classic.seats() == ["", "Bob"]


def test_an_action_in_a_few_words() -> None:
    record = go_record()
    lay = next(i for i, (a, _t) in enumerate(record.actions) if type(a).__name__ == "LayDown")
    action, t = record.actions[lay]
    cards = " ".join(map(str, action.cards))  # type: ignore[union-attr]
    assert record.action_text(lay) == f" (lay, seat {action.player}, cards {cards}, t {t})"
    assert record.action_text(None) == "" and record.action_text(10_000) == ""
    classic = classic_record()
    assert classic.action_text(0) == " (reveal, t 0)"


# --- the messages ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "subject", "sentence"),
    [
        ("Object missing required field `deck`", "the record", "the record has no 'deck'"),
        ("Object missing required field `pile`", "a play", "a play has no 'pile'"),
        (
            "Expected `array | null`, got `str` - at `$.players`",
            "the record",
            "players must be a list or null, not a string",
        ),
        (
            "Expected `int`, got `bool` - at `$.seat`",
            "a play",
            "seat must be a whole number, not true or false",
        ),
        ("Expected `int` >= 0 - at `$.t`", "an end", "t must be a whole number >= 0"),
        (
            "Expected `object`, got `int`",
            "an action",
            "an action must be an object, not a whole number",
        ),
        ("Something else - at `$.meta`", "the record", "meta: Something else"),
    ],
)
def test_msgspec_messages_become_sentences(message: str, subject: str, sentence: str) -> None:
    assert explain(message, subject) == sentence


@pytest.mark.parametrize(
    ("change", "fragment", "index"),
    [
        (lambda d: d.update(dealer="x"), "dealer must be a whole number, not a string", None),
        (lambda d: d.update(variant={"players": 7}), "Go Blink has 2 to 6 players, not 7", None),
        (lambda d: d.update(variant={"turn_limit": 0}), "turn_limit must be a positive", None),
        (lambda d: d["actions"][0].pop("seat"), "action 0: an end has no 'seat'", 0),
        (lambda d: d["actions"][0].update(t=1.5), "action 0: t must be a whole number or null", 0),
        (lambda d: d.update(meta=[1]), "meta must be an object or null, not a list", None),
        (lambda d: d.update(players=[{"name": 3}]), r"players\[0\]\.name must be a string", None),
    ],
)
def test_malformed_go_blink_records_say_what_is_wrong(
    change: Any, fragment: str, index: int | None
) -> None:
    data = go_record().to_dict()
    assert data["actions"][0]["type"] == "end"
    change(data)
    with pytest.raises(GoRecordError, match=fragment) as info:
        load(data)
    assert info.value.reason == "malformed" and info.value.index == index


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 70) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


@settings(max_examples=150, deadline=None)
@given(st.data(), json_values)
def test_any_damaged_go_record_is_refused_with_a_go_record_error(
    data: st.DataObject, value: Any
) -> None:
    record = go_record(7, 2).to_dict()
    node: Any = record
    while True:
        keys = list(node.keys()) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        key = data.draw(st.sampled_from(keys))
        child = node[key]
        if isinstance(child, dict | list) and child and data.draw(st.booleans()):
            node = child
            continue
        node[key] = value
        break
    try:
        loads(json.dumps(record)).verify()
    except RecordError as exc:
        assert exc.reason and str(exc)
        # Once a record says it is Go Blink's, its errors are Go Blink's.
        assert isinstance(exc, GoRecordError) or record.get("game") != "goblink"


# --- series of any game ---------------------------------------------------------------------


def test_a_go_blink_series_round_trip_and_verify() -> None:
    record = go_series()
    again = loads(record.to_json())
    assert isinstance(again, SeriesRecord) and again == record
    assert again.game_name == "goblink"
    games = again.verify()
    assert all(isinstance(g, GoGame) for g in games)
    series = again.series_from(games)
    assert series.over and series.winner is not None
    summary = again.summary()
    assert summary["winner"] == series.winner and summary["score"] == list(series.score)
    assert [g["game"] for g in summary["games"]] == ["goblink"] * len(games)
    lines = again.describe()
    assert lines[0] == f"best-of-3 series, {len(games)} games"
    assert lines[-1].startswith(f"series score {' - '.join(map(str, series.score))}")


def test_a_go_blink_game_after_the_series_is_decided_is_refused() -> None:
    record = go_series()
    record.games.append(go_record(40, 2))
    with pytest.raises(GoRecordError) as info:
        record.verify()
    assert info.value.reason == "series" and info.value.game == len(record.games) - 1


def test_a_series_is_of_one_game() -> None:
    data = SeriesRecord(3, [classic_record(), go_record(1, 2)]).to_dict()
    with pytest.raises(RecordError, match="a series is of one game") as info:
        load(data)
    assert info.value.game == 1
    legacy = {"game": "classic", "best_of": 3, "games": [go_record(1, 2).to_dict()], "meta": {}}
    with pytest.raises(RecordError, match="the series is of 'classic'"):
        load(legacy)


def test_a_go_blink_series_through_blink_replay_and_the_replay_document(tmp_path: Path) -> None:
    record = go_series()
    path = tmp_path / "go-series.json"
    path.write_text(record.to_json(indent=1))
    runner = CliRunner()
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("== game") == len(record.games)
    result = runner.invoke(app, ["replay", "--json", str(path)])
    assert result.exit_code == 0 and json.loads(result.stdout)["ok"] is True
    doc = replay_document(record.to_dict())
    assert doc["game"] == "goblink" and len(doc["games"]) == len(record.games)
    assert doc["series"]["winner"] == record.series_from(record.verify()).winner
    assert doc["meta"] == {"room": "GHJKLM"}
