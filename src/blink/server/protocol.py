"""The game protocol (version 1): every client message and server frame, declared once.

Client messages are msgspec Structs tagged by ``type``, with their limits. The messages every
room understands are here (``hello``, ``ping``, ``resync``, ``rematch``, ``leave``); a game's
action messages are its table's (:attr:`blink.model.table.Table.messages`). :func:`decode`
turns a frame into one of them or raises :class:`ProtocolError` with a stable code: it is
total, touches no state, and refuses what cannot be encoded again (an unpaired surrogate in a
string is malformed JSON text to msgspec), so nothing a client sends can fail later, once a
room has changed.

Server frames are Structs too (:class:`Update`, :class:`Snapshot`, ...), encoded by
:func:`encode`. :func:`protocol_schema` is the JSON Schema of both directions for every game
with a table; it is served at ``/api/protocol.schema.json`` and published as
docs/protocol.schema.json. See docs/protocol.md.
"""

from __future__ import annotations

import functools
import json
from typing import Annotated, Any, Final, Literal, Union

import msgspec

from blink.model.registry import DEFAULT_GAME, NoTable, game_names, get_table
from blink.model.table import MAX_ID, MsgId, PileTop, Table

__all__ = [
    "COMMON",
    "FRAMES",
    "MAX_ID",
    "PROTOCOL",
    "QUEUE_CLIENT",
    "QUEUE_FRAMES",
    "Ack",
    "BotOffer",
    "Chat",
    "ChatFrame",
    "Countdown",
    "ErrorFrame",
    "GameEnd",
    "GameMeta",
    "Hello",
    "LagFigures",
    "Leave",
    "Left",
    "Pause",
    "Ping",
    "Pong",
    "ProtocolError",
    "QueueJoin",
    "QueueLeave",
    "QueuePaired",
    "QueueStatus",
    "Queued",
    "RatingChange",
    "RatingValue",
    "Ratings",
    "Refused",
    "Rematch",
    "RematchFrame",
    "Resync",
    "RoomFrame",
    "RoomInfo",
    "RoomSummary",
    "SeatInfo",
    "Snapshot",
    "Stall",
    "Turn",
    "Update",
    "Welcome",
    "decode",
    "decode_queue",
    "dumps",
    "encode",
    "protocol_schema",
]

PROTOCOL: Final = 1
MAX_ROOM: Final = 16
MAX_TOKEN: Final = 128
_BIG: Final = 2**53

RoomCode = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ROOM)]
Token = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_TOKEN)]
Count = Annotated[int, msgspec.Meta(ge=0, le=_BIG)]


