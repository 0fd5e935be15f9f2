"""Practice games: one person against bots, never rated, with a pause.

A room opened with ``practice`` (``POST /api/rooms`` or ``POST /api/quick``) holds one person
and bots only, and is no daily challenge's or tournament's (:func:`check_practice` refuses the
rest with ``practice_bots_only`` or ``practice_unrated``); its games are never rated
(:func:`blink.server.profiles.on_game_end`).

In such a room a client may show its player which cards fit which piles (every view's
``fits`` says so, by the game's own rule), and the player may pause the game
(:func:`set_paused`): the table's clock stops
(:meth:`blink.server.room.clock.TableClock.pause`), the bots are stopped, and every action
is refused with ``paused``; resuming moves every deadline later by the pause's length, shifts the
game's own time the same way, and starts the bots again. The pause is stored with the game
(``games.paused``): a game restored after a restart (or on another node of a cluster) is still
paused, and its wait under way starts over, in full, when it is resumed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol

from blink.server.room.live_bots import stop_bots
from blink.server.room.seats import GameState, Seat
from blink.server.room.shape import RoomShape

__all__ = ["OPTION", "PausableRoom", "Paused", "check_practice", "is_practice", "set_paused"]

OPTION: Final = "practice"
"""The room option of a practice game (``True``)."""


class Paused:
    """The reason code of an action while a practice game is paused."""

    value = "paused"


class PausableRoom(RoomShape, Protocol):
    """What pausing needs of a room, besides its :class:`RoomShape`: the room's own work once
    its game's table clock has stopped or started again."""

    def pause_changed(self, g: GameState, now: float, delay: float | None) -> None:
        """``g``'s clock was paused or resumed at ``now``
        (:meth:`blink.server.room.room.Room.pause_changed`)."""
        ...


def is_practice(options: Mapping[str, Any]) -> bool:
    """True for a practice room's options."""
    return options.get(OPTION) is True


def check_practice(seats: Sequence[Seat], server_options: bool) -> tuple[str, str] | None:
    """Why a room of ``seats`` cannot be a practice game, as ``(code, sentence)``; ``None``
    when it can. ``server_options``: the room is opened with options of the server's own (a
    daily challenge's deal), whose games count."""
    if server_options:
        return (
            "practice_unrated",
            "a practice game is never rated: it cannot be a daily challenge or a tournament game",
        )
    if sum(1 for s in seats if s.kind == "human") != 1:
        return (
            "practice_bots_only",
            "a practice game is one person against bots: every other seat must be a bot",
        )
    return None


def set_paused(room: PausableRoom, seat: int, paused: bool) -> tuple[str, str] | None:
    """The player of ``seat`` pauses (``paused``) or resumes the practice game in ``room``.
    Returns why it was refused, ``(code, sentence)``, else ``None`` (asking for the state it
    is in already changes nothing)."""
    if not is_practice(room.options):
        return ("not_practice", "only a practice game against bots can be paused")
    if room.seats[seat].kind != "human":
        return ("not_a_player", "only the player can pause the game")
    g = room.game
    if g is None or g.game.over or room.status not in ("countdown", "playing"):
        return ("no_game", "no game is in progress")
    if paused == g.table.paused:
        return None
    now = room.settings.clock()
    delay = None
    if paused:
        g.table.pause(now)
        stop_bots(g)
    else:
        start = g.table.paused_at
        delay = g.table.unpause(now)
        if start is not None and g.t0 is not None:
            g.t0 += now - start  # the game's own time does not count the pause
    room.pause_changed(g, now, delay)
    return None
