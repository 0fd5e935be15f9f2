"""The Blink terminal app: one table screen (the help, pause and quit screens: tui.screens)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.events import Key
from textual.screen import Screen
from textual.widgets import Static

from blink.games.classic.engine import PlayerView
from blink.games.classic.tui.keys import (
    HOTSEAT_LEFT,
    HOTSEAT_MIDDLE,
    HOTSEAT_RIGHT,
    SOLO,
    HandKeys,
    KeyRouter,
    pile_sides,
)
from blink.games.classic.tui.table import Notice, Stage, Status, Table, phrase_words
from blink.games.classic.tui.widgets import (
    HandInfo,
    HandsView,
    HeaderLine,
    MessageLine,
    OpponentsView,
    PileInfo,
    PilesView,
    StatusLine,
    pile_label,
)
from blink.tui.i18n import N_, _, card_name
from blink.tui.render import CardStyle
from blink.tui.screens import HelpScreen, PauseScreen, QuitScreen, translate_bindings

__all__ = ["BlinkApp", "TableScreen"]

NOTICE_SECONDS = 4.0
"""How long a line under the table stays (on the table's clock)."""

HELP_SOLO = N_("""\
[b]Blink — keys[/b]

Play a card that shares a colour, a shape or a count with the top card
of a pile. Be the first with no cards left.

  [b]1 2 3[/b] (or [b]Q W E[/b])   play that hand card: a card that fits one
                     pile goes at once; one that fits both waits
                     for a pile key (press it again to drop it)
  [b]A[/b] or [b]←[/b]             onto the left pile
  [b]D[/b] or [b]→[/b]             onto the right pile

In a stall with an empty draw pile, a card key chooses the card to place
on your pile, before the deadline shown (else your first card goes).

  [b]Space[/b]  pause (against bots)    [b]Enter[/b]   next game / rematch
  [b]?[/b]      this help               [b]Ctrl+Q[/b]  quit

Press any key to go back.""")
"""The keys of one player against bots."""

HELP_ONLINE = N_("""\
[b]Blink — keys[/b]

Play a card that shares a colour, a shape or a count with the top card
of a pile. Be the first with no cards left.

  [b]1 2 3[/b] (or [b]Q W E[/b])   play that hand card: a card that fits one
                     pile goes at once; one that fits both waits
                     for a pile key (press it again to drop it)
  [b]A[/b] or [b]←[/b]             onto the left pile
  [b]D[/b] or [b]→[/b]             onto the right pile

In a stall with an empty draw pile, a card key chooses the card to place
on your pile, before the deadline shown (else your first card goes).

  [b]Space[/b]  pause (against bots)    [b]Enter[/b]   next game / rematch
  [b]?[/b]      this help               [b]Ctrl+Q[/b]  quit
  [b]C[/b]      next chat phrase        [b]V[/b]       say it to the room

Press any key to go back.""")
"""The keys of one player in an online room: with the quick chat."""

HELP_HOTSEAT = N_("""\
[b]Blink — two players, one keyboard[/b]

Both play at once. Play a card that shares a colour, a shape or a count
with the top card of a pile. The first with no cards left wins.

  Left player:   cards [b]Q W E[/b]   piles [b]A[/b] (left)  [b]S[/b] (right)
  Right player:  cards [b]U I O[/b]   piles [b]K[/b] (left)  [b]L[/b] (right)

A card that fits only one pile goes at once; one that fits both waits
for a pile key. In a stall with an empty draw pile, a card key chooses
the card to place.

  [b]Enter[/b]  next game / rematch   [b]?[/b]  this help   [b]Ctrl+Q[/b]  quit

Press any key to go back.""")

HELP_HOTSEAT_3 = N_("""\
[b]Blink — three players, one keyboard[/b]

All play at once. Play a card that shares a colour, a shape or a count
with the top card of one of your two piles. The first with no cards left
wins. Each pile shows the keys of the two players who reach it.

  Left player:    cards [b]Q W E[/b]   piles [b]A[/b] · [b]S[/b]
  Middle player:  cards [b]Z X C[/b]   piles [b]F[/b] · [b]G[/b]
  Right player:   cards [b]U I O[/b]   piles [b]K[/b] · [b]L[/b]

The first pile key is for the one of your piles further left on screen.
In a stall with an empty draw pile, a card key chooses the card to place.

  [b]Enter[/b]  next game / rematch   [b]?[/b]  this help   [b]Ctrl+Q[/b]  quit

Press any key to go back.""")

HELP_WATCH = N_("""\
[b]Blink — watching[/b]

You are a spectator: you see the piles and every player's counts.

  [b]?[/b]  this help   [b]Ctrl+Q[/b]  quit

Press any key to go back.""")


class TableScreen(Screen[None]):
    """The table: every widget of the game, and the game keys."""

    def compose(self) -> ComposeResult:
        """The table's widgets, top to bottom."""
        with Vertical():
            yield HeaderLine(id="header")
            yield OpponentsView(id="opponents")
            yield PilesView(id="piles")
            yield StatusLine(id="status")
            yield MessageLine(id="message")
            yield HandsView(id="hands")
        yield Static(id="footer")

    async def on_mount(self) -> None:
        """Once the widgets exist, the app starts the table."""
        app = self.app
        if isinstance(app, BlinkApp):
            await app.start_table()

    def on_key(self, event: Key) -> None:
        """Hand every key to the app's game-key handler."""
        event.stop()
        app = self.app
        if isinstance(app, BlinkApp):
            app.game_key(event.key)


class BlinkApp(App[Status | None]):
    """The terminal table for any :class:`Table` (local, against bots, online, spectating).

    ``title`` is the header text; ``colorblind`` adds each colour's letter to the cards (always
    on without colour, ``NO_COLOR``); ``ascii_symbols`` draws shapes as letters. The app
    returns the last :class:`Status` when it quits.
    """

    CSS = """
    TableScreen { layout: vertical; }
    #header { height: 1; }
    #opponents { height: auto; max-height: 3; }
    #piles { height: 6; margin: 1 0 0 2; }
    #status { height: 3; padding: 0 1; }
    #message { height: 2; padding: 0 1; color: $warning; }
    #hands { height: 7; margin: 0 0 0 1; }
    #footer { dock: bottom; height: 1; background: $panel; }
    """

    TITLE = "Blink"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", N_("quit"), priority=True),
        Binding("ctrl+c", "interrupt", N_("quit"), show=False, priority=True),
    ]

    def __init__(
        self,
        table: Table,
        *,
        title: str = "",
        colorblind: bool = False,
        ascii_symbols: bool = False,
        key_maps: dict[int, HandKeys] | None = None,
        tick_seconds: float = 0.05,
    ) -> None:
        super().__init__()
        translate_bindings(self)
        self.table = table
        self.game_title = title
        self.colorblind = colorblind
        self.ascii_symbols = ascii_symbols
        self.tick_seconds = tick_seconds
        seats = table.local_seats
        if key_maps is None:
            if len(seats) == 1:
                key_maps = {seats[0]: SOLO}
            elif len(seats) == 2:
                key_maps = {seats[0]: HOTSEAT_LEFT, seats[1]: HOTSEAT_RIGHT}
            elif len(seats) == 3:
                hands = (HOTSEAT_LEFT, HOTSEAT_MIDDLE, HOTSEAT_RIGHT)
                key_maps = dict(zip(seats, hands, strict=True))
            else:
                key_maps = {}
        self.router = KeyRouter(table, key_maps)
        self._drawn = -1
        self._shown_left: float | None = None
        self._last_notice: Notice | None = None
        self._notice_at = 0.0
        self._last_status: Status | None = None
        self._phrase = -1
        """The quick chat phrase picked with ``c`` (an index of ``table.phrases``)."""
        self.table_screen = TableScreen()
        self._started = False

    @property
    def hotseat(self) -> bool:
        """Two people at this keyboard."""
        return len(self.table.local_seats) > 1

    @property
    def card_style(self) -> CardStyle:
        """How cards are drawn now (letters forced when colour is off)."""
        no_color = self.no_color or "NO_COLOR" in os.environ
        return CardStyle(
            letters=self.colorblind or no_color,
            ascii_symbols=self.ascii_symbols,
            spoken_letters=True,
        )

    async def on_mount(self) -> None:
        """Show the table screen (which starts the table once its widgets exist)."""
        await self.push_screen(self.table_screen)

    async def start_table(self) -> None:
        """Start the table and the timer that drives it (once the table screen is up)."""
        if self._started:
            return
        self._started = True
        await self.table.start()
        self.set_interval(self.tick_seconds, self._tick)
        self.redraw()

    async def on_unmount(self) -> None:
        """Stop the table (bots, connections)."""
        await self.table.close()

    def _tick(self) -> None:
        self.table.tick()
        if self._last_notice is not None and self.table.clock() - self._notice_at > NOTICE_SECONDS:
            self._last_notice = None
            self.table.changed()
        left = self.table.status().seconds_left
        shown = None if left is None else round(left, 1)
        if self.table.version != self._drawn or shown != self._shown_left:
            self._shown_left = shown
            self.redraw()

    # -- keys -------------------------------------------------------------------------------

    def game_key(self, key: str) -> None:
        """Game keys go to the router; the rest are the app's keys; anything else is ignored."""
        if key in ("question_mark", "f1"):
            self._help()
        elif key == "space":
            self._toggle_pause()
        elif key == "enter":
            if self.table.status().can_rematch:
                self.router.pending.clear()
                self._last_notice = None
                self.table.rematch()
        elif key in ("c", "v") and self.table.phrases:
            self._chat(key)
        elif self.router.handle(key):
            pass
        self.redraw()

    def _chat(self, key: str) -> None:
        """``c`` picks the next quick chat phrase (shown on the message line), ``v`` says it."""
        phrases = self.table.phrases
        if key == "c":
            self._phrase = (self._phrase + 1) % len(phrases)
            words = phrase_words(phrases[self._phrase])
            line = _("quick chat: “{words}” (C: next phrase, V: say it)").format(words=words)
            self.table.notify_player(Notice(line))
        else:
            self.table.say(phrases[max(0, self._phrase)])

    def _help(self) -> None:
        if not self.table.local_seats:
            text = HELP_WATCH
        elif self.table.phrases:
            text = HELP_ONLINE
        elif len(self.table.local_seats) == 3:
            text = HELP_HOTSEAT_3
        elif self.hotseat:
            text = HELP_HOTSEAT
        else:
            text = HELP_SOLO
        self.push_screen(HelpScreen(_(text)))

    def _toggle_pause(self) -> None:
        status = self.table.status()
        if not status.can_pause or status.stage is Stage.OVER:
            return
        self.table.set_paused(True)

        def resumed(_: None) -> None:
            self.table.set_paused(False)
            self.redraw()

        self.push_screen(PauseScreen(), resumed)

    # -- drawing ----------------------------------------------------------------------------

    def redraw(self) -> None:
        """Draw every widget from the table's current views and status."""
        table = self.table
        try:
            self.table_screen.query_one(HeaderLine)
        except NoMatches:
            return  # not composed yet
        self._drawn = table.version
        status = table.status()
        self._last_status = status
        for n in table.notices():
            self._last_notice = n
            self._notice_at = table.clock()
        if status.stage is Stage.OVER and self._last_notice and self._last_notice.refused:
            self._last_notice = None
        seats = table.local_seats
        viewer = seats[0] if seats else None
        view = table.view(viewer)
        style = self.card_style
        self.table_screen.query_one(HeaderLine).show(status, self.game_title)
        self.table_screen.query_one(StatusLine).show(
            status, viewer if len(seats) == 1 else None, self.hotseat
        )
        self.table_screen.query_one(MessageLine).show(self._last_notice, status.names, self.hotseat)
        self.table_screen.query_one("#footer", Static).update(self._footer(status))
        if view is None:
            return
        others = [s for s in range(status.players) if s not in seats]
        places: dict[int, str] = {}
        if status.players == 3 and len(seats) == 1:
            # Seats go clockwise: the next seat shares your right pile, the one after your left.
            places = {
                (seats[0] + 1) % 3: _("on your right"),
                (seats[0] + 2) % 3: _("on your left"),
            }
        self.table_screen.query_one(OpponentsView).show(view, status, others, places)
        self.table_screen.query_one(PilesView).show(self._piles(view, status), style)
        self.table_screen.query_one(HandsView).show(self._hands(status), style)

    def _footer(self, status: Status) -> Text:
        parts = [_("?: help")]
        if status.can_pause:
            parts.append(_("Space: pause"))
        if status.can_rematch:
            parts.append(_("Enter: rematch") if status.series_over else _("Enter: next game"))
        parts.append(_("Ctrl+Q: quit"))
        return Text(" " + " · ".join(parts), style="bold")

    def _piles(self, view: PlayerView, status: Status) -> list[PileInfo]:
        seats = self.table.local_seats
        n = status.players
        if n == 2:
            order: Sequence[int] = (0, 1)
        elif len(seats) == 1:
            left, right = pile_sides(n, seats[0])
            far = ({0, 1, 2} - {left, right}).pop()
            order = (left, far, right)
        else:
            order = (0, 1, 2)
        out = []
        for index in order:
            keys = []
            reachable = not seats
            for seat in seats:
                sides = self.router.sides(n, seat)
                km = self.router.maps.get(seat)
                if index in sides and km is not None:
                    reachable = True
                    keys.append(km.left_label if sides[0] == index else km.right_label)
            label = pile_label(index, "·".join(keys), reachable)
            if n == 3 and len(seats) == 1 and reachable:
                label = ("◀ " + label) if index == order[0] else (label + " ▶")
            pile = view.piles[index] if view.piles[index] else ()
            size = len(pile) if pile else 1
            out.append(PileInfo(index, view.tops[index], size, label, reachable))
        return out

    def _hands(self, status: Status) -> list[HandInfo]:
        out = []
        for seat in self.table.local_seats:
            view = self.table.view(seat)
            km = self.router.maps.get(seat)
            if view is None or km is None:
                continue
            size = max(len(view.hand), view.ruleset.hand_size)
            keys = tuple(km.card_label(i) for i in range(size))
            pending = self.router.pending_card(seat)
            hint = ""
            if pending is not None:
                hint = _("which pile? {left} or {right}").format(
                    left=km.left_label, right=km.right_label
                )
            elif status.stage is Stage.CHOOSING:
                hint = (
                    _("placing {card}: wait").format(card=card_name(view.my_choice))
                    if view.my_choice is not None
                    else _("choose a card: {keys}").format(keys=" ".join(keys[: len(view.hand)]))
                )
            title = _("You") if not self.hotseat else status.names[seat]
            out.append(
                HandInfo(
                    title=title,
                    cards=view.hand,
                    keys=keys,
                    draw=view.draw_counts[seat],
                    pending=pending,
                    chosen=view.my_choice,
                    hint=hint,
                )
            )
        return out

    @property
    def game_under_way(self) -> bool:
        """A game someone at this keyboard is playing has started and is not over."""
        stage = self.table.status().stage
        return bool(self.table.local_seats) and stage not in (Stage.WAITING, Stage.OVER)

    def action_interrupt(self) -> None:
        """Ctrl+C: quit at once between games or when watching (or when pressed again while
        asked); in mid-game, ask first (a game against bots waits, paused, for the answer)."""
        if isinstance(self.screen, QuitScreen) or not self.game_under_way:
            self.exit(self._last_status)
            return
        status = self.table.status()
        paused_here = status.can_pause and not status.paused
        if paused_here:
            self.table.set_paused(True)

        def answered(leave: bool | None) -> None:
            if leave:
                self.exit(self._last_status)
                return
            if paused_here:
                self.table.set_paused(False)
            self.redraw()

        self.push_screen(QuitScreen(), answered)

    async def action_quit(self) -> None:
        """Quit, returning the last status."""
        self.exit(self._last_status)
