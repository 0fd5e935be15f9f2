"""The types every game shares, and the shape of a game definition.

A game is a package under :mod:`blink.games` with a pure engine and a *definition*: data about
the game (:class:`GameInfo`) plus pure functions over the engine's state (:class:`GameDefinition`).
Everything above the engines (the server, the terminal clients, the simulator, the bots'
drivers, replays, ratings and the command line) works through a definition that it gets from
:mod:`blink.model.registry`, never through a game's name.

The pieces shared by every game live here: one :class:`IllegalAction` for every refusal, one
:class:`Outcome` whose ``reason`` is a :class:`Termination`, and the referee's vocabulary
(:class:`Timer`, :class:`Timings`, :class:`Pending`): what a game does by itself next, and
after which of the driver's delays.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any, Final, Generic, NamedTuple, Protocol, TypeVar

from blink.cards import Card

__all__ = [
    "COUNTDOWN",
    "GameDefinition",
    "GameInfo",
    "GameState",
    "IllegalAction",
    "Outcome",
    "Pending",
    "ReasonCode",
    "RefereeClock",
    "Termination",
    "Timer",
    "Timings",
]


class ReasonCode(Protocol):
    """A game's refusal reason: an enum member whose value is a stable code for machines."""

    @property
    def value(self) -> str:
        """The stable code, such as ``"card_not_in_hand"``."""
        ...


