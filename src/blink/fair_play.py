"""Fair play: the rules that keep a rating from being farmed (issue 36; docs/security.md,
"Ratings"). Pure: no I/O, no clock; the server applies them when a game is rated
(:mod:`blink.server.fairness`, :mod:`blink.server.profiles`).

- **One budget against the house bots**: :data:`BOT_GAMES_A_DAY` rated games a day against
  any bot, whatever its level, strategy or speed (a script that beats one bot spec after
  another gets no more).
- **Capped gains from people**: a win over a *provisional* opponent (fewer than
  :data:`PROVISIONAL_GAMES` rated games, :func:`opponent_weight`) gains nothing (a fresh
  profile made to lose lifts nobody), and each further rated game the same day against the
  same opponent gains less (:func:`repeat_weight`: a half, a third), up to
  :data:`PAIR_GAMES_A_DAY`. A loss is never scaled: what is capped is what one can *gain*
  (:func:`capped`).
- **A person's reaction**: a seat whose actions come, for a sustained share, faster than a
  person can react (:func:`too_fast`: at least :data:`FAST_SHARE` of at least
  :data:`MIN_TIMED` timed actions under the floor, :data:`REACTION_FLOOR_MS`) makes the game
  unrated and is flagged for the operator. A reaction is measured from the action that made
  the played action possible (the frame the player was sent) to the play, on the server's
  clock, from the game's record (:func:`reactions`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from blink.model.records import Record
from blink.model.registry import get_game
from blink.ratings import Rating

__all__ = [
    "BOT_GAMES_A_DAY",
    "FAST_SHARE",
    "MIN_TIMED",
    "PAIR_GAMES_A_DAY",
    "PROVISIONAL_GAMES",
    "REACTION_FLOOR_MS",
    "SeatReactions",
    "capped",
    "judge",
    "opponent_weight",
    "reactions",
    "repeat_weight",
    "too_fast",
]

BOT_GAMES_A_DAY: Final = 5
"""Rated games of one player against the house bots in any 24 hours, all bots together."""

PAIR_GAMES_A_DAY: Final = 3
"""Rated games between the same two players in any 24 hours (more are played, not rated)."""

PROVISIONAL_GAMES: Final = 10
"""Rated games after which a player is established: before, their rating is provisional
(listed apart on the leaderboard) and a win over them gains nothing."""

REACTION_FLOOR_MS: Final = 100
"""The fastest a person reacts, in milliseconds. 100 ms is the limit World Athletics puts on
sprinters' starts (Technical Rule 16.6: a reaction under 0.100 s to the gun is a false start):
the fastest trained people, reacting to one expected sound with one known movement. A play of
Blink is a choice reaction to something seen (which card fits which pile), which takes people
several hundred milliseconds, and the server's measure adds the network's round trip on top.
So no person's plays are, for a sustained share, under it."""

FAST_SHARE: Final = 0.5
"""The share of a seat's timed actions under the floor that makes a game unrated (a person
may press two keys in a row quickly now and then; a script does it all the time)."""

MIN_TIMED: Final = 10
"""Timed actions a seat needs in a game before it is judged at all."""


def opponent_weight(games: int, provisional: int = PROVISIONAL_GAMES) -> float:
    """The share of a win's gain that beating an opponent with ``games`` rated games gives:
    none while the opponent is provisional (fewer than ``provisional`` games: a profile made to
    lose, or one whose rating says nothing yet), all of it once established."""
    return 1.0 if games >= provisional else 0.0


def repeat_weight(earlier: int) -> float:
    """The share of a win's gain for a game against an opponent met in ``earlier`` rated games
    of the same day: 1, 1/2, 1/3...; none from :data:`PAIR_GAMES_A_DAY` on (the game is then
    not rated at all)."""
    if earlier >= PAIR_GAMES_A_DAY:
        return 0.0
    return 1.0 / (earlier + 1)


def capped(before: Rating, after: Rating, weight: float) -> Rating:
    """``after``, with what it gained over ``before`` (a higher ordinal) scaled by ``weight``
    (between 0 and 1); a loss (an ordinal no higher) is kept whole."""
    if after.ordinal <= before.ordinal or weight >= 1.0:
        return after
    w = max(0.0, weight)
    return Rating(
        before.mu + w * (after.mu - before.mu),
        before.sigma + w * (after.sigma - before.sigma),
    )


@dataclass(frozen=True)
class SeatReactions:
    """One seat's reactions in a game: how many actions were timed, how many came under the
    floor, and their median (``None`` for none)."""

    seat: int
    timed: int
    fast: int
    median_ms: int | None


def _legal(definition: Any, state: Any, seat: int) -> frozenset[Hashable]:
    return frozenset(definition.legal_actions(state, seat))


def reactions(record: Record[Any, Any, Any]) -> list[list[int]]:
    """Every seat's reaction times (ms) in a game's ``record``: for each action of a seat,
    the time since the action that made it legal (it has been legal ever since). Actions
    without a time, or legal from the deal, are not timed. Empty lists when the record cannot
    be replayed or its actions cannot be compared."""
    out: list[list[int]] = [[] for _ in range(record.players)]
    try:
        definition = get_game(record.game_name)
        codec = record.codec
        state = codec.deal(record.deck, record.players, record.options)
        seats = range(record.players)
        since: list[dict[Hashable, int | None]] = [
            dict.fromkeys(_legal(definition, state, p)) for p in seats
        ]
        for action, t in record.actions:
            seat = definition.seat_of(action)
            if seat is not None and t is not None and 0 <= seat < record.players:
                start = since[seat].get(action)
                if start is not None:
                    out[seat].append(max(0, t - start))
            codec.apply(state, action, t)
            for p in seats:
                legal = _legal(definition, state, p)
                known = since[p]
                since[p] = {a: known.get(a, t) for a in legal}
    except Exception:  # a game whose actions cannot be replayed or hashed is not judged
        return [[] for _ in range(record.players)]
    return out


def too_fast(
    times: Sequence[int],
    floor_ms: int = REACTION_FLOOR_MS,
    min_timed: int = MIN_TIMED,
    share: float = FAST_SHARE,
) -> bool:
    """Whether reaction ``times`` are, for a sustained share, faster than a person's: at
    least ``min_timed`` of them and at least ``share`` of them under ``floor_ms``."""
    if floor_ms <= 0 or len(times) < min_timed:
        return False
    fast = sum(1 for t in times if t < floor_ms)
    return fast >= share * len(times)


def judge(record: Record[Any, Any, Any], floor_ms: int = REACTION_FLOOR_MS) -> list[SeatReactions]:
    """The seats of ``record`` whose actions came faster than a person's
    (:func:`too_fast`), with their figures."""
    out = []
    for seat, times in enumerate(reactions(record)):
        if too_fast(times, floor_ms):
            ordered = sorted(times)
            fast = sum(1 for t in times if t < floor_ms)
            out.append(SeatReactions(seat, len(times), fast, ordered[len(ordered) // 2]))
    return out
