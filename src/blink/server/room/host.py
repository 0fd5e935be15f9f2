"""What a room needs of the server around it (:class:`RoomHost`), and the reason codes the
room itself gives to refused actions (:class:`GameOver`, :class:`Unsaved`,
:class:`NotStarted`: the games' own reasons come from their definitions).

Nothing here names the room (:class:`blink.server.room.room.Room` imports this module): the
host's hooks take the room as a type parameter, ``RoomHost[Room]``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from blink.server.room.clock import Cancellable
from blink.server.room.seats import GameState
from blink.server.room_writes import RoomWrite
from blink.server.settings import Settings

__all__ = ["GameOver", "NotStarted", "RoomHost", "Timers", "Unsaved"]

RoomT = TypeVar("RoomT")
"""The room a host's hooks are called with (:class:`blink.server.room.room.Room`)."""


class GameOver:
    """The reason code of an action that comes after its game."""

    value = "game_over"


class Unsaved:
    """The reason code of an action while the database cannot be written."""

    value = "storage_unavailable"


class NotStarted:
    """The reason code of an action while a held game counts down."""

    value = "not_started"


class Timers(Protocol):
    """What arms a room's timers (its host)."""

    def later(self, delay: float, fire: Callable[[], None]) -> Cancellable:
        """Call ``fire`` in ``delay`` seconds, unless cancelled."""
        ...


class RoomHost(Timers, Protocol[RoomT]):
    """The server around a room: its settings, its drivers (storage, timers) and its hooks
    (:class:`blink.server.hub.Hub` is the one there is; tests give their own). ``RoomT``: the
    room its hooks are called with."""

    settings: Settings
    version: str
    """The server's version (sent in ``welcome``)."""
    game_end_hooks: list[Callable[[RoomT, GameState], None]]
    """Called after each game ends: ratings, tournaments."""
    room_hooks: list[Callable[[RoomT], None]]
    """Called after the room's seats, status or spectator count changed (the lobby)."""
    profile_hashes: set[str] | None
    """The secret hashes of the server's profiles once read (see blink.server.profiles)."""

    def take_game_id(self) -> int:
        """A new game id."""
        ...

    def store(
        self,
        job: RoomWrite | Callable[[Any], Any],
        done: Callable[[Any], None] | None = None,
        room: str | None = None,
        received: float | None = None,
    ) -> None:
        """Queue a room's record to keep (or a driver's own storage job); ``done(result or
        exception)`` is called after its commit. A write of room ``room`` is fenced by the
        room's lease on a cluster node (committed only while this node still holds it).
        ``received``: the write of a player's action, whose commit sends its ack: when the
        action's message came (``time.perf_counter`` seconds), for the ack's latency."""
        ...

    def write_failure(self) -> str | None:
        """Why nothing can be stored now (``None``: it can): the room's games then wait."""
        ...
