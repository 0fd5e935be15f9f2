"""The registry of games: the one place that knows every game's name.

Everything above the engines gets a game here, by the name stored in a record or a room::

    from blink.model.registry import get_game
    game = get_game("classic")
    state = game.new(players=2, seed=7)

The built-in games are imported the first time they are asked for, so that importing the
registry stays cheap. :func:`register` adds another game (a plug-in, or a test's own game).

A game's own front-end parts (its ``blink <game>`` commands, its browser module and pages, its
reinforcement-learning environments) are found with :func:`front_end` (every game's at once:
:func:`front_ends`): module names and paths only, imported by whoever needs them. A game's
study (:mod:`blink.model.study`: reaction times, missed plays) is found with :func:`get_study`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from blink.model.base import GameDefinition
from blink.model.table import Table

if TYPE_CHECKING:
    from blink.model.study import GameStudy

__all__ = [
    "DEFAULT_GAME",
    "FrontEnd",
    "NoStudy",
    "NoTable",
    "Study",
    "UnknownGame",
    "front_end",
    "front_ends",
    "game_names",
    "games",
    "get_game",
    "get_study",
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


@dataclass(frozen=True)
class FrontEnd:
    """Where a game's own front-end parts are; each is optional (``None``: the game has none,
    and the generic front ends play it as they play any game)."""

    commands: str | None = None
    """The module of the game's ``blink <name>`` command group: it offers ``register(app)``
    (adds the group to the ``blink`` Typer app) and ``run_simulation(options)`` (``blink
    simulate --game <name>``, options a ``blink.cli.simrun.SimulationOptions``), and imports
    nothing heavy at the top."""
    web: str | None = None
    """The package whose ``web/`` folder holds the game's browser module (``main.js``, served
    at ``/games/<name>/``; docs/architecture.md, "The browser client")."""
    pages: tuple[str, str] | None = None
    """The browser client's page of a room of the game, for its players and its spectators
    (the room code follows); ``None``: the client's main page (``/play/CODE``)."""
    env: str | None = None
    """The module of the game's PettingZoo environment (``blink.envs.<env_name>``): it offers
    ``env(**options)`` and ``raw_env``, and ``parallel_env(**options)`` when the environment
    is a ParallelEnv (a race) rather than an AEC one (turn by turn)."""
    env_name: str | None = None
    """The environment's PettingZoo name (``<game>_v0``), by which :mod:`blink.envs` offers
    :attr:`env`; ``None`` exactly when :attr:`env` is."""
    gym_id: str | None = None
    """The Gymnasium id of the game's single-seat environment (one seat against the game's
    bots), which importing :mod:`blink.envs` registers."""
    gym_entry_point: str | None = None
    """That environment's class, as Gymnasium's ``module:Class``; ``None`` exactly when
    :attr:`gym_id` is."""
    gym_vector_entry_point: str | None = None
    """The game's vector environment (many games stepped at once), as Gymnasium's
    ``module:Class``, registered with :attr:`gym_id` for ``gymnasium.make_vec(...,
    vectorization_mode="vector_entry_point")``; ``None``: the game has none."""
    spiel: str | None = None
    """The module of the game's OpenSpiel game: it offers ``GAME_TYPE`` (a ``pyspiel.GameType``)
    and ``GAME_CLASS`` (its ``pyspiel.Game``), which :mod:`blink.envs.spiel` registers."""
    spiel_name: str | None = None
    """The OpenSpiel short name of that game (``python_<game>``), for ``pyspiel.load_game``;
    ``None`` exactly when :attr:`spiel` is."""


# name -> (module, attribute) of each built-in game's study (blink.model.study).
_BUILT_IN_STUDIES: Final = {
    "classic": ("blink.games.classic.study", "study"),
    "goblink": ("blink.games.goblink.study", "study"),
}

Study = Callable[[Any], "GameStudy"]
"""A game's study: its record (verified by it) studied (:func:`blink.model.study.analyse`)."""

# name -> each built-in game's front-end parts.
_BUILT_IN_FRONT_ENDS: Final = {
    "classic": FrontEnd(
        env="blink.games.classic.envs.classic_v0",
        env_name="classic_v0",
        gym_id="blink/Classic-v0",
        gym_entry_point="blink.games.classic.envs.single:ClassicSingle",
        gym_vector_entry_point="blink.games.classic.envs.vector:ClassicVector",
        spiel="blink.games.classic.envs.spiel",
        spiel_name="python_blink_classic",
    ),
    "goblink": FrontEnd(
        commands="blink.games.goblink.cli",
        web="blink.games.goblink",
        pages=("/?go=", "/?gowatch="),
        env="blink.games.goblink.envs.goblink_v0",
        env_name="goblink_v0",
        gym_id="blink/GoBlink-v0",
        gym_entry_point="blink.games.goblink.envs.single:GoBlinkSingle",
        spiel="blink.games.goblink.envs.spiel",
        spiel_name="python_go_blink",
    ),
}

