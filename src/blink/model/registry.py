"""The registry of games: one :class:`~blink.model.game.Game` per game, found by its name.

Everything above the engines gets a game here, by the name stored in a record or a room::

    from blink.model.registry import game
    classic = game("classic")
    state = classic.rules.new(players=2, seed=7)

Games are found through the ``blink.games`` entry-point group: each entry point is named by
the game and names its :class:`~blink.model.game.Game` (``classic =
"blink.games.classic.game:GAME"``). Classic Blink and Go Blink are registered in blink's own
pyproject.toml exactly as a game in a distribution of its own registers in its own. The entry
points are read the first time a game is asked for; a game's :class:`Game` names its parts by
module, so that reading them imports no engine. Only the installed metadata is read (blink
from a source checkout is installed with ``pip install -e .``): with no game registered at
all, a lookup is refused with :class:`NoGames`.

:func:`register` adds a game at run time (a test's own game); :func:`unregister` removes it.
The accessors :func:`get_game` (the rules), :func:`get_table`, :func:`get_study` and
:func:`front_end` are the parts of :func:`game`.
"""

from __future__ import annotations

import importlib.metadata
from typing import Any, ClassVar, Final

from blink.model.base import GameDefinition
from blink.model.game import FrontEnd, Game, NoStudy, NoTable, Study
from blink.model.table import Table

__all__ = [
    "DEFAULT_GAME",
    "ENTRY_POINTS",
    "BadEntryPoint",
    "FrontEnd",
    "Game",
    "NoGames",
    "NoStudy",
    "NoTable",
    "Study",
    "UnknownGame",
    "all_games",
    "front_end",
    "front_ends",
    "game",
    "game_names",
    "games",
    "get_game",
    "get_study",
    "get_table",
    "register",
    "unregister",
]

DEFAULT_GAME: Final = "classic"
"""The game a room, a record or a command means when it names none."""

ENTRY_POINTS: Final = "blink.games"
"""The entry-point group games are registered in."""

_FOUND: dict[str, Game] = {}
"""The games of the entry points, once read (in :func:`game_names` order)."""
_READ: list[bool] = []
"""Not empty once the entry points were read."""
_ADDED: dict[str, Game] = {}
"""The games added with :func:`register`."""


class UnknownGame(ValueError):
    """A game name that is not registered. ``code`` is ``unknown_game``."""

    code: ClassVar[str] = "unknown_game"

    def __init__(self, name: object) -> None:
        super().__init__(f"unknown game {name!r}; choose one of: {', '.join(game_names())}")
        self.name = name


class NoGames(UnknownGame):
    """No game is registered at all (blink's distribution is not installed, so its
    ``blink.games`` entry points are missing): ``no_games``."""

    code: ClassVar[str] = "no_games"

    def __init__(self, name: object) -> None:
        ValueError.__init__(
            self,
            f"no game is registered in the {ENTRY_POINTS} entry points, so {name!r} cannot be "
            "found: install blink (pip install -e . in its checkout)",
        )
        self.name = name


class BadEntryPoint(ValueError):
    """A ``blink.games`` entry point that does not name a game of its name: ``bad_game``."""

    code: Final = "bad_game"


def _read() -> dict[str, Game]:
    """The entry points' games, read once: :data:`DEFAULT_GAME` first, then by name."""
    if _READ:
        return _FOUND
    loaded: dict[str, Game] = {}
    found_points = importlib.metadata.entry_points(group=ENTRY_POINTS)
    for ep in sorted(found_points, key=lambda e: (e.name != DEFAULT_GAME, e.name)):
        if ep.name in loaded:
            raise BadEntryPoint(f"two {ENTRY_POINTS} entry points are named {ep.name!r}")
        found = ep.load()
        if not isinstance(found, Game) or found.name != ep.name:
            raise BadEntryPoint(
                f"the {ENTRY_POINTS} entry point {ep.name!r} ({ep.value}) "
                f"does not name the Game {ep.name!r}"
            )
        loaded[ep.name] = found
    _FOUND.update(loaded)
    _READ.append(True)
    return _FOUND


def register(new: Game) -> None:
    """Add ``new`` at run time (a test's own game); a second game of its name is refused."""
    if new.name in _read() or new.name in _ADDED:
        raise ValueError(f"a game named {new.name!r} is already registered")
    _ADDED[new.name] = new


def unregister(name: str) -> None:
    """Remove a game added with :func:`register` (for tests); entry points' games stay."""
    if name in _read():
        raise ValueError(f"{name!r} is registered through its entry point")
    _ADDED.pop(name, None)


def game(name: str | None = None) -> Game:
    """The game called ``name`` (:data:`DEFAULT_GAME` if ``None``); :class:`UnknownGame`
    (:class:`NoGames` when none is registered)."""
    key = DEFAULT_GAME if name is None else name
    if isinstance(key, str):
        found = _read().get(key) or _ADDED.get(key)
        if found is not None:
            return found
    if not game_names():
        raise NoGames(name)
    raise UnknownGame(name)


def get_game(name: str | None = None) -> GameDefinition[Any, Any, Any, Any]:
    """The rules (definition) of the game ``name``: ``game(name).rules``."""
    return game(name).rules


def get_table(name: str | None = None) -> Table:
    """The live table of the game ``name``: what a room needs to run it. :class:`UnknownGame`,
    or :class:`NoTable` for a game without one."""
    return game(name).table


def get_study(name: str | None = None) -> Study:
    """The study of the game ``name``: a function of one of its records. :class:`UnknownGame`,
    or :class:`NoStudy` for a game without one."""
    return game(name).study


def front_end(name: str | None = None) -> FrontEnd:
    """The front-end parts of the game ``name`` (an empty :class:`FrontEnd` for a game without
    its own); :class:`UnknownGame`."""
    return game(name).front


def front_ends() -> dict[str, FrontEnd]:
    """Every registered game's front-end parts by name, in :func:`game_names` order, without
    importing any game's engine (what :mod:`blink.envs` registers its environments from)."""
    return {g.name: g.front for g in all_games()}


def game_names() -> tuple[str, ...]:
    """Every registered game's name: the entry points' (the default game first), then the
    ones added at run time."""
    return (*_read(), *(n for n in _ADDED if n not in _FOUND))


def all_games() -> tuple[Game, ...]:
    """Every registered game, in :func:`game_names` order."""
    return tuple(game(n) for n in game_names())


def games() -> tuple[GameDefinition[Any, Any, Any, Any], ...]:
    """Every registered game's rules (definition), in :func:`game_names` order."""
    return tuple(g.rules for g in all_games())
