"""A game to study: every play's reaction time, the plays each player missed, both hands over time.

A replay shows a game step by step; a *study* says how each player played it. Each game lays
its record out as :class:`Step` values (its ``study`` module, found with
:func:`blink.model.registry.get_study`): after the deal and after each action, what every seat
could do and the *chances* it had (a card in its hand that fitted a pile). :func:`analyse`
turns those steps into a :class:`GameStudy`, the same for every game:

- a :class:`PlayRecord` per play: its step, its seat, its time, and its *reaction*: the
  milliseconds since the last change of what that seat could do (a new top card, a refill, a
  new turn), or ``None`` when the record has no times;
- a :class:`MissedChance` per chance a seat let go: an interval of steps during which the seat
  held cards that fitted a pile (``cards``, ``pile``) and that ended by something else than the
  seat's own play (another player covered the pile, a flip, the end of the game or, in a
  turn-based game, the end of the seat's turn);
- a :class:`TimelinePoint` per step: every seat's hand size and cards left;
- a :class:`SeatSummary` per seat: plays, missed chances, median reaction.

:func:`study_document` is the document ``GET /api/games/{id}/study`` answers (docs/protocol.md,
docs/replay.md). Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

from blink.model.records import AnyRecord, RecordError, SeriesRecord, load
from blink.model.registry import NoStudy, UnknownGame, get_study
from blink.model.replays import seat_names
from blink.model.study_data import (
    STUDY_FORMAT,
    STUDY_VERSION,
    Chance,
    GameStudy,
    MissedChance,
    PlayRecord,
    SeatSummary,
    Step,
    StudyDocument,
    TimelinePoint,
)

__all__ = [
    "STUDY_FORMAT",
    "STUDY_VERSION",
    "Chance",
    "GameStudy",
    "MissedChance",
    "PlayRecord",
    "SeatSummary",
    "Step",
    "StudyDocument",
    "TimelinePoint",
    "analyse",
    "median",
    "study_document",
]

# --- the analysis -----------------------------------------------------------------------------


def median(values: Sequence[int]) -> int | None:
    """The median of ``values`` rounded down to a whole number (``None`` for none)."""
    if not values:
        return None
    ordered = sorted(values)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[mid]
    return (ordered[mid - 1] + ordered[mid]) // 2


def _elapsed(start: int | None, end: int | None) -> int | None:
    if start is None or end is None:
        return None
    return max(0, end - start)


@dataclass
class _Open:
    """A chance being followed: when it opened, and every card that fitted meanwhile."""

    start: int
    start_t: int | None
    pile: int | None
    cards: list[str] = field(default_factory=list)


def _follow(
    seat: int, k: int, step: Step, open_: dict[Hashable, _Open], missed: list[MissedChance]
) -> None:
    """Close the chances of ``seat`` that step ``k`` took away (missed unless its own play
    took them), and open the new ones."""
    now = {c.key: c for c in step.chances[seat]}
    own = step.takes and step.action_seat == seat
    for key in [key for key in open_ if key not in now]:
        o = open_.pop(key)
        if not own:
            missed.append(
                MissedChance(
                    seat,
                    o.start,
                    k,
                    o.start_t,
                    step.t,
                    _elapsed(o.start_t, step.t),
                    sorted(o.cards),
                    o.pile,
                )
            )
    for key, chance in now.items():
        o = open_.setdefault(key, _Open(k, step.t, chance.pile))
        o.cards.extend(c for c in chance.cards if c not in o.cards)


def analyse(steps: Iterable[Step], players: int, names: Sequence[str]) -> GameStudy:
    """Study a game laid out as ``steps`` (the deal first, then one per action)."""
    changed: list[int | None] = [None] * players  # when what each seat could do last changed
    before: list[frozenset[Hashable]] = [frozenset()] * players
    open_: list[dict[Hashable, _Open]] = [{} for _ in range(players)]
    plays: list[PlayRecord] = []
    missed: list[MissedChance] = []
    timeline: list[TimelinePoint] = []
    for k, step in enumerate(steps):
        seat = step.action_seat
        if step.play and seat is not None:
            plays.append(PlayRecord(k, seat, step.t, _elapsed(changed[seat], step.t)))
        for p in range(players):
            if step.can[p] != before[p] or k == 0:
                before[p] = step.can[p]
                changed[p] = step.t
            _follow(p, k, step, open_[p], missed)
        timeline.append(TimelinePoint(k, step.t, list(step.hands), list(step.left)))
    summary = [
        SeatSummary(
            p,
            sum(1 for r in plays if r.seat == p),
            sum(1 for m in missed if m.seat == p),
            median([r.reaction_ms for r in plays if r.seat == p and r.reaction_ms is not None]),
        )
        for p in range(players)
    ]
    missed.sort(key=lambda m: (m.end, m.seat, m.start))
    return GameStudy(players, seat_names(names, players), plays, missed, timeline, summary)


# --- documents ------------------------------------------------------------------------------


def _game_study(record: AnyRecord) -> GameStudy:
    """The study of one game's record (verified first)."""
    try:
        study = get_study(record.game_name)
    except (UnknownGame, NoStudy) as exc:
        raise RecordError(str(exc), reason=getattr(exc, "code", "unknown_game")) from None
    return study(record)


def study_document(data: object) -> StudyDocument:
    """The study of any record ``blink replay`` accepts (a parsed JSON value): a game's, or
    every game of a series.

    Raises :class:`~blink.model.records.RecordError` (``reason``, ``index``) when the record
    cannot be read or does not verify, and with the reason ``no_study`` for a game without a
    study (:class:`~blink.model.registry.NoStudy`).
    """
    record = load(data)
    if isinstance(record, SeriesRecord):
        record.verify()
        games: list[AnyRecord] = list(record.games)
    else:
        games = [record]
    return StudyDocument(
        game=record.game_name,
        meta=dict(record.meta),
        games=[_game_study(g) for g in games],
    )
