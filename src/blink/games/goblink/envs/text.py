"""Go Blink's text rendering (``render_mode="ansi"``): one seat's view, in plain text."""

from __future__ import annotations

from blink.envs.text import cards_text, outcome_line
from blink.games.goblink.view import GoView

__all__ = ["goblink_text"]


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
