"""The Go Blink terminal game, driven through Textual's pilot: against bots, and hotseat."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, RichLog, Static

from blink.games.goblink.bots import GreedyBot
from blink.games.goblink.engine import GoAction, GoView, Phase
from blink.games.goblink.tui.app import GoBlinkApp, PassScreen, _command_for
from blink.games.goblink.tui.driver import (
    CommandError,
    GoTable,
    count_of,
    hand_letter,
    winners_text,
)
from blink.tui.i18n import card_name, set_language
from blink.tui.screens import QuitScreen

from .helpers import run_with_a_stuck_bot


async def wait_for(pilot: Pilot[None], cond: Callable[[], bool], timeout: float = 30.0) -> None:
    """Wait (in real time, generously) until ``cond()`` holds."""
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "condition not met in time"
        await pilot.pause(0.01)
    await pilot.pause()


def command(table: GoTable, seat: int, action: GoAction) -> str:
    return _command_for(action, table, seat).split("  (")[0]


async def type_command(pilot: Pilot[None], app: GoBlinkApp, text: str) -> None:
    box = app.query_one("#command", Input)
    box.focus()
    box.value = text
    await pilot.press("enter")
    await pilot.pause()


def shown(app: GoBlinkApp, widget: str) -> str:
    return str(app.query_one(widget, Static).render())


async def test_a_whole_game_against_bots() -> None:
    table = GoTable(players=3, humans=(0,), bots=("greedy", "memory"), seed=12)
    app = GoBlinkApp(table, bot_delay=0)
    async with app.run_test(size=(120, 50)) as pilot:
        game = table.game
        # A wrong command shows why and changes nothing.
        await wait_for(pilot, lambda: game.over or game.current == 0)
        before = game.snapshot()
        await type_command(pilot, app, "ask 1 red")
        assert game.snapshot() == before
        assert "[!]" in shown(app, "#prompt")
        await type_command(pilot, app, "help")
        assert "Commands" in shown(app, "#prompt")
        for _ in range(400):
            await wait_for(pilot, lambda: game.over or game.current == 0)
            if game.over:
                break
            hand = game.hand(0)
            assert all(card_name(c) in flat(shown(app, "#hand")) for c in hand)
            await type_command(pilot, app, command(table, 0, table.hint(0)))
        assert game.over
        assert "Game over" in shown(app, "#status")
        table.record().verify()


async def test_hotseat_hides_each_hand_behind_the_pass_screen() -> None:
    table = GoTable(players=3, humans=(0, 1), bots=("random",), seed=3)
    app = GoBlinkApp(table, bot_delay=0)
    async with app.run_test(size=(120, 50)) as pilot:
        game = table.game
        turns_seen = 0
        for _ in range(300):
            await wait_for(pilot, lambda: game.over or isinstance(app.screen, PassScreen))
            if game.over:
                break
            seat = game.current
            assert seat in (0, 1)
            # While the pass screen is up, no hand is drawn on the table underneath.
            assert app.viewer is None
            hidden = flat(shown(app, "#hand"))
            assert "hidden" in hidden
            for p in (0, 1):
                assert not any(f": {card_name(c)}" in hidden for c in game.hand(p))
            assert table.names[seat] in str(app.screen.query_one("#pass-message", Static).render())
            await pilot.press("enter")
            await wait_for(pilot, lambda s=seat: app.viewer == s)  # type: ignore[misc]
            other = 1 - seat
            text = flat(shown(app, "#hand"))
            assert all(f": {card_name(c)}" in text for c in game.hand(seat))
            mine = {card_name(c) for c in game.hand(seat)}
            assert not any(
                f": {card_name(c)}" in text for c in game.hand(other) if card_name(c) not in mine
            )
            # Play this person's whole turn.
            while not game.over and game.current == seat:
                await type_command(pilot, app, command(table, seat, table.hint(seat)))
            turns_seen += 1
        assert game.over and turns_seen >= 2


def test_commands_parse_with_clear_errors() -> None:
    table = GoTable(players=3, humans=(0, 1, 2), seed=1)
    while table.game.phase is Phase.OPENING:
        table.act(table.current or 0, "end")
    seat = table.current
    assert seat is not None
    card = table.game.hand(seat)[0]
    action = table.parse(seat, f"ask {(seat + 1) % 3 + 1} {card.color.label}")
    assert action.player == seat
    for bad in (
        "",
        "fly",
        "ask",
        "ask 9 red",
        "ask 2 banana",
        "lay",
        "lay z",
        "lay 9ZZ",
        "ask Q red",
    ):
        with pytest.raises(CommandError):
            table.act(seat, bad)
    with pytest.raises(CommandError):
        table.act(seat, f"ask {seat + 1} {card.color.label}")  # asking yourself
    assert "Ask someone" in table.prompt(seat)


def _log_text(app: GoBlinkApp) -> list[str]:
    """The lines of the table's log as drawn."""
    log = app.query_one("#log", RichLog)
    return ["".join(seg.text for seg in line).rstrip() for line in log.lines]


