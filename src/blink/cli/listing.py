"""Help texts built from the registries: the default game's (classic Blink's) player range,
its bots' levels and strategies, each listed in its registry's order, so a new one appears
without touching a command. The default game is found through the game registry
(:mod:`blink.model.registry`), its bots through its live table.

Reading the registries imports the bot packages (data and pure code, no I/O framework); Textual,
the server and the simulators are still imported inside the commands.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from blink.model.base import GameInfo
from blink.model.registry import DEFAULT_GAME, get_game, get_table

__all__ = [
    "DEFAULT_INFO",
    "DEFAULT_LEVEL",
    "DEFAULT_STRATEGY",
    "LEVELS",
    "LEVELS_MARKED",
    "LEVEL_NAMES",
    "STRATEGIES",
    "STRATEGIES_MARKED",
    "STRATEGY_NAMES",
    "in_range",
    "in_words",
    "marked",
    "or_list",
]

DEFAULT_INFO: Final[GameInfo] = get_game(DEFAULT_GAME).info
"""The default game's facts (classic Blink's; players: ``DEFAULT_INFO.player_range``)."""
_BOTS: Final[dict[str, Any]] = get_table(DEFAULT_GAME).bot_info()
"""The default game's bots: levels, strategies and their defaults (its live table's)."""
LEVELS: Final[tuple[str, ...]] = tuple(lv["name"] for lv in _BOTS["levels"])
"""The default game's bot levels, slowest first."""
STRATEGIES: Final[tuple[str, ...]] = tuple(s["name"] for s in _BOTS["strategies"])
"""The default game's bot strategies, in the order registered."""
DEFAULT_LEVEL: Final[str] = str(_BOTS["default_level"])
"""The level of a bot when none is named."""
DEFAULT_STRATEGY: Final[str] = str(_BOTS["default_strategy"])
"""The strategy of a bot when none is named."""


def marked(names: Iterable[str], default: str) -> str:
    """``"a, b (default), c"``: the names in order, the default one marked."""
    return ", ".join(f"{n} (default)" if n == default else n for n in names)


def or_list(names: Iterable[str]) -> str:
    """``"a, b or c"``: the names in order, the last joined with "or"."""
    items = list(names)
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} or {items[-1]}"


_WORDS: Final = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def in_words(n: int) -> str:
    """A small number in words (``2`` is ``"two"``); digits from ten on."""
    return _WORDS[n] if 0 <= n < len(_WORDS) else str(n)


def in_range(info: GameInfo, players: int) -> bool:
    """True when ``info``'s game can be played by ``players``."""
    return info.min_players <= players <= info.max_players


LEVEL_NAMES: Final = ", ".join(LEVELS)
"""Every bot level of the default game, slowest first: ``"beginner, casual, ..."``."""
STRATEGY_NAMES: Final = ", ".join(STRATEGIES)
"""Every bot strategy of the default game, in the order registered."""
LEVELS_MARKED: Final = marked(LEVELS, DEFAULT_LEVEL)
"""The levels with the default marked."""
STRATEGIES_MARKED: Final = marked(STRATEGIES, DEFAULT_STRATEGY)
"""The strategies with the default marked."""
