"""The command line reads the registries: help texts list every level, strategy, Go Blink bot
and player range in the registries' order (reading as they always did), and a random
tournament field keeps out the levels not meant for tournaments."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import Any

import pytest
import typer.main

import blink.games.classic.bots as classic_bots
from blink.cli import app
from blink.cli.listing import in_words, marked, or_list
from blink.cli.tournament import random_field
from blink.games.classic.bots import DEFAULT_LEVEL, DEFAULT_STRATEGY, LEVELS, STRATEGIES
from blink.games.goblink.bots import GOBOTS
from blink.model.registry import get_game


def option_help(path: list[str], option: str) -> str:
    """The help text of ``option`` of the command at ``path`` (``["goblink", "play"]``)."""
    command: Any = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    for param in command.params:
        if option in getattr(param, "opts", ()):
            return str(getattr(param, "help", ""))
    raise AssertionError(f"no {option} in {' '.join(path)}")


def test_play_help_lists_every_level_and_strategy() -> None:
    level_help = option_help(["play"], "--level")
    strategy_help = option_help(["play"], "--strategy")
    assert level_help == f"Bot level: {marked(LEVELS, DEFAULT_LEVEL)}."
    assert strategy_help == f"Bot strategy: {marked(STRATEGIES, DEFAULT_STRATEGY)}."
    for name in LEVELS:
        assert name in level_help
    for name in STRATEGIES:
        assert name in strategy_help
    # Today's registries: the texts read exactly as they always have.
    assert level_help == (
        "Bot level: beginner, casual, skilled (default), expert, champion, trained, inhuman."
    )
    assert strategy_help == "Bot strategy: random, first (default), blocker, flexible."
    assert option_help(["play"], "--players") == "2 or 3 (3: you and two bots)."


def test_simulate_help_lists_every_level_and_strategy() -> None:
    for path in (["simulate"], ["simulate", "sweep"]):
        text = option_help(path, "--bot")
        assert f"levels: {', '.join(LEVELS)};" in text
        assert f"strategies: {', '.join(STRATEGIES)};" in text
    assert (
        "(levels: beginner, casual, skilled, expert, champion, trained, inhuman; strategies: "
        "random, "
        "first, blocker, flexible; @F" in option_help(["simulate"], "--bot")
    )
    assert option_help(["simulate"], "--players") == "2 or 3 (default: the number of --bot)."


def test_goblink_help_lists_every_bot() -> None:
    assert option_help(["goblink", "play"], "--bot") == (
        f"Bot seats: {or_list(GOBOTS)} (repeat, cycled)."
    )
    assert option_help(["goblink", "simulate"], "--bot") == (
        "random, greedy, memory or master per seat (repeat, cycled)."
    )
    go = get_game("goblink").info
    assert option_help(["goblink", "play"], "--players") == f"{go.player_range} players."


def test_listing_helpers() -> None:
    assert or_list(["a"]) == "a" and or_list(["a", "b", "c"]) == "a, b or c"
    assert marked(["a", "b"], "b") == "a, b (default)"
    assert in_words(2) == "two" and in_words(12) == "12"


def test_random_field_keeps_out_levels_not_for_tournaments(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert not LEVELS["inhuman"].tournaments
    assert all(p.spec.level != "inhuman" for p in random_field(64, 3))
    # Mark another level as not for tournaments: it is left out too, with no change elsewhere.
    # (A trained policy's level stays out: it takes no strategy, and the fast engine does not
    # play it.)
    shy = {
        name: replace(lv, tournaments=name != "expert" and not lv.policy)
        for name, lv in LEVELS.items()
    }
    monkeypatch.setattr(classic_bots, "LEVELS", MappingProxyType(shy))
    levels = {p.spec.level for seed in range(5) for p in random_field(64, seed)}
    assert "expert" not in levels and "inhuman" in levels
