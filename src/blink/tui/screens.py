"""The terminal clients' generic screens, for every game's terminal client: the keys'
help, the pause box, the question before leaving a game, and the translation of a screen's key
bindings."""

from __future__ import annotations

from dataclasses import replace

from textual.app import ComposeResult
from textual.dom import DOMNode
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import Static

from blink.tui.i18n import _

__all__ = ["HelpScreen", "PauseScreen", "QuitScreen", "translate_bindings"]


def translate_bindings(node: DOMNode) -> None:
    """Say ``node``'s key bindings (their descriptions, marked with ``N_``, which a footer
    shows) in the language spoken now; the class keeps the English ones."""
    bindings = node._bindings.key_to_bindings
    for key, listed in bindings.items():
        bindings[key] = [replace(b, description=_(b.description)) for b in listed]


class HelpScreen(ModalScreen[None]):
    """The keys, over the table; any key closes it."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Static { width: 78; height: auto; border: round $accent; padding: 0 1;
                          background: $surface; }
    """

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        """The help text."""
        yield Static(self.text, id="help")

    def on_key(self, event: Key) -> None:
        """Any key closes the help."""
        event.stop()
        self.dismiss(None)


class PauseScreen(ModalScreen[None]):
    """Hides the table while the game is paused; Space (or any key) resumes."""

    DEFAULT_CSS = """
    PauseScreen { align: center middle; background: $background; }
    PauseScreen > Static { width: 40; height: 5; border: round $accent;
                           content-align: center middle; text-align: center; }
    """

    def compose(self) -> ComposeResult:
        """The pause box."""
        yield Static(_("[b]Paused[/b]\nPress Space to go on"), id="paused")

    def on_key(self, event: Key) -> None:
        """Resume on Space, Escape or P; Ctrl+Q still quits."""
        if event.key in ("space", "escape", "enter", "p"):
            event.stop()
            self.dismiss(None)


class QuitScreen(ModalScreen[bool]):
    """Asks before leaving a game under way: Y or Enter quits (so does Ctrl+C again, through
    the app's binding); N or Escape goes back to the game."""

    # Near the bottom, not at the centre: the pause box (the pause screen's, at the centre)
    # and the status line that says the game waits, paused, stay in view above it.
    DEFAULT_CSS = """
    QuitScreen { align: center bottom; }
    QuitScreen > Static { width: 44; height: 5; border: round $warning; background: $surface;
                          content-align: center middle; text-align: center; margin-bottom: 1; }
    """

    def __init__(self, question: str | None = None) -> None:
        super().__init__()
        self.question = _("Leave this game?") if question is None else question

    def compose(self) -> ComposeResult:
        """The question and its keys."""
        keys = _("Y: quit · N: keep playing")
        yield Static(f"[b]{self.question}[/b]\n{keys}", id="quit-question")

    def on_key(self, event: Key) -> None:
        """Y or Enter quits; N or Escape stays; other keys are ignored."""
        event.stop()
        if event.key in ("y", "enter"):
            self.dismiss(True)
        elif event.key in ("n", "escape"):
            self.dismiss(False)
