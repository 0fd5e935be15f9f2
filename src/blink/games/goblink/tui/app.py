"""Go Blink in the terminal (Textual): against bots, or several people sharing one screen.

The screen shows the viewer's hand (cards lettered a, b, c... for commands), every player's card
count, the draw pile, the matches laid down and a log of asks. People type commands
(``ask 2 yellow``, ``lay a b c``, ``end``, ``hint``, ``help``). With several people, a "pass to
the next player" screen hides the table between turns, and the hand is only drawn again once
the next person confirms they are at the keyboard.

Bots decide in a thread of their own, never on the screen's event loop (the master bot's first
decision in a process loads its compiled search: a fraction of a second, or half a minute when
numba's disk cache is empty): the app takes the bot's view on its own thread, the driver decides
in it in a daemon thread (:func:`~blink.games.goblink.live.in_daemon_thread`, awaited by a
worker), and back on the app's thread the action is applied only if the game is still where it
was (otherwise the bot decides again). Meanwhile the seat is shown thinking. Quitting cancels
the worker and abandons the thread, so it never waits for a decision under way.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, RichLog, Static
from textual.worker import Worker, WorkerState

from blink.games.goblink.engine import GoAction, GoView, Phase
from blink.games.goblink.live import in_daemon_thread
from blink.games.goblink.tui.driver import (
    CommandError,
    GoTable,
    UnknownCommand,
    count_of,
    hand_letter,
    value_words,
    winners_text,
    you,
)
from blink.tui.i18n import N_, _, card_name
from blink.tui.render import CardStyle, card_label, card_lines, join_columns
from blink.tui.screens import QuitScreen, translate_bindings

__all__ = ["BOT_WORKERS", "GoBlinkApp", "PassScreen"]

BOT_WORKERS = "bot"
"""The group of the thread workers in which bots decide (one at a time)."""

HELP = N_(
    "Commands: 'ask <player> <value>' (e.g. ask 2 yellow, ask 3 stars, ask 2 4), "
    "'lay <cards>' (hand letters: lay a b c, or codes: lay 1RS 2RM 3RW), 'end', "
    "'hint' (what the remembering bot would do), 'help'. Ctrl+Q quits."
)
"""The commands (translated where shown)."""


class PassScreen(Screen[None]):
    """Hides the table until the next person is at the keyboard."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "ready", N_("I'm ready"))]
    DEFAULT_CSS = """
    PassScreen { align: center middle; background: $background; }
    PassScreen > Static { width: 60; padding: 1 2; border: heavy $accent; text-align: center; }
    """

    def __init__(self, name: str) -> None:
        super().__init__()
        translate_bindings(self)
        self.player_name = name

    def compose(self) -> ComposeResult:
        yield Static(
            _(
                "Pass to {name}\n\nEveryone else, look away.\n"
                "{name}: press Enter when you are ready."
            ).format(name=self.player_name),
            id="pass-message",
        )

    def action_ready(self) -> None:
        """The next person is ready: show the table again."""
        self.dismiss(None)


