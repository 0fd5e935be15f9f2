"""The same bots in real time, on an asyncio event loop, for the server and the terminal client.

A :class:`LiveBot` wraps a :class:`~blink.games.classic.bots.Bot`. Its owner calls
:meth:`LiveBot.notify`
after every change of the game; the bot re-plans from a fresh view and (re)schedules its one
pending action with ``loop.call_later``. When the action is due it is passed to ``submit``
(which may be a coroutine function); if the game refuses it (``IllegalAction``, for example a
lost race) the bot forgets its plan and looks at the table again from a fresh view. ::

    live = LiveBot(make_bot("expert", "blocker", seat=1, seed=7),
                   get_view=lambda: game.view(1),
                   submit=lambda action: room.apply(action))
    live.start()          # inside a running loop
    ...                   # after every change of the game: live.notify()
    live.stop()
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Awaitable, Callable

from blink.games.classic.bots.base import Bot, Intent
from blink.games.classic.engine import Choose, IllegalAction, Play, PlayerView

__all__ = ["LiveBot"]

log = logging.getLogger(__name__)


class LiveBot:
    """Drive a :class:`~blink.games.classic.bots.Bot` in real time on the running asyncio loop.

    ``get_view`` returns the bot's current view; ``submit`` sends an action (it may return an
    awaitable, and may raise :class:`~blink.games.classic.engine.IllegalAction`); ``clock`` is the
    time
    source passed to the bot as ``now`` (seconds). Delays are waited with ``loop.call_later``.
    """

    def __init__(
        self,
        bot: Bot,
        get_view: Callable[[], PlayerView],
        submit: Callable[[Play | Choose], Awaitable[object] | object],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.bot = bot
        self.get_view = get_view
        self.submit = submit
        self.clock = clock
        self._timed = _accepts_now(bot)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._pending: Play | Choose | None = None
        self._inflight: Play | Choose | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._running = False
        self.submitted = 0
        """Actions passed to ``submit`` so far."""
        self.refused = 0
        """Actions the game refused (lost races)."""

    @property
    def running(self) -> bool:
        """True between :meth:`start` and :meth:`stop`."""
        return self._running

    @property
    def pending(self) -> Play | Choose | None:
        """The action scheduled to be submitted, if any."""
        return self._pending

    def start(self) -> None:
        """Begin: needs a running loop; plans immediately from the current view."""
        self._loop = asyncio.get_running_loop()
        self._running = True
        self.notify()

    def stop(self) -> None:
        """Cancel any pending action and stop reacting to notifications."""
        self._running = False
        self._cancel()
        for task in list(self._tasks):
            task.cancel()

    def notify(self) -> None:
        """The game changed: re-plan from a fresh view, rescheduling the pending action."""
        if not self._running or self._loop is None:
            return
        view = self.get_view()
        plan: Callable[..., Intent | None] = self.bot.plan
        intent = plan(view, self.clock()) if self._timed else plan(view)
        if intent is None:
            self._cancel()
            return
        action, delay = intent
        if self._inflight is not None and action == self._inflight:
            return  # already on its way: do not send it twice
        if self._handle is not None and action == self._pending:
            # The same plan: move it to its (possibly updated) due time.
            self._handle.cancel()
        else:
            self._cancel()
        self._pending = action
        self._handle = self._loop.call_later(max(0.0, delay), self._fire, action)

    # -- internals ----------------------------------------------------------------------------

    def _cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._handle = None
        self._pending = None

    def _fire(self, action: Play | Choose) -> None:
        self._handle = None
        self._pending = None
        if not self._running:
            return
        self._inflight = action
        self.submitted += 1
        try:
            result = self.submit(action)
        except IllegalAction:
            self._refused()
            return
        if inspect.isawaitable(result):
            task = asyncio.ensure_future(self._await(result))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        else:
            self._inflight = None
            self.notify()

    async def _await(self, result: Awaitable[object]) -> None:
        try:
            await result
        except IllegalAction:
            self._refused()
            return
        except asyncio.CancelledError:
            raise
        except Exception:  # the transport failed: log it and carry on with the next change
            log.exception("submitting %r failed", self._inflight)
            self._inflight = None
            self._forget()
            return
        self._inflight = None
        self.notify()

    def _refused(self) -> None:
        self.refused += 1
        self._inflight = None
        self._forget()
        # Look again at once (a fresh decision, so never a hot loop): if the game has already
        # told us about the change that beat us, no further notify may come.
        if self._running and self._loop is not None:
            self._loop.call_soon(self.notify)

    def _forget(self) -> None:
        reset = getattr(self.bot, "reset", None)
        if callable(reset):
            reset()


def _accepts_now(bot: Bot) -> bool:
    try:
        params = inspect.signature(bot.plan).parameters
    except (TypeError, ValueError):
        return False
    return "now" in params