async def test_the_log_speaks_to_you_and_counts_in_words() -> None:
    table = GoTable(players=2, humans=(0,), bots=("greedy",), seed=12)
    app = GoBlinkApp(table, bot_delay=0)
    async with app.run_test(size=(120, 50)) as pilot:
        game = table.game
        for _ in range(400):
            await wait_for(pilot, lambda: game.over or game.current == 0)
            players = shown(app, "#players")
            assert "1 cards" not in players
            if 1 in game.view(0).hand_counts:
                assert "1 card" in players
            if game.over:
                break
            await type_command(pilot, app, command(table, 0, table.hint(0)))
        assert game.over
        lines = _log_text(app)
        said = " ".join(lines)
        for wrong in ("You asks", "You draws", "You passes", "You lays", "You has", "You wins"):
            assert wrong not in said, wrong
        assert "1 cards" not in said
        assert any(line.startswith(("You ask ", "You draw ")) for line in lines), lines
        assert any(" asks you for " in line for line in lines), lines
        assert "wins!" in shown(app, "#status") or "You win!" in shown(app, "#status")


async def test_no_command_palette_and_ctrl_c_asks_before_quitting() -> None:
    table = GoTable(players=2, humans=(0,), bots=("greedy",), seed=12)
    app = GoBlinkApp(table, bot_delay=0)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: table.game.current == 0)
        footer = " ".join(str(k.render()) for k in app.query("FooterKey"))
        assert "palette" not in footer.lower() and "Quit" in footer
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen)
        await pilot.press("n")
        await pilot.pause()
        assert app.is_running and not isinstance(app.screen, QuitScreen)
        await pilot.press("ctrl+c")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert not app.is_running


def flat(text: str) -> str:
    """``text`` with its line breaks as spaces (a long line of words wraps)."""
    return " ".join(text.split())


async def test_an_unknown_command_is_cleared_with_the_commands_shown() -> None:
    """It stayed in the input, to be deleted by hand; a known command with a mistake stays,
    to be corrected."""
    table = GoTable(players=2, humans=(0,), bots=("greedy",), seed=12)
    app = GoBlinkApp(table, bot_delay=0)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: table.game.current == 0)
        await type_command(pilot, app, "jump 2 yellow")
        assert app.query_one("#command", Input).value == ""
        prompt = shown(app, "#prompt")
        assert "unknown command 'jump'" in prompt and "ask, lay, end" in prompt
        await type_command(pilot, app, "ask 7 yellow")
        assert app.query_one("#command", Input).value == "ask 7 yellow"
        assert "there is no player 7" in shown(app, "#prompt")


@pytest.mark.parametrize("lang", ["en", "es"])
async def test_the_hand_is_labelled_in_words(lang: str) -> None:
    """Each card under its letter and in words ("a: four red stars"), not a code (a:4RS)."""
    set_language(lang)
    try:
        table = GoTable(players=2, humans=(0,), bots=("greedy",), seed=12)
        app = GoBlinkApp(table, bot_delay=0)
        async with app.run_test(size=(120, 50)) as pilot:
            await wait_for(pilot, lambda: table.game.current == 0)
            text = flat(shown(app, "#hand"))
            hand = table.game.hand(0)
            for i, card in enumerate(hand):
                assert f"{hand_letter(i)}: {card_name(card)}" in text, text
                assert str(card) not in text, text
    finally:
        set_language("en")


def test_counts_and_verbs_for_you() -> None:
    assert count_of(1, "card") == "1 card" and count_of(0, "card") == "0 cards"
    assert winners_text(["You", "Bob"], [0]) == "You win"
    assert winners_text(["You", "Bob"], [1]) == "Bob wins"
    assert winners_text(["You", "Bob"], [0, 1]) == "You and Bob share the win"


def test_every_bot_kind_has_a_name_at_the_table() -> None:
    """Each registered kind (the master too) has its translatable name, its display name."""
    from blink.games.goblink.bots import GOBOTS
    from blink.games.goblink.tui.driver import GO_BOT_NAMES

    assert set(GO_BOT_NAMES) == set(GOBOTS)
    assert {n: str(GO_BOT_NAMES[n]) for n in GOBOTS} == {
        n: k.display_name for n, k in GOBOTS.items()
    }
    table = GoTable(players=3, humans=(0,), bots=("master", "memory"), seed=2)
    assert table.names[1:] == ["Master bot 2", "Remembering bot 3"]


