"""Challenges to bot accounts (docs/bot-api.md, "Challenges"): the pure bookkeeping.

A bot account or a logged-in person challenges a named bot account; the bot accepts (the
server then opens a room with both seats reserved), declines, or lets it expire; the sender
may cancel it while it is open. :class:`ChallengeBook` keeps them in memory on the clock it is
given (the server's ``wall_clock``, a virtual one in tests): no I/O here, and a refusal is a
:class:`ChallengeError` with a stable code and one sentence. The endpoints and the room they
open are :mod:`blink.server.routes.challenges`.

Persistence: challenges are short-lived (:data:`EXPIRY` seconds) and kept in the memory of
the node that received them. A restart drops the open ones; the sender sends again.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, Literal

__all__ = [
    "EXPIRY",
    "KEPT",
    "MAX_INCOMING",
    "MAX_OPEN",
    "Challenge",
    "ChallengeBook",
    "ChallengeError",
    "Party",
    "Status",
]

EXPIRY: Final = 120.0
"""Seconds an open challenge waits for its bot before it expires."""
KEPT: Final = 300.0
"""Seconds a challenge is still listed after it closed (accepted, declined, ...), so that
its sender learns what became of it."""
MAX_OPEN: Final = 5
"""Open challenges one sender may have at once (``429 too_many_challenges``)."""
MAX_INCOMING: Final = 50
"""Open challenges one bot may be waiting on at once (``429 too_many_challenges``)."""

Status = Literal["open", "accepted", "declined", "cancelled", "expired"]
"""Where a challenge is: open, or closed one of four ways."""

_CLOSED_SENTENCES: Final[dict[str, str]] = {
    "accepted": "this challenge was accepted already",
    "declined": "this challenge was declined",
    "cancelled": "this challenge was cancelled by its sender",
    "expired": "this challenge expired before it was accepted",
}


class ChallengeError(Exception):
    """A refused challenge request: an HTTP status, a code and one sentence."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Party:
    """One side of a challenge: a profile, its name, and whether it is a bot account."""

    profile: str
    name: str
    bot: bool