_GAMES: dict[str, GameDefinition[Any, Any, Any, Any]] = {}
_TABLES: dict[str, Table] = {}
_FRONT_ENDS: dict[str, FrontEnd] = {}
_STUDIES: dict[str, Study] = {}


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


class NoStudy(ValueError):
    """A registered game with no study (its records can be replayed, not studied):
    ``no_study``."""

    code: Final = "no_study"

    def __init__(self, name: str) -> None:
        super().__init__(f"the game {name!r} cannot be studied")
        self.name = name


def register(
    definition: GameDefinition[Any, Any, Any, Any],
    table: Table | None = None,
    front: FrontEnd | None = None,
    study: Study | None = None,
) -> None:
    """Add a game under ``definition.info.name``, with its live ``table``, its own front-end
    parts and its study when it has them; a second game of the same name is refused."""
    name = definition.info.name
    if name in _GAMES or name in _BUILT_IN:
        raise ValueError(f"a game named {name!r} is already registered")
    _GAMES[name] = definition
    if table is not None:
        _TABLES[name] = table
    if front is not None:
        _FRONT_ENDS[name] = front
    if study is not None:
        _STUDIES[name] = study


def unregister(name: str) -> None:
    """Remove a game added with :func:`register` (for tests); built-in games stay."""
    if name in _BUILT_IN:
        raise ValueError(f"{name!r} is a built-in game")
    _GAMES.pop(name, None)
    _TABLES.pop(name, None)
    _FRONT_ENDS.pop(name, None)
    _STUDIES.pop(name, None)


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
    table: Table = _part(name, _TABLES, _BUILT_IN_TABLES, NoTable)
    return table


def get_study(name: str | None = None) -> Study:
    """The study of the game ``name`` (:data:`DEFAULT_GAME` if ``None``): a function of one of
    its records. :class:`UnknownGame`, or :class:`NoStudy` for a game without one."""
    study: Study = _part(name, _STUDIES, _BUILT_IN_STUDIES, NoStudy)
    return study


def _part(
    name: str | None,
    found: dict[str, Any],
    built_in: dict[str, tuple[str, str]],
    missing: Callable[[str], Exception],
) -> Any:
    """A game's part (its table, its study) from ``found``, else imported once from its
    ``built_in`` module and attribute; ``UnknownGame`` for a name that is not registered,
    ``missing(name)`` for a game without that part."""
    key = DEFAULT_GAME if name is None else name
    part = found.get(key) if isinstance(key, str) else None
    if part is not None:
        return part
    get_game(name)  # UnknownGame for a name that is not registered
    spot = built_in.get(key)
    if spot is None:
        raise missing(key)
    part = getattr(importlib.import_module(spot[0]), spot[1])
    found[key] = part
    return part


def front_end(name: str | None = None) -> FrontEnd:
    """The front-end parts of the game ``name`` (:data:`DEFAULT_GAME` if ``None``): an empty
    :class:`FrontEnd` for a game without its own; :class:`UnknownGame`."""
    key = DEFAULT_GAME if name is None else name
    get_game(name)  # UnknownGame for a name that is not registered
    return _FRONT_ENDS.get(key) or _BUILT_IN_FRONT_ENDS.get(key) or FrontEnd()


def front_ends() -> dict[str, FrontEnd]:
    """Every registered game's front-end parts by name, in :func:`game_names` order, without
    importing any game (what :mod:`blink.envs` registers its environments from)."""
    return {
        name: _FRONT_ENDS.get(name) or _BUILT_IN_FRONT_ENDS.get(name) or FrontEnd()
        for name in game_names()
    }


def game_names() -> tuple[str, ...]:
    """Every registered game's name: the built-in ones first."""
    return (*_BUILT_IN, *(n for n in _GAMES if n not in _BUILT_IN))


def games() -> tuple[GameDefinition[Any, Any, Any, Any], ...]:
    """Every registered game's definition, in :func:`game_names` order."""
    return tuple(get_game(n) for n in game_names())
