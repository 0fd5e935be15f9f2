"""What a room's table does by itself: the game's referee, on the server's delays.

A :class:`TableClock` keeps, for one live game of a room, the definition's
:class:`~blink.model.base.RefereeClock` (what the game does by itself next, and when) and the
one event-loop timer armed at its deadline. The room calls :meth:`TableClock.update` after
every change it applies; when a wait with a new key begins, the room arms the timer for the
delay it is given (the old one is cancelled then, and when nothing is pending). When the timer
fires, :meth:`TableClock.due_actions` gives the referee's actions one at a time, asking the
referee again after each, for as long as the same wait is pending; the room applies each on
behalf of its seat through its normal path (storage, frames, acks).

The delays are the server's (:func:`timings`); times are ``settings.clock`` seconds. What the
frames say about a wait (a stall and its deadline, the countdown, a turn's deadline) is read
here too (:meth:`TableClock.deadline_of`, :meth:`TableClock.stall_wire`).

The countdown. A game whose referee counts down by itself (classic Blink: its reveal waits on
:attr:`~blink.model.base.Timer.COUNTDOWN`) needs nothing more. A game that starts at its deal
can still be held for a countdown (its table says how long,
:meth:`blink.model.table.Table.countdown`): then the clock answers a
:attr:`~blink.model.base.Timer.COUNTDOWN` wait with no actions (:data:`HOLD_KEY`) until
:meth:`TableClock.release`, and the referee's first wait (a turn's time) starts only then. Both
kinds look the same to the room and its frames (:meth:`TableClock.deadline_of`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any, Final, Literal, Protocol

from blink.model.base import GameDefinition, Pending, RefereeClock, Timer, Timings
from blink.server.protocol import Stall, Turn
from blink.server.settings import Settings

__all__ = [
    "HOLD_KEY",
    "MAX_STEPS",
    "STALL_KINDS",
    "Cancellable",
    "TableClock",
    "ms_left",
    "server_ms",
    "timings",
]

log = logging.getLogger("blink.server")

MAX_STEPS: Final = 32
"""Most actions taken for one wait when its deadline comes; a referee whose wait does not end
after that many is stopped there (and logged) rather than followed for ever."""

STALL_KINDS: Final[dict[Timer, Literal["flip", "choose"]]] = {
    Timer.STALL_PAUSE: "flip",
    Timer.CHOICE_DEADLINE: "choose",
}
"""The ``kind`` of a frame's ``stall`` object for each stall the referee waits on."""

HOLD_KEY: Final = ("countdown",)
"""The key of the wait a held game's clock answers with until it is released."""


class Cancellable(Protocol):
    """A timer the driver armed (an asyncio ``TimerHandle``, or a test's virtual timer)."""

    def cancel(self) -> None:
        """Do not fire."""
        ...


def timings(settings: Settings, game: Timings) -> Timings:
    """The delays of a game's referee on the server: the game's own (``game``, its
    :attr:`~blink.model.base.GameInfo.timings`) with each one the settings give (countdown,
    stall pause, choice deadline, turn time) in its place."""
    return game.updated(
        settings.countdown, settings.stall_pause, settings.choice_deadline, settings.turn_time
    )


def ms_left(deadline: float, now: float) -> int:
    """Whole milliseconds from ``now`` to ``deadline`` (0 once it has passed)."""
    return max(0, round((deadline - now) * 1000))


def server_ms(moment: float) -> int:
    """A moment of ``settings.clock`` as the frames announce it: whole milliseconds, the
    clock ``pong``'s ``server_ms`` reads."""
    return round(moment * 1000)


