"""Classic Blink's text rendering (``render_mode="ansi"``): one seat's view, in plain text."""

from __future__ import annotations

from blink.envs.text import cards_text, outcome_line
from blink.games.classic.view import PlayerView

__all__ = ["classic_text"]


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
