"""Everything a tournament derives from its draw and results: the matches, the finalists, the
places of the final round and the tie-break matches it needs.

:func:`derive` is a pure function of the field size, the draw, the games entered and the
handicaps set, so results entered in any valid order give the same state.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations

from blink.tournament.formats import Plan, bracket_slots, plan
from blink.tournament.values import Draw, Game, Match, MatchKind

__all__ = ["Derived", "Walkover", "derive", "winner_source"]

_VACANT = ""
"""What a seat fed by a double forfeit resolves to (no player's name is empty)."""


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
    settled: bool = False
    """Every place of the final round is settled (players of a double forfeit in a tie-break
    share theirs)."""


Walkover = tuple[tuple[str | None, ...], tuple[str, ...], str | None]
"""A walkover as it was given: the match's players, those who forfeited, who it went to."""

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
        withdrawn: Collection[str] = (),
        forfeits: Mapping[str, Collection[str]] | None = None,
        walkovers: Mapping[str, Walkover] | None = None,
    ) -> None:
        self.d = Derived()
        self.games = games
        self.handicaps = handicaps
        self.withdrawn = withdrawn
        self.forfeits = forfeits or {}
        self.walkovers = walkovers or {}

    def resolve(self, source: str) -> str | None:
        """The player a source stands for, ``None`` while an earlier match goes on, or
        ``_VACANT`` for nobody (that match was a double forfeit)."""
        if source.startswith("winner:"):
            m = self.d.matches.get(source[len("winner:") :])
            if m is None:
                return None
            return _VACANT if m.decided and m.winner is None else m.winner
        return source

    def add(
        self,
        mid: str,
        kind: MatchKind,
        rnd: int,
        label: str,
        sources: Sequence[str],
        choose: Callable[[list[str]], str | None] | None = None,
    ) -> Match:
        """Add a match with its games and handicap (once its players are known); a match not
        decided by its games that an absent player or a vacant seat is in is a walkover (to
        the one player there, or among several to ``choose``'s pick; nobody's when no one is
        there)."""
        resolved = [self.resolve(s) for s in sources]
        vacant = tuple(i for i, p in enumerate(resolved) if p == _VACANT)
        players = tuple(None if p == _VACANT else p for p in resolved)
        known = all(p is not None or i in vacant for i, p in enumerate(players))
        games = tuple(self.games.get(mid, ())) if known else ()
        hc = self.handicaps.get(mid)
        handicap = tuple((pl, hc[pl]) for pl in players if pl is not None) if hc else None
        if handicap is not None and (not known or vacant or len(handicap) != len(hc or {})):
            handicap = None
        m = Match(mid, kind, rnd, label, tuple(sources), players, games, handicap, vacant=vacant)
        fixed = self.walkovers.get(mid)
        if known and not m.decided and fixed is not None and fixed[0] == players:
            # A walkover given stands: a later absence of the player it went to changes nothing.
            m = replace(m, handicap=None, forfeits=fixed[1], walkover=True, awarded=fixed[2])
        elif known and not m.decided:
            named = self.forfeits.get(mid, ())
            out = tuple(p for p in players if p is not None and (p in self.withdrawn or p in named))
            if out or vacant:
                there = [p for p in players if p is not None and p not in out]
                if len(there) == 1:
                    awarded: str | None = there[0]
                else:
                    awarded = choose(there) if choose is not None and there else None
                m = replace(m, handicap=None, forfeits=out, walkover=True, awarded=awarded)
        self.d.matches[mid] = m
        return m


def derive(
    players: int,
    draw: Draw | None,
    games: Mapping[str, Sequence[Game]],
    handicaps: Mapping[str, Mapping[str, int]],
    withdrawn: Collection[str] = (),
    forfeits: Mapping[str, Collection[str]] | None = None,
    walkovers: Mapping[str, Walkover] | None = None,
) -> Derived:
    """The state of a tournament of ``players`` entrants (nothing before the draw), with the
    players ``withdrawn`` and the players each match's ``forfeits`` name absent, and the
    ``walkovers`` already given (each stands while its match has the same players)."""
    build = _Builder(games, handicaps, withdrawn, forfeits, walkovers)
    if draw is None:
        return build.d
    p = plan(players)
    final_round = p.rounds + 1
    sources = _elimination(build, p, draw) if p.rounds else list(draw.order)
    build.d.finalists = [None if f == _VACANT else f for f in map(build.resolve, sources)]
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
    if not m.decided:
        return
    there = [p for p in m.players if p is not None]
    if m.winner is not None:
        build.d.groups = [(1, [m.winner])] + ([(2, [m.loser])] if m.loser is not None else [])
    elif there:  # a double forfeit: both share the first place, nobody is champion
        build.d.groups = [(1, there)]
    build.d.settled = True
    build.d.final_order = [p for _, g in build.d.groups for p in g]


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
    if not finalists:  # every seat vacant
        d.settled = True
        d.final_order = []
        return
    number = {f: i + 1 for i, f in enumerate(finalists)}
    wins = {f: 0 for f in finalists}
    for m in sets:
        for pl, w in m.score.items():
            wins[pl] += w
    d.final_wins = wins
    place = 1
    settled = True
    for w in sorted(set(wins.values()), reverse=True):
        group = [f for f in finalists if wins[f] == w]
        places, done = _settle(build, group, place, rnd, number)
        d.groups.extend(places)
        settled &= done
        place += len(group)
    if settled:
        d.settled = True
        d.final_order = [p for _, g in d.groups for p in g]


def _settle(
    build: _Builder,
    group: list[str],
    place: int,
    rnd: int,
    num: Mapping[str, int],
) -> tuple[Places, bool]:
    """Order players tied on wins in the final round, creating tie-break matches as needed.
    Also says whether their places are settled: players of a double forfeit share theirs, as
    do four players tied on wins (possible only through walkovers)."""
    if len(group) == 1:
        return [(place, group)], True
    if len(group) == 2:
        m = build.add(f"T{place}", MatchKind.TIEBREAK, rnd, f"Tie-break for place {place}", group)
        if m.winner is None or m.loser is None:
            return [(place, group)], m.decided
        return [(place, [m.winner]), (place + 1, [m.loser])], True
    if len(group) != 3:
        return [(place, group)], True
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
        return [(place, group)], False
    won = {f: sum(1 for m in matches if m.winner == f) for f in group}
    if sorted(won.values()) == [0, 1, 2]:
        ordered = sorted(group, key=lambda f: -won[f])
        return [(place + i, [f]) for i, f in enumerate(ordered)], True

    def best(there: list[str]) -> str | None:
        # A play-off walkover among two players there: more tie-break wins, then bracket order.
        return min(there, key=lambda f: (-won[f], num[f]))

    po = build.add(
        f"T{place}-P",
        MatchKind.PLAYOFF,
        rnd,
        f"Play-off for place {place} (three-player game)",
        group,
        best,
    )
    if po.winner is None:
        return [(place, group)], po.decided
    rest = [f for f in group if f != po.winner]
    head = next(m for m in matches if set(m.players) == set(rest))
    if head.winner is None or head.loser is None:  # a double forfeit: the other two share
        return [(place, [po.winner]), (place + 1, rest)], True
    return [(place, [po.winner]), (place + 1, [head.winner]), (place + 2, [head.loser])], True
