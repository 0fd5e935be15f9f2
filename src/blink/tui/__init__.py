"""The terminal clients' shared parts: every game's terminal client builds on them.

What every game's terminal client uses: the language and catalog (:mod:`.i18n`), card
drawing (:mod:`.render`), the generic screens (:mod:`.screens`), taking a seat on a server
(:mod:`.seats`), quick play (:mod:`.quick`), the daily challenge (:mod:`.daily`) and the record
file. Each game's own client lives in its package (classic Blink's in
:mod:`blink.games.classic.tui`); the generic ones reach it through the registry.
"""

from __future__ import annotations

__all__: list[str] = []
