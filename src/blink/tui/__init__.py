"""The Textual terminal client: ``blink play``.

The screen renders views only. Rules live in the engine (:mod:`blink.games.classic.engine`); the
game is run
by a table controller: :class:`blink.tui.table.LocalTable` owns a local game (two people on one
keyboard, or people against bots) and :class:`blink.tui.online.OnlineTable` speaks the server's
WebSocket protocol. :class:`blink.tui.app.BlinkApp` draws whichever table it is given.
"""

from __future__ import annotations

__all__: list[str] = []
