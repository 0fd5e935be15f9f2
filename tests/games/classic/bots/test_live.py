"""LiveBot: the same bots in real time on a real asyncio loop, against the real engine."""

from __future__ import annotations

import asyncio

from blink.games.classic.bots import make_bot
from blink.games.classic.bots.live import LiveBot
from blink.games.classic.engine import Choose, ClassicGame, IllegalAction, Phase, Play


class Table:
    """A minimal real-time host: applies actions to the engine, flips stalls, notifies bots."""

    def __init__(self, players: int, seed: int, *, async_submit: bool, latency: float = 0.0):
        self.game = ClassicGame.new(players, seed)
        self.bots: list[LiveBot] = []
        self.done = asyncio.Event()
        self.async_submit = async_submit
        self.latency = latency
        self.refusals = 0
        for seat in range(players):
            bot = make_bot("inhuman", ["blocker", "first", "random"][seat], seat, seed + seat)
            self.bots.append(
                LiveBot(
                    bot,
                    lambda s=seat: self.game.view(s),
                    self.submit_async if async_submit else self.submit_sync,
                )
            )

    def _changed(self) -> None:
        loop = asyncio.get_running_loop()
        if self.game.phase is Phase.STALLED:
            loop.call_later(0.005, self._flip)
        if self.game.phase is Phase.CHOOSING:
            loop.call_later(0.5, self._deadline)
        if self.game.over:
            self.done.set()
        for b in self.bots:
            b.notify()

    def _flip(self) -> None:
        if self.game.phase is Phase.STALLED:
            self.game.flip()
            self._changed()

    def _deadline(self) -> None:
        if self.game.phase is Phase.CHOOSING:
            for s in range(self.game.players):
                if s not in self.game.choices:
                    self.game.choose(s, self.game.default_choice(s))
            self._changed()

    def submit_sync(self, action: Play | Choose) -> None:
        try:
            self.game.apply(action)
        except IllegalAction:
            self.refusals += 1
            raise
        self._changed()

    async def submit_async(self, action: Play | Choose) -> None:
        await asyncio.sleep(self.latency)
        self.submit_sync(action)


async def _play(table: Table) -> None:
    table.game.reveal()
    for b in table.bots:
        b.start()
    await asyncio.wait_for(table.done.wait(), timeout=60)
    for b in table.bots:
        b.stop()


async def test_full_game_sync_submit() -> None:
    table = Table(2, 3, async_submit=False)
    await _play(table)
    game = table.game
    assert game.over and game.outcome is not None
    assert sum(b.submitted for b in table.bots) >= game.plays
    # Every accepted play came from a bot and the record replays.
    from blink.games.classic.record import GameRecord

    GameRecord.from_game(game).verify()


async def test_full_game_three_players_async_submit_with_races() -> None:
    table = Table(3, 11, async_submit=True, latency=0.004)
    await _play(table)
    assert table.game.over
    # Lost races are refused by the engine and simply re-planned.
    assert sum(b.refused for b in table.bots) == table.refusals


async def test_stop_cancels_the_pending_action() -> None:
    game = ClassicGame.new(2, 5)
    game.reveal()
    sent: list[object] = []
    live = LiveBot(make_bot("beginner", "first", 0, 1), lambda: game.view(0), sent.append)
    live.start()
    assert live.running
    for _ in range(20):
        if live.pending is not None:
            break
        # Until a play exists the bot has nothing pending; this deal has one at the reveal.
        await asyncio.sleep(0)
    assert live.pending is not None or not game.legal_plays(0)
    live.stop()
    await asyncio.sleep(0.05)
    assert sent == []
    assert live.pending is None


async def test_notify_reschedules_instead_of_duplicating() -> None:
    game = ClassicGame.new(2, 8)
    game.reveal()
    sent: list[Play | Choose] = []

    def submit(action: Play | Choose) -> None:
        sent.append(action)
        game.apply(action)

    live = LiveBot(make_bot("inhuman", "first", 0, 2), lambda: game.view(0), submit)
    live.start()
    for _ in range(10):
        live.notify()  # nothing changed: still one pending action
    await asyncio.sleep(0.3)
    live.stop()
    assert len(sent) == len(set(sent))
    assert 1 <= len(sent) <= game.plays


async def test_plain_bot_without_now_parameter() -> None:
    """Any object with ``seat`` and ``plan(view)`` works (the Bot protocol)."""

    class Greedy:
        seat = 0

        def plan(self, view):  # type: ignore[no-untyped-def]
            from blink.games.classic.bots import Intent

            plays = view.legal_plays()
            return Intent(plays[0], 0.001) if plays else None

    game = ClassicGame.new(2, 8)
    game.reveal()
    live = LiveBot(Greedy(), lambda: game.view(0), lambda a: game.apply(a))
    live.start()
    await asyncio.sleep(0.2)
    live.stop()
    assert game.plays >= 1


async def test_notify_rejudges_a_pending_play_whose_pile_changed() -> None:
    from .helpers import cards, position

    game = position("1RP 5OS", ["3RW 4GF 2BL", "1YP 4YM 2PS"])
    sent: list[object] = []
    loop = asyncio.get_running_loop()
    live = LiveBot(make_bot("expert", "first", 0, 7), lambda: game.view(0), sent.append, loop.time)
    live.start()
    planned = live.pending
    assert planned == Play(0, cards("3RW")[0], 0)
    game.play(1, cards("1YP")[0], 0)  # 3RW no longer fits pile 0
    live.notify()
    assert live.pending != planned
    assert live.pending is None or live.pending in game.legal_plays(0)
    live.stop()
    assert sent == []


async def test_full_game_with_the_loop_clock() -> None:
    table = Table(2, 21, async_submit=False)
    loop = asyncio.get_running_loop()
    for b in table.bots:
        b.clock = loop.time
    await _play(table)
    assert table.game.over


async def test_a_refused_action_is_followed_by_a_fresh_look() -> None:
    """After a refusal the bot re-plans by itself, even if no further change is notified."""
    from blink.games.classic.engine import Reason

    game = ClassicGame.new(2, 8)
    game.reveal()
    refused_once: list[Play | Choose] = []
    done = asyncio.Event()

    def submit(action: Play | Choose) -> None:
        if not refused_once:
            refused_once.append(action)
            raise IllegalAction(Reason.NO_COMMON_ATTRIBUTE, "lost the race")
        game.apply(action)
        done.set()

    live = LiveBot(make_bot("inhuman", "first", 0, 2), lambda: game.view(0), submit)
    live.start()
    await asyncio.wait_for(done.wait(), timeout=30)
    live.stop()
    assert live.refused == 1
    assert game.plays == 1
