"""Server bots: the bot package (``blink.games.classic.bots``) driven in real time by ``LiveBot``.

The bot package is optional at import time: when it is missing, rooms with bot seats are
refused with ``bots_unavailable`` and everything else works.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from blink.games.classic.engine import Choose, Play, PlayerView

__all__ = ["BotError", "LiveBotLike", "bot_options", "bots_available", "check_spec", "live_bot"]


class BotError(ValueError):
    """An unknown bot level or strategy, or no bot package: ``code`` is the wire code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class LiveBotLike(Protocol):
    """What the server needs from a live bot."""

    def start(self) -> None:
        """Begin reacting."""

    def notify(self) -> None:
        """The game changed."""

    def stop(self) -> None:
        """Stop for good."""


def _bots() -> Any:
    # Imported here, not at the top: the bot package is optional (see the module docstring).
    try:
        import blink.games.classic.bots as bots
        import blink.games.classic.bots.live as live  # noqa: F401
    except ImportError:
        return None
    return bots


def bots_available() -> bool:
    """True when the bot package can be used."""
    return _bots() is not None


def bot_options() -> tuple[list[str], list[str]]:
    """The bot levels and strategies (empty without the bot package)."""
    bots = _bots()
    if bots is None:
        return [], []
    return [str(x) for x in bots.LEVELS], [str(x) for x in bots.STRATEGIES]


def check_spec(text: str) -> str:
    """Validate a bot spec (``"expert:blocker"``); return it normalised or raise BotError."""
    bots = _bots()
    if bots is None:
        raise BotError("bots_unavailable", "bots are not available on this server")
    try:
        spec = bots.BotSpec.parse(text.strip().lower())
    except (bots.BotConfigError, ValueError) as exc:
        raise BotError("bad_bot", str(exc)) from None
    return str(spec)


def live_bot(
    spec: str,
    seat: int,
    seed: int,
    get_view: Callable[[], PlayerView],
    submit: Callable[[Play | Choose], None],
    clock: Callable[[], float],
) -> LiveBotLike:
    """A real-time bot for ``seat`` (not started)."""
    bots = _bots()
    if bots is None:
        raise BotError("bots_unavailable", "bots are not available on this server")
    from blink.games.classic.bots.live import LiveBot  # present: _bots() imported it

    bot = bots.BotSpec.parse(spec).build(seat, seed)
    live: LiveBotLike = LiveBot(bot, get_view, submit, clock=clock)
    return live
