"""Records written by earlier versions still load, replay and verify to the same game.

The expected values below were read off the games by the version that wrote the files (see
tests/fixtures/records/README.md), not computed by the code under test. ``state`` is a digest of
the final position (every hand, draw pile and center pile, or the Go Blink discard), see
:func:`state_digest`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from blink.games.classic.engine import ClassicGame, Phase
from blink.games.classic.record import GameRecord, loads
from blink.games.classic.rules import DEAD_END, DeadEnd
from blink.games.goblink.engine import GoGame
from blink.games.goblink.record import GoRecord
from blink.model.records import SeriesRecord, load

V1 = Path(__file__).parent / "fixtures" / "records" / "v1"


def state_digest(game: ClassicGame | GoGame) -> str:
    """A short digest of a final position, from the engines' public reading methods."""
    parts: list[list[str]]
    if isinstance(game, ClassicGame):
        parts = [
            [str(c) for c in game.hand(p)] + ["|"] + [str(c) for c in game.draw_pile(p)]
            for p in range(game.players)
        ]
        parts += [[str(c) for c in game.pile(i)] for i in range(game.players)]
    else:
        parts = [[str(c) for c in game.hand(p)] for p in range(game.players)]
        parts += [[str(c) for c in game.draw_pile()]]
        parts += [[str(p)] + [str(c) for c in cards] for p, cards in game.discard()]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


class Classic(NamedTuple):
    """What a classic fixture replays to."""

    players: int
    ruleset: str
    sizes: tuple[int, ...]
    winners: tuple[int, ...] | None
    reason: str | None
    plays: int
    stalls: int
    actions: int
    flips_chooses: tuple[int, int]
    cards_left: tuple[int, ...]
    tops: tuple[str, ...]
    state: str


CLASSIC = {
    "classic-2p-custom-ruleset": Classic(
        2, "house", (30, 30), (0,), "out_of_cards", 57, 0, 58, (0, 0), (0, 1),
        ("2YM", "4PP"), "e27508aaeadb25ae",
    ),
    "classic-2p-dead-end-flip-fewest-cards": Classic(
        2, "dead-end", (30, 30), (0,), "fewest_cards", 53, 2, 55, (1, 0), (1, 2),
        ("5PM", "3BP"), "196580253596ac56",
    ),
    "classic-2p-dead-end-draw-pile-left": Classic(
        2, "dead-end", (30, 30), (0,), "fewest_cards", 46, 1, 47, (0, 0), (1, 11),
        ("1GL", "3GW"), "39fa3524bd19ad48",
    ),
    "classic-2p-dead-end-handicap-35-25": Classic(
        2, "dead-end", (35, 25), (0,), "out_of_cards", 55, 0, 56, (0, 0), (0, 3),
        ("3YL", "4YP"), "2874a96e71bc96d7",
    ),
    "classic-2p-official-flip-choose-stall-placement": Classic(
        2, "official", (30, 30), (0,), "stall_placement", 53, 2, 57, (1, 2), (0, 1),
        ("2RF", "1RL"), "c1996090272c3f2f",
    ),
    "classic-2p-official-out-of-cards": Classic(
        2, "official", (30, 30), (1,), "out_of_cards", 56, 0, 57, (0, 0), (2, 0),
        ("3YL", "5PM"), "49cb7b8eb1591413",
    ),
    "classic-2p-official-small-deck-choose": Classic(
        2, "official", (4, 4), (0,), "out_of_cards", 3, 1, 6, (0, 2), (0, 1),
        ("3PL", "1GL"), "62270a1f38ca0af2",
    ),
    "classic-2p-official-stall-placement-tie": Classic(
        2, "official", (30, 30), (0, 1), "stall_placement", 56, 1, 59, (0, 2), (0, 0),
        ("3RW", "3GM"), "ba77508366403212",
    ),
    "classic-2p-server-stored": Classic(
        2, "official", (30, 30), (0,), "out_of_cards", 45, 0, 46, (0, 0), (0, 13),
        ("2YM", "5BS"), "c67e9cd32f61ca48",
    ),
    "classic-2p-unfinished": Classic(
        2, "official", (30, 30), None, None, 2, 0, 3, (0, 0), (27, 29),
        ("4PF", "2BL"), "50835697e95fd9b6",
    ),
    "classic-3p-dead-end-fewest-cards": Classic(
        3, "dead-end", (5, 5, 5), (0,), "fewest_cards", 7, 1, 8, (0, 0), (1, 2, 2),
        ("2RF", "4PF", "2GP"), "58c6a0eb7287a419",
    ),
    "classic-3p-dead-end-draw-pile-left-tie": Classic(
        3, "dead-end", (20, 20, 20), (0, 1), "fewest_cards", 43, 1, 44, (0, 0), (1, 1, 12),
        ("4YP", "2PM", "4GS"), "11108bd451f1a3b1",
    ),
    "classic-3p-official-flip": Classic(
        3, "official", (20, 20, 20), (1,), "out_of_cards", 46, 1, 48, (1, 0), (4, 0, 4),
        ("5BS", "1GL", "5PM"), "53de09dc27e64369",
    ),
    "classic-3p-official-stall-placement-tie": Classic(
        3, "official", (5, 5, 5), (0, 2), "stall_placement", 8, 1, 12, (0, 3), (0, 1, 0),
        ("2OS", "5BS", "5OL"), "4f12ef7e7c03b605",
    ),
    "classic-3p-sim-handicap-24-18-14": Classic(
        3, "official", (24, 18, 14), (2,), "out_of_cards", 32, 0, 33, (0, 0), (11, 10, 0),
        ("4YP", "3GM", "4GL"), "e04cda3e27ce70c2",
    ),
    "classic-minimal": Classic(
        2, "official", (4, 5), (0,), "out_of_cards", 3, 0, 4, (0, 0), (0, 4),
        ("1BF", "2OP"), "193cb8c15046ee6f",
    ),
}  # fmt: skip


