"""Rulesets and deal options for classic Blink: plain, named, serialisable configurations.

The default ruleset, ``official``, follows the official rules of 7/19/06. ``dead-end`` takes the
third-party summary's rule instead: when the players are stalled and no draw pile is left, the
player with the fewest remaining cards wins (a stall while only some draw piles are empty is
broken as the official rules break it).

Records name the rule they were played under (:class:`DeadEnd`'s value), so a record written
under an earlier ruling replays under that ruling: :attr:`DeadEnd.FEWEST_CARDS_ANY_EMPTY` is
the dead end of records written before the ruling changed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from enum import Enum
from typing import Final

__all__ = [
    "CHOICE_DEADLINE",
    "DEAD_END",
    "MAX_PLAYERS",
    "MIN_PILE",
    "MIN_PLAYERS",
    "OFFICIAL",
    "RULESETS",
    "STALL_PAUSE",
    "DeadEnd",
    "DealError",
    "Ruleset",
    "RulesetError",
    "deal_sizes",
    "get_ruleset",
    "parse_handicap",
]

MIN_PLAYERS: Final = 2
"""Classic Blink's smallest table (the game definition states it to everything above)."""
MAX_PLAYERS: Final = 3
"""Classic Blink's largest table: three players share three piles, each reaching two."""

MIN_PILE: Final = 4
"""The smallest draw pile a player can be dealt: one center card and a hand of three."""

STALL_PAUSE: Final = 1.5
"""Seconds a stall pauses the table before its flip, unless a driver sets its own (the game's
timings, :attr:`blink.model.base.GameInfo.timings`)."""
CHOICE_DEADLINE: Final = 10.0
"""Seconds the players of a choosing stall have to choose a hand card before the default
choices are taken, unless a driver sets its own."""


class DeadEnd(Enum):
    """What happens when the players are stalled and some draw pile is empty."""

    CHOOSE = "choose"
    """Official: every player chooses a hand card; all are placed at once."""
    FEWEST_CARDS = "fewest-cards-no-draw-left"
    """Summary text: once **no** draw pile is left, the player with the fewest remaining cards
    wins; while some player still has draw cards the stall is broken as under :attr:`CHOOSE`."""
    FEWEST_CARDS_ANY_EMPTY = "fewest-cards"
    """The earlier ruling, kept so that records written under it replay as they were played:
    as soon as **any** draw pile is empty, the fewest remaining cards (hand and draw pile)
    wins. No built-in ruleset uses it any more."""

    def ends_stall(self, draw_counts: Sequence[int]) -> bool:
        """Whether a stall that the flip cannot break (some draw pile is empty) ends the game
        by the fewest cards, given every player's draw-pile size."""
        if self is DeadEnd.FEWEST_CARDS:
            return not any(draw_counts)
        return self is DeadEnd.FEWEST_CARDS_ANY_EMPTY


class RulesetError(ValueError):
    """An unknown ruleset name or a malformed ruleset description."""


class DealError(ValueError):
    """An impossible deal: wrong number of players or draw-pile sizes that cannot be dealt."""


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A named set of rule options. Serialise with :meth:`to_dict`, load with :meth:`from_dict`."""

    name: str
    dead_end: DeadEnd = DeadEnd.CHOOSE
    hand_size: int = 3
    description: str = ""

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready form."""
        d = asdict(self)
        d["dead_end"] = self.dead_end.value
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Ruleset:
        """Load a ruleset written by :meth:`to_dict` (or just ``{"name": ...}`` of a known one)."""
        name = data.get("name")
        if not isinstance(name, str):
            raise RulesetError("a ruleset needs a name")
        if set(data) <= {"name"}:
            return get_ruleset(name)
        try:
            dead_end = DeadEnd(data.get("dead_end", DeadEnd.CHOOSE.value))
        except ValueError:
            allowed = ", ".join(d.value for d in DeadEnd)
            raise RulesetError(f"unknown dead_end {data.get('dead_end')!r} ({allowed})") from None
        hand_size = data.get("hand_size", 3)
        if not isinstance(hand_size, int) or not 1 <= hand_size <= 5:
            raise RulesetError(f"hand_size must be 1 to 5, not {hand_size!r}")
        description = data.get("description", "")
        return cls(name, dead_end, hand_size, str(description))