def test_a_bot_decides_without_touching_the_game_and_a_stale_action_is_dropped() -> None:
    """The driver's two halves of a bot's step: deciding (safe in a thread) and applying."""
    table = GoTable(players=2, humans=(0,), bots=("greedy",), seed=4, dealer=0)
    assert table.bots == {}  # made on their first decision (the master's loads numba)
    view = table.bot_view()
    assert view is not None and view.seat == 1
    before = table.game.snapshot()
    action = table.decide(view)
    assert table.game.snapshot() == before
    assert isinstance(table.bots[1], GreedyBot)
    assert table.apply_bot(view, action)
    # The game has moved on since that view: the same action is not applied again.
    after = table.game.snapshot()
    assert table.apply_bot(view, action) is None
    assert table.game.snapshot() == after


class GatedBot:
    """A greedy bot that, on each decision, waits until the test lets it go."""

    name = "greedy"

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.bot = GreedyBot(seat, 0)
        self.entered = threading.Event()
        self.release = threading.Event()
        self.threads: set[int] = set()

    def act(self, view: GoView) -> GoAction:
        self.threads.add(threading.get_ident())
        self.entered.set()
        assert self.release.wait(120), "the test never released the bot"
        return self.bot.act(view)


async def test_the_screen_answers_while_a_bot_thinks() -> None:
    table = GoTable(players=2, humans=(0,), bots=("greedy",), seed=4, dealer=0)
    gated = GatedBot(1)
    table.bots[1] = gated
    app = GoBlinkApp(table, bot_delay=0)
    try:
        async with app.run_test(size=(120, 50)) as pilot:
            game = table.game
            assert game.current == 1
            await wait_for(pilot, gated.entered.is_set)
            assert threading.get_ident() not in gated.threads  # not on the app's loop
            assert app.thinking == 1
            assert "Greedy bot 2 is thinking..." in shown(app, "#prompt")
            events = len(game.events)
            # The screen still takes commands while the bot's decision is held.
            await type_command(pilot, app, "end")
            assert "It is not your turn." in shown(app, "#prompt")
            await type_command(pilot, app, "help")
            assert "Commands" in shown(app, "#prompt")
            assert len(game.events) == events and game.current == 1
            gated.release.set()
            await app.workers.wait_for_complete()
            await wait_for(pilot, lambda: game.over or game.current == 0)
            # Only the bot can have moved the game on: its decisions were applied.
            assert len(game.events) > events and game.current == 0
            assert app.thinking is None
    finally:
        gated.release.set()


async def test_a_master_bot_plays_in_the_terminal() -> None:
    from blink.games.goblink.fast.master_bot import MasterBot

    table = GoTable(players=2, humans=(0,), bots=("master",), seed=7, dealer=0)
    assert table.names == ["You", "Master bot 2"] and table.bots == {}
    app = GoBlinkApp(table, bot_delay=0)
    async with app.run_test(size=(120, 50)) as pilot:
        game = table.game
        # Generous: the first decision compiles the master's search when numba's cache is empty.
        while not game.over and game.turns < 4:
            await wait_for(pilot, lambda: game.over or game.current == 0, timeout=600)
            if game.over:
                break
            await type_command(pilot, app, command(table, 0, table.hint(0)))
        assert isinstance(table.bots[1], MasterBot)
        await wait_for(pilot, lambda: game.over or game.current == 0, timeout=600)
        moved = [e for e in game.events if getattr(e, "player", None) == 1]
        assert len(moved) >= 2
        assert any(line.startswith("Master bot 2 ") for line in _log_text(app))
        table.record().verify()


# The bot's decision never ends: the app must quit, and the process end, all the same.
QUIT_WHILE_DECIDING = """
import asyncio
from blink.games.goblink.tui.app import GoBlinkApp
from blink.games.goblink.tui.driver import GoTable

async def main():
    table = GoTable(players=2, humans=(0,), bots=("greedy",), seed=4, dealer=0)
    bot = table.bots[1] = Stuck(1)
    app = GoBlinkApp(table, bot_delay=0)
    async with app.run_test(size=(120, 50)) as pilot:
        while not bot.deciding.is_set():
            await pilot.pause(0.01)
        assert app.thinking == 1
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not app.is_running
    print("quit while deciding", flush=True)

asyncio.run(main())
"""


def test_quitting_does_not_wait_for_a_bot_that_is_deciding() -> None:
    # The master bot's first decision may compile its search for half a minute.
    run_with_a_stuck_bot(QUIT_WHILE_DECIDING, "quit while deciding")
