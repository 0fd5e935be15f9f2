"""The key router and the local driver's timers, on a manual clock."""

from __future__ import annotations

from tests.tui.helpers import press_one_move, stage, wait_for

from blink.cards import parse_card
from blink.games.classic.engine import Phase, Play
from blink.games.classic.tui.app import BlinkApp
from blink.games.classic.tui.table import LocalTable, ManualClock, Stage

STALL_DECK = [parse_card(c) for c in ["1RM", "3YS", "4GW", "5BF", "2OP", "3BL", "4PS", "5YW"]]


async def test_card_that_fits_both_piles_waits_for_a_pile_key() -> None:
    # Seed 8: Left's first card (five green pyramids) fits both piles.
    clock = ManualClock()
    table = LocalTable(players=2, humans=(0, 1), seed=8, clock=clock, countdown=0.0)
    app = BlinkApp(table)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: stage(app) is Stage.PLAYING)
        game = table.game
        assert game is not None
        card = game.hand(0)[0]
        assert {p.pile for p in game.legal_plays(0) if p.card is card} == {0, 1}
        await pilot.press("q")
        assert game.plays == 0 and app.router.pending_card(0) is card
        await pilot.press("q")  # pressed again: dropped
        assert app.router.pending_card(0) is None
        await pilot.press("q", "x", "s")  # an unknown key in between is ignored
        assert game.plays == 1
        assert game.history[-1][0] == Play(0, card, 1)
        assert game.top(1) is card
        # A pile key with nothing waiting does nothing.
        await pilot.press("a", "k", "l")
        assert game.plays == 1


async def test_stall_choice_by_key_and_default_when_time_runs_out() -> None:
    clock = ManualClock()
    table = LocalTable(
        players=2,
        humans=(0, 1),
        deck=STALL_DECK,
        sizes=(4, 4),
        clock=clock,
        countdown=1.0,
        choice_seconds=5.0,
    )
    app = BlinkApp(table)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: stage(app) is Stage.COUNTDOWN)
        clock.advance(1.0)
        await wait_for(pilot, lambda: stage(app) is Stage.CHOOSING)
        game = table.game
        assert game is not None
        assert table.status().seconds_left == 5.0
        await pilot.press("w")  # Left chooses four green waters
        assert game.choices == {0: parse_card("4GW")}
        await pilot.press("e")  # a second choice is ignored: already chosen
        assert game.choices == {0: parse_card("4GW")}
        clock.advance(4.9)
        await pilot.pause(0.2)
        assert game.phase is Phase.CHOOSING
        clock.advance(0.2)
        # Right did not choose: their first card (three blue lightnings) is placed for them.
        await wait_for(pilot, lambda: game.phase is not Phase.CHOOSING or game.stalls > 1)
        assert game.top(0) is parse_card("4GW")
        assert game.top(1) is parse_card("3BL")
        times = [t for _, t in game.history]
        assert times[-1] == 5100  # ms since the reveal, from the injected clock
        message = str(app.table_screen.query_one("#message").render())
        assert "time's up" in message


async def test_flip_after_the_pause() -> None:
    # Seed 4, playing the first legal play by keys (Left first), stalls after four plays with
    # draw cards left: the flip waits for the pause on the injected clock.
    clock = ManualClock()
    table = LocalTable(players=2, humans=(0, 1), seed=4, clock=clock, countdown=0.0, flip_delay=1.5)
    app = BlinkApp(table)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: stage(app) is Stage.PLAYING)
        game = table.game
        assert game is not None
        for _ in range(200):
            if game.phase is not Phase.PLAYING:
                break
            if not await press_one_move(pilot, app, 0):
                await press_one_move(pilot, app, 1)
        assert game.phase is Phase.STALLED and game.plays == 4
        await wait_for(
            pilot, lambda: "Stall!" in str(app.table_screen.query_one("#status").render())
        )
        flips = len(game.pile(0))
        await pilot.pause(0.2)
        assert game.phase is Phase.STALLED  # the clock has not moved: no flip yet
        await pilot.press("q")  # a play during the stall is refused with the engine's reason
        assert "wait for the flip" in str(app.table_screen.query_one("#message").render())
        clock.advance(1.5)
        await wait_for(pilot, lambda: len(game.pile(0)) > flips)