class ProtocolError(ValueError):
    """A client frame that cannot be handled: ``code`` is stable, ``message`` is for people."""

    def __init__(
        self, code: str, message: str, msg_id: str | None = None, action: bool = False
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.msg_id = msg_id
        self.action = action
        """True for a game's action message (with its ``msg_id``): it is answered as a
        refused action, once per id."""


# --- client messages -----------------------------------------------------------------------


class Hello(msgspec.Struct, tag="hello", tag_field="type", frozen=True):
    """The first message of a connection: a seat's ``token``, or ``spectate``; ``game`` and
    ``last_seq`` resume after a drop."""

    protocol: int
    room: RoomCode
    token: Token | None = None
    spectate: bool = False
    game: Count | None = None
    last_seq: Count | None = None


MAX_PROBE: Final = 2**31 - 1


class Ping(msgspec.Struct, tag="ping", tag_field="type", frozen=True):
    """A latency probe; ``t`` is echoed. ``echo`` sends back at once the ``probe`` of the
    ``pong`` just received (the server measures the round trip with it)."""

    t: (
        Annotated[int, msgspec.Meta(ge=-_BIG, le=_BIG)]
        | Annotated[float, msgspec.Meta(ge=-_BIG, le=_BIG)]
        | None
    ) = None
    echo: Annotated[int, msgspec.Meta(ge=0, le=MAX_PROBE)] | None = None


class Resync(msgspec.Struct, tag="resync", tag_field="type", frozen=True):
    """Ask for a fresh snapshot."""


class Rematch(msgspec.Struct, tag="rematch", tag_field="type", frozen=True):
    """Vote for a new series once the series is over."""

    id: MsgId | None = None


class Leave(msgspec.Struct, tag="leave", tag_field="type", frozen=True):
    """Give up the seat."""

    id: MsgId | None = None


class Chat(msgspec.Struct, tag="chat", tag_field="type", frozen=True):
    """Say a quick chat ``phrase`` to the room: one of the fixed ids of
    :data:`blink.server.chat.PHRASES` (players only; no free text)."""

    phrase: Annotated[str, msgspec.Meta(min_length=1, max_length=32)]


class Pause(msgspec.Struct, tag="pause", tag_field="type", frozen=True):
    """Pause (``paused``) or resume a practice game: its clock and bots stop (players only)."""

    paused: bool = True
    id: MsgId | None = None


COMMON: Final[tuple[type[msgspec.Struct], ...]] = (
    Hello,
    Ping,
    Resync,
    Rematch,
    Leave,
    Chat,
    Pause,
)
"""The messages every room understands."""


class _Envelope(msgspec.Struct):
    """What a refused frame is read as, to answer it well: its type and its id."""

    type: Any = None
    id: Any = None


def _tag(cls: type[msgspec.Struct]) -> str:
    return str(cls.__struct_config__.tag)


@functools.cache
def _decoder(messages: tuple[type[msgspec.Struct], ...]) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(Union[messages])  # noqa: UP007


def _game_tags() -> dict[str, str]:
    """Every game's action message types, with the game's title."""
    tags: dict[str, str] = {}
    for name in game_names():
        try:
            table = get_table(name)
        except NoTable:
            continue
        for cls in table.messages:
            tags.setdefault(_tag(cls), name)
    return tags


def decode(frame: str | bytes, table: Table | None = None) -> Any:
    """Decode one client frame: a common message, or one of ``table``'s action messages (none
    before ``hello``). Raises :class:`ProtocolError` for anything else."""
    messages = COMMON if table is None else (*COMMON, *table.messages)
    try:
        msg = _decoder(messages).decode(frame)
    except msgspec.ValidationError as exc:
        raise _refusal(frame, messages, str(exc)) from None
    except msgspec.DecodeError:
        raise _malformed(frame) from None
    if isinstance(msg, Hello):
        return msgspec.structs.replace(msg, room=msg.room.upper())
    return msg


def _malformed(frame: str | bytes) -> ProtocolError:
    """The error for a frame msgspec cannot read: JSON text holding a string that is not
    Unicode (an unpaired surrogate escape, which the standard library reads), or not JSON."""
    try:
        json.loads(frame)
    except (ValueError, RecursionError):
        return ProtocolError("bad_json", "the message is not valid UTF-8 JSON text")
    return ProtocolError(
        "bad_text", "strings must be Unicode text: an unpaired surrogate cannot be used"
    )


def _refusal(
    frame: str | bytes, messages: tuple[type[msgspec.Struct], ...], detail: str
) -> ProtocolError:
    """The error for a well-formed JSON frame that is not one of ``messages``."""
    try:
        env = msgspec.json.decode(frame, type=_Envelope)
    except msgspec.ValidationError:
        return ProtocolError("not_object", "a message must be a JSON object with a 'type'")
    except msgspec.DecodeError:  # the bad part came after what the first reading looked at
        return _malformed(frame)
    msg_id = env.id if isinstance(env.id, str) and 1 <= len(env.id) <= MAX_ID else None
    known = [_tag(m) for m in messages]
    kind = env.type
    if kind is None:
        return ProtocolError("unknown_type", "the message has no 'type'", msg_id)
    if kind not in known:
        game = _game_tags().get(kind) if isinstance(kind, str) else None
        if game is not None and len(messages) > len(COMMON):
            actions = ", ".join(known[len(COMMON) :])
            return ProtocolError(
                "wrong_game",
                f"{kind!r} is not an action of this room's game: send {actions}",
                msg_id,
                action=msg_id is not None,
            )
        if game is not None:
            return ProtocolError("hello_required", "send hello first", msg_id)
        shown = kind if isinstance(kind, str) and len(kind) <= 20 else "?"
        return ProtocolError(
            "unknown_type", f"unknown message type {shown!r} ({', '.join(known)})", msg_id
        )
    is_action = kind in known[len(COMMON) :] and msg_id is not None
    return ProtocolError("bad_field", detail.replace("`", "'"), msg_id, action=is_action)


# --- server frames -------------------------------------------------------------------------


class SeatInfo(msgspec.Struct, frozen=True):
    """A seat as everyone may see it (never its token). ``bot_account``: a bot account (a
    program playing through the Bot API, docs/bot-api.md) holds this seat for a person;
    ``owner`` is the name of the account that owns it."""

    seat: int
    kind: Literal["human", "bot"]
    bot: str | None
    name: str | None
    taken: bool
    connected: bool
    left: bool
    bot_account: bool = False
    owner: str | None = None


class GameMeta(msgspec.Struct):
    """A game of a room's series: its result and record once over."""

    id: int
    number: int
    series: int
    status: Literal["playing", "finished"]
    result: dict[str, Any] | None = None
    record_url: str | None = None


class RoomInfo(msgspec.Struct, frozen=True):
    """A room: its game, seats, status, series and games."""

    code: str
    game: str
    players: int
    best_of: int
    options: dict[str, Any]
    ruleset: str | None
    sizes: list[int] | None
    status: str
    seats: list[SeatInfo]
    spectators: int
    series: dict[str, Any]
    series_number: int
    games: list[GameMeta]
    join_url: str
    watch_url: str
    public: bool
    turn_ms: int | None
    tournament_url: str | None = None
    """The page of the tournament whose match this room plays (``None``: not a match room)."""
    paused: bool = False
    """A practice game's player paused it (see ``pause``)."""
    bot_accounts: bool = True
    """Bot accounts may take a seat (a person's room: only when its host allowed it)."""
    host_bot: bool = False
    """The room was opened by a bot account (people who join it play a bot)."""


class RoomSummary(msgspec.Struct, frozen=True):
    """A room as ``GET /api/rooms`` lists it."""

    code: str
    game: str
    players: int
    best_of: int
    ruleset: str | None
    status: str
    open_seats: list[int]
    seats: list[SeatInfo]
    spectators: int
    bot_accounts: bool = True
    """Bot accounts may take a seat (see :class:`RoomInfo`)."""
    host_bot: bool = False
    """The room was opened by a bot account."""


class Stall(msgspec.Struct, frozen=True):
    """A stall the table is waiting on: a ``flip`` after a pause, or a ``choose`` deadline
    (``waiting``: the seats still to choose); it ends in ``in_ms``, at ``at`` on the server's
    clock (the ``server_ms`` of ``pong``)."""

    kind: Literal["flip", "choose"]
    in_ms: int
    waiting: list[int]
    at: int


class Turn(msgspec.Struct, frozen=True):
    """Whose turn it is and the milliseconds before the default action is taken for them."""

    seat: int
    in_ms: int


class Welcome(msgspec.Struct, tag="welcome", tag_field="type", frozen=True):
    """The answer to ``hello``."""

    protocol: int
    server: str
    room: str
    seat: int | None
    role: Literal["player", "spectator"]
    name: str | None


class RoomFrame(msgspec.Struct, tag="room", tag_field="type", frozen=True):
    """The room changed (seats, status, spectators)."""

    room: RoomInfo


class Snapshot(msgspec.Struct, tag="snapshot", tag_field="type", frozen=True):
    """The whole game as the receiver may see it."""

    game_kind: str
    game: int
    number: int
    seq: int
    view: dict[str, Any]
    stall: Stall | None
    turn: Turn | None
    countdown_ms: int | None
    countdown_at: int | None
    series: dict[str, Any]


class Countdown(msgspec.Struct, tag="countdown", tag_field="type", frozen=True):
    """The game starts in ``in_ms`` milliseconds, at ``at`` on the server's clock (the
    ``server_ms`` of ``pong``): a client shows the start then, by its clock offset."""

    game: int
    number: int
    seq: int
    in_ms: int
    at: int


class Update(msgspec.Struct, tag="update", tag_field="type", frozen=True, omit_defaults=True):
    """One accepted action: its events and the receiver's view after it. ``default_for``:
    the seat the table acted for at its deadline, because that seat did not act in time (a
    choosing stall's default choice, a turn's default action); absent otherwise."""

    game_kind: str
    game: int
    seq: int
    t: int
    events: list[dict[str, Any]]
    view: dict[str, Any]
    stall: Stall | None
    turn: Turn | None
    default_for: int | None = None


class Ack(msgspec.Struct, tag="ack", tag_field="type", frozen=True):
    """Your action ``id`` was accepted and stored as ``seq`` of ``game``."""

    id: str
    game: int
    seq: int


class Refused(msgspec.Struct, tag="refused", tag_field="type", frozen=True):
    """Your action ``id`` was refused; nothing changed. ``top``, with ``too_slow`` only: the
    pile's top that won the race, and its version."""

    id: str
    code: str
    message: str
    top: PileTop | msgspec.UnsetType = msgspec.UNSET


class ErrorFrame(msgspec.Struct, tag="error", tag_field="type", frozen=True):
    """A message that could not be handled; nothing changed."""

    code: str
    message: str
    id: str | None = None


class RatingValue(msgspec.Struct, frozen=True):
    """A rating: skill ``mu``, uncertainty ``sigma`` and the one number shown, ``ordinal``
    (``mu - 3 sigma``)."""

    mu: float
    sigma: float
    ordinal: float


class RatingChange(msgspec.Struct, frozen=True):
    """A rated player's rating before and after a game (``delta``: of the ordinal)."""

    seat: int
    profile: str
    before: RatingValue
    after: RatingValue
    delta: float


class Ratings(msgspec.Struct, tag="ratings", tag_field="type", frozen=True):
    """Game ``game`` was rated: each rated player's change (seats of people with a
    profile; a bot keeps its fixed rating). Sent once the ratings are stored, after the
    ``game_end``."""

    game: int
    ratings: list[RatingChange]


class GameEnd(msgspec.Struct, tag="game_end", tag_field="type", frozen=True):
    """A game is over (``again``, only when true: sent again on a resume or a resync;
    ``ratings``, only once the game is rated: the :class:`Ratings` sent meanwhile)."""

    game_kind: str
    game: int
    number: int
    seq: int
    outcome: dict[str, Any]
    figures: dict[str, Any]
    series: dict[str, Any]
    record_url: str
    next_in_ms: int | None
    again: bool | msgspec.UnsetType = msgspec.UNSET
    ratings: list[RatingChange] | msgspec.UnsetType = msgspec.UNSET


class RematchFrame(msgspec.Struct, tag="rematch", tag_field="type", frozen=True):
    """The votes for a new series (bots always vote yes)."""

    votes: list[bool]
    available: bool


class ChatFrame(msgspec.Struct, tag="chat", tag_field="type", frozen=True):
    """Seat ``seat`` said the quick chat ``phrase`` (an id: each client words it)."""

    seat: int
    phrase: str


class Left(msgspec.Struct, tag="left", tag_field="type", frozen=True):
    """You gave up your seat; the connection closes."""


class LagFigures(msgspec.Struct, frozen=True):
    """A seat's lag as the server measured it: smoothed round trip and jitter."""

    rtt_ms: int
    jitter_ms: int


class Pong(msgspec.Struct, tag="pong", tag_field="type", frozen=True):
    """The answer to ``ping``: its ``t``, and the server's clock in milliseconds (when the
    ping was read). In a room: ``lag``, each seat's measured figures (``null`` before any),
    and for a seat's fresh ping a ``probe`` to send back at once as ``ping``'s ``echo``."""

    t: int | float | None
    server_ms: int
    probe: int | msgspec.UnsetType = msgspec.UNSET
    lag: list[LagFigures | None] | msgspec.UnsetType = msgspec.UNSET


FRAMES: Final = (
    Welcome,
    RoomFrame,
    Snapshot,
    Countdown,
    Update,
    Ack,
    Refused,
    ErrorFrame,
    GameEnd,
    RematchFrame,
    ChatFrame,
    Left,
    Pong,
    Ratings,
)
"""Every server frame."""

# --- quick play's queue (the /api/queue WebSocket) ------------------------------------------


class QueueJoin(msgspec.Struct, tag="join", tag_field="type", frozen=True):
    """Wait in quick play's queue for a game of ``game`` with ``players`` seats against
    people; ``profile_secret`` rates the wait by the profile (a guest has the default)."""

    game: Annotated[str, msgspec.Meta(min_length=1, max_length=16)] = DEFAULT_GAME
    players: Annotated[int, msgspec.Meta(ge=2, le=16)] = 2
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=24)] = "Player"
    profile_secret: Annotated[str, msgspec.Meta(max_length=MAX_TOKEN)] | None = None


