"""The shape of a tournament for a field size: byes, rounds, the final round and the bracket.

Everything here depends on the number of players only (see docs/rules.md, "Tournaments").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from blink.tournament.errors import FieldError

__all__ = ["MAX_PLAYERS", "MIN_PLAYERS", "Plan", "bracket_slots", "plan"]

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 64


def _reducible(m: int) -> bool:
    """True when whole rounds of pairwise elimination take ``m`` players to exactly 3 or 4."""
    while m > 4 and m % 2 == 0:
        m //= 2
    return m in (3, 4)


@dataclass(frozen=True, slots=True)
class Plan:
    """The shape of a tournament for a field size: byes, first-round pairings, rounds, final."""

    players: int
    byes: int
    pairings: int
    """Pairings in the first round (0 when the field goes straight to the final round)."""
    fields: tuple[int, ...]
    """The field before each elimination round and after the last one (the finalists)."""

    @property
    def rounds(self) -> int:
        """Elimination rounds before the final round."""
        return len(self.fields) - 1

    @property
    def finalists(self) -> int:
        """Players in the final round (2, 3 or 4)."""
        return self.fields[-1]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "players": self.players,
            "byes": self.byes,
            "pairings": self.pairings,
            "fields": list(self.fields),
            "rounds": self.rounds,
            "finalists": self.finalists,
        }


def plan(players: int) -> Plan:
    """The plan for ``players`` entrants (2 to 64).

    Byes are all given in the first round, so the bracket drawn at the start holds to the end.
    After the first round the field is ``M = byes + pairings``; every later round must be whole
    (no byes), so ``M`` is 3 or 4 times a power of two. ``M = (players + byes) / 2``, so the
    fewest byes come from the smallest such ``M`` with ``2M >= players``: ``byes = 2M - players``.
    """
    if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise FieldError(
            f"a tournament needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players!r}",
            "field-size",
        )
    if players <= 4:
        return Plan(players, 0, 0, (players,))
    m = next(m for m in range((players + 1) // 2, players) if _reducible(m))
    byes = 2 * m - players
    fields = [players, m]
    while fields[-1] > 4:
        fields.append(fields[-1] // 2)
    return Plan(players, byes, players - m, tuple(fields))


def _standard_order(size: int) -> list[int]:
    """Seeds (1-based) in bracket order for a power-of-two bracket: 1 v size, 2 v size-1 ..."""
    order = [1]
    while len(order) < size:
        n = 2 * len(order) + 1
        order = [x for s in order for x in (s, n - s)]
    return order


def bracket_slots(p: Plan) -> list[int]:
    """For each seed (0-based, most experienced first), its slot after the first round.

    The field after the first round is ``finalists`` groups of ``2 ** (rounds - 1)`` slots; each
    group sends one player to the final round. Seeds go round the groups in a snake (1, 2, 3, 3,
    2, 1, ...) and within a group follow the standard order, so the most experienced players
    meet as late as possible.
    """
    slots = p.fields[1] if p.rounds else p.players
    groups = p.finalists
    size = slots // groups
    order = _standard_order(size)
    position = {seed: i for i, seed in enumerate(order)}
    out: list[int] = []
    for s in range(slots):
        t, k = divmod(s, groups)
        g = k if t % 2 == 0 else groups - 1 - k
        out.append(g * size + position[t + 1])
    return out
