"""Game and series records: writing, reading, verifying, and every way a record can be wrong."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blink.cards import card
from blink.games.classic.engine import (
    Choose,
    ClassicGame,
    Flip,
    Phase,
    Play,
    Reveal,
)
from blink.games.classic.record import (
    FORMAT,
    SERIES_FORMAT,
    VERSION,
    GameRecord,
    RecordError,
    SeriesRecord,
    action_from_dict,
    action_to_dict,
    loads,
)
from blink.games.classic.rules import DEAD_END, OFFICIAL


def played_game(
    seed: int, players: int = 2, sizes: tuple[int, ...] | None = None, ruleset: Any = OFFICIAL
) -> ClassicGame:
    """A complete random-legal game with increasing action times."""
    game = ClassicGame.new(players, seed, ruleset=ruleset, sizes=sizes)
    rng = random.Random(seed)
    t = 0
    game.reveal(t)
    while not game.over:
        t += rng.randrange(80, 1500)
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


def test_record_round_trip_and_verify() -> None:
    game = played_game(1)
    record = GameRecord.from_game(game, ["Ann", "Bob"], {"event": "test"})
    data = json.loads(record.to_json(indent=2))
    assert data["format"] == FORMAT and data["version"] == VERSION and data["game"] == "classic"
    assert data["players"] == [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bob"}]
    assert data["variant"] == {"players": 2, "sizes": [30, 30]}
    assert data["ruleset"]["name"] == "official"
    assert len(data["deck"]) == 60 and data["deck"][0] == str(game.deck[0])
    assert data["actions"][0] == {"t": 0, "type": "reveal"}
    assert data["result"]["plays"] == game.plays
    assert data["meta"] == {"event": "test"}
    again = loads(json.dumps(data))
    assert isinstance(again, GameRecord)
    final = again.verify()
    assert final.snapshot() == game.snapshot()
    assert final.history == game.history
    assert again.ruleset == OFFICIAL


@pytest.mark.parametrize(
    ("seed", "players", "sizes", "ruleset"),
    [(2, 3, None, OFFICIAL), (3, 2, (35, 25), DEAD_END), (4, 3, (24, 18, 14), OFFICIAL)],
)
def test_records_of_every_variant_replay(
    seed: int, players: int, sizes: tuple[int, ...] | None, ruleset: Any
) -> None:
    game = played_game(seed, players, sizes, ruleset)
    record = loads(GameRecord.from_game(game).to_json())
    assert isinstance(record, GameRecord)
    assert record.verify().snapshot() == game.snapshot()
    assert record.ruleset == ruleset and record.sizes == game.sizes


def test_a_record_of_an_unfinished_game() -> None:
    game = ClassicGame.new(2, 3)
    game.reveal(0)
    record = GameRecord.from_game(game)
    assert record.result is None
    assert loads(record.to_json()).verify().phase in (Phase.PLAYING, Phase.STALLED)  # type: ignore[union-attr]


def test_record_of_hand_built_scenario() -> None:
    # Any scenario can be constructed by hand: an explicit deck, sizes and actions.
    data = {
        "format": "blink-record",
        "version": 1,
        "game": "classic",
        "players": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bob"}],
        "variant": {"players": 2, "sizes": [4, 5]},
        "ruleset": {"name": "official"},
        "deck": ["1RM", "1YS", "1GW", "1BF", "2OP", "3PL", "4YF", "5GL", "4BL"],
        "actions": [
            {"t": 0, "type": "reveal"},
            {"t": 400, "type": "play", "seat": 0, "card": "1YS", "pile": 0},
            {"t": 800, "type": "play", "seat": 0, "card": "1GW", "pile": 0},
            {"t": 900, "type": "play", "seat": 0, "card": "1BF", "pile": 0},
        ],
        "result": {"result": "win", "winners": [0], "reason": "out_of_cards", "plays": 3},
    }
    record = loads(json.dumps(data))
    assert isinstance(record, GameRecord)
    game = record.verify()
    assert game.outcome is not None and game.outcome.winners == (0,)


def _tampered(change: Any) -> dict[str, Any]:
    data = GameRecord.from_game(played_game(5), ["A", "B"]).to_dict()
    change(data)
    return data


def test_an_illegal_action_is_reported_with_its_index_and_reason() -> None:
    def bad(data: dict[str, Any]) -> None:
        a = data["actions"][3]
        assert a["type"] == "play"
        a["card"] = data["deck"][-1]  # the bottom of seat 1's draw pile: not in any hand

    record = GameRecord.from_dict(_tampered(bad))
    with pytest.raises(RecordError) as info:
        record.verify()
    assert info.value.index == 3
    assert info.value.reason == "card_not_in_hand"
    assert str(info.value).startswith("action 3: ")


def test_actions_after_the_end_are_illegal() -> None:
    def extra(data: dict[str, Any]) -> None:
        data["actions"].append({"type": "flip"})
        data["result"] = None

    record = GameRecord.from_dict(_tampered(extra))
    with pytest.raises(RecordError) as info:
        record.verify()
    assert info.value.reason == "game_over" and info.value.index == len(record.actions) - 1


def test_a_wrong_result_is_a_mismatch() -> None:
    def lie(data: dict[str, Any]) -> None:
        data["result"]["winners"] = [1 - data["result"]["winners"][0]]

    with pytest.raises(RecordError) as info:
        GameRecord.from_dict(_tampered(lie)).verify()
    assert info.value.reason == "result_mismatch" and info.value.index is None


def test_times_must_not_go_backwards() -> None:
    def back(data: dict[str, Any]) -> None:
        data["actions"][4]["t"] = data["actions"][3]["t"] - 1

    with pytest.raises(RecordError) as info:
        GameRecord.from_dict(_tampered(back)).verify()
    assert info.value.reason == "time_order" and info.value.index == 4


def test_an_impossible_deal() -> None:
    def tiny(data: dict[str, Any]) -> None:
        data["variant"]["sizes"] = [40, 30]

    with pytest.raises(RecordError) as info:
        GameRecord.from_dict(_tampered(tiny)).verify()
    assert info.value.reason == "impossible_deal"


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (lambda d: d.update(format="chess"), "not a blink-record file"),
        (lambda d: d.update(version=99), "unsupported record version 99"),
        (lambda d: d.update(game="goblink"), "not a classic Blink record"),
        (lambda d: d.update(variant=[2]), "variant must be an object"),
        (lambda d: d["variant"].update(players=4), "2 or 3 players, not 4"),
        (lambda d: d["variant"].update(sizes="30:30"), "variant.sizes must be a list"),
        (lambda d: d.update(ruleset={"name": "nope"}), "ruleset: unknown ruleset"),
        (lambda d: d.update(ruleset="official"), "ruleset must be an object"),
        (lambda d: d.pop("deck"), "the record has no 'deck'"),
        (lambda d: d["deck"].__setitem__(0, "9ZZ"), "deck card 0"),
        (lambda d: d["deck"].__setitem__(1, d["deck"][0]), "duplicate card"),
        (lambda d: d.pop("actions"), "the record has no 'actions'"),
        (lambda d: d["actions"].__setitem__(2, {"type": "jump"}), "action 2: unknown action"),
        (lambda d: d["actions"].__setitem__(2, 7), "action 2: an action must be an object"),
        (lambda d: d["actions"][2].update(t=-5), "action 2: t must be a whole number >= 0"),
        (
            lambda d: d["actions"][2].update(seat="x"),
            "action 2: seat must be a whole number, not a string",
        ),
        (lambda d: d["actions"][2].pop("pile"), "action 2: a play has no 'pile'"),
        (lambda d: d["actions"][2].update(card="4Y"), "action 2: '4Y' is not a card"),
        (lambda d: d.update(players="Ann"), "players must be a list"),
        (lambda d: d.update(meta=[1]), "meta must be an object"),
        (lambda d: d.update(result=[1]), "result must be an object"),
    ],
)
def test_malformed_records_say_what_is_wrong(change: Any, fragment: str) -> None:
    with pytest.raises(RecordError, match=fragment) as info:
        GameRecord.from_dict(_tampered(change))
    assert info.value.reason == "malformed"


def test_loads_rejects_bad_json_and_non_objects() -> None:
    with pytest.raises(RecordError, match="not valid JSON"):
        loads("{")
    with pytest.raises(RecordError, match="must be a JSON object"):
        loads("[1, 2]")


@pytest.mark.parametrize(
    ("action", "t"),
    [
        (Reveal(), 0),
        (Play(1, card("4YS"), 0), 1234),
        (Flip(), None),
        (Choose(2, card("1RM")), 99),
    ],
)
def test_actions_round_trip(action: Any, t: int | None) -> None:
    d = json.loads(json.dumps(action_to_dict(action, t)))
    assert action_from_dict(d) == (action, t)


# --- series ----------------------------------------------------------------------------------


def series_of(seeds: list[int], best_of: int = 3) -> SeriesRecord:
    """A series record of the games with these seeds."""
    return SeriesRecord(best_of, [GameRecord.from_game(played_game(s)) for s in seeds])


def _winner(seed: int) -> int:
    outcome = played_game(seed).outcome
    assert outcome is not None
    return outcome.winners[0]


def test_series_round_trip_and_verify() -> None:
    # Pick seeds so that seat 0 wins two games out of three.
    zero = [s for s in range(40) if _winner(s) == 0][:2]
    one = [s for s in range(40) if _winner(s) == 1][:1]
    record = series_of([zero[0], one[0], zero[1]])
    text = record.to_json()
    data = json.loads(text)
    assert data["format"] == SERIES_FORMAT and data["best_of"] == 3 and len(data["games"]) == 3
    again = loads(text)
    assert isinstance(again, SeriesRecord)
    games = again.verify()
    series = again.series_from(games)
    assert series.score == (2, 1) and series.winner == 0


def test_a_game_after_the_series_is_decided_is_refused() -> None:
    zero = [s for s in range(40) if _winner(s) == 0][:3]
    with pytest.raises(RecordError) as info:
        series_of(zero).verify()
    assert info.value.game == 2 and info.value.reason == "series"


def test_an_illegal_action_in_a_series_names_the_game() -> None:
    data = series_of([1, 2]).to_dict()
    data["games"][1]["actions"][2]["card"] = data["games"][1]["deck"][-1]
    record = loads(json.dumps(data))
    assert isinstance(record, SeriesRecord)
    with pytest.raises(RecordError) as info:
        record.verify()
    assert info.value.game == 1 and info.value.index == 2
    assert str(info.value).startswith("game 1: action 2: ")


def test_an_unfinished_game_must_be_the_last() -> None:
    unfinished = ClassicGame.new(2, 9)
    unfinished.reveal(0)
    record = SeriesRecord(
        3, [GameRecord.from_game(unfinished), GameRecord.from_game(played_game(1))]
    )
    with pytest.raises(RecordError, match="unfinished"):
        record.verify()


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (lambda d: d.update(best_of=2), "best_of must be a positive odd number"),
        (lambda d: d.update(games={}), "games must be a list, not an object"),
        (lambda d: d["games"][0].update(version=7), "game 0: unsupported record version"),
        (lambda d: d.update(meta="x"), "meta must be an object"),
    ],
)
def test_malformed_series(change: Any, fragment: str) -> None:
    data = series_of([1]).to_dict()
    change(data)
    with pytest.raises(RecordError, match=fragment):
        loads(json.dumps(data))


def test_the_example_in_the_record_format_document_verifies() -> None:
    doc = (Path(__file__).parents[3] / "docs" / "record-format.md").read_text()
    block = doc.split("```json\n", 1)[1].split("```", 1)[0]
    record = loads(block)
    assert isinstance(record, GameRecord)
    game = record.verify()
    assert game.outcome is not None and game.outcome.winners == (1,)
    assert record.names == ["Ann", "Bob"] and record.sizes == (5, 6)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 70) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


@settings(max_examples=150)
@given(st.data(), json_values)
def test_any_damaged_record_is_refused_with_a_record_error(data: st.DataObject, value: Any) -> None:
    record = GameRecord.from_game(played_game(7), ["A", "B"]).to_dict()
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
