"""What a classic player may know: the table's geometry and the view of one seat.

:func:`reach` and :func:`own_pile` say which center piles a seat plays on and which one it
started; :class:`PlayerView` is everything one player (or a spectator) may see, and
:func:`legal_plays_in_view` the plays that view allows.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from blink.cards import Card
from blink.games.classic.actions import Phase, Play
from blink.games.classic.rules import Ruleset
from blink.model.base import Outcome

__all__ = ["PlayerView", "legal_plays_in_view", "own_pile", "reach"]


# --- geometry ------------------------------------------------------------------------------

_REACH: Final = {2: ((0, 1), (0, 1)), 3: ((0, 2), (1, 0), (2, 1))}


def reach(players: int, seat: int) -> tuple[int, int]:
    """The two piles ``seat`` may play on (right pile first with three players)."""
    return _REACH[players][seat]


def own_pile(seat: int) -> int:
    """The pile ``seat`` started, where its flips and stall placements go."""
    return seat


# --- views ---------------------------------------------------------------------------------


class PlayerView(NamedTuple):
    """What one player (or a spectator, ``seat is None``) may know. Bots and clients get this.

    ``hand`` is the viewer's own hand (empty for a spectator); other hands and every draw pile
    are counts only. ``piles`` holds the face-up cards of each center pile, bottom first
    (empty before the reveal); ``tops`` the top cards (``None`` before the reveal).
    """

    seat: int | None
    players: int
    phase: Phase
    ruleset: Ruleset
    hand: tuple[Card, ...]
    tops: tuple[Card | None, ...]
    piles: tuple[tuple[Card, ...], ...]
    hand_counts: tuple[int, ...]
    draw_counts: tuple[int, ...]
    set_aside: int
    chosen: tuple[bool, ...]
    my_choice: Card | None
    outcome: Outcome | None
    plays: int

    @property
    def versions(self) -> tuple[int, ...]:
        """Each center pile's version: the number of face-up cards on it (0 before the
        reveal). A pile only grows, so a play that names an older version was chosen on a top
        that has been covered since."""
        return tuple(len(p) for p in self.piles)

    @property
    def reach(self) -> tuple[int, int] | tuple[()]:
        """The piles the viewer may play on (none for a spectator)."""
        return () if self.seat is None else _REACH[self.players][self.seat]

    def legal_plays(self) -> list[Play]:
        """The viewer's legal plays in this view."""
        return legal_plays_in_view(self)


def legal_plays_in_view(view: PlayerView) -> list[Play]:
    """Every legal play for the viewer of ``view`` (none outside the playing phase)."""
    if view.seat is None or view.phase is not Phase.PLAYING:
        return []
    out = []
    for pile in _REACH[view.players][view.seat]:
        top = view.tops[pile]
        if top is None:
            continue
        for c in view.hand:
            if c.matches(top):
                out.append(Play(view.seat, c, pile))
    return out
