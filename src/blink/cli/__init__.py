"""The ``blink`` command. Each area registers its sub-commands from its own module; a game with
its own command group (``blink <game>``) has it in its package, found through the registry
(:func:`blink.model.registry.front_end`).

Heavy imports (the server, Textual, matplotlib) happen inside the commands, so ``blink`` starts
instantly.
"""

from __future__ import annotations

import importlib

import typer

from blink.cli import engine, play, serve, simulate, tournament
from blink.model.registry import front_end, game_names

app = typer.Typer(
    name="blink",
    help="Blink, the world's fastest game: play, serve, simulate and study it.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for module in (engine, serve, play, simulate):
    module.register(app)
for name in game_names():
    commands = front_end(name).commands
    if commands is not None:
        importlib.import_module(commands).register(app)
tournament.register(app)


def main() -> None:
    """Entry point of the ``blink`` console command."""
    app()


if __name__ == "__main__":
    main()
