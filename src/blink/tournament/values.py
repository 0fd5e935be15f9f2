"""The tournament's values: players, the draw, games, matches and lines of the standings.

A :class:`Match` is a view derived from the draw and the results (see
:mod:`blink.tournament.derive`); the others are what a tournament records.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from typing import Any, Final

from blink.tournament.errors import DrawError, FieldError

__all__ = [
    "CHANGE_KINDS",
    "FINAL_SET_GAMES",
    "MATCH_TARGET",
    "NAME_MAX",
    "Change",
    "Draw",
    "Entrant",
    "Game",
    "Match",
    "MatchKind",
    "Placing",
    "check_entrant",
]

FINAL_SET_GAMES: Final = 3
"""Decided games each pair of finalists plays in the final round."""
MATCH_TARGET: Final = 2
"""Games to win a pairing: two out of three."""
NAME_MAX: Final = 40


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player in the tournament. ``rank`` is an organiser's ranking (1 = most experienced);
    ``rating`` a rating (higher = stronger). Either gives experience for the byes."""

    name: str
    rank: int | None = None
    rating: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"name": self.name, "rank": self.rank, "rating": self.rating}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Entrant:
        """Load the form written by :meth:`to_dict`."""
        if not isinstance(data, Mapping):
            raise FieldError("a player must be an object with a name", "bad-player")
        rating = data.get("rating")
        if isinstance(rating, int) and not isinstance(rating, bool):
            rating = float(rating)
        return cls(data.get("name"), data.get("rank"), rating)  # type: ignore[arg-type]


def check_entrant(e: Entrant) -> None:
    """Refuse (:class:`FieldError`) a player with a bad name, rank or rating."""
    if not isinstance(e.name, str) or not e.name.strip():
        raise FieldError("every player needs a non-empty name", "bad-name")
    if e.name != e.name.strip() or len(e.name) > NAME_MAX or any(c in e.name for c in "\n\r\t"):
        raise FieldError(
            f"player name {e.name!r}: at most {NAME_MAX} characters, no surrounding spaces",
            "bad-name",
        )
    if e.rank is not None and (
        not isinstance(e.rank, int) or isinstance(e.rank, bool) or e.rank < 1
    ):
        raise FieldError(
            f"{e.name}: rank must be a positive whole number, not {e.rank!r}", "bad-rank"
        )
    if e.rating is not None and (
        not isinstance(e.rating, float) or e.rating != e.rating or abs(e.rating) == float("inf")
    ):
        raise FieldError(f"{e.name}: rating must be a number, not {e.rating!r}", "bad-rating")


@dataclass(frozen=True, slots=True)
class Draw:
    """The recorded draw: the seed, the experience order, the byes and the numbers drawn."""

    seed: int
    order: tuple[str, ...]
    """All players, most experienced first (ties in experience broken by lot)."""
    byes: tuple[str, ...]
    hat: tuple[tuple[str, int], ...]
    """Each first-round player and the number drawn, in drawing order (the order of entry)."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "seed": self.seed,
            "order": list(self.order),
            "byes": list(self.byes),
            "hat": [{"player": n, "number": k} for n, k in self.hat],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Draw:
        """Load the form written by :meth:`to_dict`."""
        try:
            return cls(
                int(data["seed"]),
                tuple(str(n) for n in data["order"]),
                tuple(str(n) for n in data["byes"]),
                tuple((str(h["player"]), int(h["number"])) for h in data["hat"]),
            )
        except (KeyError, TypeError, ValueError):
            raise DrawError("the stored draw is malformed", "bad-draw") from None


@dataclass(frozen=True, slots=True)
class Game:
    """One game's result: one winner, or several for a tie (a tie is replayed).
    ``ref`` may name where the game is kept (a record file, a server room)."""

    winners: tuple[str, ...]
    ref: str | None = None

    @property
    def is_tie(self) -> bool:
        """True when several players share the result."""
        return len(self.winners) != 1

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        d: dict[str, Any] = {"winners": list(self.winners)}
        if self.ref is not None:
            d["ref"] = self.ref
        return d


class MatchKind(Enum):
    """What a match is and how it is decided."""

    ELIMINATION = "elimination"
    """A pairing in an elimination round: two games out of three."""
    FINAL = "final"
    """The final of a two-player field: two games out of three."""
    FINAL_SET = "final-set"
    """Two finalists' three games in the final round: every decided game counts."""
    TIEBREAK = "tiebreak"
    """Two players tied on wins: two games out of three."""
    PLAYOFF = "playoff"
    """Three players still tied after playing each other in turn: one three-player game."""


