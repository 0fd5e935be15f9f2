"""What a live table needs of a game beyond its rules: its client messages, its frames, its bots.

A game's :class:`Table` is how a server room (or any other live driver) runs the game without
knowing which game it is: the messages a player sends to act, declared once as msgspec Structs
with their limits; how one becomes an action of the game; the room options it is opened with;
whether a new game is held for a countdown; the figures shown when a game ends; and its bots.
What a receiver may see of a view or an event is the rules' (the definition's ``view``,
``redact`` and ``view_to_wire``), never restated here. A game's :class:`~blink.model.game.Game`
names its table.

Nothing here does I/O. A live bot (:meth:`Table.live_bot`) runs on the driver's event loop: it
is a driver part the game provides, as its engine is the rules part.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, Final, Protocol

import msgspec

__all__ = [
    "MAX_ID",
    "BadMessage",
    "CardText",
    "LiveBot",
    "MsgId",
    "PileTop",
    "Table",
]

MAX_ID: Final = 64
"""The longest client message id."""

MsgId = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ID)]
"""A client's id for one of its actions (answered once, and again when repeated)."""

CardText = Annotated[str, msgspec.Meta(min_length=1, max_length=32)]
"""A card in the notation of :mod:`blink.cards` (``"5OS"``)."""


class BadMessage(ValueError):
    """A well-formed message that does not name an action of the game (a card that does not
    exist, a value no card has): ``code`` is stable, ``message`` is one sentence for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class PileTop(msgspec.Struct, frozen=True):
    """The top of a center pile that won a race: the pile, its top card in the game's
    notation and its version (see :meth:`Table.lost_race`)."""

    pile: int
    card: str
    version: int


class LiveBot(Protocol):
    """A bot playing one seat in real time on the driver's event loop."""

    def start(self) -> None:
        """Begin (it acts when the game lets it)."""

    def notify(self) -> None:
        """The game changed."""

    def stop(self) -> None:
        """Stop for good."""


class Table(Protocol):
    """A game as a live table runs it (see the module docstring)."""

    messages: tuple[type[msgspec.Struct], ...]
    """The game's action messages: msgspec Structs tagged by ``type``, each with an ``id``."""

    def action_of(self, message: Any, seat: int) -> Any:
        """The action ``message`` (one of :attr:`messages`) asks for on behalf of ``seat``.

        Raises :class:`BadMessage` when it names nothing of the game."""
        ...

    def lost_race(self, message: Any, view: Any, refusal: Exception) -> PileTop | None:
        """Whether ``message``, refused with ``refusal`` (the definition's ``IllegalAction``)
        in the actor's current ``view``, lost a race: it named a version of a pile older than
        the pile's now, and the top that covered the one it saw is why it does not fit. Then
        the pile's top as it is now (the room answers ``too_slow``); else ``None`` (a game
        without racing piles always answers ``None``)."""
        ...

    def room_options(self, requested: Mapping[str, Any], players: int) -> dict[str, Any]:
        """The options a room of ``players`` seats is opened with, checked, as JSON-ready
        values; ``requested`` holds what its creator asked for. Raises ``ValueError``."""
        ...

    def deal_options(self, room: Mapping[str, Any], number: int, players: int) -> dict[str, Any]:
        """The definition's ``new`` options for game ``number`` (from 1) of a series in a room
        opened with ``room`` (:meth:`room_options`)."""
        ...

    def countdown(self, seconds: float) -> float | None:
        """How long a live table holds a newly dealt game before anyone may act, given the
        driver's countdown of ``seconds``. ``None``: no hold, because the game counts down by
        itself (its referee waits on :attr:`~blink.model.base.Timer.COUNTDOWN` before its
        first action, as classic Blink's reveal) or starts at once."""
        ...

    def figures(self, state: Any, actions_by_seat: list[int], duration_ms: int) -> dict[str, Any]:
        """What the end of a game shows (plays, duration and the like), as JSON; the room
        counted each seat's actions and the game's duration (its last action's time)."""
        ...

    @property
    def default_bot(self) -> str | None:
        """The bot a quick game is played against (``None``: the game has no bots)."""
        ...

    def bot_names(self) -> list[str]:
        """The bots a seat may hold (empty when the game has none, or they are unavailable)."""
        ...

    def check_bot(self, spec: str, players: int | None = None) -> str:
        """``spec`` normalised; :class:`BadMessage` (``bad_bot``, ``bots_unavailable``), also
        for a bot that cannot play a table of ``players`` seats (when given)."""
        ...

    def bot_title(self, spec: str) -> str:
        """The bot ``spec``'s name for people (such as "Expert blocking bot"), from the bots'
        registry; :class:`BadMessage` (``bad_bot``, ``bots_unavailable``)."""
        ...

    def warm_bots(self) -> None:
        """Load now whatever the game's bots load on their first decision (compiled code), so
        that a live table's first bot decision does not wait for it: the server calls it in a
        worker thread when it starts (``Settings.warm_bots``). Nothing to do for most games."""
        ...

    def bot_info(self) -> dict[str, Any]:
        """What the game's bots are, as JSON for the clients (``/api/options``: each bot with
        its description, the default one); empty when the game has none."""
        ...

    def bot_rating(self, spec: str) -> float:
        """The fixed rating (OpenSkill ``mu``) of a seat played by the bot ``spec`` in a rated
        game (:func:`blink.ratings.game_bot_rating`); :class:`BadMessage` (``bad_bot``)."""
        ...

    def live_bot(
        self,
        spec: str,
        seat: int,
        seed: int,
        view: Callable[[], Any],
        submit: Callable[[Any], None],
        clock: Callable[[], float],
        pace: float,
    ) -> LiveBot:
        """A bot for ``seat`` (not started): it reads ``view()``, acts with ``submit(action)``
        (which raises the definition's ``IllegalAction`` when refused), and waits at least
        ``pace`` seconds before each action when the game is turn-based."""
        ...
