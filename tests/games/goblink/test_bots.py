"""Go Blink bots: legal, deterministic, view-only, and the remembering bot's memory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import blink
from blink.cards import Color
from blink.games.goblink.bots import (
    GOBOTS,
    GoBotError,
    GoBotKind,
    GreedyBot,
    MemoryBot,
    RandomBot,
    get_gobot_kind,
    make_gobot,
    winning_partition,
)
from blink.games.goblink.engine import Ask, EndTurn, GoGame, LayDown, Phase, match_value
from blink.games.goblink.record import GoRecord

from .helpers import cards, deal, skip_opening


def play(names: list[str], seed: int) -> GoGame:
    game = GoGame.new(len(names), seed=seed, dealer=seed % len(names), turn_limit=500)
    bots = [make_gobot(n, s, seed * 7 + s) for s, n in enumerate(names)]
    while not game.over:
        seat = game.current
        assert seat is not None
        view = game.view(seat)
        action = bots[seat].act(view)
        assert action.player == seat
        game.apply(action)  # raises if a bot ever chose an illegal action
    return game


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_bot_plays_only_legal_actions(players: int) -> None:
    names = [list(GOBOTS)[s % 3] for s in range(players)]
    for seed in range(6):
        game = play(names, seed)
        assert game.outcome is not None


def test_bots_are_deterministic_per_seed() -> None:
    a = GoRecord.from_game(play(["memory", "greedy", "random"], 3)).to_dict()
    b = GoRecord.from_game(play(["memory", "greedy", "random"], 3)).to_dict()
    assert a == b


def test_unknown_bot_names() -> None:
    with pytest.raises(GoBotError) as info:
        make_gobot("genius", 0)
    assert "memory" in info.value.allowed
    assert make_gobot("Remembering", 1).name == "memory"
    for name in ("genius", "", "flexible"):
        with pytest.raises(GoBotError) as info:
            get_gobot_kind(name)
        assert info.value.allowed == tuple(GOBOTS)
        assert "random, greedy, memory, master" in str(info.value)


def test_the_registry_of_bot_kinds() -> None:
    from blink.games.goblink.fast.master_bot import MasterBot

    assert list(GOBOTS) == ["random", "greedy", "memory", "master"]
    classes: dict[str, type] = {
        "random": RandomBot,
        "greedy": GreedyBot,
        "memory": MemoryBot,
        "master": MasterBot,
    }
    for name, kind in GOBOTS.items():
        assert isinstance(kind, GoBotKind)
        assert kind.description and "\n" not in kind.description
        assert kind.description == kind.cls.description == classes[name].description
        assert kind.name == name == kind.cls.name
        assert kind.rating == kind.cls.rating and 15 < kind.rating < 35
        for alias in (name, name.upper(), f" {name} ", *kind.aliases):
            assert get_gobot_kind(alias) is kind
        bot = kind.make(1, 9)
        assert isinstance(bot, classes[name]) and bot.name == name and bot.seat == 1
    assert get_gobot_kind("rand") is GOBOTS["random"]
    assert GOBOTS["master"].display_name == "Master bot"
    with pytest.raises(TypeError):
        GOBOTS["genius"] = GOBOTS["random"]  # type: ignore[index]


def test_importing_the_bots_and_their_front_ends_does_not_load_numba() -> None:
    """The master bot's class (its module loads numba) is imported when one is made: the
    bots, the terminal and the server list it without loading numba."""
    modules = [
        "blink.cli",
        "blink.games.goblink.bots",
        "blink.games.goblink.cli",
        "blink.games.goblink.simulate_cli",
        "blink.games.goblink.table",
        "blink.games.goblink.tui.driver",
        "blink.server.app",
    ]
    code = (
        f"import importlib, sys\nfor m in {modules!r}: importlib.import_module(m)\n"
        "from blink.games.goblink.bots import GOBOTS\n"
        "assert 'master' in GOBOTS\n"
        "print('numba' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(blink.__file__).parents[1])}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False", out.stderr


def test_the_master_bot_is_made_by_name() -> None:
    from blink.games.goblink.fast.master_bot import MasterBot

    bot = make_gobot("Master", 2, 5)
    assert isinstance(bot, MasterBot) and bot.name == "master" and bot.seat == 2


def test_winning_partition() -> None:
    plan = winning_partition(cards("1RS 2RS 4RS 1BM 2BM 3RM"))
    assert plan is not None and sum(len(m) for m in plan) == 6
    assert all(match_value(m) is not None for m in plan)
    assert winning_partition(cards("1RS 2RS 4RS 1BM")) is None
    assert winning_partition(()) == []


def test_greedy_asks_for_what_it_holds_most_and_lays_the_biggest_match() -> None:
    game = deal(["1RS 2RM 3RW 4GF", "5RF 1BM 2BL 3YF"], draw="4YL", rest=True, dealer=1)
    skip_opening(game)
    bot = GreedyBot(0, seed=1)
    action = bot.act(game.view(0))
    assert action == Ask(0, 1, Color.RED)
    game.apply(action)
    lay = bot.act(game.view(0))
    assert isinstance(lay, LayDown) and set(lay.cards) == set(cards("1RS 2RM 3RW 5RF"))


def test_memory_bot_asks_for_what_it_knows_an_opponent_holds() -> None:
    # Seat 1 asks seat 0 for greens and receives 4GF: seat 0 (memory) now knows seat 1 holds
    # at least two greens, and asks seat 1 for green when it gets a green back.
    game = deal(
        ["1RS 2RM 3BW 4GF", "5RS 1GM 2BL 3YF", "1YW 2YW 3PW 4PL"],
        draw="5GP 5GW",
        rest=True,
        dealer=2,
    )
    skip_opening(game)
    game.apply(Ask(0, 2, 4))  # seat 0 receives 4PL
    game.apply(EndTurn(0))
    game.apply(Ask(1, 0, Color.GREEN))  # seat 1 receives 4GF
    game.apply(EndTurn(1))
    game.apply(Ask(2, 0, 3))  # seat 2 receives 3BW
    game.apply(EndTurn(2))
    bot = MemoryBot(0, seed=0)
    bot.EXPLORE = 0.0
    view = game.view(0)
    action = bot.act(view)
    assert isinstance(action, Ask)
    assert bot.memory is not None
    assert cards("4GF")[0] in bot.memory.known[1]
    assert bot.memory.at_least[1][Color.GREEN] >= 2
    assert bot.memory.at_least[2][3] >= 2


def test_memory_bot_wins_when_every_card_fits() -> None:
    game = deal(["1RS 2RS 1BM 2BM", "3RM 4RS 5YF 4YP"], draw="1GL", rest=True, dealer=1)
    skip_opening(game)
    game.apply(Ask(0, 1, Color.RED))
    bot = MemoryBot(0, seed=0)
    while not game.over:
        game.apply(bot.act(game.view(0)))
    assert game.outcome is not None and game.outcome.winners == (0,)


def test_memory_bot_keeps_a_card_that_holds_a_pair() -> None:
    # Four reds, one of them (1RS) paired with 1BS: laying three reds keeps the star pair.
    game = deal(["1RS 2RM 3RW 1BS", "4RF 5GM 2GL 3YF"], draw="4YL", rest=True, dealer=1)
    skip_opening(game)
    game.apply(Ask(0, 1, Color.RED))  # receives 4RF
    bot = MemoryBot(0, seed=0)
    bot.PAIR_WORTH = 1.5
    action = bot.act(game.view(0))
    assert isinstance(action, LayDown)
    assert set(action.cards) == set(cards("2RM 3RW 4RF"))


def test_memory_beats_greedy_with_four_players() -> None:
    wins = {"memory": 0, "greedy": 0}
    names = ["memory", "greedy", "memory", "greedy"]
    for seed in range(120):
        game = play(names, seed)
        assert game.outcome is not None
        if game.outcome.winner is not None:
            wins[names[game.outcome.winner]] += 1
    assert wins["memory"] > wins["greedy"]


def test_bots_act_in_the_opening_without_emptying_their_hand() -> None:
    # Standard cards: the master bot's search knows the standard deck only.
    game = deal(["1RS 1BM 1BW 1YF", "2BS 3BF 4GS 5GF"], rest=True, dealer=1)
    for name in GOBOTS:
        bot = make_gobot(name, 0, 5)
        action = bot.act(game.view(0))
        assert isinstance(action, LayDown | EndTurn)
        if isinstance(action, LayDown):
            assert len(action.cards) == 3
    assert game.phase is Phase.OPENING
