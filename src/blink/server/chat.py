"""Quick chat: a fixed set of phrases a player may send to the room, a few at a time.

There is no free text, so there is nothing to moderate: a phrase travels as one of the ids
of :data:`PHRASES`, and each client shows it in the reader's language. Only players send;
everyone in the room (spectators too) gets the ``chat`` frame. Phrases are not stored.

:class:`QuickChat` is one room's judge of a phrase: a known id, and each seat's own fixed
window (``Settings.chat_rate``, three in six seconds by default: a burst of three, one every
two seconds on average) counted by the ``limits`` library on the room's clock. Nothing here
does I/O.
"""

from __future__ import annotations

from typing import Final

from blink.server.message_limits import MessageLimiter

__all__ = ["PHRASES", "QuickChat"]

PHRASES: Final = ("good_game", "rematch", "well_played", "oops")
"""The phrases, by id: "Good game", "Rematch?", "Well played", "Oops!"."""


class QuickChat:
    """The phrases one room accepts from its seats (see the module docstring)."""

    def __init__(self, limiter: MessageLimiter) -> None:
        self._limiter = limiter

    def judge(self, seat: int, phrase: str) -> tuple[str, str] | None:
        """Why seat ``seat`` may not say ``phrase`` now, ``(code, message)``, or ``None``
        (it is then counted in the seat's window)."""
        if phrase not in PHRASES:
            return "unknown_phrase", f"quick chat phrases are {', '.join(PHRASES)}"
        if not self._limiter.hit(str(seat)):
            return "chat_too_fast", "too many quick chat phrases: wait a moment"
        return None
