"""What a room is made of: its seats and the state of its live game, for any game.

:class:`Peer` is a connection as a room sees it (the WebSocket driver's is
:class:`blink.server.conn.Conn`); :class:`Seat` a seat with its token hash, its connections and
the answers kept for repeated action ids; :class:`GameState` a live game with its sequence
numbers, resume ring, frames waiting for their commit (:class:`Pending`) and the referee's
clock. The logic that drives them is the room's (:mod:`blink.server.room.room`). Nothing here does
I/O.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from blink.model.table import LiveBot, PileTop
from blink.server.lag import LagMeter
from blink.server.protocol import SeatInfo
from blink.server.room.clock import TableClock

__all__ = [
    "ANSWERS_KEPT",
    "BotAccount",
    "GameState",
    "NoGame",
    "Peer",
    "Pending",
    "Refusal",
    "Seat",
    "draw_bot_seeds",
    "hash_token",
    "restored_bot_seeds",
    "too_slow",
]


class Refusal(NamedTuple):
    """Why an action message was refused: a stable ``code``, one sentence, and with
    ``too_slow`` the top that won the pile."""

    code: str
    message: str
    top: PileTop | None = None


def too_slow(won: PileTop) -> Refusal:
    """The refusal of a play that lost the race for a pile to ``won``."""
    return Refusal(
        "too_slow", f"too slow: pile {won.pile} changed first (its top is now {won.card})", won
    )


ANSWERS_KEPT = 256
"""Answers kept per seat for repeated action ids (a reconnecting client resends the few it had
in flight); at 1,000 games a window of 1,024 grew to about 300 MB."""


def hash_token(token: str) -> str:
    """The stored form of a seat token (SHA-256, hex)."""
    return hashlib.sha256(token.encode()).hexdigest()


class BotAccount(NamedTuple):
    """A seat held by a bot account (docs/bot-api.md): its profile and its owner's name
    (``None`` once the owning account is deleted)."""

    profile: str
    owner: str | None


class NoGame(Exception):
    """An action arrived while no game is in progress."""


class Peer(Protocol):
    """A connection as a room sees it: where it sits, and its outbox.

    ``send`` only queues (the driver writes the queue out); a room never waits on a peer. The
    room keeps the peers attached to it (``Room.conns``); which room a connection is in is its
    driver's to know (:attr:`blink.server.conn.Conn.room`)."""

    seat: int | None
    spectator: bool
    awaiting_snapshot: bool

    def send(self, frame: str) -> None:
        """Queue one frame for this connection."""
        ...


@dataclass
class Seat:
    """A seat of a room."""

    seat: int
    kind: str  # "human" or "bot"
    bot: str | None = None
    name: str | None = None
    token_hash: str | None = None
    left: bool = False
    conns: set[Peer] = field(default_factory=set)
    connected_once: bool = False
    answers: OrderedDict[str, str] = field(default_factory=OrderedDict)
    pending_ids: set[str] = field(default_factory=set)
    rematch: bool = False
    lag: LagMeter = field(default_factory=LagMeter)
    """The seat's round trip and jitter, measured by the server (any of its connections)."""
    bot_account: BotAccount | None = None
    """Set when a bot account holds the seat (a program, not a person): every view says so,
    and its plays keep the minimum reaction time in games with people."""

    @property
    def taken(self) -> bool:
        """A bot seat, or a human seat someone holds a token for."""
        return self.kind == "bot" or self.token_hash is not None

    def remember(self, msg_id: str, frame: str) -> None:
        """Keep the answer to a client action id (repeated ids get it again)."""
        self.answers[msg_id] = frame
        if len(self.answers) > ANSWERS_KEPT:
            self.answers.popitem(last=False)

    def seen(self, msg_id: str) -> bool:
        """Whether action id ``msg_id`` came before: answered (the answer is kept), or waiting
        for its commit or its race (its answer comes then)."""
        return msg_id in self.answers or msg_id in self.pending_ids

    def answer_again(self, conn: Peer, msg_id: str) -> bool:
        """A repeated action id (a client resends what it had in flight after a reconnect):
        its first answer is sent to ``conn`` again, or nothing while the action waits (its
        answer comes then). ``False``: a new id, to be judged."""
        answer = self.answers.get(msg_id)
        if answer is not None:
            conn.send(answer)
            return True
        return msg_id in self.pending_ids

    def info(self) -> SeatInfo:
        """The seat as everyone may see it (no token)."""
        return SeatInfo(
            seat=self.seat,
            kind="bot" if self.kind == "bot" else "human",
            bot=self.bot,
            name=self.name if self.kind == "human" else (self.name or f"Bot ({self.bot})"),
            taken=self.taken,
            connected=self.kind == "bot" or bool(self.conns),
            left=self.left,
            bot_account=self.bot_account is not None,
            owner=None if self.bot_account is None else self.bot_account.owner,
        )


