"""Against the fastest bots (``inhuman``), driven by key presses to the end, in virtual time.

The table runs on a manual clock and the bots' actions fall due on the same clock
(:class:`tests.tui.helpers.VirtualTime`): the test moves time itself, so the same presses make
the same game on any machine, however busy. (The bots' real-time driver, ``LiveBot``, has its
own tests in tests/games/classic/bots/test_live.py.)
"""

from __future__ import annotations

from tests.tui.helpers import VirtualTime, press_one_move, stage, wait_for

from blink.games.classic.bots import BotSpec
from blink.games.classic.engine import Phase
from blink.games.classic.tui.app import BlinkApp
from blink.games.classic.tui.table import LocalTable, Stage
from blink.tui.screens import PauseScreen

REACTION = 0.03
"""Virtual seconds between two moves of the player at the keyboard."""


def vs_bots(players: int, vt: VirtualTime, seed: int, **kw: object) -> tuple[LocalTable, BlinkApp]:
    bots = {i: BotSpec("inhuman", "first" if i == 1 else "blocker") for i in range(1, players)}
    table = LocalTable(
        players=players,
        humans=(0,),
        bots=bots,
        names=["You"] + [f"inhuman {b.strategy}" for b in bots.values()],
        seed=seed,
        countdown=0.3,
        flip_delay=0.3,
        choice_seconds=2.0,
        clock=vt.clock,
        live_bot=vt.live_bot,
        **kw,  # type: ignore[arg-type]
    )
    return table, BlinkApp(table, title="You vs inhuman")


async def reveal(pilot: object, app: BlinkApp, table: LocalTable, vt: VirtualTime) -> None:
    """Wait for the deal, then let the countdown run out."""
    await wait_for(pilot, lambda: table.game is not None)  # type: ignore[arg-type]
    assert stage(app) is Stage.COUNTDOWN
    vt.advance(table, table.countdown)
    assert stage(app) is Stage.PLAYING


async def play_to_the_end(pilot: object, app: BlinkApp, table: LocalTable, vt: VirtualTime) -> int:
    """Make a move for seat 0 every ``REACTION`` seconds until the game is over; count them."""
    presses = 0
    for _ in range(5_000):  # 150 virtual seconds: far longer than any game against these bots
        if table.game is not None and table.game.over:
            return presses
        if stage(app) in (Stage.PLAYING, Stage.CHOOSING) and await press_one_move(
            pilot,  # type: ignore[arg-type]
            app,
            0,
        ):
            presses += 1
        vt.advance(table, REACTION)
        await pilot.pause()  # type: ignore[attr-defined]
    raise AssertionError("the game did not end in 150 virtual seconds")


async def test_full_game_against_the_fastest_bot() -> None:
    vt = VirtualTime()
    table, app = vs_bots(2, vt, seed=21, best_of=3)
    async with app.run_test() as pilot:
        await reveal(pilot, app, table, vt)
        presses = await play_to_the_end(pilot, app, table, vt)
        await wait_for(pilot, lambda: stage(app) is Stage.OVER)
        game = table.game
        assert game is not None and game.outcome is not None
        assert presses > 0
        status = table.status()
        assert status.figures is not None
        assert sum(status.figures.plays_by_seat) == game.plays
        assert status.figures.plays_by_seat[1] > 0  # the bot played too
        await wait_for(
            pilot, lambda: "per play" in str(app.table_screen.query_one("#status").render())
        )
        assert "BLINK!" in str(app.table_screen.query_one("#status").render())
        assert sum(status.score) == (0 if game.outcome.is_tie else 1)
        # The next game of the series starts on Enter.
        await pilot.press("enter")
        await wait_for(pilot, lambda: table.status().game_number == 2)


async def test_three_players_two_bots_and_pause() -> None:
    vt = VirtualTime()
    table, app = vs_bots(3, vt, seed=5)
    async with app.run_test() as pilot:
        await reveal(pilot, app, table, vt)
        game = table.game
        assert game is not None
        # Pause: the bots stop and the table is hidden; Space goes on.
        await pilot.press("space")
        await wait_for(pilot, lambda: isinstance(app.screen, PauseScreen))
        assert table.status().paused
        assert not any(bot.running for bot in vt.bots)
        plays = game.plays
        vt.advance(table, 10.0)  # unpaused, the bots make dozens of plays in ten seconds
        assert game.plays == plays, "bots played during the pause"
        assert stage(app) is Stage.PLAYING  # no timer of the table ran either
        await pilot.press("q")  # a card key while paused does nothing
        assert game.plays == plays
        await pilot.press("space")
        await wait_for(pilot, lambda: not table.status().paused)
        vt.advance(table, 1.0)
        assert game.plays > plays or game.over, "the bots did not play on after the pause"
        await play_to_the_end(pilot, app, table, vt)
        assert game.over and game.phase is Phase.OVER
        assert game.plays > 0
        # Seat 0 played only through keys; bots played for seats 1 and 2.
        assert {a.player for a, _ in game.history if hasattr(a, "player")} <= {0, 1, 2}
