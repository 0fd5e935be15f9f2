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
* what real events need (docs/rules.md, "Check-in, withdrawals, no-shows and corrections"): a
  check-in before the draw, withdrawals and no-shows as walkovers (a double forfeit leaves the
  next seat vacant), organiser corrections; each goes in an audit trail
  (:attr:`Tournament.changes`, the times given by the caller).

A tournament is of one registered game (:attr:`Tournament.game`, the default game unless
named; :mod:`~blink.tournament.playing` checks that the game's player range seats its matches
and gives the game's deal rules for a handicap).

Typical use::

    t = Tournament.create(["Ann", "Bo", "Cy", "Di", "Ed"])
    t.draw(seed=7)
    for m in t.ready_matches():
        t.record_game(m.id, m.players[0])

The package's modules: :mod:`~blink.tournament.errors` (refusals),
:mod:`~blink.tournament.formats` (the plan and the bracket for a field size),
:mod:`~blink.tournament.playing` (the tournament's game, checked, and its deal rules),
:mod:`~blink.tournament.values` (players, the draw, games, matches, standings lines),
:mod:`~blink.tournament.derive` (the state derived from the draw and the results) and
:mod:`~blink.tournament.state` (the :class:`Tournament` itself, and its JSON form): the engine.
Above it, and not imported by this package's own name: the organiser's file on disk
(:mod:`~blink.tournament.organiser`: load, change, save atomically) and the printable bracket
(:mod:`~blink.tournament.bracket`: HTML and a PNG drawn with matplotlib). The server's
tournaments (:mod:`blink.server.tournaments`) and ``blink tournament``
(:mod:`blink.cli.tournament`) are drivers around them.
"""

from __future__ import annotations

from blink.tournament.errors import (
    AbsenceError,
    CheckInError,
    CorrectionError,
    DrawError,
    FieldError,
    GameError,
    MatchDecidedError,
    MatchNotReadyError,
    NotInMatchError,
    ResultError,
    TournamentError,
    UndoError,
    UnknownMatchError,
)
from blink.tournament.formats import MAX_PLAYERS, MIN_PLAYERS, Plan, bracket_slots, plan
from blink.tournament.state import FORMAT, VERSION, Tournament
from blink.tournament.values import (
    FINAL_SET_GAMES,
    Change,
    Draw,
    Entrant,
    Game,
    Match,
    MatchKind,
    Placing,
)
from blink.tournament.values import MATCH_TARGET as MATCH_TARGET
from blink.tournament.values import NAME_MAX as NAME_MAX

__all__ = [
    "FINAL_SET_GAMES",
    "FORMAT",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "VERSION",
    "AbsenceError",
    "Change",
    "CheckInError",
    "CorrectionError",
    "Draw",
    "DrawError",
    "Entrant",
    "FieldError",
    "Game",
    "GameError",
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