class Go(NamedTuple):
    """What a Go Blink fixture replays to."""

    players: int
    winners: tuple[int, ...] | None
    reason: str | None
    turns: int
    asks: int
    actions: int
    matches: int
    hands: tuple[int, ...]
    draw: int
    state: str


GO = {
    "goblink-2p-blunk": Go(2, (0,), "blunk", 8, 8, 20, 3, (0, 4), 47, "8dc1db0fd790cace"),
    "goblink-2p-fewest-cards": Go(
        2, (0, 1), "fewest_cards", 64, 64, 130, 0, (30, 30), 0, "912c68a9f8889251"
    ),
    "goblink-2p-turn-limit-tie": Go(
        2, (0, 1), "turn_limit", 40, 40, 90, 8, (3, 3), 30, "c412c519fd9028ee"
    ),
    "goblink-3p-server-stored": Go(
        3, (1,), "blunk", 16, 16, 40, 6, (3, 0, 1), 38, "b58da69e0a1dffa7"
    ),
    "goblink-3p-unfinished": Go(3, None, None, 2, 1, 5, 0, (5, 4, 4), 47, "f14e77e6bd7ac66e"),
    "goblink-6p-blunk": Go(
        6, (5,), "blunk", 1, 1, 11, 4, (1, 1, 4, 4, 2, 0), 36, "9725b153d8eb402d"
    ),
    "goblink-6p-sim-fewest-cards": Go(
        6, (2,), "fewest_cards", 66, 66, 151, 13, (3, 6, 2, 3, 4, 3), 0, "ab8aaaf33c5ca3d0"
    ),
    "goblink-6p-turn-limit-tie": Go(
        6, (0, 3), "turn_limit", 40, 40, 96, 10, (2, 4, 4, 2, 3, 3), 12, "b3338b4ee7ebc190"
    ),
    "goblink-minimal": Go(2, None, None, 1, 0, 2, 0, (4, 4), 52, "e920b8ccbd4781ff"),
}


class SeriesFixture(NamedTuple):
    """What a series fixture replays to: its games' outcomes and digests, the score."""

    best_of: int
    games: tuple[tuple[tuple[int, ...], str, str], ...]
    score: tuple[int, ...]
    ties: int
    winner: int | None


SERIES = {
    "classic-series-best-of-5-unfinished": SeriesFixture(
        5,
        (
            ((1,), "out_of_cards", "49cb7b8eb1591413"),
            ((0, 1), "stall_placement", "ba77508366403212"),
            ((0,), "out_of_cards", "568e7103423b449b"),
        ),
        (1, 1),
        1,
        None,
    ),
    "classic-series-sim-best-of-3-dead-end-30-22": SeriesFixture(
        3,
        (
            ((0,), "out_of_cards", "0e435d1547a08c63"),
            ((0,), "out_of_cards", "bd4e743e1ff1eb05"),
        ),
        (2, 0),
        0,
        0,
    ),
}

GO_SERIES_SERVER = SeriesFixture(
    3,
    (((1,), "blunk", "b58da69e0a1dffa7"), ((2,), "blunk", "708543aea122b479")),
    (0, 1, 1),
    0,
    None,
)
"""The server's Go Blink series document (no ``format``): not read by the loaders of 8ab721a,
read since the shared record module."""

MINIMAL = {"classic-minimal", "goblink-minimal"}
"""Written by hand: a loader normalises them, so they do not come back out the same."""


def read(name: str) -> dict[str, Any]:
    """A fixture's JSON."""
    data: dict[str, Any] = json.loads((V1 / f"{name}.json").read_text(encoding="utf-8"))
    return data