class TableClock:
    """One live game's referee deadline and the one timer armed at it.

    It holds no reference to the room or the game: the timer's callback does, and it is
    dropped when the timer fires or is cancelled.
    """

    __slots__ = ("handle", "held_until", "hold", "paused_at", "pending", "referee")

    def __init__(
        self,
        definition: GameDefinition[Any, Any, Any, Any],
        delays: Timings,
        hold: float | None = None,
    ) -> None:
        self.referee = RefereeClock(definition, delays)
        self.pending: Pending | None = None
        """The referee's answer for the game as it is now (``None``: the players must act)."""
        self.handle: Cancellable | None = None
        """The timer armed at the deadline (``None`` once it fired or was cancelled)."""
        self.hold = hold
        """Seconds the game is held before its referee starts (a countdown the game does not
        have by itself); ``None``: no hold, or released."""
        self.held_until: float | None = None
        """When the hold ends (from the first :meth:`update`), while held."""
        self.paused_at: float | None = None
        """When a practice game was paused (``None``: not paused): no timer is armed and
        :meth:`update` changes nothing until :meth:`unpause`."""

    @property
    def holding(self) -> bool:
        """True while the game is held for its countdown: nobody may act yet."""
        return self.hold is not None

    def release(self) -> None:
        """End the hold (its countdown is over); the next :meth:`update` asks the referee."""
        self.cancel()
        self.hold = self.held_until = None
        self.pending = None

    def restart(self) -> None:
        """The wait under way starts over with its full delay at the next :meth:`update`
        (after a restart or a storage failure): a hold too."""
        self.cancel()
        self.referee.key = None
        self.held_until = None

    def update(self, state: Any, now: float) -> float | None:
        """Ask the referee about ``state`` after a change at ``now``.

        Returns the delay to arm the timer with when a wait with a new key began (its deadline
        starts now), else ``None``. The old timer is cancelled when a new wait begins and when
        nothing is pending; a wait that goes on keeps its timer and its deadline. While the
        game is held the wait is the hold's (from the first update on).
        """
        if self.hold is not None:
            if self.held_until is not None:
                return None
            self.cancel()
            self.held_until = now + self.hold
            self.pending = Pending(HOLD_KEY, Timer.COUNTDOWN, ())
            return self.hold
        before = self.referee.key
        pending = self.pending = self.referee.update(state, now)
        if pending is None:
            self.cancel()
            return None
        if pending.key == before:
            return None
        self.cancel()
        deadline = self.referee.deadline
        return None if deadline is None else max(0.0, deadline - now)

    @property
    def paused(self) -> bool:
        """True while a practice game is paused: nobody may act, and no deadline runs."""
        return self.paused_at is not None

    def pause(self, now: float) -> None:
        """Stop the clock at ``now``: the armed timer is cancelled, and the wait under way
        keeps the time it has left until :meth:`unpause`."""
        if self.paused_at is None:
            self.cancel()
            self.paused_at = now

    def unpause(self, now: float) -> float | None:
        """Start the clock again at ``now``: every deadline moves later by the pause's length.
        Returns the delay to arm the timer with for the wait that goes on (``None``: none is
        pending, or the wait starts over at the next :meth:`update`)."""
        if self.paused_at is None:
            return None
        length, self.paused_at = now - self.paused_at, None
        self.referee.shift(length)
        if self.held_until is not None:
            self.held_until += length
        deadline = self.held_until if self.hold is not None else self.referee.deadline
        if self.pending is None or deadline is None:
            return None
        return max(0.0, deadline - now)

    def peek(self, state: Any, now: float) -> tuple[Stall | None, Turn | None]:
        """The ``stall`` and ``turn`` of a frame showing ``state`` after a change at ``now``,
        as :meth:`update` would leave them, without changing anything."""
        pending = self.referee.definition.referee(state)
        if pending is None:
            return None, None
        if pending.key == self.referee.key:
            deadline = self.referee.deadline
        else:
            delay = self.referee.timings.of(pending.timer)
            deadline = None if delay is None else now + delay
        if deadline is None:
            return None, None
        return _stall(pending, deadline, now), _turn(pending, deadline, now)

    def cancel(self) -> None:
        """Cancel the armed timer, if any."""
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def due_actions(self) -> Iterator[tuple[int | None, Any]]:
        """The pending wait's actions as ``(seat, action)``, one at a time: the caller applies
        each (which updates this clock) before asking for the next. Ends when the wait is
        over (its key changed, or nothing is pending), or after :data:`MAX_STEPS`."""
        first = self.pending
        if first is None:
            return
        for _ in range(MAX_STEPS):
            pending = self.pending
            if pending is None or pending.key != first.key or not pending.actions:
                return
            yield pending.actions[0]
        log.error("the referee's wait %r did not end after %d actions", first.key, MAX_STEPS)

    def deadline_of(self, timer: Timer) -> float | None:
        """The deadline of the pending wait when it waits for ``timer``, else ``None``."""
        pending = self.pending
        if pending is None or pending.timer is not timer:
            return None
        return self.held_until if self.hold is not None else self.referee.deadline

    def stall_wire(self, now: float) -> Stall | None:
        """A frame's ``stall`` (``kind``, ``in_ms``, ``waiting``), ``None`` unless the referee
        waits on a stall."""
        pending, deadline = self.pending, self.referee.deadline
        return None if pending is None or deadline is None else _stall(pending, deadline, now)

    def turn_wire(self, now: float) -> Turn | None:
        """A frame's ``turn`` (the seat and its milliseconds left), ``None`` unless the
        referee waits on a turn's time."""
        pending, deadline = self.pending, self.referee.deadline
        return None if pending is None or deadline is None else _turn(pending, deadline, now)


def _stall(pending: Pending, deadline: float, now: float) -> Stall | None:
    kind = STALL_KINDS.get(pending.timer)
    if kind is None:
        return None
    choosing = pending.timer is Timer.CHOICE_DEADLINE
    waiting = [s for s, _ in pending.actions if s is not None] if choosing else []
    return Stall(kind=kind, in_ms=ms_left(deadline, now), waiting=waiting, at=server_ms(deadline))


def _turn(pending: Pending, deadline: float, now: float) -> Turn | None:
    if pending.timer is not Timer.TURN or not pending.actions:
        return None
    seat = pending.actions[0][0]
    return None if seat is None else Turn(seat=seat, in_ms=ms_left(deadline, now))
