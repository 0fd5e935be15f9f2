"""The environments' text rendering (``render_mode="ansi"``): one seat's view, in plain text.

Only a view is ever rendered, so a rendering shows exactly what that seat may know.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from blink.cards import Card

__all__ = ["classic_text", "goblink_text"]


def _cards(cards: Iterable[Card | None]) -> str:
    return " ".join("--" if c is None else str(c) for c in cards) or "-"


def goblink_text(view: Any) -> str:
    """A Go Blink view (:class:`~blink.games.goblink.view.GoView`) as a few lines."""
    lines = [
        f"Go Blink, seat {view.seat} of {view.players}: {view.phase.value}, "
        f"turn {view.turns}, seat {view.current} to act, {view.draw_count} to draw",
        f"hand: {_cards(view.hand)}",
        "cards held: " + " ".join(f"{s}:{n}" for s, n in enumerate(view.hand_counts)),
    ]
    for seat, cards in view.discard[-3:]:
        lines.append(f"laid down by seat {seat}: {_cards(cards)}")
    for a in view.asks[-3:]:
        answer = f"passed {a.passed}" if a.passed else "Go Blink"
        lines.append(f"seat {a.player} asked seat {a.target} for {a.value}: {answer}")
    if view.outcome is not None:
        lines.append(f"over: {view.outcome.reason.value}, won by {list(view.outcome.winners)}")
    return "\n".join(lines) + "\n"


def classic_text(view: Any, now: float) -> str:
    """A classic view (:class:`~blink.games.classic.view.PlayerView`) at ``now`` seconds."""
    lines = [
        f"Classic Blink, seat {view.seat} of {view.players}, {now:.1f} s: {view.phase.value}",
        f"piles: {_cards(view.tops)}",
        f"hand: {_cards(view.hand)}",
        "hands: " + " ".join(f"{s}:{n}" for s, n in enumerate(view.hand_counts)),
        "draw piles: " + " ".join(f"{s}:{n}" for s, n in enumerate(view.draw_counts)),
    ]
    if any(view.chosen):
        lines.append("chosen: " + " ".join(str(s) for s, c in enumerate(view.chosen) if c))
    if view.outcome is not None:
        lines.append(f"over: {view.outcome.reason.value}, won by {list(view.outcome.winners)}")
    return "\n".join(lines) + "\n"
