"""What the environments' text renderings (``render_mode="ansi"``) share.

Each game renders one seat's view in its own environment package; only a view is ever
rendered, so a rendering shows exactly what that seat may know.
"""

from __future__ import annotations

from collections.abc import Iterable

from blink.cards import Card
from blink.model.base import Outcome

__all__ = ["cards_text", "outcome_line"]


def cards_text(cards: Iterable[Card | None]) -> str:
    """Cards in their notation, ``--`` for an empty place, ``-`` for none at all."""
    return " ".join("--" if c is None else str(c) for c in cards) or "-"


def outcome_line(outcome: Outcome | None) -> str | None:
    """The line of a view's outcome (``None`` while the game goes on)."""
    if outcome is None:
        return None
    return f"over: {outcome.reason.value}, won by {list(outcome.winners)}"
