"""``GET /api/options`` lists exactly what the registries hold, so that a new level, strategy or
Go Blink bot reaches the browser without a change to the server."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from types import MappingProxyType
from typing import Any

import pytest
from srvkit import ServerThread

import blink.games.classic.bots as classic_bots
import blink.games.goblink.bots as go_bots
from blink.games.classic.bots import (
    DEFAULT_LEVEL,
    DEFAULT_STRATEGY,
    LEVELS,
    STRATEGIES,
    Strategy,
    register_strategy,
    unregister_strategy,
)
from blink.games.goblink.bots import DEFAULT_GOBOT, GOBOTS
from blink.model.registry import game as registered
from blink.model.registry import get_game


def named(items: Any) -> list[dict[str, str]]:
    return [{"name": x.name, "description": x.description} for x in items]


def test_options_are_the_registries(server: ServerThread) -> None:
    opts = server.get("/api/options").json()
    classic, go = get_game("classic").info, get_game("goblink").info
    assert opts["bot_levels"] == list(LEVELS)
    # The trained policy shipped in the package is a level like the others.
    assert opts["bot_levels"][-2:] == ["trained", "inhuman"]
    assert opts["bot_strategies"] == list(STRATEGIES)
    assert opts["goblink_bots"] == list(GOBOTS)
    assert opts["games"] == ["classic", "goblink"]
    assert opts["players"] == list(range(classic.min_players, classic.max_players + 1))
    assert opts["goblink_players"] == list(range(go.min_players, go.max_players + 1))
    info = opts["game_info"]
    assert list(info) == opts["games"]
    for name in opts["games"]:
        game = get_game(name).info
        assert info[name]["name"] == game.name and info[name]["title"] == game.title
        assert info[name]["min_players"] == game.min_players
        assert info[name]["max_players"] == game.max_players
        assert info[name]["default_players"] == game.default_players
        assert info[name]["titles"] == dict(registered(name).titles)
        assert info[name]["study"] is True  # both games have one (the replay viewer asks)
        # The piles each seat reaches, by player count: the rules', which the browser draws.
        rules = get_game(name)
        assert info[name]["reach"] == {
            str(n): [list(rules.reach(n, seat)) for seat in range(n)]
            for n in range(game.min_players, game.max_players + 1)
        }
    assert info["classic"]["levels"] == named(LEVELS.values())
    assert info["classic"]["strategies"] == named(STRATEGIES.values())
    assert info["classic"]["default_level"] == DEFAULT_LEVEL
    assert info["classic"]["default_strategy"] == DEFAULT_STRATEGY
    assert info["goblink"]["bots"] == named(GOBOTS.values())
    assert info["goblink"]["default_bot"] == DEFAULT_GOBOT


class _Shy(Strategy):
    """A strategy only this test knows."""

    name = "shy"
    description = "plays the last match it finds"
    exhaustive = True

    def pick_play(self, options: Any, know: Any, rng: random.Random) -> Any:
        return options[-1]

    def pick_choice(self, hand: Any, know: Any, rng: random.Random) -> Any:
        return hand[-1]


@pytest.fixture
def new_entries(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A new level, strategy and Go Blink bot in the registries, for one test."""
    level = replace(LEVELS["expert"], name="grandmaster", description="beyond the club")
    monkeypatch.setattr(classic_bots, "LEVELS", MappingProxyType({**LEVELS, level.name: level}))
    kind = replace(GOBOTS["memory"], name="oracle", description="asks as if it saw the hands")
    monkeypatch.setattr(go_bots, "GOBOTS", MappingProxyType({**GOBOTS, kind.name: kind}))
    register_strategy(_Shy())
    try:
        yield
    finally:
        unregister_strategy("shy")


def test_a_new_level_strategy_and_bot_are_listed(server: ServerThread, new_entries: None) -> None:
    opts = server.get("/api/options").json()
    info = opts["game_info"]
    assert opts["bot_levels"][-1] == "grandmaster"
    assert info["classic"]["levels"][-1] == {
        "name": "grandmaster",
        "description": "beyond the club",
    }
    assert opts["bot_strategies"][-1] == "shy"
    assert info["classic"]["strategies"][-1] == {
        "name": "shy",
        "description": "plays the last match it finds",
    }
    assert opts["goblink_bots"][-1] == "oracle"
    assert info["goblink"]["bots"][-1] == {
        "name": "oracle",
        "description": "asks as if it saw the hands",
    }
