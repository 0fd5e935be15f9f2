"""Key maps and the key router: which key is which card or pile, for each hand at the keyboard.

A card key plays that hand card at once when it fits exactly one of the player's two piles;
when it fits both, it waits for a pile key (press the card key again to drop it); when it fits
neither, it is refused on the spot in a sentence that names both piles (the engine's refusal
of a play names only the pile it was played on).
In a choosing stall a card key chooses that card. Keys that mean nothing at the moment are
ignored. Which piles a card fits is asked of the engine (``PlayerView.legal_plays``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from blink.cards import Card
from blink.games.classic.engine import reach
from blink.games.classic.tui.table import Notice, Stage, Table
from blink.tui.render import no_pile_sentence

__all__ = [
    "HOTSEAT_LEFT",
    "HOTSEAT_MIDDLE",
    "HOTSEAT_RIGHT",
    "SOLO",
    "HandKeys",
    "KeyRouter",
    "pile_sides",
]


@dataclass(frozen=True, slots=True)
class HandKeys:
    """The keys of one hand: per hand slot the keys that pick it, and the pile keys."""

    cards: tuple[tuple[str, ...], ...]
    left: tuple[str, ...]
    right: tuple[str, ...]

    def card_label(self, slot: int) -> str:
        """The key shown under hand slot ``slot``."""
        return _label(self.cards[slot][0]) if slot < len(self.cards) else " "

    @property
    def left_label(self) -> str:
        """The key shown on the left pile."""
        return _label(self.left[0])

    @property
    def right_label(self) -> str:
        """The key shown on the right pile."""
        return _label(self.right[0])


def _label(key: str) -> str:
    return {"left": "←", "right": "→", "left_square_bracket": "["}.get(key, key.upper())


SOLO = HandKeys(
    cards=(("1", "q", "j"), ("2", "w", "k"), ("3", "e", "l"), ("4", "r"), ("5", "t")),
    left=("a", "left"),
    right=("d", "s", "right"),
)
"""One player: cards 1-5 (or Q W E R T, or J K L), piles A/D (or S, or the arrow keys), as in
the browser client."""

HOTSEAT_LEFT = HandKeys(
    cards=(("q",), ("w",), ("e",), ("r",), ("t",)),
    left=("a",),
    right=("s",),
)
"""The left-hand player at a shared keyboard: cards Q W E, piles A (left) and S (right)."""

HOTSEAT_RIGHT = HandKeys(
    cards=(("u",), ("i",), ("o",), ("p",), ("left_square_bracket",)),
    left=("k",),
    right=("l",),
)
"""The right-hand player at a shared keyboard: cards U I O, piles K (left) and L (right)."""


HOTSEAT_MIDDLE = HandKeys(
    cards=(("z",), ("x",), ("c",), ("v",), ("b",)),
    left=("f",),
    right=("g",),
)
"""The middle player of three at a shared keyboard: cards Z X C, piles F (left) and G
(right)."""


def pile_sides(players: int, seat: int) -> tuple[int, int]:
    """The (left, right) piles on screen for ``seat``: with three players its reach."""
    if players == 2:
        return (0, 1)
    right, left = reach(players, seat)
    return (left, right)


@dataclass
class KeyRouter:
    """Turns key names into intentions on a table, for each local seat's key map."""

    table: Table
    maps: dict[int, HandKeys]
    pending: dict[int, Card] = field(default_factory=dict)

    def sides(self, players: int, seat: int) -> tuple[int, int]:
        """The (left, right) piles of ``seat``'s pile keys. One person's piles are their own
        left and right (:func:`pile_sides`); with three people at one screen, where the piles
        are drawn in order, a seat's left key is for the one of its two piles drawn further
        left."""
        sides = pile_sides(players, seat)
        if players == 3 and len(self.maps) > 1:
            low, high = sorted(sides)
            return (low, high)
        return sides

    def _find(self, key: str) -> tuple[int, str, int] | None:
        for seat, keys in self.maps.items():
            for slot, names in enumerate(keys.cards):
                if key in names:
                    return seat, "card", slot
            if key in keys.left:
                return seat, "pile", 0
            if key in keys.right:
                return seat, "pile", 1
        return None

    def handle(self, key: str) -> bool:
        """Act on ``key``; False when it is not a game key."""
        found = self._find(key)
        if found is None:
            return False
        seat, kind, index = found
        view = self.table.view(seat)
        status = self.table.status()
        if view is None or status.paused:
            return True
        sides = self.sides(view.players, seat)
        if kind == "pile":
            card = self.pending.pop(seat, None)
            if card is not None and card in view.hand and status.stage is Stage.PLAYING:
                self.table.play(seat, card, sides[index])
                self.table.changed()
            return True
        if index >= len(view.hand):
            return True
        card = view.hand[index]
        if status.stage is Stage.CHOOSING:
            if view.my_choice is None:
                self.table.choose(seat, card)
            return True
        if status.stage is Stage.STALLED:
            self.table.play(seat, card, sides[0])
            return True
        if status.stage is not Stage.PLAYING:
            return True
        if self.pending.get(seat) is card:
            del self.pending[seat]
            self.table.changed()
            return True
        fits = [p.pile for p in view.legal_plays() if p.card is card]
        if len(fits) == 1:
            self.pending.pop(seat, None)
            self.table.play(seat, card, fits[0])
        elif fits:
            self.pending[seat] = card
            self.table.changed()
        else:
            self.pending.pop(seat, None)
            self._refuse_nowhere(seat, card, view.tops, sides)
        return True

    def _refuse_nowhere(
        self, seat: int, card: Card, tops: tuple[Card | None, ...], sides: tuple[int, int]
    ) -> None:
        """``card`` fits neither of the seat's piles: say so naming both (the engine's refusal
        of one play names the one pile it was played on); sent as a play, for the engine's own
        reason, if a top is missing."""
        piles = [(p, tops[p]) for p in dict.fromkeys(sides)]
        known = [(p, top) for p, top in piles if top is not None]
        if len(known) < len(piles):
            self.table.play(seat, card, sides[0])
            return
        self.table.notify_player(Notice(no_pile_sentence(card, known), seat, refused=True))

    def pending_card(self, seat: int) -> Card | None:
        """The card waiting for a pile key, if it is still in the hand and the game is on."""
        card = self.pending.get(seat)
        view = self.table.view(seat)
        if card is None or view is None or card not in view.hand:
            self.pending.pop(seat, None)
            return None
        if self.table.status().stage is not Stage.PLAYING:
            self.pending.pop(seat, None)
            return None
        return card
