"""Go Blink in the terminal: :class:`GoTable` (the table, no screen) and :class:`GoBlinkApp`."""

from __future__ import annotations

from blink.games.goblink.tui.driver import CommandError, GoTable

__all__ = ["CommandError", "GoTable"]