class QueueLeave(msgspec.Struct, tag="leave", tag_field="type", frozen=True):
    """Stop waiting (closing the connection does the same)."""


QUEUE_CLIENT: Final[tuple[type[msgspec.Struct], ...]] = (QueueJoin, QueueLeave)
"""The messages of the queue's WebSocket."""


class Queued(msgspec.Struct, tag="queued", tag_field="type", frozen=True):
    """The player waits: the rating it is paired by, after how many seconds a bot is
    offered (``null``: never), and its pool: ``people``, or ``bots`` (the bot arena, where a
    bot account waits, paired with bot accounts only)."""

    game: str
    players: int
    rating: float
    bot_after: float | None
    pool: str = "people"


class QueueStatus(msgspec.Struct, tag="queue", tag_field="type", frozen=True):
    """While waiting (every ``Settings.queue_tick``): seconds waited, the rating gap accepted
    now, players online (connected to a game or waiting) and waiting, as the lobby counts
    them."""

    waited: float
    gap: float
    online: Count
    waiting: Count


class BotOffer(msgspec.Struct, tag="bot_offer", tag_field="type", frozen=True):
    """The player has waited ``waited`` seconds: it may start a game against a bot
    (``POST /api/quick``) or go on waiting. Sent once."""

    waited: float


