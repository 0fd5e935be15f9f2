"""Everything a tournament derives from its draw and results: the matches, the finalists, the
places of the final round and the tie-break matches it needs.

:func:`derive` is a pure function of the field size, the draw, the games entered and the
handicaps set, so results entered in any valid order give the same state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from blink.tournament.errors import TournamentError
from blink.tournament.formats import Plan, bracket_slots, plan
from blink.tournament.values import Draw, Game, Match, MatchKind

__all__ = ["Derived", "derive", "winner_source"]


@dataclass
class Derived:
    """Everything computed from the draw and the results."""

    matches: dict[str, Match] = field(default_factory=dict)
    finalists: list[str | None] = field(default_factory=list)
    final_order: list[str] | None = None
    """Finalists in final place order, once every tie is settled."""
    groups: list[tuple[int, list[str]]] = field(default_factory=list)
    """Places so far in the final round: (first place, players sharing it)."""
    final_wins: dict[str, int] = field(default_factory=dict)


Places = list[tuple[int, list[str]]]
"""Places in the final round: (first place, players sharing it)."""


def winner_source(match_id: str) -> str:
    """The source of a seat taken by the winner of ``match_id``."""
    return f"winner:{match_id}"


class _Builder:
    """Adds the matches to a :class:`Derived` as the derivation comes to them."""

    def __init__(
        self,
        games: Mapping[str, Sequence[Game]],
        handicaps: Mapping[str, Mapping[str, int]],
    ) -> None:
        self.d = Derived()
        self.games = games
        self.handicaps = handicaps

    def resolve(self, source: str) -> str | None:
        """The player a source stands for, or ``None`` while an earlier match goes on."""
        if source.startswith("winner:"):
            m = self.d.matches.get(source[len("winner:") :])
            return None if m is None else m.winner
        return source

    def add(self, mid: str, kind: MatchKind, rnd: int, label: str, sources: Sequence[str]) -> Match:
        """Add a match with its games and handicap (once its players are known)."""
        players = tuple(self.resolve(s) for s in sources)
        known = None not in players
        games = tuple(self.games.get(mid, ())) if known else ()
        hc = self.handicaps.get(mid)
        handicap = tuple((pl, hc[pl]) for pl in players if pl is not None) if hc else None
        if handicap is not None and (not known or len(handicap) != len(hc or {})):
            handicap = None
        m = Match(mid, kind, rnd, label, tuple(sources), players, games, handicap)
        self.d.matches[mid] = m
        return m


def derive(
    players: int,
    draw: Draw | None,
    games: Mapping[str, Sequence[Game]],
    handicaps: Mapping[str, Mapping[str, int]],
) -> Derived:
    """The state of a tournament of ``players`` entrants (nothing before the draw)."""
    build = _Builder(games, handicaps)
    if draw is None:
        return build.d
    p = plan(players)
    final_round = p.rounds + 1
    sources = _elimination(build, p, draw) if p.rounds else list(draw.order)
    build.d.finalists = [build.resolve(s) for s in sources]
    if len(sources) == 2:
        _final(build, sources, final_round)
    else:
        _final_round(build, sources, final_round)
    return build.d


def _elimination(build: _Builder, p: Plan, draw: Draw) -> list[str]:
    """Add the elimination rounds; return the sources of the finalists."""
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
        build.add(mid, MatchKind.ELIMINATION, 1, f"Round 1, pairing {k}", numbers[k])
        slots[next(free)] = winner_source(mid)
    sources = [s for s in slots if s is not None]
    for r in range(2, p.rounds + 1):
        nxt: list[str] = []
        for j in range(len(sources) // 2):
            mid = f"R{r}-{j + 1}"
            build.add(
                mid,
                MatchKind.ELIMINATION,
                r,
                f"Round {r}, match {j + 1}",
                sources[2 * j : 2 * j + 2],
            )
            nxt.append(winner_source(mid))
        sources = nxt
    return sources


def _final(build: _Builder, sources: Sequence[str], rnd: int) -> None:
    """The final of a two-player field: one two-out-of-three match."""
    m = build.add("F1-2", MatchKind.FINAL, rnd, "Final", sources)
    if m.winner is not None and m.loser is not None:
        build.d.final_order = [m.winner, m.loser]
        build.d.groups = [(1, [m.winner]), (2, [m.loser])]


def _final_round(build: _Builder, sources: Sequence[str], rnd: int) -> None:
    """Three or four finalists: each pair's final set, then places by wins and tie-breaks."""
    d = build.d
    sets = [
        build.add(
            f"F{i + 1}-{j + 1}",
            MatchKind.FINAL_SET,
            rnd,
            f"Final round, {i + 1} v {j + 1}",
            (sources[i], sources[j]),
        )
        for i, j in combinations(range(len(sources)), 2)
    ]
    if not all(m.decided for m in sets):
        return
    finalists = [f for f in d.finalists if f is not None]
    number = {f: i + 1 for i, f in enumerate(finalists)}
    wins = {f: 0 for f in finalists}
    for m in sets:
        for pl, w in m.score.items():
            wins[pl] += w
    d.final_wins = wins
    place = 1
    for w in sorted(set(wins.values()), reverse=True):
        group = [f for f in finalists if wins[f] == w]
        d.groups.extend(_settle(build, group, place, rnd, number))
        place += len(group)
    if all(len(g) == 1 for _, g in d.groups):
        d.final_order = [g[0] for _, g in d.groups]


def _settle(
    build: _Builder,
    group: list[str],
    place: int,
    rnd: int,
    num: Mapping[str, int],
) -> Places:
    """Order players tied on wins in the final round, creating tie-break matches as needed."""
    if len(group) == 1:
        return [(place, group)]
    if len(group) == 2:
        m = build.add(f"T{place}", MatchKind.TIEBREAK, rnd, f"Tie-break for place {place}", group)
        if m.winner is None or m.loser is None:
            return [(place, group)]
        return [(place, [m.winner]), (place + 1, [m.loser])]
    if len(group) != 3:  # pragma: no cover - impossible: 3 decided games per pair
        raise TournamentError(f"{len(group)} finalists tied on wins", "internal")
    matches = [
        build.add(
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
    po = build.add(
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