OFFICIAL: Final = Ruleset(
    "official",
    DeadEnd.CHOOSE,
    3,
    "The official rules of 7/19/06: stalls are broken by flips, then by chosen hand cards.",
)
DEAD_END: Final = Ruleset(
    "dead-end",
    DeadEnd.FEWEST_CARDS,
    3,
    "As official, but a stall with no draw pile left ends the game: fewest cards left wins.",
)
RULESETS: Final[Mapping[str, Ruleset]] = {r.name: r for r in (OFFICIAL, DEAD_END)}


def get_ruleset(name: str) -> Ruleset:
    """A ruleset by name; raise :class:`RulesetError` listing the known names."""
    try:
        return RULESETS[name]
    except KeyError:
        raise RulesetError(
            f"unknown ruleset {name!r}; choose one of: {', '.join(RULESETS)}"
        ) from None


def deal_sizes(players: int, deck_size: int, sizes: Sequence[int] | None = None) -> tuple[int, ...]:
    """Draw-pile sizes for a deal, checked.

    With no ``sizes`` the deck is split equally and the remainder is set aside. Explicit sizes
    (a handicap, "balanced play") must each be at least :data:`MIN_PILE` and together fit in
    the deck; what is left over is set aside unseen.
    """
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise DealError(
            f"classic Blink is for {MIN_PLAYERS} or {MAX_PLAYERS} players, not {players}"
        )
    if sizes is None:
        each = deck_size // players
        if each < MIN_PILE:
            raise DealError(f"a deck of {deck_size} cards is too small for {players} players")
        return (each,) * players
    out = tuple(sizes)
    if len(out) != players:
        raise DealError(f"{len(out)} draw-pile sizes given for {players} players")
    for seat, n in enumerate(out):
        if not isinstance(n, int) or n < MIN_PILE:
            raise DealError(
                f"seat {seat} would get {n!r} cards; every draw pile needs at least {MIN_PILE}"
            )
    if sum(out) > deck_size:
        raise DealError(
            f"draw piles of {'+'.join(map(str, out))} = {sum(out)} cards need more than "
            f"the {deck_size} in the deck"
        )
    return out


def parse_handicap(text: str, players: int, deck_size: int = 60) -> tuple[int, ...] | None:
    """Parse a handicap given on a command line or in a form.

    ``"35:25"`` (or ``35,25``) gives each seat's draw-pile size. ``"+5"`` or ``"5"`` gives the
    first seat five more cards than an equal share, taken from the others (so ``5`` with two
    players is 35:25). An empty string or ``"0"`` means an equal deal (``None``).
    """
    raw = text.strip()
    if raw in ("", "0", "+0", "none", "equal"):
        return None
    parts = [p for p in raw.replace(",", ":").split(":") if p]
    try:
        numbers = [int(p) for p in parts]
    except ValueError:
        raise DealError(
            f"handicap {text!r}: give draw-pile sizes like 35:25, or extra cards like +5"
        ) from None
    if len(numbers) == 1:
        extra = numbers[0]
        each = deck_size // players
        others = players - 1
        if extra < 0:
            raise DealError(
                f"handicap {text!r}: give the stronger player extra cards (+5), or sizes (25:35)"
            )
        if extra % others:
            raise DealError(
                f"handicap {text!r}: the extra cards must be a positive multiple of {others}"
            )
        sizes = [each + extra] + [each - extra // others] * others
        return deal_sizes(players, deck_size, sizes)
    return deal_sizes(players, deck_size, numbers)
