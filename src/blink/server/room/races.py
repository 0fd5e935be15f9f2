"""A room's lag allowance: players' plays held and ordered by :class:`blink.server.lag.RaceQueue`
(sans-I/O; times from ``settings.clock``, the one timer through the room's host).

With the room option ``lag_allowance_ms`` (see docs/protocol.md, "Lag allowance"), a play of
the room's game that arrives while its game is under way is not applied at once: it is offered
to the room's queue with every seat's one-way lag as the server measured it
(:class:`blink.server.lag.LagMeter`; a bot's seat, or one never measured, has none), and
applied through :meth:`blink.server.room.room.Room.apply` when it leaves the queue, in the order
of when the plays count as made. Its ``ack``, or its ``refused`` (judged then, against the game as
it is then), is sent as for any play. The room does not read the rules: every play is ordered,
not only those that race for the same pile. Bots' actions and the referee's are not held.

The queue takes its room as a :class:`RacingRoom` (what it needs of it), not as the room itself,
which imports this module.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from blink.model.base import IllegalAction
from blink.server.lag import AllowanceRule, RaceQueue
from blink.server.room.host import Timers
from blink.server.room.seats import NoGame, Peer, Refusal
from blink.server.room.shape import RoomShape

__all__ = ["Play", "RacingRoom", "offer", "races_for"]

Play = tuple[int, Any, int, str, Any]
"""A held play: its game's id, the action, its seat, its client id and its message (which
names the pile's version the player saw: a play that lost its race is told ``too_slow``)."""


class RacingRoom(RoomShape, Protocol):
    """What the lag allowance's queue needs of its room, besides its :class:`RoomShape`: its
    host's timer, and the room's own path of an action and of a refusal."""

    @property
    def hub(self) -> Timers:
        """The room's host (it arms the queue's timer)."""
        ...

    def apply(self, action: Any, seat: int | None, msg_id: str | None) -> int:
        """Judge and apply one action (:meth:`blink.server.room.room.Room.apply`)."""
        ...

    def refusal(self, seat: int, message: Any, exc: IllegalAction) -> Refusal:
        """The refusal of a play the game refused (or ``too_slow``)."""
        ...

    def answer_refusal(
        self, seat: int, msg_id: str, refusal: Refusal, conns: Iterable[Peer]
    ) -> None:
        """Answer ``seat``'s action ``msg_id`` with ``refusal`` on ``conns``, and keep it."""
        ...


def races_for(options: dict[str, Any], seats: int) -> RaceQueue[Play] | None:
    """The queue of a room with these options (``None``: the allowance is off)."""
    rule = AllowanceRule.of(options)
    return None if rule is None else RaceQueue(rule, seats)


def offer(
    room: RacingRoom, races: RaceQueue[Play], action: Any, seat: int, msg_id: str, message: Any
) -> bool:
    """Hold a player's play (``action``, from its ``message``) in ``room``'s queue; ``False``
    (nothing done) when no game is under way, so that the play is judged at once."""
    g = room.game
    if g is None or g.game.over or g.table.holding:
        return False
    now = room.settings.clock()
    one_ways = [s.lag.one_way if s.kind == "human" else None for s in room.seats]
    races.offer(seat, (g.id, action, seat, msg_id, message), now, one_ways)
    room.seats[seat].pending_ids.add(msg_id)
    release(room, races)
    return True


def release(room: RacingRoom, races: RaceQueue[Play]) -> None:
    """Apply the plays whose time has come, in order; arm the timer for the next one."""
    if races.timer is not None:
        races.timer.cancel()
        races.timer = None
    now = room.settings.clock()
    for held in races.due(now):
        gid, action, seat, msg_id, message = held.item
        room.seats[seat].pending_ids.discard(msg_id)
        try:
            g = room.game
            if g is None or g.id != gid:
                raise NoGame()
            room.apply(action, seat, msg_id)
        except IllegalAction as exc:
            _refuse(room, seat, msg_id, room.refusal(seat, message, exc))
        except NoGame:
            _refuse(room, seat, msg_id, Refusal("no_game", "no game is in progress"))
    nxt = races.next_release()
    if nxt is not None:
        races.timer = room.hub.later(max(0.0, nxt - now), lambda: release(room, races))


def _refuse(room: RacingRoom, seat: int, msg_id: str, refusal: Refusal) -> None:
    """A held play refused when it left the queue: answered on every connection of its seat
    (the one it came on may have been replaced meanwhile)."""
    room.answer_refusal(seat, msg_id, refusal, list(room.seats[seat].conns))
