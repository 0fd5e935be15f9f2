"""The one bot interface used everywhere: the simulator, the server and the terminal client.

A bot sees only its player's :class:`~blink.games.classic.engine.PlayerView`. Each time that view
changes
(and at the reveal, and when a stall asks for a choice) the driver calls :meth:`Bot.plan`; the
bot answers with an :class:`Intent` (what it will do and how long after the moment of the view
it will act) or ``None`` (nothing to do now). A driver keeps at most one pending intent per bot
and replaces it with the answer of every new call, so a play planned on a pile that has since
changed is re-judged by the bot rather than sent blindly.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol, runtime_checkable

from blink.games.classic.engine import Choose, Play, PlayerView

__all__ = ["Bot", "BotConfigError", "Intent"]


class Intent(NamedTuple):
    """What a bot will do and when: ``delay`` seconds after the moment of the view.

    ``action`` is a :class:`~blink.games.classic.engine.Play` or a
    :class:`~blink.games.classic.engine.Choose`; a bot
    never flips or reveals (the game, the server or the simulator does that).
    """

    action: Play | Choose
    delay: float


@runtime_checkable
class Bot(Protocol):
    """A bot playing one seat. Implementations are deterministic for a given seed.

    ``plan(view)`` is called every time the bot's view changes. The bots of this package also
    accept ``plan(view, now)`` where ``now`` is the time of the view in seconds on the driver's
    clock (virtual time in the simulator, the event loop's clock live); with it a plan that the
    change did not affect keeps its original due time instead of starting over.
    """

    seat: int

    def plan(self, view: PlayerView) -> Intent | None:
        """What to do next from ``view`` and after how long, or ``None`` for nothing now."""
        ...


class BotConfigError(ValueError):
    """An unknown bot level or strategy, or a malformed bot spec.

    ``field`` names what was wrong (``level``, ``strategy``, ``spec``, ``speed``, or
    ``players``: a table the bot cannot play) and
    ``allowed`` lists the accepted values; ``str(exc)`` is a sentence for a person.
    """

    def __init__(self, message: str, field: str = "spec", allowed: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.field = field
        self.allowed = allowed
        self.reason = f"unknown_{field}" if allowed else f"bad_{field}"
