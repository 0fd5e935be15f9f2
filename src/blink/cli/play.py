"""``blink play``: the default game in the terminal, found through the registry.

The command itself is the default game's (:func:`blink.model.registry.front_end`): its
commands module's ``play_command()`` (classic Blink's is
:mod:`blink.games.classic.cli.play`). Here are only what every game's terminal play shares:
the ``--lang`` option and the choice of the client's language.
"""

from __future__ import annotations

import importlib
from typing import Annotated, Any

import typer

from blink.model.registry import front_end
from blink.tui.i18n import LANGUAGES, LanguageError, language_from_env, set_language

__all__ = ["LangOpt", "register", "use_language"]

LangOpt = Annotated[
    str | None,
    typer.Option(
        "--lang",
        metavar="|".join(LANGUAGES),
        help=f"The table's language: {' or '.join(LANGUAGES)} (default: from LANGUAGE, LC_ALL, "
        "LC_MESSAGES or LANG; else English).",
    ),
]
"""``--lang``: the terminal client's language."""


def use_language(lang: str | None, fail: Any) -> None:
    """Speak ``lang`` (``None``: the environment's language) in the terminal client, or call
    ``fail`` with the one-sentence reason."""
    try:
        set_language(language_from_env() if lang is None else lang)
    except LanguageError as exc:
        fail(str(exc))


def register(app: typer.Typer) -> None:
    """Add ``blink play``, the default game's terminal play, to the main app (none when the
    default game has no commands module or no ``play_command``)."""
    commands = front_end().commands
    if commands is None:
        return
    play_command = getattr(importlib.import_module(commands), "play_command", None)
    if play_command is not None:
        app.command("play")(play_command())
