"""A Go Blink bot playing one seat live, driven from the driver's asyncio event loop.

Whenever it is the bot's turn it waits ``delay`` seconds (so people can follow), takes the
seat's current view on the loop and asks the bot for its action in a worker thread, so that a
slow decision never holds up the loop: the master bot's first one in a process loads its
compiled search (a fraction of a second, or half a minute when numba's disk cache is empty),
and the bot itself is made there, on its first turn (making a master bot loads numba). Back on
the loop, it submits the action only if the seat's view is still the one it decided in (the
turn timer may have acted for the seat in the meantime, or the game ended); otherwise it
decides again. The bot object is used by one thread at a time, and the view is immutable.

Each decision runs in a daemon thread of its own (:func:`in_daemon_thread`), not in the loop's
default executor: stopping the bot, the loop or the process never waits for a decision under
way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from functools import partial
from typing import TypeVar

from blink.games.goblink.bots import GoBot
from blink.games.goblink.engine import GoAction, GoView, IllegalAction

__all__ = ["LiveGoBot", "in_daemon_thread"]

log = logging.getLogger("blink.games.goblink")

T = TypeVar("T")


async def in_daemon_thread(work: Callable[[], T], name: str) -> T:
    """``work()``, run in a daemon thread of its own and awaited on the running loop.

    ``asyncio.to_thread`` uses the loop's default executor, whose threads the loop's shutdown
    and the interpreter's exit both wait for: quitting while the master bot compiles its search
    (half a minute when numba's disk cache is empty) would wait that long. Here, cancelling the
    await abandons the thread: its result is dropped, and a process that ends does not wait.
    """
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def deliver(settle: Callable[[], None]) -> None:
        def on_loop() -> None:
            if not done.done():  # not cancelled meanwhile
                settle()

        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits any more
            loop.call_soon_threadsafe(on_loop)

    def run() -> None:
        try:
            result = work()
        except BaseException as exc:  # handed to the awaiting task, never lost
            deliver(partial(done.set_exception, exc))
        else:
            deliver(partial(done.set_result, result))

    threading.Thread(target=run, name=name, daemon=True).start()
    return await done


class LiveGoBot:
    """Drive a :class:`~blink.games.goblink.bots.GoBot` in real time (see the module).

    ``make`` builds the bot (in the worker thread, before its first decision); ``seat`` is the
    seat it plays.
    """

    def __init__(
        self,
        make: Callable[[], GoBot],
        seat: int,
        view: Callable[[], GoView],
        submit: Callable[[GoAction], None],
        delay: float,
    ) -> None:
        self.make = make
        self.seat = seat
        self.bot: GoBot | None = None
        """The bot, once made (on its first turn)."""
        self.view = view
        self.submit = submit
        self.delay = delay
        self.handle: asyncio.TimerHandle | None = None
        self.thinking: asyncio.Task[None] | None = None
        """The decision under way in a worker thread, if any."""
        self.stopped = False

    def start(self) -> None:
        """Begin playing (plans at once if it is already this seat's turn)."""
        self.notify()

    def notify(self) -> None:
        """The game changed: plan an action if it is this seat's turn."""
        if self.stopped or self.handle is not None or self.thinking is not None:
            return
        view = self.view()
        if view.outcome is not None or view.current != self.seat:
            return
        self.handle = asyncio.get_running_loop().call_later(self.delay, self._act)

    def stop(self) -> None:
        """Stop for good (a decision under way is dropped when it ends)."""
        self.stopped = True
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None
        if self.thinking is not None:
            self.thinking.cancel()
            self.thinking = None

    def _act(self) -> None:
        self.handle = None
        if self.stopped:
            return
        view = self.view()
        if view.outcome is not None or view.current != self.seat:
            return
        self.thinking = asyncio.get_running_loop().create_task(self._think(view))

    def _decide(self, view: GoView) -> GoAction:
        """The bot's action in ``view`` (in a worker thread; makes the bot the first time)."""
        if self.bot is None:
            self.bot = self.make()
        return self.bot.act(view)

    async def _think(self, view: GoView) -> None:
        try:
            action = await in_daemon_thread(
                lambda: self._decide(view), f"Go Blink bot of seat {self.seat}"
            )
        except Exception:
            self.thinking = None
            log.exception("Go Blink bot of seat %d failed", self.seat)
            return
        self.thinking = None
        if self.stopped:
            return
        if self.view() != view:
            # The game moved on while the bot thought (the turn timer acted for the seat, or
            # the game ended): decide again if it is still this seat's turn.
            self.notify()
            return
        try:
            self.submit(action)
        except IllegalAction as exc:
            # The turn timer takes the default action for the seat when its time is up.
            log.warning("Go Blink bot of seat %d was refused (%s)", self.seat, exc.code)
        except Exception:
            log.exception("Go Blink bot of seat %d failed", self.seat)
