"""The ``blink`` command. Each area registers its sub-commands from its own module; a game with
its own command group (``blink <game>``) has it in its package, found through the registry
(:func:`blink.model.registry.front_end`).

Heavy imports (the server, Textual, matplotlib) happen inside the commands, so ``blink`` starts
instantly. ``blink --install-completion`` installs shell completion (Typer's).
"""

from __future__ import annotations

import importlib
from typing import Annotated, Any

import typer
from typer.core import TyperOption

from blink import __version__

__all__ = ["app", "build_app", "main"]

_built: typer.Typer | None = None


def _print_version(value: bool) -> None:
    """``--version``: print the version and stop."""
    if value:
        typer.echo(f"blink {__version__}")
        raise typer.Exit()


def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """The options of ``blink`` itself (before any command)."""


def _no_type_after_flags() -> None:
    """Typer's help prints a type after every flag (``--hotseat <bool>``, even ``--help
    <bool>``), as if it took a value, which a flag refuses; its plain help prints none. The
    help of ``blink`` prints none either."""
    typed = TyperOption.display_type_rich

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        if self.is_flag:
            return None
        return typed(self, ctx)

    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


def build_app() -> typer.Typer:
    """The ``blink`` command with every area's sub-commands, built once, when first asked
    for (:data:`app`, :func:`main`). Importing a module of ``blink.cli`` registers nothing, so
    a game's commands module may import the shared command helpers (``blink.cli.simrun``,
    ``blink.cli.listing``) whichever is imported first."""
    global _built
    if _built is not None:
        return _built
    from blink.cli import bot, cluster, db, engine, play, serve, simulate, tournament, train
    from blink.model.registry import front_end, game_names

    built = typer.Typer(
        name="blink",
        help="Blink, the world's fastest game: play, serve, simulate and study it.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
    )
    built.callback()(_options)
    _no_type_after_flags()
    for module in (engine, serve, cluster, db, play, bot, simulate, train):
        module.register(built)
    for name in game_names():
        commands = front_end(name).commands
        if commands is not None:
            importlib.import_module(commands).register(built)
    tournament.register(built)
    _built = built
    return built


def __getattr__(name: str) -> Any:
    """``blink.cli.app``: the ``blink`` command (:func:`build_app`)."""
    if name == "app":
        return build_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Entry point of the ``blink`` console command."""
    build_app()()


if __name__ == "__main__":
    main()
