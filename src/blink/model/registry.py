"""The registry of games: the one place that knows every game's name.

Everything above the engines gets a game here, by the name stored in a record or a room::

    from blink.model.registry import get_game
    game = get_game("classic")
    state = game.new(players=2, seed=7)

The built-in games are imported the first time they are asked for, so that importing the
registry stays cheap. :func:`register` adds another game (a plug-in, or a test's own game).
"""

from __future__ import annotations

import importlib
from typing import Any, Final

from blink.model.base import GameDefinition
from blink.model.table import Table

__all__ = [
    "DEFAULT_GAME",
    "NoTable",
    "UnknownGame",
    "game_names",
    "games",
    "get_game",
    "get_table",
    "register",
]

DEFAULT_GAME: Final = "classic"
"""The game a room, a record or a command means when it names none."""

# name -> (module, attribute) of each built-in definition.
_BUILT_IN: Final = {
    "classic": ("blink.games.classic.definition", "CLASSIC"),
    "goblink": ("blink.games.goblink.definition", "GOBLINK"),
}

# name -> (module, attribute) of each built-in game's live table (blink.model.table).
_BUILT_IN_TABLES: Final = {
    "classic": ("blink.games.classic.table", "TABLE"),
    "goblink": ("blink.games.goblink.table", "TABLE"),
}

_GAMES: dict[str, GameDefinition[Any, Any, Any, Any]] = {}
_TABLES: dict[str, Table] = {}


class UnknownGame(ValueError):
    """A game name that is not registered. ``code`` is ``unknown_game``."""

    code: Final = "unknown_game"

    def __init__(self, name: object) -> None:
        super().__init__(f"unknown game {name!r}; choose one of: {', '.join(game_names())}")
        self.name = name


class NoTable(ValueError):
    """A registered game with no live table (it cannot be played in a room): ``no_table``."""

    code: Final = "no_table"

    def __init__(self, name: str) -> None:
        super().__init__(f"the game {name!r} cannot be played at a live table")
        self.name = name


def register(definition: GameDefinition[Any, Any, Any, Any], table: Table | None = None) -> None:
    """Add a game under ``definition.info.name``, with its live ``table`` when it has one; a
    second game of the same name is refused."""
    name = definition.info.name
    if name in _GAMES or name in _BUILT_IN:
        raise ValueError(f"a game named {name!r} is already registered")
    _GAMES[name] = definition
    if table is not None:
        _TABLES[name] = table


def unregister(name: str) -> None:
    """Remove a game added with :func:`register` (for tests); built-in games stay."""
    if name in _BUILT_IN:
        raise ValueError(f"{name!r} is a built-in game")
    _GAMES.pop(name, None)
    _TABLES.pop(name, None)


def get_game(name: str | None = None) -> GameDefinition[Any, Any, Any, Any]:
    """The game called ``name`` (:data:`DEFAULT_GAME` if ``None``); :class:`UnknownGame`."""
    key = DEFAULT_GAME if name is None else name
    found = _GAMES.get(key) if isinstance(key, str) else None
    if found is not None:
        return found
    spot = _BUILT_IN.get(key) if isinstance(key, str) else None
    if spot is None:
        raise UnknownGame(name)
    definition: GameDefinition[Any, Any, Any, Any] = getattr(
        importlib.import_module(spot[0]), spot[1]
    )
    _GAMES[key] = definition
    return definition


def get_table(name: str | None = None) -> Table:
    """The live table of the game ``name`` (:data:`DEFAULT_GAME` if ``None``): what a room
    needs to run it. :class:`UnknownGame`, or :class:`NoTable` for a game without one."""
    key = DEFAULT_GAME if name is None else name
    found = _TABLES.get(key) if isinstance(key, str) else None
    if found is not None:
        return found
    get_game(name)  # UnknownGame for a name that is not registered
    spot = _BUILT_IN_TABLES.get(key)
    if spot is None:
        raise NoTable(key)
    table: Table = getattr(importlib.import_module(spot[0]), spot[1])
    _TABLES[key] = table
    return table


def game_names() -> tuple[str, ...]:
    """Every registered game's name: the built-in ones first."""
    return (*_BUILT_IN, *(n for n in _GAMES if n not in _BUILT_IN))


def games() -> tuple[GameDefinition[Any, Any, Any, Any], ...]:
    """Every registered game's definition, in :func:`game_names` order."""
    return tuple(get_game(n) for n in game_names())
