"""Classic Blink's actions as numbers and a seat's view as an array: the game's codec
(:mod:`blink.games.classic.codec`, which the ``trained`` bots share), named here for the
environments."""

from __future__ import annotations

from blink.games.classic.codec import WAIT, ClassicCodec, ClassicEncoder

__all__ = ["WAIT", "ClassicCodec", "ClassicEncoder"]
