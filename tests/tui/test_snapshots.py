"""Snapshot tests of the table (SVG files under __snapshots__, updated with --snapshot-update).

Every snapshot runs on a manual clock with a fixed deal, so it is the same on any machine.
Bots in these pictures are placeholders that never act: the picture is of the table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.tui.helpers import press_one_move
from textual.pilot import Pilot

from blink.cards import parse_card
from blink.games.classic.bots import BotSpec
from blink.games.classic.engine import Action, Phase, PlayerView
from blink.games.classic.tui.app import BlinkApp
from blink.games.classic.tui.table import LocalTable, ManualClock

Compare = Callable[..., bool]

# Two players, four cards each, no draw pile: nothing fits at the reveal, so both must choose.
STALL_DECK = [parse_card(c) for c in ["1RM", "3YS", "4GW", "5BF", "2OP", "3BL", "4PS", "5YW"]]


class IdleBot:
    """A live-bot stand-in that never acts (the snapshots show the table, not a race)."""

    def __init__(self, *_: Any) -> None:
        pass

    def start(self) -> None:
        """Nothing to start."""

    def notify(self) -> None:
        """Nothing to react to."""

    def stop(self) -> None:
        """Nothing to stop."""


def idle(bot: Any, view: Callable[[], PlayerView], submit: Callable[[Action], object]) -> IdleBot:
    return IdleBot()


def _hotseat(seed: int = 3, **kw: Any) -> BlinkApp:
    style = {k: kw.pop(k) for k in ("colorblind", "ascii_symbols") if k in kw}
    table = LocalTable(
        players=2,
        humans=(0, 1),
        names=("Left", "Right"),
        seed=seed,
        clock=ManualClock(),
        countdown=0.0,
        **kw,
    )
    return BlinkApp(table, title="Left (Q W E · A S) vs Right (U I O · K L)", **style)


def _vs_bots(players: int, **kw: Any) -> BlinkApp:
    specs = {i: BotSpec("expert", "blocker") for i in range(1, players)}
    bots = [f"Expert blocking bot {i + 1}" for i in range(1, players)] if players > 2 else []
    names = ["You", *(bots or ["Expert blocking bot"])]
    table = LocalTable(
        players=players,
        humans=(0,),
        bots=specs,
        names=names,
        seed=4,
        clock=ManualClock(),
        countdown=0.0,
        live_bot=idle,
        **kw,
    )
    return BlinkApp(table, title="You vs " + " and ".join(names[1:]))


async def _redraw(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    app = pilot.app
    assert isinstance(app, BlinkApp)
    app.redraw()


def test_hotseat_table(snap_compare: Compare) -> None:
    assert snap_compare(_hotseat(), run_before=_redraw)


def test_hotseat_card_waits_for_pile_and_refusal(snap_compare: Compare) -> None:
    # Seed 8: Left's W (two yellow moons) fits neither pile: refused, with the engine's reason;
    # Left's Q (five green pyramids) fits both piles and waits for A or S.
    assert snap_compare(_hotseat(8), press=["w", "q"], run_before=_redraw)


def test_colorblind_ascii(snap_compare: Compare) -> None:
    assert snap_compare(_hotseat(colorblind=True, ascii_symbols=True), run_before=_redraw)


def test_against_one_bot(snap_compare: Compare) -> None:
    assert snap_compare(_vs_bots(2, best_of=3), run_before=_redraw)


def test_three_players_reach(snap_compare: Compare) -> None:
    assert snap_compare(_vs_bots(3), run_before=_redraw)


def test_countdown(snap_compare: Compare) -> None:
    table = LocalTable(
        players=2,
        humans=(0,),
        bots={1: BotSpec("beginner")},
        seed=4,
        clock=ManualClock(),
        countdown=3.0,
        live_bot=idle,
        names=("You", "Beginner bot"),
    )
    assert snap_compare(BlinkApp(table, title="You vs Beginner bot"), run_before=_redraw)


def test_stall_choice_prompt(snap_compare: Compare) -> None:
    assert snap_compare(
        _hotseat(deck=STALL_DECK, sizes=(4, 4), choice_seconds=10.0), run_before=_redraw
    )


def test_game_over_figures(snap_compare: Compare) -> None:
    app = _hotseat(deck=STALL_DECK, sizes=(4, 4), choice_seconds=10.0)

    async def finish(pilot: Pilot[Any]) -> None:
        table = app.table
        assert isinstance(table, LocalTable)
        clock = table.clock
        assert isinstance(clock, ManualClock)
        await pilot.pause()
        # Everything is driven here, never by a deadline passing on its own: the clock moves
        # a quarter second per play, and both players choose by key in every stall.
        clock.advance(2.5)
        for _ in range(60):
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
        assert table.game is not None and table.game.over
        await _redraw(pilot)

    assert snap_compare(app, run_before=finish)


def test_help_screen(snap_compare: Compare) -> None:
    assert snap_compare(_hotseat(), press=["question_mark"], run_before=_redraw)


def test_no_color_shows_colour_letters(snap_compare: Compare, monkeypatch: Any) -> None:
    # Without colour (NO_COLOR), every card carries its colour's letter.
    monkeypatch.setenv("NO_COLOR", "1")
    app = _hotseat()
    assert app.card_style.letters
    assert snap_compare(app, run_before=_redraw)


def test_spectator_three_players(snap_compare: Compare) -> None:
    # A spectator's table (as with --watch): every player's counts, all three piles, no hand.
    table = LocalTable(
        players=3,
        humans=(),
        bots={i: BotSpec("expert", "blocker") for i in range(3)},
        names=("Ann", "Bob", "Expert blocking bot"),
        seed=4,
        clock=ManualClock(),
        countdown=0.0,
        live_bot=idle,
    )
    assert snap_compare(BlinkApp(table, title="watching room TAWPC9"), run_before=_redraw)


def test_help_against_bots(snap_compare: Compare) -> None:
    assert snap_compare(_vs_bots(2), press=["question_mark"], run_before=_redraw)


def test_paused(snap_compare: Compare) -> None:
    # Against bots, Space pauses: the table is hidden until Space again.
    assert snap_compare(_vs_bots(2), press=["space"], run_before=_redraw)


def test_three_people_at_one_keyboard(snap_compare: Compare) -> None:
    # Three hands side by side (99 columns); each pile shows the keys of the two who reach it.
    table = LocalTable(
        players=3,
        humans=(0, 1, 2),
        names=("Left", "Middle", "Right"),
        seed=6,
        clock=ManualClock(),
        countdown=0.0,
    )
    app = BlinkApp(table, title="Left (Q W E · A S) vs Middle (Z X C · F G) vs Right (U I O · K L)")
    assert snap_compare(app, run_before=_redraw, terminal_size=(100, 24))