@dataclass
class Challenge:
    """A challenge from ``sender`` to the bot account ``to``, with the room it asks for."""

    id: str
    sender: Party
    to: Party
    game: str
    players: int
    best_of: int
    rated: bool
    created_at: float
    expires_at: float
    ruleset: str = "official"
    status: Status = "open"
    closed_at: float | None = None
    room: str | None = None
    """The room's code, once accepted."""
    seats: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Once accepted: by profile id, the seat and what that side connects with (``seat``, and
    ``connect_with``: ``"bot_token"`` or ``"profile_secret"``; each seat is reserved by its
    profile's secret, so no token is handed out)."""

    def view(self, viewer: str) -> dict[str, Any]:
        """The challenge as ``viewer`` (one of its sides) sees it: its own seat only."""
        out: dict[str, Any] = {
            "id": self.id,
            "from": {"name": self.sender.name, "bot": self.sender.bot},
            "to": {"name": self.to.name, "bot": self.to.bot},
            "game": self.game,
            "players": self.players,
            "best_of": self.best_of,
            "ruleset": self.ruleset,
            "rated": self.rated,
            "status": self.status,
            "created_at": self.created_at,
            "expires_at": self.expires_at,
            "room": self.room,
        }
        mine = self.seats.get(viewer)
        if mine is not None:
            out.update(mine)
        return out


class ChallengeBook:
    """The open and recently closed challenges of one server, on its clock."""

    def __init__(
        self,
        clock: Callable[[], float],
        expiry: float = EXPIRY,
        max_open: int = MAX_OPEN,
        max_incoming: int = MAX_INCOMING,
        on_expired: Callable[[Challenge], None] | None = None,
    ) -> None:
        self.clock = clock
        self.on_expired = on_expired
        """Told of each challenge as it expires (the server wakes both sides' streams)."""
        self.expiry = expiry
        self.max_open = max_open
        self.max_incoming = max_incoming
        self.challenges: dict[str, Challenge] = {}

    def sweep(self) -> None:
        """Expire the open challenges past their time (each told to :attr:`on_expired`);
        forget those closed long ago."""
        now = self.clock()
        for c in list(self.challenges.values()):
            if c.status == "open" and now >= c.expires_at:
                c.status, c.closed_at = "expired", c.expires_at
                if self.on_expired is not None:
                    self.on_expired(c)
            if c.closed_at is not None and now - c.closed_at >= KEPT:
                del self.challenges[c.id]

    def _open(self) -> list[Challenge]:
        return [c for c in self.challenges.values() if c.status == "open"]

    def send(
        self,
        sender: Party,
        to: Party,
        game: str,
        players: int,
        best_of: int,
        rated: bool,
        ruleset: str = "official",
    ) -> Challenge:
        """A new open challenge. Refused: to oneself (``400 bad_challenge``), to someone not a
        bot account (``404 no_such_bot``), past the open challenges a sender or a bot may
        have (``429 too_many_challenges``)."""
        self.sweep()
        if sender.profile == to.profile:
            raise ChallengeError(400, "bad_challenge", "a bot cannot challenge itself")
        if not to.bot:
            raise ChallengeError(404, "no_such_bot", f"{to.name!r} is not a bot account")
        open_now = self._open()
        if sum(c.sender.profile == sender.profile for c in open_now) >= self.max_open:
            raise ChallengeError(
                429,
                "too_many_challenges",
                f"you have {self.max_open} open challenges: cancel one or wait for an answer",
            )
        if sum(c.to.profile == to.profile for c in open_now) >= self.max_incoming:
            raise ChallengeError(
                429, "too_many_challenges", f"{to.name} has as many open challenges as it takes"
            )
        now = self.clock()
        made = Challenge(
            secrets.token_hex(6),
            sender,
            to,
            game,
            players,
            best_of,
            rated,
            now,
            now + self.expiry,
            ruleset=ruleset,
        )
        self.challenges[made.id] = made
        return made

    def of(self, profile: str) -> tuple[list[Challenge], list[Challenge]]:
        """The challenges ``profile`` received and sent, oldest first."""
        self.sweep()
        ordered = sorted(self.challenges.values(), key=lambda c: c.created_at)
        return (
            [c for c in ordered if c.to.profile == profile],
            [c for c in ordered if c.sender.profile == profile],
        )

    def _find(self, cid: str, profile: str, side: Literal["to", "sender"]) -> Challenge:
        """The open challenge ``cid`` whose ``side`` is ``profile``: else ``404
        no_such_challenge`` (not one of the caller's), ``403 not_your_challenge`` (the other
        side's to answer) or ``409 challenge_<status>`` (closed)."""
        self.sweep()
        c = self.challenges.get(cid)
        if c is None or profile not in (c.sender.profile, c.to.profile):
            raise ChallengeError(404, "no_such_challenge", f"there is no challenge {cid!r}")
        if getattr(c, side).profile != profile:
            who = "its bot" if side == "to" else "its sender"
            raise ChallengeError(403, "not_your_challenge", f"only {who} may do that")
        if c.status != "open":
            raise ChallengeError(409, f"challenge_{c.status}", _CLOSED_SENTENCES[c.status])
        return c

    def claim(self, cid: str, profile: str) -> Challenge:
        """The open challenge ``cid`` its bot ``profile`` accepts; it is accepted at once (so a
        second accept is refused), and :meth:`opened` gives its room (or :meth:`reopen`)."""
        c = self._find(cid, profile, "to")
        c.status, c.closed_at = "accepted", self.clock()
        return c

    def opened(self, c: Challenge, room: str, seats: dict[str, dict[str, Any]]) -> None:
        """The room of an accepted challenge, and each side's seat in it."""
        c.room, c.seats = room, seats

    def reopen(self, c: Challenge) -> None:
        """An accepted challenge whose room could not be opened is open again."""
        c.status, c.closed_at = "open", None

    def decline(self, cid: str, profile: str) -> Challenge:
        """The bot ``profile`` declines challenge ``cid``."""
        c = self._find(cid, profile, "to")
        c.status, c.closed_at = "declined", self.clock()
        return c

    def cancel(self, cid: str, profile: str) -> Challenge:
        """The sender ``profile`` cancels challenge ``cid``."""
        c = self._find(cid, profile, "sender")
        c.status, c.closed_at = "cancelled", self.clock()
        return c