class IllegalAction(ValueError):
    """A refused action, in every game.

    ``reason`` is the game's reason enum member (its ``value`` is the stable code sent on the
    wire); ``str(exc)`` is one sentence for people. The state is unchanged when it is raised.
    """

    def __init__(
        self,
        reason: ReasonCode,
        message: str,
        *,
        template: str = "",
        subjects: Mapping[str, Card | int | tuple[int, ...]] | None = None,
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.template = template
        """The sentence with a ``{name}`` where each of ``subjects`` goes ("" when none)."""
        self.subjects: Mapping[str, Card | int | tuple[int, ...]] = dict(subjects or {})
        """What the sentence is about: cards, and piles (numbers as the engine counts them)."""

    def render(self, card: Callable[[Card], str], pile: Callable[[int], str]) -> str:
        """The sentence with each card named by ``card`` and each pile by ``pile`` (a client's
        own words for them, such as a card's long name); ``message`` when it has no subjects."""
        if not self.template:
            return self.message
        names: dict[str, str] = {}
        for key, value in self.subjects.items():
            if isinstance(value, Card):
                names[key] = card(value)
            elif isinstance(value, tuple):
                names[key] = " and ".join(pile(p) for p in value)
            else:
                names[key] = pile(value)
        text = self.template.format(**names)
        return text[:1].upper() + text[1:]

    @property
    def code(self) -> str:
        """The stable machine-readable code (``reason.value``)."""
        return self.reason.value


class Termination(StrEnum):
    """Why a game ended: the base of every game's own enum of end reasons.

    A game declares its reasons as a subclass (classic Blink's ``ClassicEnd``, Go Blink's
    ``GoEnd``), named in its :attr:`GameInfo.ends`; the values are stable codes, used on the
    wire and in records. Two games may share a code (``fewest_cards``): members compare equal
    to their codes, so a driver compares a reason with a code and never needs the enum.
    """


class Outcome(NamedTuple):
    """How a game ended. More than one winner is a tie between them."""

    winners: tuple[int, ...]
    reason: Termination

    @property
    def is_tie(self) -> bool:
        """True when several players share the result."""
        return len(self.winners) > 1

    @property
    def winner(self) -> int | None:
        """The single winner, or ``None`` for a tie."""
        return self.winners[0] if len(self.winners) == 1 else None

    @classmethod
    def of(cls, winners: Sequence[int], reason: str, ends: type[Termination]) -> Outcome:
        """An outcome from plain data (a record, the wire), its ``reason`` one of the game's
        ``ends``; raises ``ValueError`` if unknown."""
        try:
            termination = ends(reason)
        except ValueError:
            known = ", ".join(t.value for t in ends)
            raise ValueError(f"unknown end of game {reason!r} (known: {known})") from None
        return cls(tuple(int(w) for w in winners), termination)


# --- the referee -----------------------------------------------------------------------------


class Timer(Enum):
    """Which of a driver's delays a pending step waits for."""

    COUNTDOWN = "countdown"
    """From the deal to the reveal."""
    STALL_PAUSE = "stall_pause"
    """From a stall until the game breaks it by itself (a flip)."""
    CHOICE_DEADLINE = "choice_deadline"
    """From a stall that needs choices until defaults are taken for those who did not choose."""
    TURN = "turn"
    """From the start of a player's turn until the default action is taken for them."""


COUNTDOWN: Final = 3.0
"""A live table's countdown (seconds from the deal to the first move) unless its game states
another: the one statement of it, which the games' timings, ``blink play`` and the terminal
table take."""


@dataclass(frozen=True, slots=True)
class Timings:
    """A driver's delays, in seconds, one per :class:`Timer`. ``None``: wait for ever.

    Each game states the delays of the timers its referee uses (:attr:`GameInfo.timings`:
    classic Blink its stall pause and choice deadline, Go Blink its turn time); a driver may
    give its own instead (:meth:`updated`)."""

    countdown: float | None = COUNTDOWN
    stall_pause: float | None = None
    choice_deadline: float | None = None
    turn: float | None = None

    def of(self, timer: Timer) -> float | None:
        """The delay for ``timer``."""
        delay: float | None = getattr(self, timer.value)
        return delay

    def updated(
        self,
        countdown: float | None = None,
        stall_pause: float | None = None,
        choice_deadline: float | None = None,
        turn: float | None = None,
    ) -> Timings:
        """These delays with each one given (not ``None``) in its place: a driver's own
        settings over a game's defaults."""
        return Timings(
            self.countdown if countdown is None else countdown,
            self.stall_pause if stall_pause is None else stall_pause,
            self.choice_deadline if choice_deadline is None else choice_deadline,
            self.turn if turn is None else turn,
        )


class Pending(NamedTuple):
    """What the game does by itself next unless a player acts first: the referee's answer.

    A driver starts ``timer``'s delay when it first sees a pending step with a new ``key``;
    when the delay has passed and the referee still answers with the same ``key``, it applies
    ``actions`` in order, each on behalf of its seat (``seat`` of the action, ``None`` for the
    table). ``actions`` are the ones due *now*; a driver asks again when the time comes.
    """

    key: tuple[object, ...]
    """Identifies this wait: the deadline runs from the first time a driver sees it."""
    timer: Timer
    actions: tuple[tuple[int | None, Any], ...]
    """``(seat, action)`` pairs: the seat the action is taken for (``None``: the table)."""


@dataclass
class RefereeClock:
    """The referee's deadline for one game, kept the same way by every driver.

    Call :meth:`update` with the time after every change: a pending step with a new key starts
    its timer's delay then; :attr:`deadline` is when its actions are due (``None``: never, or
    nothing pending). :meth:`due` says whether that time has come. Pure: the driver brings the
    time (a real clock, a virtual one, a paused one).
    """

    definition: GameDefinition[Any, Any, Any, Any]
    timings: Timings = field(default_factory=Timings)
    key: tuple[object, ...] | None = None
    deadline: float | None = None

    def update(self, state: Any, now: float) -> Pending | None:
        """Ask the referee; start a new deadline when its key is new. The pending step."""
        pending = self.definition.referee(state)
        if pending is None:
            self.key = self.deadline = None
            return None
        if pending.key != self.key:
            self.key = pending.key
            delay = self.timings.of(pending.timer)
            self.deadline = None if delay is None else now + delay
        return pending

    def due(self, now: float) -> bool:
        """True when a pending step's deadline has passed."""
        return self.deadline is not None and now >= self.deadline

    def shift(self, seconds: float) -> None:
        """Move the deadline later (a pause)."""
        if self.deadline is not None:
            self.deadline += seconds


# --- the definition --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameInfo:
    """Facts about a game that drivers, clients and forms need, stated once."""

    name: str
    """The registry name, also stored in records and rooms."""
    title: str
    """The name people read."""
    version: int
    """Bumped when the rules or a codec change in a way records must know about."""
    min_players: int
    max_players: int
    default_players: int
    real_time: bool
    """True for a race (any seat may act at any time), False for a turn-based game."""
    options: Mapping[str, str] = field(default_factory=dict)
    """Option names this game's :meth:`GameDefinition.new` accepts, with one line each."""
    ends: type[Termination] = Termination
    """The game's own end reasons (an enum subclassing :class:`Termination`)."""
    timings: Timings = Timings()
    """The game's own delays for the timers its referee uses (drivers' defaults)."""

    def check_players(self, players: object) -> int:
        """``players`` if this game can be played by that many, else ``ValueError``."""
        if (
            not isinstance(players, int)
            or isinstance(players, bool)
            or not self.min_players <= players <= self.max_players
        ):
            raise ValueError(f"{self.title} is for {self.player_range} players, not {players!r}")
        return players

    def check_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """``options`` as a dict if this game knows every one, else ``ValueError`` naming them."""
        opts = dict(options or {})
        unknown = set(opts) - set(self.options)
        if unknown:
            raise ValueError(
                f"unknown option {sorted(unknown)[0]!r} for {self.title} "
                f"(known: {', '.join(self.options) or 'none'})"
            )
        return opts

    @property
    def player_range(self) -> str:
        """The player range for people: "2 or 3", "2 to 6"."""
        lo, hi = self.min_players, self.max_players
        if lo == hi:
            return str(lo)
        return f"{lo} {'or' if hi == lo + 1 else 'to'} {hi}"


class GameState(Protocol):
    """What every engine's game object offers (the definition's functions take one)."""

    @property
    def players(self) -> int:
        """How many seats."""
        ...

    @property
    def over(self) -> bool:
        """True once the game has ended."""
        ...

    @property
    def outcome(self) -> Outcome | None:
        """How it ended, once it has."""
        ...

    @property
    def deck(self) -> tuple[Card, ...]:
        """The deal's deck order, top card first."""
        ...

    def snapshot(self) -> tuple[object, ...]:
        """A value capturing the whole state, for equality checks."""
        ...


S = TypeVar("S", bound=GameState)
A = TypeVar("A")
E = TypeVar("E")
V = TypeVar("V")


class GameDefinition(Protocol, Generic[S, A, E, V]):
    """One game, as data plus pure functions over its engine's state.

    Every function is pure apart from :meth:`apply`, which changes ``state`` only when the
    action is legal: it checks everything first and raises :class:`IllegalAction` with the
    state unchanged otherwise.
    """

    info: GameInfo

    def new(
        self,
        players: int,
        seed: int | str | None = None,
        *,
        deck: Sequence[Card] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> S:
        """A new game for ``players``: the standard deck shuffled by ``seed``, or ``deck``."""
        ...

    def reach(self, players: int, seat: int) -> tuple[int, ...]:
        """The piles ``seat`` may play on (empty for a game without shared piles)."""
        ...

    def legal_actions(self, state: S, seat: int) -> list[A]:
        """Every decision ``seat`` may take now: plays, choices, asks, lay-downs, ends."""
        ...

    def apply(self, state: S, action: A, t: int | None = None) -> list[E]:
        """Apply ``action`` (``t``: ms since the start, for the record); the events it caused."""
        ...

    def referee(self, state: S) -> Pending | None:
        """What the game does by itself next (``None``: nothing, players must act)."""
        ...

    def view(self, state: S, seat: int | None) -> V:
        """What ``seat`` may know (``None``: a spectator)."""
        ...

    def redact(self, event: E, viewer: int | None) -> E:
        """``event`` as ``viewer`` may see it: what they may not know is removed (every
        driver sends a receiver only what this leaves)."""
        ...

    def seat_of(self, action: A) -> int | None:
        """The seat that takes ``action`` (``None``: the table, such as a flip)."""
        ...

    def action_to_wire(self, action: A) -> dict[str, Any]:
        """A JSON-ready form of ``action``."""
        ...

    def action_from_wire(self, data: Mapping[str, Any]) -> A:
        """The inverse of :meth:`action_to_wire`; ``ValueError`` naming what is wrong."""
        ...

    def event_to_wire(self, event: E) -> dict[str, Any] | None:
        """A JSON-ready form of ``event`` (``None``: not sent)."""
        ...

    def view_to_wire(self, view: V, full: bool = True) -> dict[str, Any]:
        """A JSON-ready form of ``view`` (``full``: with everything a snapshot needs; else
        what an update needs, which may be the same)."""
        ...

    def hidden_cards(self, state: S, viewer: int | None) -> frozenset[Card]:
        """The cards ``viewer`` may not see now (another hand, a draw pile, a secret choice)."""
        ...

    def history(self, state: S) -> Sequence[tuple[A, int | None]]:
        """Every accepted action with its time, in order: replaying them rebuilds the state."""
        ...

    def options_of(self, state: S) -> Mapping[str, Any]:
        """The options ``state`` was dealt with: ``new(players, deck=state.deck, options=...)``
        with them deals the same game."""
        ...

    @property
    def record_codec(self) -> Any:
        """The game's :class:`blink.model.records.RecordCodec` (records of it load through it)."""
        ...

    def replay(self, record: Any) -> dict[str, Any]:
        """A verified record laid out step by step for a replay viewer (a ``Game`` of
        docs/protocol.md's replay document)."""
        ...
