"""The ``blink`` command. Each area registers its sub-commands from its own module.

Heavy imports (the server, Textual, matplotlib) happen inside the commands, so ``blink`` starts
instantly.
"""

from __future__ import annotations

import typer

from blink.cli import engine, goblink, play, serve, simulate, tournament

app = typer.Typer(
    name="blink",
    help="Blink, the world's fastest game: play, serve, simulate and study it.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for module in (engine, serve, play, simulate, goblink, tournament):
    module.register(app)


def main() -> None:
    """Entry point of the ``blink`` console command."""
    app()


if __name__ == "__main__":
    main()
