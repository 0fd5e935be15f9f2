"""The errors a tournament raises: a refused operation changes nothing and says why."""

from __future__ import annotations

__all__ = [
    "AbsenceError",
    "CheckInError",
    "CorrectionError",
    "DrawError",
    "FieldError",
    "GameError",
    "MatchDecidedError",
    "MatchNotReadyError",
    "NotInMatchError",
    "ResultError",
    "TournamentError",
    "UndoError",
    "UnknownMatchError",
]


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


class AbsenceError(TournamentError):
    """A withdrawal or a forfeit that cannot be: the player is out already, the match is not
    being played, the tournament is over."""

    code = "cannot-withdraw"


class CorrectionError(TournamentError):
    """A correction that cannot be made (no such game, or a later match uses the result)."""

    code = "bad-correction"


class CheckInError(TournamentError):
    """Check-in refused: not open, already drawn, or too few players checked in."""

    code = "check-in"


class GameError(TournamentError):
    """The tournament's game cannot be played as asked: it is not registered
    (``unknown-game``), its player range has no room for a tournament's matches
    (``match-size``), or it has no deal rules for a handicap (``no-deals``)."""

    code = "unknown-game"
