"""Go Blink's renderings of one seat's view: text (``render_mode="ansi"``) and a picture of its
cards (``"rgb_array"``)."""

from __future__ import annotations

from blink.cards import STANDARD_DECK, Card
from blink.envs.pictures import Image, table
from blink.envs.text import cards_text, outcome_line
from blink.games.goblink.view import GoView

__all__ = ["goblink_picture", "goblink_text"]


def goblink_text(view: GoView) -> str:
    """A Go Blink view as a few lines."""
    lines = [
        f"Go Blink, seat {view.seat} of {view.players}: {view.phase.value}, "
        f"turn {view.turns}, seat {view.current} to act, {view.draw_count} to draw",
        f"hand: {cards_text(view.hand)}",
        "cards held: " + " ".join(f"{s}:{n}" for s, n in enumerate(view.hand_counts)),
    ]
    for seat, cards in view.discard[-3:]:
        lines.append(f"laid down by seat {seat}: {cards_text(cards)}")
    for a in view.asks[-3:]:
        answer = f"passed {a.passed}" if a.passed else "Go Blink"
        lines.append(f"seat {a.player} asked seat {a.target} for {a.value}: {answer}")
    over = outcome_line(view.outcome)
    if over is not None:
        lines.append(over)
    return "\n".join(lines) + "\n"


def goblink_picture(view: GoView) -> Image:
    """A Go Blink view as a picture: the latest match laid down (a row; empty places before
    one), the seat's hand in rows of ten (room for the whole deck), then a bar per seat (the
    seat first, then clockwise) for the cards it holds out of 20, and one for the draw pile.
    The same size for every view."""
    columns = 10
    laid: list[Card | None] = list(view.discard[-1][1][:columns]) if view.discard else []
    rows: list[list[Card | None]] = [laid + [None] * (columns - len(laid))]
    hand: list[Card | None] = list(view.hand)
    for start in range(0, len(STANDARD_DECK), columns):
        rows.append(hand[start : start + columns])
    seat = view.seat or 0
    bars = [view.hand_counts[(seat + k) % view.players] / 20 for k in range(view.players)]
    bars.append(view.draw_count / len(STANDARD_DECK))
    return table(rows, columns, bars)