class QueuePaired(msgspec.Struct, tag="paired", tag_field="type", frozen=True):
    """The player was paired: its seat in the new private room ``code`` and that seat's
    token (say ``hello`` with it on ``/ws/CODE``); the others' names. The server then closes
    the queue's connection."""

    code: RoomCode
    seat: int
    token: Token
    game: str
    players: int
    opponents: list[str]


QUEUE_FRAMES: Final = (Queued, QueueStatus, BotOffer, QueuePaired, ErrorFrame)
"""Every frame of the queue's WebSocket."""


def decode_queue(frame: str | bytes) -> QueueJoin | QueueLeave:
    """Decode one message of the queue's WebSocket. Raises :class:`ProtocolError`."""
    try:
        msg: QueueJoin | QueueLeave = _decoder(QUEUE_CLIENT).decode(frame)
    except msgspec.ValidationError as exc:
        raise ProtocolError("bad_message", str(exc)) from None
    except msgspec.DecodeError:
        raise _malformed(frame) from None
    return msg


_ENCODE = msgspec.json.Encoder().encode


def encode(frame: msgspec.Struct) -> str:
    """A server frame as JSON text."""
    return _ENCODE(frame).decode()


def dumps(obj: Any) -> str:
    """Compact JSON for the wire (msgspec: several times faster than the standard library)."""
    return _ENCODE(obj).decode()


