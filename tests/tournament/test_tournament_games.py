"""A tournament of any registered game: the tests' own High Card (registered in-process, as
tests/server/test_generic_room.py does), kept in the tournament's file and read back; the
refusals of a game not registered, of one whose player range seats no match, and of a handicap
in a game without deal rules; ``blink tournament new --game`` and ``bots --game``."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from highcard import HIGH_CARD, HIGH_CARD_GAME
from typer.testing import CliRunner

from blink.cards import STANDARD_DECK
from blink.cli import app
from blink.model.game import Game
from blink.model.registry import DEFAULT_GAME, register, unregister
from blink.tournament import Entrant, GameError, ResultError, Tournament
from blink.tournament.organiser import create, load, update
from blink.tournament.playing import MATCH_PLAYERS, deal_rules

runner = CliRunner()


@pytest.fixture
def high_card() -> Iterator[None]:
    """High Card registered, with its live table, for the test."""
    register(HIGH_CARD_GAME)
    yield
    unregister(HIGH_CARD.info.name)


def _seating(name: str, low: int, high: int) -> Iterator[Game]:
    """A game of High Card's rules under another name, seating ``low`` to ``high`` players."""
    info = dataclasses.replace(HIGH_CARD.info, name=name, min_players=low, max_players=high)
    made = Game(name, SimpleNamespace(info=info), titles={"en": name.title()})  # type: ignore[arg-type]
    register(made)
    try:
        yield made
    finally:
        unregister(name)


@pytest.fixture
def trio() -> Iterator[Game]:
    """A game for three to four players: no two-player match."""
    yield from _seating("trio", 3, 4)


@pytest.fixture
def duel() -> Iterator[Game]:
    """A game for two players only: no three-player play-off."""
    yield from _seating("duel", 2, 2)


def _play_out(t: Tournament) -> None:
    while not t.finished:
        m = t.ready_matches()[0]
        t.record_game(m.id, m.players[0] or "")


def test_a_tournament_is_of_the_default_game_unless_named() -> None:
    t = Tournament.create(["Ann", "Bo", "Cy"])
    assert t.game == DEFAULT_GAME
    data = t.to_dict()
    assert data["game"] == DEFAULT_GAME and data["version"] == 2  # older blink reads it
    older = {k: v for k, v in data.items() if k != "game"}  # a file from before games
    assert Tournament.from_dict(older).game == DEFAULT_GAME


def test_a_high_card_tournament_round_trips_through_its_file(
    high_card: None, tmp_path: Path
) -> None:
    f = tmp_path / "hc.json"
    names = ("Ann", "Bo", "Cy", "Di", "Ed")
    t = create(f, [Entrant(n) for n in names[:2]], "Cards night", game="highcard")
    assert t.game == "highcard"
    update(f, lambda t: [t.add_player(n) for n in names[2:]])
    update(f, lambda t: t.draw(seed=3))
    stored = json.loads(f.read_text())
    assert stored["game"] == "highcard" and stored["version"] == 3
    update(f, _play_out)
    back = load(f)
    assert back.game == "highcard" and back.finished and back.champion is not None
    assert back.to_dict() == json.loads(f.read_text())
    assert back.copy().game == "highcard"


def test_a_game_that_is_not_registered_is_refused_in_words() -> None:
    with pytest.raises(GameError, match=r"unknown game 'nope'; choose one of: classic") as e:
        Tournament.create(["Ann", "Bo"], game="nope")
    assert e.value.code == "unknown-game"
    data = Tournament.create(["Ann", "Bo"]).to_dict()
    with pytest.raises(GameError) as e:
        Tournament.from_dict({**data, "game": "nope", "version": 3})
    assert e.value.code == "unknown-game"


def test_a_game_that_seats_no_match_is_refused(trio: Game) -> None:
    with pytest.raises(GameError) as e:
        Tournament.create(["Ann", "Bo", "Cy"], game="trio")
    assert e.value.code == "match-size"
    assert str(e.value) == (
        f"Trio is played by 3 to 4 players, and a tournament's matches are of {MATCH_PLAYERS}"
    )


def test_a_two_player_game_draws_no_field_that_may_need_a_three_player_play_off(
    duel: Game,
) -> None:
    three = Tournament.create(["Ann", "Bo", "Cy"], game="duel")
    with pytest.raises(GameError, match="play-off is a 3-player game") as e:
        three.draw(seed=1)
    assert e.value.code == "match-size" and not three.drawn
    four = Tournament.create(["Ann", "Bo", "Cy", "Di"], game="duel")
    four.draw(seed=1)
    _play_out(four)
    assert four.finished


def test_a_handicap_in_a_game_without_deal_rules_is_refused(high_card: None) -> None:
    t = Tournament.create(["Ann", "Bo"], game="highcard")
    t.draw(seed=1)
    with pytest.raises(GameError, match="has no deal rules") as e:
        t.set_handicap("F1-2", {"Ann": 2, "Bo": 1})
    assert e.value.code == "no-deals"
    assert t.set_handicap("F1-2", None).handicap is None  # an equal deal is every game's


def test_the_deck_size_of_a_handicap_is_the_games() -> None:
    deals = deal_rules(DEFAULT_GAME)
    assert deals.deck_size == len(STANDARD_DECK)
    t = Tournament.create(["Ann", "Bo"])
    t.draw(seed=1)
    half = deals.deck_size // 2
    assert t.set_handicap("F1-2", {"Ann": half + 5, "Bo": half - 5}).handicap is not None
    with pytest.raises(ResultError, match="F1-2: ") as e:
        t.set_handicap("F1-2", {"Ann": half + 5, "Bo": half})  # more than the deck
    assert e.value.code == "bad-handicap"


def test_blink_tournament_new_takes_a_game(high_card: None, tmp_path: Path) -> None:
    f = tmp_path / "t.json"
    r = runner.invoke(app, ["tournament", "new", str(f), "-p", "Ann", "-p", "Bo", "--game", "nope"])
    assert r.exit_code == 2 and not f.exists()
    assert r.stderr.strip().startswith("Error: unknown game 'nope'") and "Traceback" not in r.output
    r = runner.invoke(
        app, ["tournament", "new", str(f), "-p", "Ann", "-p", "Bo", "--game", "highcard"]
    )
    assert r.exit_code == 0, r.output
    assert load(f).game == "highcard"
    r = runner.invoke(app, ["tournament", "draw", str(f), "--seed", "2"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["tournament", "handicap", str(f), "-m", "F1-2", "--sizes", "2:1"])
    assert r.exit_code == 2 and "has no deal rules" in r.stderr


def test_blink_tournament_bots_takes_a_game(high_card: None) -> None:
    r = runner.invoke(app, ["tournament", "bots", "--field", "4", "--game", "nope", "--json"])
    assert r.exit_code == 2 and r.stderr.strip().startswith("Error: unknown game 'nope'")
    r = runner.invoke(app, ["tournament", "bots", "--field", "4", "--game", "highcard"])
    assert r.exit_code == 2
    assert r.stderr.strip() == "Error: the game 'highcard' has no bots for a tournament of bots"
