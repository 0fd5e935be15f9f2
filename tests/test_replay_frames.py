"""blink.model.replays: replay frames match the engines' state after every step, for random
classic, series and Go Blink games; records that do not verify raise RecordError with the
failing action's index and the engine's reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blink.games.classic.engine import ClassicGame
from blink.games.classic.record import GameRecord
from blink.games.classic.replay import classic_game_replay
from blink.games.classic.wire import event_to_wire
from blink.games.goblink.engine import GoGame, value_to_wire
from blink.games.goblink.record import GoRecord, GoRecordError
from blink.match import Series
from blink.model.records import RecordError, SeriesRecord
from blink.model.replays import REPLAY_FORMAT, read_record, replay_document
from randomgames import random_game, random_go_game


def as_json(record: GameRecord | SeriesRecord | GoRecord) -> Any:
    """The record as a client would send it."""
    return json.loads(record.to_json())


def check_classic_frames(record: GameRecord, replay: dict[str, Any]) -> None:
    """Every frame is the engine's state after that many actions, with that action's events."""
    frames = replay["frames"]
    assert len(frames) == len(record.actions) + 1
    game = ClassicGame(record.deck, record.players, record.ruleset, record.sizes)
    plays = [0] * game.players
    for k, frame in enumerate(frames):
        events: list[Any] = []
        if k:
            action, t = record.actions[k - 1]
            events = game.apply(action, t)
            assert frame["t"] == t
            for e in events:
                if type(e).__name__ == "Played":
                    plays[e.player] += 1
        else:
            assert frame["t"] is None and frame["action"] is None
        n = game.players
        assert frame["phase"] == game.phase.value
        assert frame["tops"] == [str(game.top(i)) for i in range(n)]
        assert frame["depth"] == [len(game.pile(i)) for i in range(n)]
        assert frame["hands"] == [[str(c) for c in game.hand(p)] for p in range(n)]
        assert frame["draws"] == [len(game.draw_pile(p)) for p in range(n)]
        assert frame["plays"] == plays and sum(plays) == game.plays
        assert frame["chosen"] == [
            str(game.choices[p]) if p in game.choices else None for p in range(n)
        ]
        want_outcome = (
            None
            if game.outcome is None
            else {"winners": list(game.outcome.winners), "reason": game.outcome.reason}
        )
        assert frame["outcome"] == want_outcome
        # The same event vocabulary as the WebSocket's updates (unredacted).
        assert frame["events"] == [d for d in map(event_to_wire, events) if d is not None]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 100_000), small=st.booleans())
def test_classic_frames_match_the_engine(seed: int, small: bool) -> None:
    record = GameRecord.from_game(
        random_game(seed, small), names=["Ann", "Bo", "Cy"][: 2 + seed % 2]
    )
    doc = replay_document(as_json(record))
    assert doc["format"] == REPLAY_FORMAT and doc["game"] == "classic" and doc["series"] is None
    (replay,) = doc["games"]
    assert replay["names"] == record.names
    assert replay["result"] == record.result
    assert replay["ruleset"] == record.ruleset.name
    check_classic_frames(record, replay)
    json.dumps(doc)  # JSON-ready


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 100_000))
def test_go_frames_match_the_engine(seed: int) -> None:
    record = GoRecord.from_game(random_go_game(seed))
    doc = replay_document(as_json(record))
    assert doc["game"] == "goblink"
    (replay,) = doc["games"]
    frames = replay["frames"]
    assert len(frames) == len(record.actions) + 1
    game = GoGame(record.deck, record.players, record.dealer, record.turn_limit)
    for k, frame in enumerate(frames):
        if k:
            action, t = record.actions[k - 1]
            game.apply(action, t)
            assert frame["t"] == t
        view = game.view(None)
        assert frame["phase"] == game.phase.value
        assert frame["current"] == game.current
        assert frame["hands"] == [[str(c) for c in game.hand(p)] for p in range(game.players)]
        assert frame["draw"] == len(game.draw_pile())
        assert frame["turns"] == game.turns
        assert frame["asks"] == len(view.asks) == game.asks
        assert frame["matches"] == len(game.discard())
    # The whole asks log and the matches, in order (frames give how many have happened).
    assert [
        (a["seat"], a["target"], a["attribute"], a["value"], a["passed"], a["drew"])
        for a in replay["asks"]
    ] == [(a.player, a.target, *value_to_wire(a.value), a.passed, a.drew) for a in view.asks]
    assert all(len(a["cards"]) == a["passed"] for a in replay["asks"])
    assert replay["matches"] == [
        {"seat": p, "cards": [str(c) for c in cards]} for p, cards in game.discard()
    ]
    assert game.outcome is not None
    assert frames[-1]["outcome"] == {
        "winners": list(game.outcome.winners),
        "reason": game.outcome.reason,
    }
    assert frames[0]["events"] == [{"type": "turn", "seat": game.first_player, "opening": True}]


def test_a_series_replays_every_game_with_the_score() -> None:
    series = Series(3, 2)
    games = []
    seed = 10
    while not series.over:
        g = random_game(seed * 2)  # even seeds: two players
        seed += 1
        games.append(g)
        assert g.outcome is not None
        series.record(g.outcome.winners)
    record = SeriesRecord(3, [GameRecord.from_game(g) for g in games], {"room": "ABCDEF"})
    doc = replay_document(as_json(record))
    assert doc["series"] == {
        "best_of": 3,
        "score": list(series.score),
        "ties": series.ties,
        "winner": series.winner,
    }
    assert doc["meta"] == {"room": "ABCDEF"}
    assert len(doc["games"]) == len(games)
    for rec, replay in zip(record.games, doc["games"], strict=True):
        check_classic_frames(rec, replay)


def test_read_record_accepts_what_blink_replay_accepts() -> None:
    classic = GameRecord.from_game(random_game(2))
    assert isinstance(read_record(as_json(classic)), GameRecord)
    assert isinstance(read_record(as_json(SeriesRecord(1, [classic]))), SeriesRecord)
    go_series = SeriesRecord(1, [GoRecord.from_game(random_go_game(3))])
    assert read_record(as_json(go_series)) == go_series
    assert isinstance(read_record(as_json(GoRecord.from_game(random_go_game(3)))), GoRecord)
    for bad in ([], "x", 3, None):
        with pytest.raises(RecordError, match="JSON object"):
            read_record(bad)
    with pytest.raises(RecordError, match="not a blink-record"):
        read_record({"format": "chess"})


def test_the_servers_go_blink_series_document_replays() -> None:
    """GET /api/rooms/{code}/record of a Go Blink room (no "format"), as the viewer posts it."""
    path = Path(__file__).parent / "fixtures" / "records" / "v1" / "goblink-series-server.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    record = read_record(data)
    assert isinstance(record, SeriesRecord)
    doc = replay_document(data)
    assert doc["game"] == "goblink" and doc["meta"] == data["meta"]
    assert doc["series"] == {"best_of": 3, "score": [0, 1, 1], "ties": 0, "winner": None}
    assert [len(g["frames"]) for g in doc["games"]] == [
        len(g["actions"]) + 1 for g in data["games"]
    ]


def test_an_unfinished_game_replays_too() -> None:
    game = ClassicGame.new(2, seed=4)
    game.reveal(0)
    play = game.all_legal_plays()[0]
    game.play(play.player, play.card, play.pile, 10)
    record = GameRecord.from_game(game)
    replay = classic_game_replay(record)
    assert replay["result"] is None and replay["frames"][-1]["outcome"] is None
    check_classic_frames(record, replay)


def tampered(record: GameRecord, index: int, **change: Any) -> dict[str, Any]:
    data = as_json(record)
    data["actions"][index].update(change)
    return data


def test_an_illegal_action_is_refused_with_its_index_and_reason() -> None:
    game = random_game(7)
    record = GameRecord.from_game(game)
    # The first play: a card its player does not hold.
    i = next(i for i, (a, _t) in enumerate(record.actions) if type(a).__name__ == "Play")
    seat = record.actions[i][0].player  # type: ignore[union-attr]
    before = ClassicGame.replay(
        record.deck, record.players, record.ruleset, record.sizes, record.actions[:i]
    )
    absent = next(c for c in record.deck if c not in before.hand(seat))
    with pytest.raises(RecordError) as exc:
        replay_document(tampered(record, i, card=str(absent)))
    assert exc.value.index == i and exc.value.reason == "card_not_in_hand"
    # Times that go backwards, a result that does not match, a bad card, a bad type.
    with pytest.raises(RecordError) as exc:
        replay_document(tampered(record, 3, t=0))
    assert exc.value.reason == "time_order" and exc.value.index == 3
    data = as_json(record)
    data["result"]["winners"] = [9]
    with pytest.raises(RecordError) as exc:
        replay_document(data)
    assert exc.value.reason == "result_mismatch" and exc.value.index is None
    with pytest.raises(RecordError) as exc:
        replay_document(tampered(record, i, card="9ZZ"))
    assert exc.value.reason == "malformed" and exc.value.index == i
    with pytest.raises(RecordError) as exc:
        replay_document(tampered(record, 1, type="jump"))
    assert exc.value.reason == "malformed" and exc.value.index == 1


def test_a_bad_series_game_names_the_game() -> None:
    good = GameRecord.from_game(random_game(2))
    bad = as_json(good)
    bad["actions"][0]["type"] = "flip"  # a flip before the reveal
    data = as_json(SeriesRecord(3, [good]))
    data["games"].append(bad)
    with pytest.raises(RecordError) as exc:
        replay_document(data)
    assert exc.value.game == 1 and exc.value.index == 0 and exc.value.reason == "not_revealed"


def test_an_illegal_go_action_is_refused_with_its_index_and_reason() -> None:
    record = GoRecord.from_game(random_go_game(4))
    data = as_json(record)
    # The first action belongs to the player after the dealer: give it to someone else.
    first = data["actions"][0]
    first["seat"] = (first["seat"] + 1) % record.players
    with pytest.raises(GoRecordError) as exc:
        replay_document(data)
    assert exc.value.index == 0 and exc.value.reason == "out_of_turn"
    data = as_json(record)
    data["deck"][1] = data["deck"][0]
    with pytest.raises(GoRecordError, match="duplicate"):
        replay_document(data)
