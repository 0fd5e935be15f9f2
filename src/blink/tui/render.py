"""Drawing cards as Rich text: colour, a symbol per shape (or a letter) and the count.

A card is a small box four lines high and nine columns wide, readable in an 80x24 terminal::

    ╭───────╮
    │ ★★★★  │
    │  4 Y  │
    ╰───────╯

The top line inside repeats the shape's symbol ``count`` times; the second gives the count and,
in colour-blind mode (always without colour), the colour's letter. Everything here is pure:
functions from cards and options to :class:`rich.text.Text` lines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from rich.style import Style
from rich.text import Text

from blink.cards import Card, Color, Shape
from blink.model.base import IllegalAction
from blink.tui.i18n import N_, _, card_name, color_letter, join_and, language
from blink.tui.i18n import pile_name as _pile_name

__all__ = [
    "CARD_HEIGHT",
    "CARD_WIDTH",
    "REFUSALS",
    "SYMBOLS",
    "TERMINAL_COLORS",
    "CardStyle",
    "Subjects",
    "blank_lines",
    "card_label",
    "card_lines",
    "join_columns",
    "no_pile_sentence",
    "pile_name",
    "refusal_sentence",
    "refusal_text",
]

CARD_WIDTH: Final = 9
"""Columns taken by one card box."""
CARD_HEIGHT: Final = 4
"""Lines taken by one card box."""

SYMBOLS: Final[dict[Shape, str]] = {
    Shape.MOON: "☾",
    Shape.PYRAMID: "▲",
    Shape.STAR: "★",
    Shape.WATER: "≈",
    Shape.FLOWER: "✿",
    Shape.LIGHTNING: "ϟ",
}
"""One single-width Unicode symbol per shape."""

TERMINAL_COLORS: Final[dict[Color, str]] = {
    Color.RED: "#ff5a74",
    Color.ORANGE: "#f2a212",
    Color.YELLOW: "#fcff01",
    Color.GREEN: "#b7ffb0",
    Color.BLUE: "#71c8f2",
    Color.PURPLE: "#9084ff",
}
"""The card colours on the terminal's dark background: brighter than the browser's (which are
drawn on white cards), readable on every background of the tables (contrast 4.5:1 or more) and
apart from each other under colour-vision deficiencies (tests/test_palette.py, documented in
docs/accessibility.md)."""


@dataclass(frozen=True, slots=True)
class CardStyle:
    """How cards are drawn: ``letters`` shows each colour's letter (colour-blind mode, or no
    colour); ``ascii_symbols`` uses the shape's letter instead of a Unicode symbol;
    ``spoken_letters`` takes the colour letters of the language spoken now (the browser's: R N A
    V Z M in Spanish) instead of the card notation's (R O Y G B P, which Go Blink's commands
    use)."""

    letters: bool = False
    ascii_symbols: bool = False
    spoken_letters: bool = False

    def letter(self, color: Color) -> str:
        """The letter drawn for ``color`` in letter mode."""
        return color_letter(color) if self.spoken_letters else color.letter

    def symbol(self, shape: Shape) -> str:
        """The character drawn for ``shape``."""
        return shape.letter if self.ascii_symbols else SYMBOLS[shape]

    def color(self, color: Color) -> str:
        """The terminal colour of a card colour."""
        return TERMINAL_COLORS[color]


def card_label(card: Card, style: CardStyle) -> Text:
    """A one-line label: count, symbol and (in letter mode) the colour letter, e.g. ``4★Y``."""
    text = Text()
    text.append(f"{card.count}{style.symbol(card.shape)}", Style(color=style.color(card.color)))
    if style.letters:
        text.append(style.letter(card.color), Style(color=style.color(card.color), bold=True))
    return text


def card_lines(
    card: Card | None, style: CardStyle, *, dim: bool = False, highlight: bool = False
) -> list[Text]:
    """The four lines of one card box. ``None`` draws a face-down card."""
    border = Style(dim=dim, bold=highlight, reverse=False)
    if card is None:
        fill = "░" * (CARD_WIDTH - 2)
        return [
            Text("╭" + "─" * (CARD_WIDTH - 2) + "╮", border),
            Text("│" + fill + "│", border),
            Text("│" + fill + "│", border),
            Text("╰" + "─" * (CARD_WIDTH - 2) + "╯", border),
        ]
    ink = Style(color=style.color(card.color), bold=True, dim=dim)
    edge = Style(color=style.color(card.color), dim=dim, bold=highlight)
    inner = CARD_WIDTH - 2
    symbols = style.symbol(card.shape) * card.count
    second = f"{card.count} {style.letter(card.color)}" if style.letters else str(card.count)
    top_char, bottom_char = ("━", "━") if highlight else ("─", "─")
    corner = ("┏", "┓", "┗", "┛") if highlight else ("╭", "╮", "╰", "╯")
    side = "┃" if highlight else "│"
    lines = [Text(corner[0] + top_char * inner + corner[1], edge)]
    for body in (symbols, second):
        line = Text(side, edge)
        line.append(body.center(inner), ink)
        line.append(side, edge)
        lines.append(line)
    lines.append(Text(corner[2] + bottom_char * inner + corner[3], edge))
    return lines


def blank_lines(width: int = CARD_WIDTH, height: int = CARD_HEIGHT) -> list[Text]:
    """Empty space the size of a card (an empty hand slot)."""
    return [Text(" " * width) for _ in range(height)]


def join_columns(columns: Sequence[Sequence[Text]], gap: int = 2) -> Text:
    """Lay out blocks of lines side by side (each block padded to its widest line)."""
    height = max((len(c) for c in columns), default=0)
    widths = [max((line.cell_len for line in c), default=0) for c in columns]
    out = Text()
    for row in range(height):
        if row:
            out.append("\n")
        for i, col in enumerate(columns):
            if i:
                out.append(" " * gap)
            line = col[row] if row < len(col) else Text("")
            out.append_text(line)
            out.append(" " * (widths[i] - line.cell_len))
    return out


def pile_name(index: int) -> str:
    """A pile as people call it: numbered from one (the engine's pile 0 is "pile 1")."""
    return _pile_name(index)


Subjects = Mapping[str, Card | int | tuple[int, ...]]
"""What a refusal is about: cards, a pile (the engine's number) and piles."""

REFUSALS: Final[dict[str, tuple[str, tuple[str, ...], str]]] = {
    "no_common_attribute": (
        N_("{card} has no colour, shape or count in common with {top} on {pile}"),
        ("card", "top", "pile"),
        N_("No match: no shared colour, shape or count"),
    ),
    "card_not_in_hand": (
        N_("{card} is not in your hand"),
        ("card",),
        N_("That card is no longer in your hand"),
    ),
    "pile_out_of_reach": (
        N_("{pile} is out of your reach (you may play on {reach})"),
        ("pile", "reach"),
        N_("That pile is out of reach"),
    ),
    "not_revealed": ("", (), N_("Wait for the reveal")),
    "flip_awaited": ("", (), N_("Stalled: wait for the flip")),
    "choice_awaited": ("", (), N_("Stalled: choose a hand card to place")),
    "game_over": ("", (), N_("The game is over")),
    "already_chosen": ("", (), N_("You have already chosen a card")),
    "no_choice_needed": ("", (), N_("No stall choice is awaited")),
    "not_stalled": ("", (), N_("The game is not stalled: there is a play")),
    "no_such_pile": ("", (), N_("There is no such pile")),
    "no_such_player": ("", (), N_("There is no such player")),
    "already_revealed": ("", (), N_("The centre cards are already face up")),
    "too_slow": ("", (), N_("Too slow: the pile changed first")),
    "no_game": ("", (), N_("No game is in progress")),
    "not_started": ("", (), N_("Wait for the countdown")),
    "not_a_player": ("", (), N_("You are watching: spectators do not play")),
    "storage_unavailable": (
        "",
        (),
        N_("The game is waiting: the server cannot save it right now"),
    ),
    "rematch_unavailable": ("", (), N_("No rematch now")),
    "chat_too_fast": ("", (), N_("Not so fast: wait a moment before the next phrase")),
    "unknown_phrase": ("", (), N_("That phrase is not one of the quick chat phrases")),
    "rate_limited": ("", (), N_("Too many messages: slow down")),
    "paused": ("", (), N_("The game is paused: resume it to play")),
    "not_practice": ("", (), N_("Only a practice game against bots can be paused")),
    "already_hello": ("", (), N_("This connection has already joined the game")),
    "bad_card": ("", (), N_("That is not a card of the game")),
    "bad_value": ("", (), N_("Ask for a colour, a shape or a count from 1 to 5")),
    "bad_field": ("", (), N_("The server did not understand the message")),
    "not_object": ("", (), N_("The server did not understand the message")),
    "unknown_type": ("", (), N_("The server did not understand the message")),
    "bad_json": ("", (), N_("The server could not read the message")),
    "bad_text": ("", (), N_("The text has characters that cannot be sent")),
    "too_large": ("", (), N_("The message was too long to send")),
    "bad_token": ("", (), N_("This seat's link is not valid: ask for a new link")),
    "hello_required": ("", (), N_("The connection was not ready: connect again")),
    "no_such_room": ("", (), N_("There is no game with this code")),
    "wrong_room": ("", (), N_("The link is for another game: check the link")),
    "wrong_game": ("", (), N_("That move belongs to another game")),
    "room_elsewhere": ("", (), N_("The game is on another server right now: connect again")),
    "seat_left": ("", (), N_("This seat was left: it can no longer play")),
    "too_many_spectators": ("", (), N_("This game has as many spectators as it takes")),
    "bad_bot_token": ("", (), N_("This bot's token is not valid: it was revoked or replaced")),
    "too_many_connections": ("", (), N_("This bot has all its connections open already")),
    "bots_not_admitted": ("", (), N_("This game's host did not allow bot accounts to join")),
    "bot_rate_limited": ("", (), N_("This bot's connections together sent too many messages")),
    "unsupported_protocol": ("", (), N_("This version of blink is out of date: update it")),
}
"""Each refusal code's sentence about its subjects (with every subject it names), and its
sentence without them: the browser client's wording (``web/js/i18n.js``, ``r_<code>``)."""


def refusal_sentence(code: str, subjects: Subjects | None = None, message: str = "") -> str:
    """A refusal in the language spoken now: by its code, naming cards in words and piles
    from one when ``subjects`` holds what its sentence names. A code without a sentence here
    shows ``message`` (the other side's English sentence) in English, and the code itself in
    another language."""
    known = REFUSALS.get(code)
    if known is None:
        if language() == "en" and message:
            return message[:1].upper() + message[1:]
        return _("Refused ({code})").format(code=code)
    template, needs, plain = known
    given = subjects or {}
    if not template or any(k not in given for k in needs):
        return _(plain)
    names: dict[str, str] = {}
    for key in needs:
        value = given[key]
        if isinstance(value, Card):
            names[key] = card_name(value)
        elif isinstance(value, tuple):
            names[key] = join_and([pile_name(p) for p in value])
        else:
            names[key] = pile_name(value)
    text = _(template).format(**names)
    return text[:1].upper() + text[1:]


def no_pile_sentence(card: Card, piles: Sequence[tuple[int, Card]]) -> str:
    """Why ``card`` fits none of a player's piles (one or two: each the engine's number and
    its top card), naming each: "Two yellow moons has no colour, shape or count in common
    with one red star on pile 1, nor with three blue waters on pile 2"."""
    (first, top), *others = piles
    names = {"card": card_name(card), "top": card_name(top), "pile": pile_name(first)}
    if not others:
        text = _("{card} has no colour, shape or count in common with {top} on {pile}")
    else:
        second, top2 = others[0]
        names |= {"top2": card_name(top2), "pile2": pile_name(second)}
        text = _(
            "{card} has no colour, shape or count in common with {top} on {pile}, nor with "
            "{top2} on {pile2}"
        )
    text = text.format(**names)
    return text[:1].upper() + text[1:]


def refusal_text(exc: IllegalAction) -> str:
    """The engine's refusal in the table's words: cards by long name, piles from one."""
    return refusal_sentence(exc.code, exc.subjects, exc.message)
