"""Against the fastest bots (``inhuman``), in real time, driven by key presses to the end.

Real time here means the bots' own timers; every wait is on a condition with a generous
timeout, so a slow machine only makes the test slower, never wrong.
"""

from __future__ import annotations

import time

from tests.tui.helpers import press_one_move, stage, wait_for

from blink.games.classic.bots import BotSpec
from blink.games.classic.engine import Phase
from blink.tui.app import BlinkApp, PauseScreen
from blink.tui.table import LocalTable, Stage


def vs_bots(players: int, seed: int, **kw: object) -> tuple[LocalTable, BlinkApp]:
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
        **kw,  # type: ignore[arg-type]
    )
    return table, BlinkApp(table, title="You vs inhuman")


async def play_to_the_end(pilot: object, app: BlinkApp, table: LocalTable) -> int:
    """Press keys for every legal play of seat 0 until the game is over; count the presses."""
    presses = 0
    deadline = time.monotonic() + 90
    while not (table.game is not None and table.game.over):
        assert time.monotonic() < deadline, "the game did not end in time"
        if stage(app) in (Stage.PLAYING, Stage.CHOOSING) and await press_one_move(
            pilot,  # type: ignore[arg-type]
            app,
            0,
        ):
            presses += 1
        await pilot.pause(0.03)  # type: ignore[attr-defined]
    return presses


async def test_full_game_against_the_fastest_bot() -> None:
    table, app = vs_bots(2, seed=21, best_of=3)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: stage(app) is Stage.PLAYING)
        presses = await play_to_the_end(pilot, app, table)
        await wait_for(pilot, lambda: stage(app) is Stage.OVER)
        game = table.game
        assert game is not None and game.outcome is not None
        assert presses > 0
        status = table.status()
        assert status.figures is not None
        assert sum(status.figures.plays_by_seat) == game.plays
        await wait_for(
            pilot, lambda: "per play" in str(app.table_screen.query_one("#status").render())
        )
        assert "BLINK!" in str(app.table_screen.query_one("#status").render())
        assert sum(status.score) == (0 if game.outcome.is_tie else 1)
        # The next game of the series starts on Enter.
        await pilot.press("enter")
        await wait_for(pilot, lambda: table.status().game_number == 2)


async def test_three_players_two_bots_and_pause() -> None:
    table, app = vs_bots(3, seed=5)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: stage(app) is Stage.PLAYING)
        # Pause: the bots stop and the table is hidden; Space goes on.
        await pilot.press("space")
        await wait_for(pilot, lambda: isinstance(app.screen, PauseScreen))
        game = table.game
        assert game is not None and table.status().paused
        plays = game.plays
        await pilot.pause(0.5)
        assert game.plays == plays, "bots played during the pause"
        await pilot.press("q")  # a card key while paused does nothing
        assert game.plays == plays
        await pilot.press("space")
        await wait_for(pilot, lambda: not table.status().paused)
        await play_to_the_end(pilot, app, table)
        assert game.over and game.phase is Phase.OVER
        assert game.plays > 0
        # Seat 0 played only through keys; bots played for seats 1 and 2.
        assert {a.player for a, _ in game.history if hasattr(a, "player")} <= {0, 1, 2}