class GoBlinkApp(App[None]):
    """The Go Blink table."""

    TITLE = "Go Blink"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", N_("Quit"), priority=True),
        Binding("ctrl+c", "interrupt", N_("Quit"), show=False, priority=True),
    ]
    CSS = """
    #status { height: 1; padding: 0 1; background: $primary; color: $text; text-style: bold; }
    #middle { height: auto; }
    #players { width: 46; height: auto; padding: 0 1; background: $boost; }
    #discard { width: 1fr; height: auto; padding: 0 1; background: $panel; }
    #main { height: auto; }
    #hand { height: auto; padding: 0 1; }
    #prompt { height: auto; padding: 0 1; color: $warning; }
    #log { height: 1fr; min-height: 4; border-top: solid $primary; }
    """

    def __init__(self, table: GoTable, bot_delay: float = 0.7, style: CardStyle | None = None):
        super().__init__()
        translate_bindings(self)
        self.table = table
        self.bot_delay = bot_delay
        self.style = style or CardStyle(letters=True)
        self.viewer: int | None = table.humans[0] if len(table.humans) == 1 else None
        self.message = ""
        self._events_seen = 0
        self._bot_pending = False
        self.thinking: int | None = None
        """The bot seat deciding in a worker thread now, if any."""

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        with Horizontal(id="middle"):
            yield Static(id="players")
            yield Static(id="discard")
        with Vertical(id="main"):
            yield Static(id="hand")
            yield Static(id="prompt")
            yield Input(placeholder=_("ask 2 yellow | lay a b c | end | hint | help"), id="command")
        yield RichLog(id="log", wrap=True, markup=False)
        yield Footer()

    def on_mount(self) -> None:
        """Start: write the log so far, then hand the turn to whoever acts first."""
        self._after_change()

    # -- flow -----------------------------------------------------------------------------

    def _after_change(self) -> None:
        log = self.query_one("#log", RichLog)
        for line in self.table.log_lines(self._events_seen):
            log.write(line)
        self._events_seen = len(self.table.game.events)
        game = self.table.game
        if len(self.table.humans) > 1 and game.current != self.viewer:
            self.viewer = None  # several people share the screen: hide the hand at once
        if game.over:
            self.message = _("Game over. Ctrl+Q quits.")
        elif self.table.is_bot_turn():
            if not self._bot_pending and self.thinking is None:
                self._bot_pending = True
                if self.bot_delay > 0:
                    self.set_timer(self.bot_delay, self._bot_step)
                else:
                    self.call_later(self._bot_step)
        elif game.current is not None and game.current != self.viewer:
            # Several people share the screen: hide this hand before the next one sits down.
            self.viewer = None
            self._refresh()
            seat = game.current
            self.push_screen(PassScreen(self.table.names[seat]), lambda _: self._seated(seat))
            return
        self._refresh()

    def _seated(self, seat: int) -> None:
        self.viewer = seat
        self.message = ""
        self._refresh()
        self.query_one("#command", Input).focus()

    def _bot_step(self) -> None:
        """The bot's delay is over: let it decide in a worker thread (see the module)."""
        self._bot_pending = False
        if self.thinking is not None:
            return  # its decision under way calls _after_change when it ends
        view = self.table.bot_view()
        if view is None:
            self._after_change()
            return
        self.thinking = view.seat
        self._refresh()
        self.run_worker(
            self._decide(view), name=f"bot {view.seat}", group=BOT_WORKERS, exclusive=True
        )

    async def _decide(self, view: GoView) -> tuple[GoView, GoAction]:
        """The bot's action in ``view``, decided in a daemon thread (which reads nothing of the
        game)."""
        action = await in_daemon_thread(lambda: self.table.decide(view), f"bot {view.seat}")
        return view, action

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A bot has decided: apply its action if the game is still where it decided."""
        worker = event.worker
        if worker.group != BOT_WORKERS or event.state is not WorkerState.SUCCESS:
            return
        self.thinking = None
        result = worker.result
        assert isinstance(result, tuple)
        view, action = result
        # None when the game moved on while the bot thought: _after_change lets it decide again.
        self.table.apply_bot(view, action)
        self._after_change()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Run a typed command."""
        text = event.value.strip()
        box = self.query_one("#command", Input)
        if not text:
            return
        word = text.split()[0].lower()
        if word in ("help", "h", "?", "ayuda"):
            self.message = _(HELP)
            box.value = ""
            self._refresh()
            return
        seat = self.viewer
        if seat is None or self.table.current != seat or self.table.game.over:
            self.message = (
                _("It is not your turn.") if not self.table.game.over else _("Game over.")
            )
            self._refresh()
            return
        if word in ("hint", "pista"):
            command = _command_for(self.table.hint(seat), self.table, seat)
            self.message = _("Hint: {command}").format(command=command)
            box.value = ""
            self._refresh()
            return
        try:
            self.table.act(seat, text)
        except CommandError as exc:
            self.message = f"[!] {exc}"
            if isinstance(exc, UnknownCommand):
                box.value = ""  # nothing in it to correct: the next command starts afresh
            self._refresh()
            return
        box.value = ""
        self.message = ""
        self._after_change()

    def action_interrupt(self) -> None:
        """Ctrl+C: quit at once once the game is over (or when pressed again while asked);
        in mid-game, ask first."""
        if self.table.game.over or isinstance(self.screen, QuitScreen):
            self.exit()
            return

        def answered(leave: bool | None) -> None:
            if leave:
                self.exit()

        self.push_screen(QuitScreen(), answered)

    # -- drawing --------------------------------------------------------------------------

    def _refresh(self) -> None:
        table = self.table
        game = table.game
        view = table.view(self.viewer)
        names = table.names
        if game.over and game.outcome is not None:
            status = _("Game over: {result}!").format(
                result=winners_text(names, game.outcome.winners)
            )
        else:
            assert view.current is not None
            step = {
                Phase.OPENING: _("opening"),
                Phase.ASKING: _("asking"),
                Phase.LAYING: _("laying down"),
            }[view.phase]
            if names[view.current] == you():
                status = _("Your turn ({step})").format(step=step)
            else:
                status = _("{name}'s turn ({step})").format(name=names[view.current], step=step)
        line = status + _("   |   draw pile: {n}").format(n=view.draw_count)
        if view.turns:
            line += _("   |   turn {n}").format(n=view.turns)
        self.query_one("#status", Static).update(line)
        players = Text()
        for p in range(table.players):
            mark = "▶ " if view.current == p else "  "
            dealer = _(" (dealer)") if p == view.dealer else ""
            kind = "" if p in table.humans else _(" [bot]")
            end = "\n" if p < table.players - 1 else ""
            count = view.hand_counts[p]
            held = count_of(count)
            players.append(f"{mark}{p + 1}. {names[p]}{kind}{dealer}: {held}{end}")
        self.query_one("#players", Static).update(players)
        discard = Text(
            _("Matches laid down ({n}):").format(n=len(view.discard))
            if view.discard
            else _("No matches yet.")
        )
        for laid_by, cards in view.discard[-(table.players - 1) :]:
            discard.append(f"\n{names[laid_by]}: ")
            for c in cards:
                discard.append_text(card_label(c, self.style))
                discard.append(" ")
        self.query_one("#discard", Static).update(discard)
        hand = Text()
        if self.viewer is None:
            hand.append(_("(hands are hidden)"))
        else:
            name = names[self.viewer]
            mine = name == you()
            hand.append(_("Your hand:") if mine else _("{name}'s hand:").format(name=name))
            hand.append("\n")
            columns = []
            for i, c in enumerate(view.hand):
                lines = card_lines(c, self.style)
                lines.append(Text(hand_letter(i).center(9)))
                columns.append(lines)
            if columns:
                hand.append_text(join_columns(columns, gap=1))
                # each card in words under its letter's column: what "lay a b c" names
                words = "  ·  ".join(
                    f"{hand_letter(i)}: {card_name(c)}" for i, c in enumerate(view.hand)
                )
                hand.append("\n" + words)
            else:
                hand.append(_("(no cards)"))
        self.query_one("#hand", Static).update(hand)
        prompt = self.message
        if not prompt and self.viewer is not None:
            prompt = table.prompt(self.viewer)
        if not prompt and not game.over and view.current is not None:
            if self.thinking == view.current:
                prompt = _("{name} is thinking...").format(name=names[view.current])
            else:
                prompt = _("Waiting for {name}...").format(name=names[view.current])
        self.query_one("#prompt", Static).update(Text(prompt))


def _command_for(action: object, table: GoTable, seat: int) -> str:
    """The command a person would type for ``action``."""
    from blink.games.goblink.engine import Ask, LayDown

    if isinstance(action, Ask):
        return _("ask {n} {value}  ({name})").format(
            n=action.target + 1, value=value_words(action.value), name=table.names[action.target]
        )
    if isinstance(action, LayDown):
        hand = table.game.view(seat).hand
        letters = " ".join(hand_letter(hand.index(c)) for c in action.cards)
        names = ", ".join(card_name(c) for c in action.cards)
        return _("lay {letters}  ({cards})").format(letters=letters, cards=names)
    return _("end")
