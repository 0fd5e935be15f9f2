"""A Go Blink bot playing one seat live, on the driver's asyncio event loop.

Whenever it is the bot's turn it waits ``delay`` seconds (so people can follow), asks the bot
for its action in the seat's current view and submits it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from blink.games.goblink.bots import GoBot
from blink.games.goblink.engine import GoAction, GoView, IllegalAction

__all__ = ["LiveGoBot"]

log = logging.getLogger("blink.games.goblink")


class LiveGoBot:
    """Drive a :class:`~blink.games.goblink.bots.GoBot` in real time (see the module)."""

    def __init__(
        self,
        bot: GoBot,
        view: Callable[[], GoView],
        submit: Callable[[GoAction], None],
        delay: float,
    ) -> None:
        self.bot = bot
        self.view = view
        self.submit = submit
        self.delay = delay
        self.handle: asyncio.TimerHandle | None = None
        self.stopped = False

    def start(self) -> None:
        """Begin playing (plans at once if it is already this seat's turn)."""
        self.notify()

    def notify(self) -> None:
        """The game changed: plan an action if it is this seat's turn."""
        if self.stopped or self.handle is not None:
            return
        view = self.view()
        if view.outcome is not None or view.current != self.bot.seat:
            return
        self.handle = asyncio.get_running_loop().call_later(self.delay, self._act)

    def stop(self) -> None:
        """Stop for good."""
        self.stopped = True
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def _act(self) -> None:
        self.handle = None
        if self.stopped:
            return
        view = self.view()
        if view.outcome is not None or view.current != self.bot.seat:
            return
        try:
            self.submit(self.bot.act(view))
        except IllegalAction as exc:
            # The turn timer takes the default action for the seat when its time is up.
            log.warning("Go Blink bot of seat %d was refused (%s)", self.bot.seat, exc.code)
        except Exception:
            log.exception("Go Blink bot of seat %d failed", self.bot.seat)