def written_again(record: GameRecord | GoRecord | SeriesRecord, text: str) -> bool:
    """The record written by today's code is the file, byte for byte (in one of the indents
    the writers of the time used)."""
    return text.removesuffix("\n") in {record.to_json(indent=i) for i in (None, 1, 2)}


def test_every_fixture_is_listed() -> None:
    names = {p.stem for p in V1.glob("*.json")}
    assert names == {*CLASSIC, *GO, *SERIES, "goblink-series-server"}


@pytest.mark.parametrize("name", sorted(CLASSIC))
def test_classic_fixtures(name: str) -> None:
    want = CLASSIC[name]
    text = (V1 / f"{name}.json").read_text(encoding="utf-8")
    record = load(json.loads(text))
    assert isinstance(record, GameRecord)
    assert loads(text) == record  # the classic entry point of the time
    game = record.verify()
    outcome = game.outcome
    kinds = [type(a).__name__ for a, _t in record.actions]
    got = Classic(
        game.players,
        game.ruleset.name,
        game.sizes,
        None if outcome is None else outcome.winners,
        None if outcome is None else outcome.reason,
        game.plays,
        game.stalls,
        len(record.actions),
        (kinds.count("Flip"), kinds.count("Choose")),
        tuple(game.cards_left(p) for p in range(game.players)),
        tuple(str(game.top(i)) for i in range(game.players)),
        state_digest(game),
    )
    assert got == want
    if name not in MINIMAL:
        assert written_again(record, text)
    assert load(json.loads(record.to_json())).to_dict() == record.to_dict()


EARLIER_DEAD_END = ("classic-2p-dead-end-draw-pile-left", "classic-3p-dead-end-draw-pile-left-tie")
"""Written at c465344, under the earlier dead-end ruling: a dead end while a draw pile was left."""


@pytest.mark.parametrize("name", EARLIER_DEAD_END)
def test_records_of_the_earlier_dead_end_ruling_keep_it(name: str) -> None:
    """Today's ``dead-end`` would play these games on (the official choose branch), so the
    record's own ``dead_end`` value, not the ruleset's name, decides how it replays."""
    record = load(read(name))
    assert isinstance(record, GameRecord)
    assert record.ruleset.dead_end is DeadEnd.FEWEST_CARDS_ANY_EMPTY
    assert record.ruleset.to_dict()["dead_end"] == "fewest-cards"
    assert any(record.verify().draw_counts)
    today = ClassicGame(record.deck, record.players, DEAD_END, record.sizes)
    for action, t in record.actions:
        today.apply(action, t)
    assert today.outcome is None and today.phase is Phase.CHOOSING


@pytest.mark.parametrize("name", sorted(GO))
def test_go_fixtures(name: str) -> None:
    want = GO[name]
    data = read(name)
    record = load(data)
    assert isinstance(record, GoRecord)
    assert GoRecord.from_dict(data) == record  # the Go Blink entry point of the time
    game = record.verify()
    outcome = game.outcome
    got = Go(
        game.players,
        None if outcome is None else outcome.winners,
        None if outcome is None else outcome.reason,
        game.turns,
        game.asks,
        len(record.actions),
        len(game.discard()),
        tuple(len(game.hand(p)) for p in range(game.players)),
        len(game.draw_pile()),
        state_digest(game),
    )
    assert got == want
    if name not in MINIMAL:
        assert written_again(record, (V1 / f"{name}.json").read_text(encoding="utf-8"))
    assert load(json.loads(record.to_json())).to_dict() == record.to_dict()


def series_outcome(record: SeriesRecord) -> SeriesFixture:
    """What a series record replays to, in the shape of the expected values."""
    games = record.verify()
    series = record.series_from(games)
    return SeriesFixture(
        record.best_of,
        tuple(
            (g.outcome.winners, g.outcome.reason, state_digest(g))
            for g in games
            if g.outcome is not None
        ),
        series.score,
        series.ties,
        series.winner,
    )


@pytest.mark.parametrize("name", sorted(SERIES))
def test_series_fixtures(name: str) -> None:
    text = (V1 / f"{name}.json").read_text(encoding="utf-8")
    record = load(json.loads(text))
    assert isinstance(record, SeriesRecord)
    assert all(isinstance(g, GameRecord) for g in record.games)
    assert loads(text) == record
    assert series_outcome(record) == SERIES[name]
    assert written_again(record, text)


def test_the_servers_go_series_document() -> None:
    data = read("goblink-series-server")
    record = load(data)
    assert isinstance(record, SeriesRecord)
    assert all(isinstance(g, GoRecord) for g in record.games)
    assert series_outcome(record) == GO_SERIES_SERVER
    assert record.meta == data["meta"]
    assert [g.to_dict() for g in record.games] == data["games"]
    # Written again, it is a blink-series like any other, and reads back the same.
    again = record.to_dict()
    assert again["format"] == "blink-series" and again["version"] == 1
    assert load(json.loads(json.dumps(again))) == record
