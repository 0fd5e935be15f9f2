"""Two or three people on one keyboard: whole games driven by key presses, on a manual
clock."""

from __future__ import annotations

from tests.tui.helpers import press_one_move, stage, wait_for
from textual.widgets import Static

from blink.games.classic.cli.play import local_app
from blink.games.classic.engine import Phase, Play
from blink.games.classic.rules import OFFICIAL
from blink.games.classic.tui.app import BlinkApp
from blink.games.classic.tui.table import LocalTable, ManualClock, Stage


def hotseat(seed: int, clock: ManualClock, **kw: object) -> tuple[LocalTable, BlinkApp]:
    table = LocalTable(
        players=2, humans=(0, 1), names=("Left", "Right"), seed=seed, clock=clock, **kw
    )
    return table, BlinkApp(table, title="hotseat")


async def test_hotseat_game_to_the_end_by_keys() -> None:
    clock = ManualClock()
    table, app = hotseat(11, clock, best_of=3, countdown=3.0, flip_delay=1.0)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: table.game is not None)
        assert stage(app) is Stage.COUNTDOWN
        # Keys before the reveal do nothing.
        await pilot.press("q", "u", "a", "x", "9")
        assert table.game is not None and table.game.plays == 0
        clock.advance(3.0)
        await wait_for(pilot, lambda: stage(app) is Stage.PLAYING)
        seat = 0
        for _ in range(600):
            game = table.game
            assert game is not None
            if game.over:
                break
            if game.phase is Phase.STALLED:
                flips = game.stalls
                clock.advance(1.0)
                await wait_for(pilot, lambda: table.game.phase is not Phase.STALLED)  # type: ignore[union-attr]
                assert flips == game.stalls or game.phase is not Phase.STALLED
                continue
            moved = await press_one_move(pilot, app, seat)
            if not moved:
                await press_one_move(pilot, app, 1 - seat)
            seat = 1 - seat
        game = table.game
        assert game is not None and game.over
        assert stage(app) is Stage.OVER
        # Every play came from a key press, stamped with the manual clock's time.
        times = [t for _, t in game.history]
        assert times == sorted(times)
        status = table.status()
        assert status.figures is not None and status.figures.plays == game.plays
        assert sum(status.score) == (0 if game.outcome.is_tie else 1)  # type: ignore[union-attr]
        # Enter deals the next game of the series.
        await pilot.press("enter")
        await wait_for(pilot, lambda: stage(app) is Stage.COUNTDOWN)
        assert table.status().game_number == 2


async def test_hotseat_both_players_and_refusals() -> None:
    clock = ManualClock()
    table, app = hotseat(5, clock, countdown=0.0)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: stage(app) is Stage.PLAYING)
        game = table.game
        assert game is not None
        # A card that fits no pile is refused, and the reason is shown.
        refused = 0
        for seat in (0, 1):
            view = game.view(seat)
            legal = {p.card for p in view.legal_plays()}
            for slot, card in enumerate(view.hand):
                if card not in legal:
                    await pilot.press(app.router.maps[seat].cards[slot][0])
                    await pilot.pause()
                    message = str(app.table_screen.query_one("#message").render())
                    assert "has no colour, shape or count in common with" in message
                    assert game.hand(seat)[slot] is card
                    refused += 1
                    break
        assert refused == 1  # seed 5: Right's two green flowers fits neither pile
        # The line clears itself a few seconds later (on the table's clock).
        clock.advance(5.0)
        await wait_for(pilot, lambda: not str(app.table_screen.query_one("#message").render()))
        # Each player plays with their own keys.
        before = game.plays
        assert await press_one_move(pilot, app, 0)
        assert await press_one_move(pilot, app, 1) or game.over
        await pilot.pause()
        assert game.plays >= before + 1
        players = {a.player for a, _ in game.history if hasattr(a, "player")}
        assert players <= {0, 1}
        # Pause is only for games against bots: Space does nothing here.
        await pilot.press("space")
        assert not table.status().paused


async def test_three_people_at_one_keyboard_play_to_the_end_by_keys() -> None:
    clock = ManualClock()
    deal = {"seed": 6, "ruleset": OFFICIAL, "sizes": None, "best_of": 1, "countdown": 0.0}
    app = local_app(True, [], None, None, 3, deal | {"clock": clock, "flip_delay": 1.0}, {})
    table = app.table
    assert isinstance(table, LocalTable) and table.local_seats == (0, 1, 2)
    assert app.game_title == "Left (Q W E · A S) vs Middle (Z X C · F G) vs Right (U I O · K L)"
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: stage(app) is Stage.PLAYING)
        # Every pile shows the keys of the two people who reach it; a left key is for the
        # one of its owner's piles drawn further left.
        piles = str(app.table_screen.query_one("#piles", Static).render())
        assert "pile 1 [A·F]" in piles and "pile 2 [G·K]" in piles and "pile 3 [S·L]" in piles
        hands = str(app.table_screen.query_one("#hands", Static).render())
        assert all(name in hands for name in ("Left", "Middle", "Right"))
        seat = 0
        for _ in range(900):
            game = table.game
            assert game is not None
            if game.over:
                break
            if game.phase is Phase.STALLED:
                clock.advance(1.0)
                await wait_for(pilot, lambda: table.game.phase is not Phase.STALLED)  # type: ignore[union-attr]
                continue
            clock.advance(0.1)
            for other in (seat, (seat + 1) % 3, (seat + 2) % 3):
                if await press_one_move(pilot, app, other):
                    break
            seat = (seat + 1) % 3
        game = table.game
        assert game is not None and game.over and stage(app) is Stage.OVER
        plays = [a.player for a, _ in game.history if isinstance(a, Play)]
        assert set(plays) == {0, 1, 2}  # all three played, each by their own keys