@dataclass
class Pending:
    """An applied action waiting for its commit before its frames are sent."""

    seq: int
    frames: dict[int | None, str]
    ack_seat: int | None
    ack_id: str | None
    ack: str | None
    ended: bool
    after: list[tuple[Peer, str]] = field(default_factory=list)
    """Frames for single connections that must not overtake this action's frames (a refusal
    judged against a state that includes this action)."""


@dataclass
class GameState:
    """A live game of a room (``game`` is the engine's state, of the room's game)."""

    id: int
    number: int
    series_number: int
    game: Any
    started_wall: float
    table: TableClock
    """What the table does by itself next (the referee), and the one timer armed for it."""
    seq: int = 0
    t0: float | None = None
    """When the game's clock started (``None`` while the referee counts down to the start, or
    the game is held for its countdown): an action's time is milliseconds since then."""
    last_t: int = 0
    persisted: int = 0
    ring: deque[tuple[int, dict[int | None, str]]] = field(default_factory=deque)
    pending: deque[Pending] = field(default_factory=deque)
    actions_by_seat: list[int] = field(default_factory=list)
    bots: list[LiveBot] = field(default_factory=list)
    bot_seeds: list[int | None] = field(default_factory=list)
    """Each seat's bot seed (``None`` for a person's seat), stored with the game (the bots
    start after a held countdown)."""
    ended_sent: bool = False
    end_msg: Any = None
    """The ``game_end`` frame once sent (sent again, marked ``again``, on resume/resync)."""
    next_at: float | None = None
    """When the next game of the series starts (settings clock), once this game has ended."""

    @property
    def timer(self) -> Any:
        """The timer armed at the referee's deadline (``None``: none armed)."""
        return self.table.handle


def draw_bot_seeds(seats: list[Seat], fixed: int | None = None) -> list[int | None]:
    """The seeds for the bots of a new game, one per seat (``None`` for a person's): fresh,
    from the operating system's randomness (:mod:`secrets`), so that nothing about the deal
    tells them; or, for a room whose every game is one fixed deal (``fixed``, its secret seed:
    the daily challenge), drawn from that seed, so that everyone who plays the deal meets the
    same bot."""
    if fixed is None:
        return [secrets.randbits(63) if s.kind == "bot" else None for s in seats]
    rng = random.Random(f"bots:{fixed}")
    return [rng.getrandbits(63) if s.kind == "bot" else None for s in seats]


def restored_bot_seeds(
    seats: list[Seat], stored: list[int | None] | None, deal_seed: int | None
) -> list[int | None]:
    """The bot seeds of a restored game: those stored with it. A game stored before games
    kept them (``stored`` is ``None``) gets them as restores derived them then: a base
    (``deal_seed`` when set, else random) plus ``1000 * (seat + 1)``."""
    if stored is not None and len(stored) == len(seats):
        return list(stored)
    base = secrets.randbits(32) if deal_seed is None else deal_seed
    return [base + 1000 * (s.seat + 1) if s.kind == "bot" else None for s in seats]
