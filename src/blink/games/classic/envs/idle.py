"""The environments' inactivity rule for classic Blink: a game no one plays in ends.

At a table a seat that never plays is no problem for the others: they play on, and the referee
breaks every stall by itself (a flip after its pause, default choices at its deadline). But a
position where someone *could* play is not a stall, so when every seat able to play waits,
nothing ever happens again. The environments give such a game a bounded virtual time: when
the table has not changed (no card played, refilled, flipped or placed) for ``idle_seconds``
while the race is on, the game ends there and the fewest cards left (hand and draw pile) win,
shared on a tie (the engine's :meth:`~blink.games.classic.engine.ClassicGame.end_by_fewest_cards`,
the dead-end ruleset's way of deciding). See docs/envs.md.
"""

from __future__ import annotations

from typing import Any, Final

from blink.games.classic.actions import Phase

__all__ = ["DEFAULT_IDLE_SECONDS", "IdleRule", "check_idle_seconds"]

DEFAULT_IDLE_SECONDS: Final = 10.0
"""Virtual seconds a racing table may stay unchanged before the game ends (the referee's own
delay for a choosing stall's missing choices)."""

_EPSILON: Final = 1e-9  # steps of 0.1 s add up to 9.999999999999998


def check_idle_seconds(value: float | None) -> float | None:
    """``value`` if it is a positive number of seconds or ``None`` (never), else ``ValueError``."""
    if value is not None and not value > 0:
        raise ValueError(f"idle_seconds is a positive time or None, not {value!r}")
    return value


class IdleRule:
    """Ends a game whose racing table has not changed for ``seconds`` (``None``: never).

    Call :meth:`start` at the reveal and :meth:`check` after every step, with the virtual time.
    """

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.since = 0.0
        """When the table last changed (virtual seconds)."""
        self.seen = 0
        """The engine's event count then."""
        self.ended = False
        """True once this rule has ended the game."""

    def start(self, state: Any, now: float) -> None:
        """A new game, revealed at ``now``."""
        self.since = now
        self.seen = len(state.events)
        self.ended = False

    def check(self, state: Any, now: float) -> list[Any]:
        """At ``now``: restart the wait when the table changed since the last call, or end the
        game when it has not for ``seconds`` while racing. The engine's events (the end)."""
        count = len(state.events)
        if count != self.seen:
            self.seen = count
            self.since = now
            return []
        seconds = self.seconds
        if (
            seconds is None
            or state.phase is not Phase.PLAYING
            or now - self.since < seconds - _EPSILON
        ):
            return []
        self.ended = True
        found: list[Any] = state.end_by_fewest_cards()
        self.seen = len(state.events)
        return found
