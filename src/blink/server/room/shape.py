"""A room as the modules around it read it (:class:`RoomShape`), without naming the room.

:class:`blink.server.room.room.Room` imports the modules that do part of its work (``info``,
``resume``, ``races``, ``practice``); they take the room as this protocol, or as one of their
own that adds what they need of it, so that none of them imports the room's module back.
Mypy checks the room against each of them where the room passes itself. Every member is
read-only here (a property), so the room's attributes match them.
"""

from __future__ import annotations

from typing import Any, Protocol

from blink.model.base import GameDefinition
from blink.server.room.seats import GameState, Seat
from blink.server.settings import Settings

__all__ = ["RoomShape"]


class RoomShape(Protocol):
    """What every part of a room reads of it: its code, game, seats, status and live game."""

    @property
    def code(self) -> str:
        """The room's code."""
        ...

    @property
    def game_name(self) -> str:
        """The name of the room's game (in the registry)."""
        ...

    @property
    def definition(self) -> GameDefinition[Any, Any, Any, Any]:
        """The rules of the room's game."""
        ...

    @property
    def settings(self) -> Settings:
        """The server settings."""
        ...

    @property
    def players(self) -> int:
        """How many seats the room's games have."""
        ...

    @property
    def options(self) -> dict[str, Any]:
        """The options the room was opened with."""
        ...

    @property
    def seats(self) -> list[Seat]:
        """The room's seats, by number."""
        ...

    @property
    def status(self) -> str:
        """``waiting``, ``countdown``, ``playing``, ``between``, ``finished`` or ``closed``."""
        ...

    @property
    def game(self) -> GameState | None:
        """The live game (``None`` before the first)."""
        ...
