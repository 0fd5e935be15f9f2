"""The table's widgets. Each draws what it is given (views, status, labels) and nothing else:
no widget knows a rule or changes a game."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from blink.cards import Card
from blink.games.classic.engine import PlayerView
from blink.games.classic.tui.table import Notice, RatingLine, Stage, Status
from blink.tui.i18n import _, join_and, ngettext
from blink.tui.render import (
    CARD_WIDTH,
    CardStyle,
    blank_lines,
    card_lines,
    join_columns,
    pile_name,
)

__all__ = [
    "HandInfo",
    "HandsView",
    "HeaderLine",
    "MessageLine",
    "OpponentsView",
    "PileInfo",
    "PilesView",
    "StatusLine",
    "pile_label",
]


@dataclass(frozen=True, slots=True)
class PileInfo:
    """One center pile as drawn: its top card (``None`` face down), size and label."""

    index: int
    top: Card | None
    size: int
    label: str
    reachable: bool = True


@dataclass(frozen=True, slots=True)
class HandInfo:
    """One hand at the keyboard: its title, cards, key labels and what is selected."""

    title: str
    cards: tuple[Card, ...]
    keys: tuple[str, ...]
    draw: int
    pending: Card | None = None
    chosen: Card | None = None
    hint: str = ""


class HeaderLine(Static):
    """Title, players and the series score."""

    def show(self, status: Status, title: str) -> None:
        """Draw the header."""
        text = Text()
        text.append(" BLINK ", Style(bold=True, reverse=True))
        text.append(f" {title}")
        if status.best_of > 1:
            score = "–".join(str(s) for s in status.score)
            text.append(
                _(" · game {n}, best of {best_of} · score {score}").format(
                    n=status.game_number, best_of=status.best_of, score=score
                )
            )
        self.update(text)


class OpponentsView(Static):
    """The other players: hand and draw counts (and whether they have chosen, in a stall)."""

    def show(
        self,
        view: PlayerView,
        status: Status,
        seats: Sequence[int],
        places: Mapping[int, str] | None = None,
    ) -> None:
        """Draw one line per seat in ``seats`` (``places``: where each sits, "on your left")."""
        lines = []
        for seat in seats:
            name = (
                status.names[seat]
                if seat < len(status.names)
                else _("Player {n}").format(n=seat + 1)
            )
            line = Text()
            line.append(f" {name}", Style(bold=True))
            if places and seat in places:
                line.append(f" ({places[seat]})")
            line.append(
                _(": {hand} in hand, {draw} to draw").format(
                    hand=view.hand_counts[seat], draw=view.draw_counts[seat]
                )
            )
            if status.stage is Stage.CHOOSING:
                line.append(_("  ✓ chosen") if view.chosen[seat] else _("  … choosing"))
            lines.append(line)
        self.update(Text("\n").join(lines) if lines else Text(""))


class PilesView(Static):
    """The center piles, left to right, each with its label and size."""

    def show(self, piles: Sequence[PileInfo], style: CardStyle) -> None:
        """Draw the piles."""
        columns = []
        # As wide as the longest label (Spanish: "montón 2 (lejos)"), the card centred under it.
        width = max([CARD_WIDTH + 4, *(len(p.label) for p in piles)])
        indent = Text(" " * ((width - CARD_WIDTH) // 2))
        for p in piles:
            dim = not p.reachable
            label = Text(p.label.center(width), Style(dim=dim, bold=not dim))
            words = ngettext("{n} card", "{n} cards", p.size).format(n=p.size)
            size = Text(words.center(width), Style(dim=True))
            body = [indent + line for line in card_lines(p.top, style, dim=dim)]
            columns.append([label, *body, size])
        self.update(join_columns(columns, gap=4))


class HandsView(Static):
    """The hands at this keyboard, side by side, each card over its key."""

    def show(self, hands: Sequence[HandInfo], style: CardStyle) -> None:
        """Draw the hands."""
        blocks = []
        for hand in hands:
            cols = []
            for i, key in enumerate(hand.keys):
                if i < len(hand.cards):
                    card = hand.cards[i]
                    mark = card is hand.pending or card is hand.chosen
                    lines = card_lines(card, style, highlight=mark)
                    tag = Text(f"[{key}]".center(CARD_WIDTH), Style(bold=True, reverse=mark))
                else:
                    lines = blank_lines()
                    tag = Text(" " * CARD_WIDTH)
                cols.append([*lines, tag])
            cards = join_columns(cols, gap=1) if cols else Text("")
            title = Text(hand.title, Style(bold=True))
            title.append(_("  · {n} to draw").format(n=hand.draw), Style(dim=True))
            hint = Text(hand.hint, Style(italic=True))
            block = [title, *cards.split("\n"), hint]
            blocks.append(block)
        gap = 6 if len(blocks) < 3 else 3  # three hands side by side: 99 columns
        self.update(join_columns(blocks, gap=gap) if blocks else Text(""))


class StatusLine(Static):
    """Countdown, stall, deadline, pause and the result with its figures."""

    def show(self, status: Status, you: int | None, hotseat: bool) -> None:
        """Draw the status for viewer ``you`` (``None``: spectator or hotseat)."""
        watching = not status.local_seats
        text = Text()
        s = status.stage
        if status.paused:
            text.append(_(" Paused "), Style(bold=True, reverse=True))
            text.append(_("  press Space to go on"))
        elif s is Stage.WAITING:
            text.append(status.info or _("Waiting for players…"), Style(bold=True))
        elif s is Stage.COUNTDOWN:
            left = status.seconds_left
            n = max(1, math.ceil(left)) if left is not None else None
            text.append(_(" Get ready… "), Style(bold=True))
            if n is not None:
                text.append(f" {n} ", Style(bold=True, reverse=True))
        elif s is Stage.PLAYING and watching:
            text.append(_(" Live "), Style(bold=True, reverse=True))
            text.append(_("  you are watching: the players race"))
        elif s is Stage.PLAYING:
            text.append(_(" Go! "), Style(bold=True, reverse=True))
            text.append(_("  play any card that shares a colour, a shape or a count"))
        elif s is Stage.STALLED:
            text.append(_(" Stall! "), Style(bold=True, reverse=True))
            text.append(_(" no one can play: each player flips a card onto their pile"))
            if status.seconds_left is not None:
                text.append(_(" in {s} s").format(s=f"{status.seconds_left:.1f}"))
        elif s is Stage.CHOOSING:
            text.append(_(" Stall! "), Style(bold=True, reverse=True))
            text.append(
                _(" each player chooses a hand card to place")
                if watching
                else _(" choose a hand card to place on your pile")
            )
            if status.seconds_left is not None:
                deadline = _(" · {s} s left").format(s=math.ceil(status.seconds_left))
                text.append(deadline, Style(bold=True))
        elif s is Stage.OVER and status.outcome is not None:
            _result(text, status, you)
        self.update(text)


def _result(text: Text, status: Status, you: int | None) -> None:
    """The end of a game: who won, the game's figures, and the series' winner."""
    out = status.outcome
    assert out is not None
    names = status.names
    text.append(" BLINK! ", Style(bold=True, reverse=True))
    if out.is_tie:
        who = join_and([names[w] for w in out.winners])
        text.append(_(" A tie between {names}").format(names=who))
    elif out.winner == you:
        text.append(_(" You win!"), Style(bold=True))
    elif out.winner is not None:
        text.append(_(" {name} wins").format(name=names[out.winner]), Style(bold=True))
    f = status.figures
    if f is not None:
        per_seat = ", ".join(f"{names[i]} {n}" for i, n in enumerate(f.plays_by_seat))
        plays = ngettext("{n} play", "{n} plays", f.plays).format(n=f.plays)
        text.append(
            _("\n {time} s · {plays} ({per_seat}) · {pace} s per play").format(
                time=f"{f.time_ms / 1000:.1f}",
                plays=plays,
                per_seat=per_seat,
                pace=f"{f.ms_per_play / 1000:.2f}",
            )
        )
        if f.cards_left:
            text.append("\n " + cards_left_text(f.cards_left, names))
    if status.ratings:
        text.append("\n " + ratings_text(status.ratings, names))
    if status.series_over and status.best_of > 1 and status.series_winner is not None:
        won = _("\n {name} takes the series!").format(name=names[status.series_winner])
        text.append(won, Style(bold=True))


def _rating_number(x: float) -> str:
    """A rating as the leaderboard shows one: one decimal, never "-0.0"."""
    return f"{round(x, 1) + 0.0:.1f}"


def ratings_text(ratings: Sequence[RatingLine], names: Sequence[str]) -> str:
    """Each rated seat's rating change at a game's end: "Rating: Ann 0.0 → 1.3 (+1.3)"."""
    parts = []
    for r in ratings:
        sign = "+" if r.delta >= 0 else "−"
        name = names[r.seat] if 0 <= r.seat < len(names) else str(r.seat + 1)
        before, after = _rating_number(r.before), _rating_number(r.after)
        # Numbers and arrows only: the same in every language.
        parts.append(f"{name} {before} → {after} ({sign}{_rating_number(abs(r.delta))})")
    return _("Rating: {changes}").format(changes=" · ".join(parts))


def cards_left_text(left: Sequence[int], names: Sequence[str]) -> str:
    """Each seat's cards left at a game's end, in the plural form its count takes in the
    language spoken now: "Ann: 1 card left · Ben: 2 cards left"."""
    return " · ".join(
        f"{names[i]}: " + ngettext("{n} card left", "{n} cards left", n).format(n=n)
        for i, n in enumerate(left)
    )


class MessageLine(Static):
    """The line under the table: a refused play's reason, or news."""

    def show(self, notice: Notice | None, names: Sequence[str], hotseat: bool) -> None:
        """Draw ``notice`` (or clear the line)."""
        if notice is None:
            self.update("")
            return
        text = Text()
        if hotseat and notice.seat is not None:
            text.append(f"{names[notice.seat]}: ", Style(bold=True))
        text.append(notice.text, Style(bold=notice.refused))
        self.update(text)


def pile_label(index: int, keys: str, reachable: bool) -> str:
    """A pile's label: its name and keys, or that it is out of reach."""
    if not reachable:
        return _("{pile} (far)").format(pile=pile_name(index))
    return f"{pile_name(index)} [{keys}]" if keys else pile_name(index)
