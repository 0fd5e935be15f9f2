"""Classic Blink's commands: its ``blink play`` and ``blink simulate`` (classic Blink is the
default game) and ``blink simulate --game classic``.

The game's commands module (:attr:`blink.model.registry.FrontEnd.commands`), found by the
``blink`` command through the registry. Classic Blink has no ``blink classic`` group of its
own: :func:`register` adds nothing. The simulation's options and run are
:mod:`blink.games.classic.simulate_cli`, imported here only when ``blink`` builds its app (the
simulator itself is imported inside the commands); its play is :mod:`.play`, whose online
terminal client (:func:`online_client`) quick play and the daily challenge play on.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType

import typer

from blink.cli.simrun import SimulationOptions

__all__ = [
    "bot_client",
    "bot_tournament",
    "online_client",
    "play_command",
    "register",
    "run_simulation",
    "simulate_app",
]

_SIMULATE_CLI = "blink.games.classic.simulate_cli"
_PLAY = "blink.games.classic.cli.play"


def simulate_app() -> typer.Typer:
    """``blink simulate`` with classic Blink's options (``--handicap``, ``--ruleset``,
    ``--best-of``, ...) and its ``sweep`` sub-command: the default game's simulation command
    (:func:`blink.cli.simulate.register`)."""
    cli = importlib.import_module(_SIMULATE_CLI)
    sim = typer.Typer(
        help="Simulate bot-vs-bot games in virtual time: statistics, records, plots.",
        invoke_without_command=True,
        no_args_is_help=False,
        add_completion=False,
    )
    sim.callback(invoke_without_command=True)(cli.simulate)
    sim.command("sweep")(cli.sweep)
    return sim


def run_simulation(options: SimulationOptions) -> None:
    """Simulate classic Blink games with its own options at their defaults (``blink simulate
    --game classic``); ``typer.Exit`` on bad input."""
    importlib.import_module(_SIMULATE_CLI).run_simulation(options)


def bot_client() -> ModuleType:
    """Classic Blink's seat for the Bot API client (``blink bot play``):
    :mod:`blink.games.classic.cli.botclient` (``house_policy``, ``Player``)."""
    return importlib.import_module("blink.games.classic.cli.botclient")


def bot_tournament() -> ModuleType:
    """Classic Blink's bots for ``blink tournament bots``: :mod:`blink.games.classic.sim.tournament`
    (their specs, a random field, one game played by the simulator)."""
    return importlib.import_module("blink.games.classic.sim.tournament")


def play_command() -> Callable[..., None]:
    """``blink play``, classic Blink in the terminal (:func:`blink.games.classic.cli.play.play`):
    the default game's play command (:func:`blink.cli.play.register`). Textual is imported
    inside the command."""
    play: Callable[..., None] = importlib.import_module(_PLAY).play
    return play


def online_client() -> ModuleType:
    """Classic Blink's online terminal client, :mod:`blink.games.classic.tui.online` (its
    ``play_seat``, ``run_online`` and ``bot_name``), which quick play and the daily challenge
    (:mod:`blink.tui.quick`, :mod:`blink.tui.daily`) play their seat on."""
    return importlib.import_module("blink.games.classic.tui.online")


def register(app: typer.Typer) -> None:
    """Add classic Blink's own command group to the main app: none (its simulation is
    ``blink simulate`` itself, its play ``blink play``)."""