@dataclass(frozen=True)
class Match:
    """A match as derived from the draw and the results (a view: change it with the tournament).

    ``sources`` say where each seat comes from (a player's name, or ``"winner:<match id>"``);
    ``players`` hold the names once known (``None`` while an earlier match goes on)."""

    id: str
    kind: MatchKind
    round: int
    """The elimination round (1, 2, ...), or ``rounds + 1`` for the final round and tie-breaks."""
    label: str
    sources: tuple[str, ...]
    players: tuple[str | None, ...]
    games: tuple[Game, ...] = ()
    handicap: tuple[tuple[str, int], ...] | None = None
    """Draw-pile sizes by player for balanced play (``None``: an equal deal)."""
    forfeits: tuple[str, ...] = ()
    """Players who forfeit the match (absent: withdrawn, or not there by the deadline)."""
    vacant: tuple[int, ...] = ()
    """Seats nobody takes (the match feeding them was a double forfeit)."""
    walkover: bool = False
    """Decided without its games being played: a forfeit or a vacant seat."""
    awarded: str | None = None
    """The player a walkover goes to (``None``: a double forfeit, nobody goes on)."""

    @property
    def ready(self) -> bool:
        """All players known and the match not decided: a game can be entered."""
        return self.known and not self.decided

    @property
    def known(self) -> bool:
        """All players are known (a vacant seat is known to be nobody)."""
        return all(p is not None or i in self.vacant for i, p in enumerate(self.players))

    @cached_property
    def score(self) -> dict[str, int]:
        """Games won by each known player (ties count for no one)."""
        wins = {p: 0 for p in self.players if p is not None}
        for g in self.games:
            if not g.is_tie:
                wins[g.winners[0]] += 1
        if self.walkover and self.kind is MatchKind.FINAL_SET and self.awarded is not None:
            # A final set's walkover: the games still to play go to the player who is there.
            wins[self.awarded] += max(0, FINAL_SET_GAMES - self.decided_games)
        return wins

    @property
    def decided_games(self) -> int:
        """Games with a single winner."""
        return sum(1 for g in self.games if not g.is_tie)

    @property
    def ties(self) -> int:
        """Tied games (each replayed)."""
        return sum(1 for g in self.games if g.is_tie)

    @property
    def target(self) -> int:
        """Wins needed to take the match (for a final set: decided games to play)."""
        if self.kind is MatchKind.FINAL_SET:
            return FINAL_SET_GAMES
        if self.kind is MatchKind.PLAYOFF:
            return 1
        return MATCH_TARGET

    @property
    def best_of(self) -> int:
        """The games of the match's set: three (two out of three, or a final set's three
        decided games), one for a three-player play-off. Tied games are replayed on top."""
        if self.kind is MatchKind.PLAYOFF:
            return 1
        if self.kind is MatchKind.FINAL_SET:
            return FINAL_SET_GAMES
        return 2 * MATCH_TARGET - 1

    @property
    def plays_all(self) -> bool:
        """Every game of the set is played and counts (a final set), rather than the set
        ending when a player has :attr:`target` wins."""
        return self.kind is MatchKind.FINAL_SET

    @property
    def decided(self) -> bool:
        """True once no more games are to be played."""
        if self.walkover:
            return True
        if self.kind is MatchKind.FINAL_SET:
            return self.decided_games >= FINAL_SET_GAMES
        return self.winner is not None

    @cached_property
    def winner(self) -> str | None:
        """The winner of a match decided by wins (``None`` for a final set, or while open)."""
        if self.kind is MatchKind.FINAL_SET:
            return None
        if self.walkover:
            return self.awarded
        for p, w in self.score.items():
            if w >= self.target:
                return p
        return None

    @property
    def loser(self) -> str | None:
        """The other player of a decided two-player match (``None`` facing a vacant seat)."""
        w = self.winner
        if w is None or len(self.players) != 2:
            return None
        return next((p for p in self.players if p != w and p is not None), None)

    @property
    def losers(self) -> tuple[str, ...]:
        """The players a decided two-player match puts out: the loser, or both players of a
        double forfeit."""
        if not self.decided or len(self.players) != 2:
            return ()
        return tuple(p for p in self.players if p is not None and p != self.winner)

    @property
    def status(self) -> str:
        """``waiting`` (players not known), ``ready``, ``playing`` or ``decided``."""
        if self.decided:
            return "decided"
        if not self.known:
            return "waiting"
        return "playing" if self.games else "ready"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (derived fields included for readers)."""
        return {
            "id": self.id,
            "kind": self.kind.value,
            "round": self.round,
            "label": self.label,
            "sources": list(self.sources),
            "players": list(self.players),
            "games": [g.to_dict() for g in self.games],
            "score": self.score,
            "ties": self.ties,
            "status": self.status,
            "winner": self.winner,
            "handicap": None if self.handicap is None else dict(self.handicap),
            "forfeits": list(self.forfeits),
            "vacant": list(self.vacant),
            "walkover": self.walkover,
            "awarded": self.awarded,
        }


@dataclass(frozen=True, slots=True)
class Placing:
    """One line of the standings. Eliminated players of a round share a range of places."""

    name: str
    place: int
    place_to: int
    """The last place of a shared range (equal to ``place`` when not shared)."""
    status: str
    """``champion``, ``placed``, ``eliminated``, ``finalist`` (final round going on) or
    ``playing`` (still in the elimination rounds)."""
    round_out: int | None = None
    """The round a player was eliminated in."""
    final_wins: int | None = None

    @property
    def place_text(self) -> str:
        """``3`` or ``5-8``."""
        return str(self.place) if self.place == self.place_to else f"{self.place}-{self.place_to}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "name": self.name,
            "place": self.place,
            "place_to": self.place_to,
            "status": self.status,
            "round_out": self.round_out,
            "final_wins": self.final_wins,
        }


CHANGE_KINDS: Final = ("withdrawal", "forfeit", "correction", "take-back", "check-in-missed")
"""What a :class:`Change` records."""


@dataclass(frozen=True, slots=True)
class Change:
    """One line of the organiser's audit trail: who (``by``) changed what, when (``at``,
    seconds since the epoch, given by the caller: the engine has no clock), and from what.

    ``withdrawal``: ``players`` withdrew. ``forfeit``: ``players`` forfeit ``match`` (no-show).
    ``correction``: game ``game`` (1 = first) of ``match`` went from ``before`` to ``after``
    (winners; several for a tie). ``take-back``: game ``game`` of ``match``, won by ``before``,
    was taken back. ``check-in-missed``: ``players`` had not checked in at the
    draw and left the field."""

    kind: str
    by: str | None = None
    at: float | None = None
    match: str | None = None
    players: tuple[str, ...] = ()
    game: int | None = None
    before: tuple[str, ...] | None = None
    after: tuple[str, ...] | None = None
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "kind": self.kind,
            "by": self.by,
            "at": self.at,
            "match": self.match,
            "players": list(self.players),
            "game": self.game,
            "before": None if self.before is None else list(self.before),
            "after": None if self.after is None else list(self.after),
            "note": self.note,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Change:
        """Load the form written by :meth:`to_dict`."""
        try:
            kind = str(data["kind"])
            at = data.get("at")

            def names(key: str) -> tuple[str, ...] | None:
                v = data.get(key)
                return None if v is None else tuple(str(n) for n in v)

            return cls(
                kind,
                None if data.get("by") is None else str(data["by"]),
                None if at is None else float(at),
                None if data.get("match") is None else str(data["match"]),
                names("players") or (),
                None if data.get("game") is None else int(data["game"]),
                names("before"),
                names("after"),
                None if data.get("note") is None else str(data["note"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            raise DrawError("a stored change of the audit trail is malformed", "bad-file") from None
