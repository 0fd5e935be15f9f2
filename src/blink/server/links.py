"""Where a finished game's record is served: ``/api/games/{id}/record``.

A public room's games are served to anyone at that address. A private room's game is served
only to someone who knows the room: its URL carries the room's code (``?room=CODE``), and
without it (or with another code) the game does not exist (``404 no_such_game``), so
counting through the sequential ids finds no private game.
"""

from __future__ import annotations

import hmac

__all__ = ["may_read", "record_url"]


def record_url(game_id: int, room_code: str, public: bool) -> str:
    """The URL of a finished game's record, as its players and its room's listings get it."""
    base = f"/api/games/{game_id}/record"
    return base if public else f"{base}?room={room_code}"


def may_read(room_code: str, public: bool, given: str | None) -> bool:
    """Whether a request that named room ``given`` (``None``: none) may read a game of the
    room ``room_code``: always for a public room, else only with its code (any case)."""
    if public:
        return True
    return given is not None and hmac.compare_digest(given.upper().encode(), room_code.encode())
