"""Tournaments as the rulebook runs them: byes, a hat draw, elimination, a final round, tie-breaks.

The engine is pure: no I/O, no clock, no global random state (the hat draw uses a
``random.Random`` made from the recorded seed). A :class:`Tournament` is its players, its draw
and the result of every game played; everything else (who plays whom, who is out, the final
table, the tie-break matches) is derived from those, so results entered in any valid order give
the same state, and the whole object round-trips through JSON (:meth:`Tournament.to_dict`).
A refused result raises a :class:`TournamentError` subclass (with a ``code``) and changes nothing.

The format (docs/rules.md, "Tournaments" explains every ruling):

* single elimination, each pairing decided by two games out of three (tied games replayed),
  until three or four players remain;
* the fewest byes that bring the field to three or four after whole rounds, all in the first
  round, given to the most experienced players (organiser ranking, then rating, then by lot);
* first-round pairings drawn from a hat, later rounds following the bracket drawn at the start;
* the final round: each finalist plays three (decided) games against each other finalist,
  standings by wins; two tied players play a two-out-of-three; three tied players play each
  other in turn (two-out-of-three each); if that goes round in a circle, one three-player game
  settles who is first of them, and the other two keep the order of their own match.
* two players play one two-out-of-three match; three or four go straight to the final round.

Typical use::

    t = Tournament.create(["Ann", "Bo", "Cy", "Di", "Ed"])
    t.draw(seed=7)
    for m in t.ready_matches():
        t.record_game(m.id, m.players[0])
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cached_property
from itertools import combinations
from typing import Any, Final

from blink.games.classic.rules import DealError, deal_sizes

__all__ = [
    "FINAL_SET_GAMES",
    "FORMAT",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "VERSION",
    "Draw",
    "DrawError",
    "Entrant",
    "FieldError",
    "Game",
    "Match",
    "MatchDecidedError",
    "MatchKind",
    "MatchNotReadyError",
    "NotInMatchError",
    "Placing",
    "Plan",
    "ResultError",
    "Tournament",
    "TournamentError",
    "UndoError",
    "UnknownMatchError",
    "bracket_slots",
    "plan",
]

FORMAT: Final = "blink-tournament"
VERSION: Final = 1
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 64
FINAL_SET_GAMES: Final = 3
"""Decided games each pair of finalists plays in the final round."""
MATCH_TARGET: Final = 2
"""Games to win a pairing: two out of three."""
NAME_MAX: Final = 40


# --------------------------------------------------------------------------- errors


class TournamentError(ValueError):
    """A refused operation. ``code`` is machine-readable; the message is for a person."""

    code: str = "invalid"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def reason(self) -> str:
        """The machine-readable code (same as ``code``, named like the engine's errors)."""
        return self.code


class FieldError(TournamentError):
    """A field that cannot play: too few or too many players, bad or duplicate names."""

    code = "bad-field"


class DrawError(TournamentError):
    """The draw was already made, or is needed first."""

    code = "draw"


class UnknownMatchError(TournamentError):
    """No match (pairing) has that id."""

    code = "unknown-match"


class MatchNotReadyError(TournamentError):
    """The match's players are not known yet (an earlier match is still being played)."""

    code = "match-not-ready"


class MatchDecidedError(TournamentError):
    """The match is already decided; no more games can be entered."""

    code = "match-decided"


class NotInMatchError(TournamentError):
    """A named winner does not play in that match."""

    code = "not-in-match"


class ResultError(TournamentError):
    """A game result that is malformed (no winner, a name twice, a bad reference)."""

    code = "bad-result"


class UndoError(TournamentError):
    """A game that cannot be taken back (none entered, or a later match already uses it)."""

    code = "cannot-undo"


# --------------------------------------------------------------------------- the plan


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


# --------------------------------------------------------------------------- values


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


def _check_entrant(e: Entrant) -> None:
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

    @property
    def ready(self) -> bool:
        """All players known and the match not decided: a game can be entered."""
        return None not in self.players and not self.decided

    @property
    def known(self) -> bool:
        """All players are known."""
        return None not in self.players

    @cached_property
    def score(self) -> dict[str, int]:
        """Games won by each known player (ties count for no one)."""
        wins = {p: 0 for p in self.players if p is not None}
        for g in self.games:
            if not g.is_tie:
                wins[g.winners[0]] += 1
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
    def decided(self) -> bool:
        """True once no more games are to be played."""
        if self.kind is MatchKind.FINAL_SET:
            return self.decided_games >= FINAL_SET_GAMES
        return self.winner is not None

    @cached_property
    def winner(self) -> str | None:
        """The winner of a match decided by wins (``None`` for a final set, or while open)."""
        if self.kind is MatchKind.FINAL_SET:
            return None
        for p, w in self.score.items():
            if w >= self.target:
                return p
        return None

    @property
    def loser(self) -> str | None:
        """The other player of a decided two-player match."""
        w = self.winner
        if w is None or len(self.players) != 2:
            return None
        return next(p for p in self.players if p != w)

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


# --------------------------------------------------------------------------- the tournament


@dataclass
class _Derived:
    """Everything computed from the draw and the results."""

    matches: dict[str, Match] = field(default_factory=dict)
    finalists: list[str | None] = field(default_factory=list)
    final_order: list[str] | None = None
    """Finalists in final place order, once every tie is settled."""
    groups: list[tuple[int, list[str]]] = field(default_factory=list)
    """Places so far in the final round: (first place, players sharing it)."""
    final_wins: dict[str, int] = field(default_factory=dict)


_Add = Callable[[str, MatchKind, int, str, Sequence[str]], Match]


def _winner_source(match_id: str) -> str:
    return f"winner:{match_id}"


class Tournament:
    """A tournament: its players, its draw and its results. See the module docstring."""

    def __init__(self, entrants: Sequence[Entrant], name: str = "Blink tournament") -> None:
        self.name = name
        self.entrants: list[Entrant] = []
        for e in entrants:
            self._check_new(e)
            self.entrants.append(e)
        self._draw: Draw | None = None
        self._games: dict[str, list[Game]] = {}
        self._handicaps: dict[str, dict[str, int]] = {}
        self._cache: _Derived | None = None

    # ---- set-up

    @classmethod
    def create(cls, players: Iterable[Entrant | str], name: str = "Blink tournament") -> Tournament:
        """A new tournament; players are names or :class:`Entrant` values (2 to 64 of them)."""
        entrants = [p if isinstance(p, Entrant) else Entrant(p) for p in players]
        plan(len(entrants))
        return cls(entrants, name)

    def _check_new(self, e: Entrant) -> None:
        _check_entrant(e)
        if any(x.name.casefold() == e.name.casefold() for x in self.entrants):
            raise FieldError(f"there is already a player called {e.name!r}", "duplicate-name")
        if len(self.entrants) >= MAX_PLAYERS:
            raise FieldError(f"a tournament has at most {MAX_PLAYERS} players", "field-size")

    def add_player(self, entrant: Entrant | str) -> None:
        """Add a player before the draw."""
        if self._draw is not None:
            raise DrawError("players cannot be added after the draw", "already-drawn")
        e = entrant if isinstance(entrant, Entrant) else Entrant(entrant)
        self._check_new(e)
        self.entrants.append(e)
        self._cache = None

    def remove_player(self, name: str) -> None:
        """Remove a player before the draw."""
        if self._draw is not None:
            raise DrawError("players cannot be removed after the draw", "already-drawn")
        e = self.entrant(name)
        self.entrants.remove(e)
        self._cache = None

    def entrant(self, name: str) -> Entrant:
        """The player of that name (case-insensitive)."""
        for e in self.entrants:
            if e.name.casefold() == name.strip().casefold():
                return e
        raise NotInMatchError(f"no player called {name!r} in this tournament", "unknown-player")

    @property
    def plan(self) -> Plan:
        """The plan for the current field."""
        return plan(len(self.entrants))

    @property
    def drawn(self) -> bool:
        """True once the draw is made."""
        return self._draw is not None

    @property
    def draw_record(self) -> Draw | None:
        """The recorded draw, or ``None`` before it."""
        return self._draw

    def experience_order(self, seed: int) -> list[str]:
        """All players, most experienced first: ranked players by rank, then players with a
        rating by rating (higher first), then the rest; equal experience is broken by lot
        (a shuffle from ``seed``)."""
        names = [e.name for e in self.entrants]
        lot_rng = random.Random(f"lot:{seed}")
        lots = names[:]
        lot_rng.shuffle(lots)
        lot = {n: i for i, n in enumerate(lots)}

        def key(e: Entrant) -> tuple[int, float, float, int]:
            return (
                0 if e.rank is not None else 1,
                float(e.rank) if e.rank is not None else 0.0,
                -e.rating if e.rating is not None else float("inf"),
                lot[e.name],
            )

        return [e.name for e in sorted(self.entrants, key=key)]

    def draw(self, seed: int) -> Draw:
        """Make the draw: byes to the most experienced, first-round numbers from a hat.

        The hat holds two of each number 1..pairings, shuffled from ``seed``; the other players
        draw in order of entry, and equal numbers play each other.
        """
        if self._draw is not None:
            raise DrawError("the draw has already been made", "already-drawn")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise DrawError(f"the seed must be a whole number, not {seed!r}", "bad-seed")
        p = plan(len(self.entrants))
        order = self.experience_order(seed)
        byes = tuple(order[: p.byes])
        drawing = [e.name for e in self.entrants if e.name not in byes] if p.pairings else []
        hat = [k for k in range(1, p.pairings + 1) for _ in (0, 1)]
        random.Random(f"hat:{seed}").shuffle(hat)
        self._draw = Draw(seed, tuple(order), byes, tuple(zip(drawing, hat, strict=True)))
        self._cache = None
        return self._draw

    # ---- the derived structure

    def _derive(self) -> _Derived:
        if self._cache is not None:
            return self._cache
        d = _Derived()
        draw = self._draw
        if draw is None:
            self._cache = d
            return d
        p = plan(len(self.entrants))
        final_round = p.rounds + 1

        def add(mid: str, kind: MatchKind, rnd: int, label: str, sources: Sequence[str]) -> Match:
            players = tuple(self._resolve(s, d) for s in sources)
            known = None not in players
            games = tuple(self._games.get(mid, ())) if known else ()
            hc = self._handicaps.get(mid)
            handicap = tuple((pl, hc[pl]) for pl in players if pl is not None) if hc else None
            if handicap is not None and (not known or len(handicap) != len(hc or {})):
                handicap = None
            m = Match(mid, kind, rnd, label, tuple(sources), players, games, handicap)
            d.matches[mid] = m
            return m

        if p.rounds:
            numbers: dict[int, list[str]] = {}
            for name, k in draw.hat:
                numbers.setdefault(k, []).append(name)
            slots: list[str | None] = [None] * p.fields[1]
            where = bracket_slots(p)
            for i, name in enumerate(draw.byes):
                slots[where[i]] = name
            free = (i for i, s in enumerate(slots) if s is None)
            for k in range(1, p.pairings + 1):
                mid = f"R1-{k}"
                add(mid, MatchKind.ELIMINATION, 1, f"Round 1, pairing {k}", numbers[k])
                slots[next(free)] = _winner_source(mid)
            sources = [s for s in slots if s is not None]
            for r in range(2, p.rounds + 1):
                nxt: list[str] = []
                for j in range(len(sources) // 2):
                    mid = f"R{r}-{j + 1}"
                    add(
                        mid,
                        MatchKind.ELIMINATION,
                        r,
                        f"Round {r}, match {j + 1}",
                        sources[2 * j : 2 * j + 2],
                    )
                    nxt.append(_winner_source(mid))
                sources = nxt
        else:
            sources = list(draw.order)
        d.finalists = [self._resolve(s, d) for s in sources]

        if len(sources) == 2:
            m = add("F1-2", MatchKind.FINAL, final_round, "Final", sources)
            if m.winner is not None and m.loser is not None:
                d.final_order = [m.winner, m.loser]
                d.groups = [(1, [m.winner]), (2, [m.loser])]
            return self._done(d)

        sets = [
            add(
                f"F{i + 1}-{j + 1}",
                MatchKind.FINAL_SET,
                final_round,
                f"Final round, {i + 1} v {j + 1}",
                (sources[i], sources[j]),
            )
            for i, j in combinations(range(len(sources)), 2)
        ]
        if not all(m.decided for m in sets):
            return self._done(d)
        finalists = [f for f in d.finalists if f is not None]
        number = {f: i + 1 for i, f in enumerate(finalists)}
        wins = {f: 0 for f in finalists}
        for m in sets:
            for pl, w in m.score.items():
                wins[pl] += w
        d.final_wins = wins
        ordered: list[str] = []
        place = 1
        for w in sorted(set(wins.values()), reverse=True):
            group = [f for f in finalists if wins[f] == w]
            settled = self._settle(group, place, final_round, add, number)
            d.groups.extend(settled)
            place += len(group)
        if all(len(g) == 1 for _, g in d.groups):
            ordered = [g[0] for _, g in d.groups]
            d.final_order = ordered
        return self._done(d)

    def _done(self, d: _Derived) -> _Derived:
        self._cache = d
        return d

    def _settle(
        self,
        group: list[str],
        place: int,
        rnd: int,
        add: _Add,
        num: Mapping[str, int],
    ) -> list[tuple[int, list[str]]]:
        """Order players tied on wins in the final round, creating tie-break matches as needed."""
        if len(group) == 1:
            return [(place, group)]
        if len(group) == 2:
            m: Match = add(
                f"T{place}", MatchKind.TIEBREAK, rnd, f"Tie-break for place {place}", group
            )
            if m.winner is None or m.loser is None:
                return [(place, group)]
            return [(place, [m.winner]), (place + 1, [m.loser])]
        if len(group) != 3:  # pragma: no cover - impossible: 3 decided games per pair
            raise TournamentError(f"{len(group)} finalists tied on wins", "internal")
        matches: list[Match] = [
            add(
                f"T{place}-{num[a]}{num[b]}",
                MatchKind.TIEBREAK,
                rnd,
                f"Tie-break for places {place}-{place + 2}, {a} v {b}",
                (a, b),
            )
            for a, b in combinations(group, 2)
        ]
        if not all(m.decided for m in matches):
            return [(place, group)]
        won = {f: sum(1 for m in matches if m.winner == f) for f in group}
        if sorted(won.values()) == [0, 1, 2]:
            return [(place + i, [f]) for i, f in enumerate(sorted(group, key=lambda f: -won[f]))]
        po: Match = add(
            f"T{place}-P",
            MatchKind.PLAYOFF,
            rnd,
            f"Play-off for place {place} (three-player game)",
            group,
        )
        if po.winner is None:
            return [(place, group)]
        rest = [f for f in group if f != po.winner]
        head = next(m for m in matches if set(m.players) == set(rest))
        if head.winner is None or head.loser is None:  # pragma: no cover - decided above
            return [(place, group)]
        return [(place, [po.winner]), (place + 1, [head.winner]), (place + 2, [head.loser])]

    def _resolve(self, source: str, d: _Derived) -> str | None:
        if source.startswith("winner:"):
            m = d.matches.get(source[len("winner:") :])
            return None if m is None else m.winner
        return source

    # ---- reading

    def matches(self) -> list[Match]:
        """Every match that exists now, in playing order (tie-breaks appear when needed)."""
        return list(self._state().matches.values())

    def _state(self) -> _Derived:
        return self._derive()

    def match(self, match_id: str) -> Match:
        """The match with that id (case-insensitive); :class:`UnknownMatchError` if none."""
        if self._draw is None:
            raise DrawError("the draw has not been made yet", "not-drawn")
        key = match_id.strip().upper()
        m = self._state().matches.get(key)
        if m is None:
            known = ", ".join(self._state().matches) or "none"
            raise UnknownMatchError(f"no match {match_id!r} (matches: {known})")
        return m

    def ready_matches(self) -> list[Match]:
        """Matches whose players are known and which still need games."""
        return [m for m in self.matches() if m.ready]

    @property
    def finished(self) -> bool:
        """True once every place in the final round is settled."""
        return self._state().final_order is not None

    @property
    def champion(self) -> str | None:
        """The winner, once the tournament is finished."""
        order = self._state().final_order
        return order[0] if order else None

    @property
    def finalists(self) -> list[str | None]:
        """The finalists in bracket order (``None`` where still undecided)."""
        return list(self._state().finalists)

    def standings(self) -> list[Placing]:
        """Everyone's place as far as it is known: finalists first, then the eliminated by the
        round they went out in (a later round is a better place)."""
        d = self._state()
        p = plan(len(self.entrants))
        out: list[Placing] = []
        if self._draw is None:
            n = len(self.entrants)
            return [Placing(e.name, 1, n, "playing") for e in self.entrants]
        finalists = [f for f in d.finalists if f is not None]
        fin = p.finalists
        placed_names: set[str] = set()
        if d.groups:
            for place, group in d.groups:
                for f in group:
                    status = (
                        ("champion" if place == 1 else "placed") if len(group) == 1 else "finalist"
                    )
                    out.append(
                        Placing(f, place, place + len(group) - 1, status, None, d.final_wins.get(f))
                    )
                    placed_names.add(f)
        else:
            for f in finalists:
                out.append(Placing(f, 1, fin, "finalist", None, None))
                placed_names.add(f)
        out_by_round: dict[int, list[str]] = {}
        for m in d.matches.values():
            if m.kind is MatchKind.ELIMINATION and m.loser is not None:
                out_by_round.setdefault(m.round, []).append(m.loser)
        eliminated = {n for names in out_by_round.values() for n in names}
        playing = [
            e.name for e in self.entrants if e.name not in eliminated and e.name not in placed_names
        ]
        for e_name in playing:
            out.append(Placing(e_name, 1, len(self.entrants) - len(eliminated), "playing"))
        for r in sorted(out_by_round, reverse=True):
            after = p.fields[r]
            count = p.fields[r - 1] - after
            for name in out_by_round[r]:
                out.append(Placing(name, after + 1, after + count, "eliminated", r))
        return out

    # ---- results

    def record_game(
        self, match_id: str, winners: str | Sequence[str], ref: str | None = None
    ) -> Match:
        """Enter one game's result: a winner's name, or several names for a tied game (which is
        replayed). Returns the match as it now stands. Refused results change nothing."""
        m = self.match(match_id)
        if not m.known:
            waiting = [s for s, pl in zip(m.sources, m.players, strict=True) if pl is None]
            raise MatchNotReadyError(
                f"match {m.id} cannot start yet: waiting for "
                + ", ".join(w.replace("winner:", "the winner of ") for w in waiting)
            )
        if m.decided:
            raise MatchDecidedError(f"match {m.id} is already decided")
        names = (winners,) if isinstance(winners, str) else tuple(winners)
        if not names:
            raise ResultError("a game needs a winner (or several names for a tie)", "no-winner")
        if not all(isinstance(n, str) for n in names):
            raise ResultError("winners must be player names", "bad-result")
        if ref is not None and not isinstance(ref, str):
            raise ResultError("a game reference must be text", "bad-result")
        players = [pl for pl in m.players if pl is not None]
        canon: list[str] = []
        for n in names:
            hit = [pl for pl in players if pl.casefold() == n.strip().casefold()]
            if not hit:
                raise NotInMatchError(
                    f"{n!r} does not play in match {m.id} ({' v '.join(players)})"
                )
            canon.append(hit[0])
        if len(set(canon)) != len(canon):
            raise ResultError(f"{canon} names a player twice", "duplicate-winner")
        game = Game(tuple(canon), ref)
        self._games.setdefault(m.id, []).append(game)
        self._cache = None
        return replace(m, games=(*m.games, game))

    def record_tie(self, match_id: str, ref: str | None = None) -> Match:
        """Enter a game tied between all the match's players (it is replayed)."""
        m = self.match(match_id)
        if not m.known:
            return self.record_game(match_id, [], ref)  # raises the not-ready error
        return self.record_game(match_id, [p for p in m.players if p is not None], ref)

    def set_handicap(
        self, match_id: str, sizes: Mapping[str, int] | None, deck_size: int = 60
    ) -> Match:
        """Deal a match's games with a handicap (the rulebook's balanced play): each player's
        draw-pile size by name, or ``None`` for an equal deal. Refused for a match whose players
        are not known yet or that is already decided."""
        m = self.match(match_id)
        if not m.known:
            raise MatchNotReadyError(f"match {m.id}'s players are not known yet")
        if m.decided:
            raise MatchDecidedError(f"match {m.id} is already decided")
        if sizes is None:
            self._handicaps.pop(m.id, None)
            self._cache = None
            return self.match(m.id)
        players = [pl for pl in m.players if pl is not None]
        canon: dict[str, int] = {}
        for name, size in sizes.items():
            hit = [pl for pl in players if pl.casefold() == name.strip().casefold()]
            if not hit:
                raise NotInMatchError(f"{name!r} does not play in match {m.id}")
            canon[hit[0]] = size
        if set(canon) != set(players):
            raise ResultError(
                f"give a draw-pile size for each player of {m.id}: {', '.join(players)}",
                "bad-handicap",
            )
        try:
            deal_sizes(len(players), deck_size, [canon[pl] for pl in players])
        except DealError as e:
            raise ResultError(f"match {m.id}: {e}", "bad-handicap") from None
        self._handicaps[m.id] = canon
        self._cache = None
        return self.match(m.id)

    def undo_game(self, match_id: str) -> Game:
        """Take back the last game entered in a match, if no later match depends on it."""
        m = self.match(match_id)
        stored = self._games.get(m.id)
        if not stored:
            raise UndoError(f"match {m.id} has no game to take back", "nothing-to-undo")
        before = {k: len(v) for k, v in self._games.items() if v}
        game = stored.pop()
        self._cache = None
        state = self._state().matches
        lost = [
            k
            for k, n in before.items()
            if k != m.id and (k not in state or len(state[k].games) != n)
        ]
        if lost:
            stored.append(game)
            self._cache = None
            raise UndoError(
                f"match {m.id}'s result is already used by match {', '.join(sorted(lost))}; "
                "take back those games first",
                "result-in-use",
            )
        if not stored:
            del self._games[m.id]
        for k in list(self._handicaps):  # a handicap whose players changed no longer applies
            hm = self._state().matches.get(k)
            if hm is None or hm.handicap is None:
                del self._handicaps[k]
                self._cache = None
        return game

    # ---- JSON

    def to_dict(self) -> dict[str, Any]:
        """The whole tournament as JSON-ready data: players, draw, results, and (for readers)
        the derived matches and standings. :meth:`from_dict` reads only the first three."""
        p = plan(len(self.entrants))
        state = self._state()
        order = list(state.matches)
        return {
            "format": FORMAT,
            "version": VERSION,
            "name": self.name,
            "players": [e.to_dict() for e in self.entrants],
            "plan": p.to_dict(),
            "draw": None if self._draw is None else self._draw.to_dict(),
            "results": {
                k: [g.to_dict() for g in self._games[k]]
                for k in sorted(
                    self._games, key=lambda k: (order.index(k) if k in order else 999, k)
                )
            },
            "handicaps": {k: dict(v) for k, v in sorted(self._handicaps.items())},
            "matches": [m.to_dict() for m in state.matches.values()],
            "finished": self.finished,
            "champion": self.champion,
            "standings": [s.to_dict() for s in self.standings()],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tournament:
        """Load a tournament; every stored result is checked by entering it again."""
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            raise TournamentError(f"not a {FORMAT} file", "bad-file")
        if data.get("version") != VERSION:
            raise TournamentError(f"unsupported version {data.get('version')!r}", "bad-file")
        raw_players = data.get("players")
        if not isinstance(raw_players, list):
            raise TournamentError("the file has no list of players", "bad-file")
        t = cls([Entrant.from_dict(p) for p in raw_players], str(data.get("name", "")))
        plan(len(t.entrants))
        raw_draw = data.get("draw")
        if raw_draw is not None:
            stored = Draw.from_dict(raw_draw)
            t.draw(stored.seed)
            if t._draw != stored:
                raise DrawError("the stored draw does not match its seed and players", "bad-draw")
        results = data.get("results") or {}
        if not isinstance(results, Mapping):
            raise TournamentError("results must be an object of match ids", "bad-file")
        pending: dict[str, list[Game]] = {}
        for k, games in results.items():
            if not isinstance(games, list):
                raise TournamentError(f"results of {k} must be a list", "bad-file")
            pending[str(k)] = [
                Game(tuple(g.get("winners", ())), g.get("ref"))
                if isinstance(g, Mapping)
                else Game(())
                for g in games
            ]
        if pending and raw_draw is None:
            raise DrawError("results stored without a draw", "not-drawn")
        progress = True
        while pending and progress:
            progress = False
            for k in list(pending):
                if k in t._state().matches and t.match(k).known:
                    for g in pending.pop(k):
                        t.record_game(k, g.winners, g.ref)
                    progress = True
        if pending:
            raise UnknownMatchError(
                f"results for matches that do not exist: {', '.join(sorted(pending))}"
            )
        handicaps = data.get("handicaps") or {}
        if not isinstance(handicaps, Mapping):
            raise TournamentError("handicaps must be an object of match ids", "bad-file")
        for k, sizes in handicaps.items():
            m = t.match(str(k))
            if not isinstance(sizes, Mapping) or set(sizes) != set(m.players):
                raise ResultError(
                    f"the stored handicap of {k} does not fit its players", "bad-file"
                )
            try:
                deal_sizes(len(sizes), 60, [sizes[pl] for pl in m.players])
            except DealError as e:
                raise ResultError(f"match {k}: {e}", "bad-handicap") from None
            t._handicaps[m.id] = {str(n): int(v) for n, v in sizes.items()}
        t._cache = None
        return t

    def copy(self) -> Tournament:
        """An independent copy."""
        return Tournament.from_dict(self.to_dict())
