"""``blink simulate``: bot-vs-bot games in virtual time, with statistics, records and plots.

``blink simulate`` is the default game's simulation command (:data:`DEFAULT_GAME`'s commands
module, :attr:`blink.model.registry.FrontEnd.commands`, gives it as ``simulate_app()``: its own
options, such as classic Blink's handicap and ruleset, and its sub-commands); its ``--game``
option (:data:`GameOpt`) names another registered game, whose commands module's
``run_simulation(options)`` runs with the options every game shares
(:class:`blink.cli.simrun.SimulationOptions`): :func:`run_game_simulation`.

What every game's simulate command shares (its options, the progress bar, local processes or
a Dask cluster) is :mod:`blink.cli.simrun`. A game's command module is imported when the
``blink`` app is built; its simulator only inside the command.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, Any, Final, NoReturn

import typer

from blink.cli.listing import or_list
from blink.cli.simrun import SimulationOptions
from blink.model.registry import DEFAULT_GAME, front_end, game_names, get_game

__all__ = [
    "DEFAULT_GAME_KIND",
    "GameKind",
    "GameOpt",
    "game_kind",
    "register",
    "run_game_simulation",
]


GameKind = StrEnum(  # type: ignore[misc]
    "GameKind",
    [(n, n) for n in game_names() if n == DEFAULT_GAME or front_end(n).commands is not None],
)
"""Which game to simulate: the default game, or a game whose command module simulates it
(:attr:`blink.model.registry.FrontEnd.commands`)."""
DEFAULT_GAME_KIND: Final = GameKind(DEFAULT_GAME)
GameOpt = Annotated[GameKind, typer.Option("--game", help=f"{or_list(GameKind)}.")]
"""``--game``: the option of ``blink simulate`` that names the game to simulate."""


def game_kind(name: str) -> Any:
    """The :data:`GameKind` of the game ``name`` (a default for :data:`GameOpt`)."""
    return GameKind(name)


def _fail(message: str) -> NoReturn:
    typer.echo(f"Error: {message}", err=True)
    raise typer.Exit(2)


def run_game_simulation(name: str, options: SimulationOptions) -> None:
    """Simulate the game ``name`` with its own command module's ``run_simulation(options)``
    (``blink simulate --game NAME``); "unavailable" when the game's simulator cannot be
    imported."""
    module = front_end(name).commands
    assert module is not None  # GameKind holds only the games that have one
    try:
        run: Callable[[SimulationOptions], None] = importlib.import_module(module).run_simulation
        run(options)
    except ImportError as exc:
        title = get_game(name).info.title
        _fail(f"{title} simulation is unavailable ({exc.name} could not be imported)")


def register(app: typer.Typer) -> None:
    """Add ``blink simulate`` (the default game's simulation command, with its sub-commands)
    to the main app."""
    module = front_end(DEFAULT_GAME).commands
    if module is None:  # pragma: no cover - blink's default game has its commands
        return
    simulate_app: Callable[[], typer.Typer] = importlib.import_module(module).simulate_app
    app.add_typer(simulate_app(), name="simulate")


if __name__ == "__main__":  # pragma: no cover
    sys.exit("run: blink simulate --help")
