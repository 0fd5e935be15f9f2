"""The tournament: its players, its draw and the result of every game, and what follows.

Who plays whom, who is out, the final table and the tie-break matches are derived
(:func:`blink.tournament.derive.derive`) and cached until the next change. The whole object
round-trips through JSON (:meth:`Tournament.to_dict`, :meth:`Tournament.from_dict`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from blink.model.registry import DEFAULT_GAME
from blink.tournament.derive import Derived, Walkover, derive
from blink.tournament.errors import (
    AbsenceError,
    CheckInError,
    CorrectionError,
    DrawError,
    FieldError,
    MatchDecidedError,
    MatchNotReadyError,
    NotInMatchError,
    ResultError,
    TournamentError,
    UndoError,
    UnknownMatchError,
)
from blink.tournament.formats import MAX_PLAYERS, MIN_PLAYERS, Plan, plan
from blink.tournament.playing import check_game, check_play_off, deal_rules
from blink.tournament.values import (
    Change,
    Draw,
    Entrant,
    Game,
    Match,
    MatchKind,
    Placing,
    check_entrant,
)

__all__ = ["FORMAT", "VERSION", "Tournament"]

FORMAT: Final = "blink-tournament"
VERSION: Final = 3
"""The version written for a tournament of a game other than the default one. Version 2 added
the operations of real events (check-in, withdrawals, forfeits, corrections and their audit
trail, claims), version 3 the tournament's ``game``: a file of an older version reads the
same (its game is the default one), and software that knows only an older version refuses a
newer file instead of dropping what it adds. A tournament of the default game is written as
version 2 (with its ``game``, which version 2 readers pass over): it says nothing they would
miss."""

DEFAULT_GAME_VERSION: Final = 2
"""The version written for a tournament of the default game."""

READABLE: Final = (1, 2, 3)
"""The versions :meth:`Tournament.from_dict` reads."""


class Tournament:
    """A tournament: its players, its draw and its results. See :mod:`blink.tournament`."""

    def __init__(
        self, entrants: Sequence[Entrant], name: str = "Blink tournament", game: str = DEFAULT_GAME
    ) -> None:
        check_game(game)
        self.name = name
        self.game: Final = game
        """The game its matches are played in (its registry name)."""
        self.entrants: list[Entrant] = []
        for e in entrants:
            self._check_new(e)
            self.entrants.append(e)
        self._draw: Draw | None = None
        self._games: dict[str, list[Game]] = {}
        self._handicaps: dict[str, dict[str, int]] = {}
        self._withdrawn: list[str] = []
        self._forfeits: dict[str, list[str]] = {}
        self._check_in: list[str] | None = None
        self._walkovers: dict[str, Walkover] = {}
        self.changes: list[Change] = []
        """The audit trail: withdrawals, forfeits, corrections, check-ins missed."""
        self._cache: Derived | None = None

    # ---- set-up

    @classmethod
    def create(
        cls,
        players: Iterable[Entrant | str],
        name: str = "Blink tournament",
        game: str = DEFAULT_GAME,
    ) -> Tournament:
        """A new tournament of ``game`` (a registered game's name); players are names or
        :class:`Entrant` values (2 to 64 of them). A game that is not registered, or whose
        player range cannot seat a match, is refused (:class:`GameError`)."""
        entrants = [p if isinstance(p, Entrant) else Entrant(p) for p in players]
        plan(len(entrants))
        return cls(entrants, name, game)

    def _check_new(self, e: Entrant) -> None:
        check_entrant(e)
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
        if self._check_in is not None and e.name in self._check_in:
            self._check_in.remove(e.name)
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

    def draw(self, seed: int, by: str | None = None, at: float | None = None) -> Draw:
        """Make the draw: byes to the most experienced, first-round numbers from a hat.

        The hat holds two of each number 1..pairings, shuffled from ``seed``; the other players
        draw in order of entry, and equal numbers play each other. With check-in open, the
        players who did not check in leave the field first (``by`` and ``at`` go in the audit
        trail).
        """
        if self._draw is not None:
            raise DrawError("the draw has already been made", "already-drawn")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise DrawError(f"the seed must be a whole number, not {seed!r}", "bad-seed")
        if self._check_in is not None:
            self._draw_checked_in(by, at)
        p = plan(len(self.entrants))
        check_play_off(self.game, p.finalists)
        order = self.experience_order(seed)
        byes = tuple(order[: p.byes])
        drawing = [e.name for e in self.entrants if e.name not in byes] if p.pairings else []
        hat = [k for k in range(1, p.pairings + 1) for _ in (0, 1)]
        random.Random(f"hat:{seed}").shuffle(hat)
        self._draw = Draw(seed, tuple(order), byes, tuple(zip(drawing, hat, strict=True)))
        self._cache = None
        return self._draw

    # ---- the derived structure

    def _state(self) -> Derived:
        """The derived state, computed again after every change."""
        if self._cache is None:
            self._cache = derive(
                len(self.entrants),
                self._draw,
                self._games,
                self._handicaps,
                set(self._withdrawn),
                self._forfeits,
                self._walkovers,
            )
        return self._cache

    # ---- reading

    def matches(self) -> list[Match]:
        """Every match that exists now, in playing order (tie-breaks appear when needed)."""
        return list(self._state().matches.values())

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
        """The winner, once the tournament is finished (``None`` too when the first place is
        shared: a double forfeit in the final)."""
        d = self._state()
        if d.final_order is None or not d.groups or len(d.groups[0][1]) != 1:
            return None
        return d.groups[0][1][0]

    @property
    def withdrawn(self) -> list[str]:
        """The players who withdrew, in the order they did."""
        return list(self._withdrawn)

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
        settled = d.final_order is not None
        if d.groups:
            for place, group in d.groups:
                for f in group:
                    status = (
                        ("champion" if place == 1 else "placed")
                        if len(group) == 1
                        else ("placed" if settled else "finalist")
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
            if m.kind is MatchKind.ELIMINATION:
                out_by_round.setdefault(m.round, []).extend(m.losers)
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
        self._fix_walkovers()
        return replace(m, games=(*m.games, game))

    def record_tie(self, match_id: str, ref: str | None = None) -> Match:
        """Enter a game tied between all the match's players (it is replayed)."""
        m = self.match(match_id)
        if not m.known:
            return self.record_game(match_id, [], ref)  # raises the not-ready error
        return self.record_game(match_id, [p for p in m.players if p is not None], ref)

    def set_handicap(
        self, match_id: str, sizes: Mapping[str, int] | None, deck_size: int | None = None
    ) -> Match:
        """Deal a match's games with a handicap (the rulebook's balanced play): each player's
        draw-pile size by name, or ``None`` for an equal deal; ``deck_size`` is the game's deck
        (:attr:`DealRules.deck_size <blink.model.game.DealRules.deck_size>`) unless given.
        Refused for a match whose players are not known yet or that is already decided, and
        for a game without deal rules (:class:`GameError`, ``no-deals``)."""
        m = self.match(match_id)
        if not m.known:
            raise MatchNotReadyError(f"match {m.id}'s players are not known yet")
        if m.decided:
            raise MatchDecidedError(f"match {m.id} is already decided")
        if sizes is None:
            self._handicaps.pop(m.id, None)
            self._cache = None
            return self.match(m.id)
        deals = deal_rules(self.game)
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
            deck = deals.deck_size if deck_size is None else deck_size
            deals.check_sizes(len(players), deck, [canon[pl] for pl in players])
        except ValueError as e:
            raise ResultError(f"match {m.id}: {e}", "bad-handicap") from None
        self._handicaps[m.id] = canon
        self._cache = None
        return self.match(m.id)

    def undo_game(self, match_id: str, by: str | None = None, at: float | None = None) -> Game:
        """Take back the last game entered in a match, if no later match depends on it. With
        ``by`` (who) it goes in the audit trail as a ``take-back``."""
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
        self._fix_walkovers()
        for k in list(self._handicaps):  # a handicap whose players changed no longer applies
            hm = self._state().matches.get(k)
            if hm is None or hm.handicap is None:
                del self._handicaps[k]
                self._cache = None
        if by is not None:
            self.changes.append(
                Change("take-back", by, at, m.id, game=len(stored) + 1, before=game.winners)
            )
        return game

    # ---- absences, corrections and check-in

    def _fix_walkovers(self) -> None:
        """Keep every walkover as given (see :data:`~blink.tournament.derive.Walkover`): the
        derived state already holds those still standing and the new ones."""
        self._walkovers = {
            m.id: (m.players, m.forfeits, m.awarded) for m in self.matches() if m.walkover
        }

    def _out(self, name: str) -> bool:
        """True once ``name`` has no match left: put out of the elimination, or placed."""
        d = self._state()
        if d.final_order is not None:
            return True
        return any(name in m.losers for m in d.matches.values() if m.kind is MatchKind.ELIMINATION)

    def withdraw(
        self, name: str, by: str | None = None, at: float | None = None, note: str | None = None
    ) -> Change:
        """A player withdraws after the draw: every match of theirs not decided yet, now or
        later, is a walkover to the other player (a double forfeit when both are absent).
        ``by`` and ``at`` (the caller's clock) go in the audit trail."""
        if self._draw is None:
            raise AbsenceError("before the draw a player is removed, not withdrawn", "not-drawn")
        e = self.entrant(name)
        if e.name in self._withdrawn:
            raise AbsenceError(f"{e.name} has already withdrawn", "already-withdrawn")
        if self._out(e.name):
            raise AbsenceError(f"{e.name} has no match left to withdraw from", "not-playing")
        self._withdrawn.append(e.name)
        self._cache = None
        self._fix_walkovers()
        change = Change("withdrawal", by, at, players=(e.name,), note=note)
        self.changes.append(change)
        return change

    def forfeit(
        self,
        match_id: str,
        names: Sequence[str],
        by: str | None = None,
        at: float | None = None,
        note: str | None = None,
    ) -> Change:
        """Players forfeit a match they did not come to (a no-show): a walkover to the other
        player, or a double forfeit when every player forfeits (nobody goes on)."""
        m = self.match(match_id)
        if not m.known:
            raise MatchNotReadyError(f"match {m.id}'s players are not known yet")
        if m.decided:
            raise MatchDecidedError(f"match {m.id} is already decided")
        players = [p for p in m.players if p is not None]
        canon: list[str] = []
        for n in names:
            hit = [p for p in players if p.casefold() == str(n).strip().casefold()]
            if not hit:
                raise NotInMatchError(f"{n!r} does not play in match {m.id}")
            if hit[0] not in canon:
                canon.append(hit[0])
        if not canon:
            raise AbsenceError("name the players who forfeit the match", "no-player")
        self._forfeits[m.id] = canon
        self._cache = None
        self._fix_walkovers()
        change = Change("forfeit", by, at, match=m.id, players=tuple(canon), note=note)
        self.changes.append(change)
        return change

    def correct_game(
        self,
        match_id: str,
        game: int,
        winners: Sequence[str],
        by: str | None = None,
        at: float | None = None,
        note: str | None = None,
    ) -> Change:
        """Correct game ``game`` (1 = the first) of a match: its winners become ``winners``
        (several names for a tie). Refused when the match would have a game after it was
        decided, or a later match already uses the result. Goes in the audit trail with what
        it was before."""
        m = self.match(match_id)
        if m.walkover:
            raise CorrectionError(
                f"match {m.id} was a walkover: its games cannot be corrected", "walkover"
            )
        if isinstance(game, bool) or not isinstance(game, int) or not 1 <= game <= len(m.games):
            raise CorrectionError(
                f"match {m.id} has no game {game!r} (it has {len(m.games)})", "no-such-game"
            )
        players = [p for p in m.players if p is not None]
        canon: list[str] = []
        for n in winners:
            hit = [p for p in players if p.casefold() == str(n).strip().casefold()]
            if not hit:
                raise NotInMatchError(f"{n!r} does not play in match {m.id}")
            canon.append(hit[0])
        if not canon or len(set(canon)) != len(canon):
            raise ResultError("a game needs a winner, each named once", "bad-result")
        old = m.games[game - 1]
        games = list(m.games)
        games[game - 1] = Game(tuple(canon), old.ref)
        for k in range(1, len(games)):
            if replace(m, games=tuple(games[:k]), walkover=False, awarded=None).decided:
                raise CorrectionError(
                    f"with that result match {m.id} is decided before its game {k + 1}",
                    "decided-earlier",
                )
        before = {k: len(v) for k, v in self._games.items() if v}
        stored = self._games[m.id]
        self._games[m.id] = games
        self._cache = None
        state = self._state().matches
        lost = [
            k
            for k, n in before.items()
            if k != m.id and (k not in state or len(state[k].games) != n)
        ]
        if lost:
            self._games[m.id] = stored
            self._cache = None
            raise CorrectionError(
                f"match {m.id}'s result is already used by match {', '.join(sorted(lost))}; "
                "take back those games first",
                "result-in-use",
            )
        self._fix_walkovers()
        change = Change(
            "correction", by, at, m.id, game=game, before=old.winners, after=tuple(canon), note=note
        )
        self.changes.append(change)
        return change

    @property
    def check_in_open(self) -> bool:
        """True while check-in is open (from :meth:`open_check_in` to the draw)."""
        return self._check_in is not None and self._draw is None

    @property
    def checked_in(self) -> list[str] | None:
        """The players who checked in, in order (``None``: the tournament has no check-in)."""
        return None if self._check_in is None else list(self._check_in)

    def open_check_in(self) -> None:
        """Open check-in before the draw: the draw is then made over the players who checked
        in (the others leave the field)."""
        if self._draw is not None:
            raise CheckInError("check-in is before the draw", "already-drawn")
        if self._check_in is None:
            self._check_in = []

    def check_in(self, name: str) -> None:
        """A player checks in (while check-in is open)."""
        if not self.check_in_open or self._check_in is None:
            raise CheckInError("check-in is not open", "check-in-closed")
        e = self.entrant(name)
        if e.name not in self._check_in:
            self._check_in.append(e.name)

    def _draw_checked_in(self, by: str | None = None, at: float | None = None) -> None:
        """Before the draw: the players who did not check in leave the field."""
        present = set(self._check_in or ())
        missed = tuple(e.name for e in self.entrants if e.name not in present)
        if len(self.entrants) - len(missed) < MIN_PLAYERS:
            raise CheckInError(
                f"only {len(self.entrants) - len(missed)} players checked in; "
                f"a tournament needs {MIN_PLAYERS}",
                "too-few-checked-in",
            )
        if missed:
            self.entrants = [e for e in self.entrants if e.name in present]
            self.changes.append(Change("check-in-missed", by, at, players=missed))
            self._cache = None

    # ---- JSON

    def to_dict(self) -> dict[str, Any]:
        """The whole tournament as JSON-ready data: players, draw, results, and (for readers)
        the derived matches and standings. :meth:`from_dict` reads only the first three.
        Before it has two players there is no plan yet: ``plan`` and ``draw`` are ``None``,
        no matches, no standings."""
        if len(self.entrants) < MIN_PLAYERS:
            return {
                **self._head(),
                "players": [e.to_dict() for e in self.entrants],
                "plan": None,
                "draw": None,
                "results": {},
                "handicaps": {},
                **self._extras_dict(),
                "matches": [],
                "finished": False,
                "champion": None,
                "standings": [],
            }
        p = plan(len(self.entrants))
        state = self._state()
        order = list(state.matches)
        return {
            **self._head(),
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
            **self._extras_dict(),
            "matches": [m.to_dict() for m in state.matches.values()],
            "finished": self.finished,
            "champion": self.champion,
            "standings": [s.to_dict() for s in self.standings()],
        }

    def _head(self) -> dict[str, Any]:
        """The file's format, version, name and game."""
        version = DEFAULT_GAME_VERSION if self.game == DEFAULT_GAME else VERSION
        return {"format": FORMAT, "version": version, "name": self.name, "game": self.game}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tournament:
        """Load a tournament; every stored result is checked by entering it again."""
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            raise TournamentError(f"not a {FORMAT} file", "bad-file")
        if data.get("version") not in READABLE:
            raise TournamentError(
                f"unsupported version {data.get('version')!r} (this blink reads versions "
                f"{', '.join(map(str, READABLE))}): upgrade blink to read it",
                "bad-file",
            )
        raw_players = data.get("players")
        if not isinstance(raw_players, list):
            raise TournamentError("the file has no list of players", "bad-file")
        t = cls(
            [Entrant.from_dict(p) for p in raw_players],
            str(data.get("name", "")),
            data.get("game", DEFAULT_GAME),
        )
        raw_draw = data.get("draw")
        if raw_draw is not None or data.get("results"):
            # A field still signing up may have fewer than two players; a drawn one may not.
            plan(len(t.entrants))
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
        t._load_extras(data)
        progress = True
        while pending and progress:
            progress = False
            for k in list(pending):
                if k in t._state().matches and t.match(k).known:
                    t._load_games(k, pending.pop(k))
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
            deals = deal_rules(t.game)
            try:
                deals.check_sizes(len(sizes), deals.deck_size, [sizes[pl] for pl in m.players])
            except ValueError as e:
                raise ResultError(f"match {k}: {e}", "bad-handicap") from None
            t._handicaps[m.id] = {str(n): int(v) for n, v in sizes.items()}
        t._cache = None
        if t._draw is not None:
            t._fix_walkovers()
        return t

    def _extras_dict(self) -> dict[str, Any]:
        """The stored absences, check-in and audit trail (absent from older files)."""
        return {
            "withdrawn": list(self._withdrawn),
            "forfeits": {k: list(v) for k, v in sorted(self._forfeits.items())},
            "check_in": None if self._check_in is None else {"players": list(self._check_in)},
            "walkovers": {
                k: {"players": list(p), "forfeits": list(f), "to": a}
                for k, (p, f, a) in sorted(self._walkovers.items())
            },
            "changes": [c.to_dict() for c in self.changes],
        }

    def _load_extras(self, data: Mapping[str, Any]) -> None:
        """Read back :meth:`_extras_dict` (after the draw, before the games)."""
        withdrawn = data.get("withdrawn") or []
        forfeits = data.get("forfeits") or {}
        check_in = data.get("check_in")
        changes = data.get("changes") or []
        if not isinstance(withdrawn, list) or not isinstance(forfeits, Mapping):
            raise TournamentError("the stored absences are malformed", "bad-file")
        if not isinstance(changes, list):
            raise TournamentError("the stored audit trail is malformed", "bad-file")
        if withdrawn and self._draw is None:
            raise DrawError("withdrawals stored without a draw", "not-drawn")
        self._withdrawn = [self.entrant(str(n)).name for n in withdrawn]
        self._forfeits = {
            str(k).upper(): [self.entrant(str(n)).name for n in v] for k, v in forfeits.items()
        }
        if isinstance(check_in, Mapping):
            self._check_in = [self.entrant(str(n)).name for n in check_in.get("players") or []]
        self.changes = [Change.from_dict(c) for c in changes]
        walkovers = data.get("walkovers") or {}
        if not isinstance(walkovers, Mapping):
            raise TournamentError("the stored walkovers are malformed", "bad-file")
        try:
            self._walkovers = {
                str(k): (
                    tuple(None if n is None else self.entrant(str(n)).name for n in w["players"]),
                    tuple(self.entrant(str(n)).name for n in w["forfeits"]),
                    None if w.get("to") is None else self.entrant(str(w["to"])).name,
                )
                for k, w in walkovers.items()
            }
        except (KeyError, TypeError):
            raise TournamentError("the stored walkovers are malformed", "bad-file") from None
        self._cache = None

    def _load_games(self, match_id: str, games: Sequence[Game]) -> None:
        """Enter a match's stored games, each checked as :meth:`record_game` would have
        checked it when it was entered (before any walkover of the match)."""
        m = self.match(match_id)
        players = [p for p in m.players if p is not None]
        entered: list[Game] = []
        for g in games:
            if replace(m, games=tuple(entered), walkover=False, awarded=None).decided:
                raise MatchDecidedError(f"match {m.id} has a stored game after it was decided")
            canon = []
            for n in g.winners:
                hit = [p for p in players if isinstance(n, str) and p.casefold() == n.casefold()]
                if not hit:
                    raise NotInMatchError(f"{n!r} does not play in match {m.id}")
                canon.append(hit[0])
            if not canon or len(set(canon)) != len(canon):
                raise ResultError(f"a stored game of {m.id} is malformed", "bad-result")
            if g.ref is not None and not isinstance(g.ref, str):
                raise ResultError("a game reference must be text", "bad-result")
            entered.append(Game(tuple(canon), g.ref))
        self._games[m.id] = entered
        self._cache = None

    def copy(self) -> Tournament:
        """An independent copy."""
        return Tournament.from_dict(self.to_dict())
