"""What a study is made of and what it says: the :class:`Step` values a game lays its record
out as, and the :class:`GameStudy` that :func:`blink.model.study.analyse` makes of them.

Plain data, apart from the analysis (:mod:`blink.model.study`), so that a game's description
(:mod:`blink.model.game`) can name a study's result without importing the records and the
registry the analysis reads. Pure.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, Final

import msgspec

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
]

STUDY_FORMAT: Final = "blink-study"
STUDY_VERSION: Final = 1


# --- what a game gives ------------------------------------------------------------------------


@dataclass(frozen=True)
class Chance:
    """Cards a seat holds that fit one pile (or make one match) now: ``key`` names the chance
    (the pile and its top card: a new top is a new chance), ``cards`` the cards that fit."""

    key: Hashable
    cards: tuple[str, ...]
    pile: int | None = None


@dataclass(frozen=True)
class Step:
    """The table after the deal (``action_seat`` ``None``) or after one action of a record.

    ``can[p]``: everything seat ``p`` could do now (any hashable values; a reaction is timed
    from its last change). ``chances[p]``: the chances seat ``p`` has now. ``play``: whether the
    action is a play (a move with a reaction time); ``takes``: whether it closes its seat's
    chances without missing them (its own play). ``hands`` and ``left``: every seat's hand
    size and the cards it still has to get rid of (its hand and its draw pile).
    """

    t: int | None
    action_seat: int | None
    play: bool
    takes: bool
    can: tuple[frozenset[Hashable], ...]
    chances: tuple[tuple[Chance, ...], ...]
    hands: tuple[int, ...]
    left: tuple[int, ...]


# --- what the study says ----------------------------------------------------------------------


class PlayRecord(msgspec.Struct, frozen=True):
    """One play: the step it made (the replay's frame), its seat, its time and its reaction
    (ms since the last change of what the seat could do; ``None`` without times)."""

    step: int
    seat: int
    t: int | None
    reaction_ms: int | None


class MissedChance(msgspec.Struct, frozen=True):
    """A chance seat ``seat`` let go: from step ``start`` (when its cards began to fit) to step
    ``end`` (the action that took the chance away), ``cards`` fitting ``pile`` meanwhile;
    ``duration_ms`` how long it lasted (``None`` without times)."""

    seat: int
    start: int
    end: int
    start_t: int | None
    end_t: int | None
    duration_ms: int | None
    cards: list[str]
    pile: int | None


class TimelinePoint(msgspec.Struct, frozen=True):
    """Both hands at one step: each seat's hand size and cards left to get rid of."""

    step: int
    t: int | None
    hands: list[int]
    left: list[int]


class SeatSummary(msgspec.Struct, frozen=True):
    """One seat's game in figures: its plays, its missed chances, its median reaction."""

    seat: int
    plays: int
    missed: int
    median_reaction_ms: int | None


class GameStudy(msgspec.Struct, frozen=True):
    """One game studied (see the module's docstring)."""

    players: int
    names: list[str]
    plays: list[PlayRecord]
    missed: list[MissedChance]
    timeline: list[TimelinePoint]
    summary: list[SeatSummary]


class StudyDocument(msgspec.Struct, frozen=True):
    """The answer of ``GET /api/games/{id}/study``: one :class:`GameStudy` per game."""

    game: str
    meta: dict[str, Any]
    games: list[GameStudy]
    format: str = STUDY_FORMAT
    version: int = STUDY_VERSION
