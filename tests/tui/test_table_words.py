"""What the terminal table says to people: piles and seats counted from one, bots by name,
refusals in words, and Ctrl+C that quits (asking first in mid-game)."""

from __future__ import annotations

from typing import Any

import pytest
from tests.tui.helpers import press_one_move
from tests.tui.test_snapshots import STALL_DECK, idle
from textual.widgets import Static

from blink.games.classic.bots import BotSpec
from blink.games.classic.cli.play import local_app
from blink.games.classic.engine import Phase
from blink.games.classic.rules import OFFICIAL
from blink.games.classic.tui.app import BlinkApp
from blink.games.classic.tui.online import room_title
from blink.games.classic.tui.table import LocalTable, ManualClock, Stage
from blink.tui.screens import PauseScreen, QuitScreen

SIZE = (100, 30)


def _hotseat(seed: int) -> BlinkApp:
    table = LocalTable(
        players=2,
        humans=(0, 1),
        names=("Left", "Right"),
        seed=seed,
        clock=ManualClock(),
        countdown=0.0,
    )
    return BlinkApp(table, title="hotseat")


def _vs_bots(players: int, **deal: Any) -> BlinkApp:
    table = LocalTable(
        players=players,
        humans=(0,),
        bots={i: BotSpec("expert", "blocker") for i in range(1, players)},
        seed=4,
        clock=ManualClock(),
        live_bot=idle,
        **deal,
    )
    return BlinkApp(table, title="bots")


def shown(app: BlinkApp, widget: str) -> str:
    """The plain text a table widget shows now."""
    return str(app.table_screen.query_one(widget, Static).render())


async def test_piles_are_numbered_from_one() -> None:
    for players in (2, 3):
        app = _vs_bots(players, countdown=0.0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            piles = shown(app, "#piles")
            names = [f"pile {n}" for n in range(1, players + 1)]
            assert all(name in piles for name in names), piles
            assert "pile 0" not in piles


def test_an_online_seat_is_numbered_from_one() -> None:
    assert room_title("ABCDEF", 0) == "room ABCDEF · seat 1"
    assert room_title("ABCDEF", None) == "watching room ABCDEF"


async def test_a_refusal_names_cards_in_words_and_piles_from_one() -> None:
    # Seed 8: Left's W (two yellow moons) fits neither pile: the engine refuses it.
    app = _hotseat(8)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        view = app.table.view(0)
        assert view is not None
        card, tops = view.hand[1], view.tops
        await pilot.press("w")
        await pilot.pause()
        message = shown(app, "#message")
        # plain words, and both piles it fits neither of (it named pile 1 only, with "shares")
        assert "has no colour, shape or count in common with" in message, message
        assert "shares" not in message
        assert card.long_name.capitalize() in message
        assert str(card) not in message and all(str(t) not in message for t in tops if t)
        for pile in app.router.sides(view.players, 0):
            top = tops[pile]
            assert top is not None
            assert f"{top.long_name} on pile {pile + 1}" in message, message
        assert "pile 0" not in message


def _bots_app(bots: list[str], players: int) -> BlinkApp:
    deal = {"seed": 1, "ruleset": OFFICIAL, "sizes": None, "best_of": 1, "countdown": 60.0}
    app = local_app(False, bots, None, None, players, deal, {})
    assert isinstance(app.table, LocalTable)
    app.table._live_bot = idle
    return app


async def test_bots_are_shown_by_their_names_for_people() -> None:
    app = _bots_app([], 2)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        header, opponents = shown(app, "#header"), shown(app, "#opponents")
        assert "You vs Skilled bot" in header, header
        assert "Skilled bot" in opponents
        assert "skilled" not in header + opponents and "first" not in header + opponents
    app = _bots_app(["expert:blocker", "expert:blocker"], 3)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        header = shown(app, "#header")
        assert "Expert blocking bot 2 and Expert blocking bot 3" in header, header
        assert ":" not in header


async def test_ctrl_c_asks_in_mid_game_and_quits_on_yes() -> None:
    app = _vs_bots(2, countdown=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.table.status().stage is Stage.PLAYING
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen)
        assert app.table.status().paused  # against bots, the game waits for the answer
        await pilot.press("n")
        await pilot.pause()
        assert not isinstance(app.screen, QuitScreen) and app.is_running
        assert not app.table.status().paused
        await pilot.press("ctrl+c")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert not app.is_running


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_the_quit_question_leaves_the_pause_text_in_view(size: tuple[int, int]) -> None:
    """Ctrl+C's question covered the pause box (both drawn at the centre) and, in mid-game,
    the status line that says the game waits, paused."""
    app = _vs_bots(2, countdown=0.0)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+c")  # in mid-game: the game pauses for the answer
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen)
        question = app.screen.query_one("#quit-question").region
        status = app.table_screen.query_one("#status")
        assert "Paused" in str(status.render())
        assert not question.overlaps(status.region), (question, status.region)
        await pilot.press("n")
        await pilot.pause()
        await pilot.press("space")  # paused by hand: the pause box hides the table
        await pilot.pause()
        assert isinstance(app.screen, PauseScreen)
        paused = app.screen.query_one("#paused").region
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen)
        question = app.screen.query_one("#quit-question").region
        assert not question.overlaps(paused), (question, paused)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, PauseScreen) and app.table.status().paused


async def test_ctrl_c_twice_quits_a_hotseat_game() -> None:
    app = _hotseat(8)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert not app.is_running


async def test_ctrl_c_quits_at_once_when_no_game_is_under_way() -> None:
    table = LocalTable(
        players=2,
        humans=(0, 1),
        deck=STALL_DECK,
        sizes=(4, 4),
        clock=ManualClock(),
        countdown=0.0,
    )
    app = BlinkApp(table, title="hotseat")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        clock = table.clock
        assert isinstance(clock, ManualClock)
        clock.advance(2.5)
        for _ in range(60):  # played out by keys, the clock moved by hand
            game = table.game
            assert game is not None
            if game.over:
                break
            if game.phase is Phase.CHOOSING:
                for seat in (0, 1):
                    if seat not in game.choices:
                        await pilot.press(app.router.maps[seat].cards[0][0])
            else:
                clock.advance(0.25)
                if not await press_one_move(pilot, app, 0):
                    await press_one_move(pilot, app, 1)
            await pilot.pause()
        assert table.status().stage is Stage.OVER
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert not app.is_running
