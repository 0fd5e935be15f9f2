"""A seat's observation, as the environments and the bots that read them build it: each card's
position and features, and the refusal of an action, as plain values (no Gymnasium, no numpy).

:mod:`blink.envs.encoding` re-exports these for the environments; a game's bots that play a
trained policy (classic Blink's ``trained`` level) encode their views with them too, in the
base install, where the environments' packages may be missing.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from blink.cards import STANDARD_DECK, Card, Color, Shape

__all__ = ["CARD_FEATURES", "DECK_INDEX", "FEATURES", "Refusal"]

DECK_INDEX: Final[dict[Card, int]] = {c: i for i, c in enumerate(STANDARD_DECK)}
"""Each card's position in the standard deck: the order of every per-card array."""

_COLORS: Final = tuple(Color)
_SHAPES: Final = tuple(Shape)

CARD_FEATURES: Final = len(_COLORS) + len(_SHAPES) + 5 + 1
"""A card as features: its colour, shape and count one-hot, then 1 for "a card is here"."""

FEATURES: Final[dict[Card, tuple[int, int, int, int]]] = {
    c: (
        _COLORS.index(c.color),
        len(_COLORS) + _SHAPES.index(c.shape),
        len(_COLORS) + len(_SHAPES) + c.count - 1,
        CARD_FEATURES - 1,
    )
    for c in STANDARD_DECK
}
"""The feature positions of each card of the standard deck (see :data:`CARD_FEATURES`)."""


class Refusal(NamedTuple):
    """An action the game (or the environment) refused: a stable code and a sentence."""

    code: str
    message: str