def protocol_schema() -> dict[str, Any]:
    """The JSON Schema of the protocol: the common client messages, each game's action
    messages, and every server frame (``$defs`` holds every type)."""
    games: dict[str, list[type[msgspec.Struct]]] = {}
    for name in game_names():
        try:
            games[name] = list(get_table(name).messages)
        except NoTable:
            continue
    everything: list[Any] = [*COMMON, *FRAMES, *QUEUE_CLIENT, *QUEUE_FRAMES[:-1]]
    for messages in games.values():
        everything += messages
    (refs, defs) = msgspec.json.schema_components(everything, ref_template="#/$defs/{name}")
    by_type = dict(zip(everything, refs, strict=True))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"Blink game protocol, version {PROTOCOL}",
        "description": "Messages on the /ws/CODE WebSocket (and quick play's queue on "
        "/api/queue); see docs/protocol.md.",
        "protocol": PROTOCOL,
        "client": {"common": [by_type[m] for m in COMMON]}
        | {name: [by_type[m] for m in msgs] for name, msgs in games.items()},
        "server": [by_type[f] for f in FRAMES],
        "queue": {
            "client": [by_type[m] for m in QUEUE_CLIENT],
            "server": [by_type[f] for f in QUEUE_FRAMES],
        },
        "$defs": defs,
    }
