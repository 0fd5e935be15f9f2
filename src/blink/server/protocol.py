"""Protocol messages (version 1): decoding client frames and encoding server frames.

The decoder is strict and total: any input either becomes one of the client message values or
raises :class:`ProtocolError` with a stable code. It never touches server state. The encoders
turn engine events and player views (already redacted for their receiver) into JSON objects.
See docs/protocol.md.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Final

import msgspec

from blink.cards import Card, CardError, parse_card
from blink.games.classic.wire import (
    card_text,
    event_to_wire,
    outcome_to_wire,
    view_to_wire,
)

__all__ = [
    "PROTOCOL",
    "ChooseMsg",
    "ClientMessage",
    "Hello",
    "Leave",
    "Ping",
    "PlayMsg",
    "ProtocolError",
    "Rematch",
    "Resync",
    "card_text",
    "decode",
    "dumps",
    "event_to_wire",
    "outcome_to_wire",
    "view_to_wire",
]

PROTOCOL: Final = 1
MAX_ID: Final = 64
MAX_ROOM: Final = 16
MAX_TOKEN: Final = 128


class ProtocolError(ValueError):
    """A client frame that cannot be handled: ``code`` is stable, ``message`` is for people."""

    def __init__(self, code: str, message: str, msg_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.msg_id = msg_id


@dataclass(frozen=True, slots=True)
class Hello:
    """The first message of a connection."""

    protocol: int
    room: str
    token: str | None = None
    spectate: bool = False
    game: int | None = None
    last_seq: int | None = None


@dataclass(frozen=True, slots=True)
class PlayMsg:
    """Play ``card`` on ``pile``."""

    id: str
    card: Card
    pile: int


@dataclass(frozen=True, slots=True)
class ChooseMsg:
    """Choose ``card`` in a choosing stall."""

    id: str
    card: Card


@dataclass(frozen=True, slots=True)
class Rematch:
    """Vote for a new series once the series is over."""

    id: str | None = None


@dataclass(frozen=True, slots=True)
class Leave:
    """Give up the seat."""

    id: str | None = None


@dataclass(frozen=True, slots=True)
class Resync:
    """Ask for a fresh snapshot."""


@dataclass(frozen=True, slots=True)
class Ping:
    """A latency probe; ``t`` is echoed."""

    t: float | int | None = None


ClientMessage = Hello | PlayMsg | ChooseMsg | Rematch | Leave | Resync | Ping


def _int(d: dict[str, Any], key: str, lo: int, hi: int, required: bool = True) -> int | None:
    v = d.get(key)
    if v is None:
        if required:
            raise ProtocolError("bad_field", f"{key!r} is required (an integer)", _peek_id(d))
        return None
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise ProtocolError(
            "bad_field", f"{key!r} must be an integer from {lo} to {hi}", _peek_id(d)
        )
    return v


def _str(d: dict[str, Any], key: str, limit: int, required: bool = True) -> str | None:
    v = d.get(key)
    if v is None:
        if required:
            raise ProtocolError("bad_field", f"{key!r} is required (a string)", _peek_id(d))
        return None
    if not isinstance(v, str) or not 1 <= len(v) <= limit:
        raise ProtocolError(
            "bad_field", f"{key!r} must be a string of 1 to {limit} characters", _peek_id(d)
        )
    return v


def _req_str(d: dict[str, Any], key: str, limit: int) -> str:
    v = _str(d, key, limit)
    if v is None:  # pragma: no cover - _str raises for a missing required field
        raise ProtocolError("bad_field", f"{key!r} is required", _peek_id(d))
    return v


def _req_int(d: dict[str, Any], key: str, lo: int, hi: int) -> int:
    v = _int(d, key, lo, hi)
    if v is None:  # pragma: no cover - _int raises for a missing required field
        raise ProtocolError("bad_field", f"{key!r} is required", _peek_id(d))
    return v


def _peek_id(d: dict[str, Any]) -> str | None:
    v = d.get("id")
    return v if isinstance(v, str) and 1 <= len(v) <= MAX_ID else None


def _card(d: dict[str, Any]) -> Card:
    text = _req_str(d, "card", 32)
    try:
        return parse_card(text)
    except CardError as exc:
        raise ProtocolError("bad_card", str(exc), _peek_id(d)) from None


def decode(frame: str | bytes) -> ClientMessage:
    """Decode one client frame; raise :class:`ProtocolError` for anything malformed."""
    if isinstance(frame, bytes):
        try:
            frame = frame.decode("utf-8")
        except UnicodeDecodeError:
            raise ProtocolError("bad_json", "frames must be UTF-8 JSON text") from None
    try:
        d = json.loads(frame)
    except (ValueError, RecursionError):
        raise ProtocolError("bad_json", "the message is not valid JSON") from None
    if not isinstance(d, dict):
        raise ProtocolError("not_object", "a message must be a JSON object with a 'type'")
    kind = d.get("type")
    if kind == "play":
        mid = _req_str(d, "id", MAX_ID)
        return PlayMsg(mid, _card(d), _req_int(d, "pile", 0, 2))
    if kind == "choose":
        return ChooseMsg(_req_str(d, "id", MAX_ID), _card(d))
    if kind == "ping":
        t = d.get("t")
        if t is not None and (isinstance(t, bool) or not isinstance(t, int | float)):
            raise ProtocolError("bad_field", "'t' must be a number")
        if isinstance(t, float) and not math.isfinite(t):
            raise ProtocolError("bad_field", "'t' must be a finite number")
        if isinstance(t, int) and abs(t) > 2**53:
            raise ProtocolError("bad_field", "'t' is too large")
        return Ping(t)
    if kind == "hello":
        protocol = d.get("protocol")
        if not isinstance(protocol, int) or isinstance(protocol, bool):
            raise ProtocolError("bad_field", "'protocol' is required (an integer)")
        room = _req_str(d, "room", MAX_ROOM)
        token = _str(d, "token", MAX_TOKEN, required=False)
        spectate = d.get("spectate", False)
        if not isinstance(spectate, bool):
            raise ProtocolError("bad_field", "'spectate' must be true or false")
        game = _int(d, "game", 0, 2**53, required=False)
        last_seq = _int(d, "last_seq", 0, 2**53, required=False)
        return Hello(protocol, room.upper(), token, spectate, game, last_seq)
    if kind == "rematch":
        return Rematch(_str(d, "id", MAX_ID, required=False))
    if kind == "leave":
        return Leave(_str(d, "id", MAX_ID, required=False))
    if kind == "resync":
        return Resync()
    if kind is None:
        raise ProtocolError("unknown_type", "the message has no 'type'")
    shown = kind if isinstance(kind, str) and len(kind) <= 20 else "?"
    raise ProtocolError(
        "unknown_type",
        f"unknown message type {shown!r} (hello, play, choose, rematch, leave, resync, ping)",
        _peek_id(d),
    )


# --- encoding ------------------------------------------------------------------------------


_ENCODE = msgspec.json.Encoder().encode


def dumps(obj: dict[str, Any]) -> str:
    """Compact JSON for the wire (msgspec: several times faster than the standard library)."""
    return _ENCODE(obj).decode()
