"""Classic Blink's renderings of one seat's view: text (``render_mode="ansi"``) and a picture
of its cards (``"rgb_array"``)."""

from __future__ import annotations

from blink.cards import Card
from blink.envs.pictures import Image, table
from blink.envs.text import cards_text, outcome_line
from blink.games.classic.view import PlayerView

__all__ = ["classic_picture", "classic_text"]


def classic_text(view: PlayerView, now: float) -> str:
    """A classic view at ``now`` seconds (of virtual time) as a few lines."""
    lines = [
        f"Classic Blink, seat {view.seat} of {view.players}, {now:.1f} s: {view.phase.value}",
        f"piles: {cards_text(view.tops)}",
        f"hand: {cards_text(view.hand)}",
        "hands: " + " ".join(f"{s}:{n}" for s, n in enumerate(view.hand_counts)),
        "draw piles: " + " ".join(f"{s}:{n}" for s, n in enumerate(view.draw_counts)),
    ]
    if any(view.chosen):
        lines.append("chosen: " + " ".join(str(s) for s, c in enumerate(view.chosen) if c))
    over = outcome_line(view.outcome)
    if over is not None:
        lines.append(over)
    return "\n".join(lines) + "\n"


def classic_picture(view: PlayerView) -> Image:
    """A classic view as a picture: the piles' top cards (pile order; an empty place before the
    reveal), under them the seat's hand (slot order), then a bar per seat (the seat first, then
    clockwise) for its draw pile out of 30 cards. The same size for every view of a game."""
    slots = view.ruleset.hand_size
    hand: list[Card | None] = [*view.hand, *[None] * (slots - len(view.hand))]
    seats = [(view.seat or 0) + k for k in range(view.players)]
    bars = [view.draw_counts[s % view.players] / 30 for s in seats]
    return table([list(view.tops), hand], max(slots, len(view.tops)), bars)
