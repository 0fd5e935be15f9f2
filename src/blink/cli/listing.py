"""Help texts built from the registries: classic Blink's player range, the bots' levels and
strategies, each listed in its registry's order, so a new one appears without touching a command.

Reading the registries imports the bot packages (data and pure code, no I/O framework); Textual,
the server and the simulators are still imported inside the commands.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from blink.games.classic.bots import DEFAULT_LEVEL, DEFAULT_STRATEGY, LEVELS, STRATEGIES
from blink.games.classic.definition import CLASSIC
from blink.model.base import GameInfo

__all__ = [
    "CLASSIC_INFO",
    "LEVELS_MARKED",
    "LEVEL_NAMES",
    "STRATEGIES_MARKED",
    "STRATEGY_NAMES",
    "in_range",
    "in_words",
    "marked",
    "or_list",
]

CLASSIC_INFO: Final[GameInfo] = CLASSIC.info
"""Classic Blink's facts (players: ``CLASSIC_INFO.player_range``)."""


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
"""Every classic bot level, slowest first: ``"beginner, casual, ..."``."""
STRATEGY_NAMES: Final = ", ".join(STRATEGIES)
"""Every classic bot strategy, in the order registered."""
LEVELS_MARKED: Final = marked(LEVELS, DEFAULT_LEVEL)
"""The levels with the default marked."""
STRATEGIES_MARKED: Final = marked(STRATEGIES, DEFAULT_STRATEGY)
"""The strategies with the default marked."""
