"""The challenge endpoints: ``/api/challenges`` (send, list), ``/api/challenges/{id}/accept``,
``/decline``, ``DELETE /api/challenges/{id}`` (cancel) and ``/api/challenges/events`` (the
caller's challenges as an event stream). A caller is a bot account
(``Authorization: Bearer``) or a logged-in person (the session cookie); challenges go to bot
accounts only. The bookkeeping is :mod:`blink.server.challenges`; accepting opens a room with
both seats reserved (:func:`blink.server.room_setup.open_reserved_room`). See
docs/bot-api.md, "Challenges".
"""

from __future__ import annotations

from typing import Annotated, Any, Final, cast

from fastapi import APIRouter, Cookie, Depends, Request, Response
from pydantic import BaseModel, Field
from sqlalchemy import select

from blink.model.registry import DEFAULT_GAME
from blink.server import bus, room_setup
from blink.server.accounts import service as accounts
from blink.server.bot_accounts import store as bot_store
from blink.server.challenges import Challenge, ChallengeBook, ChallengeError, Party
from blink.server.errors import ApiError
from blink.server.hub import Hub
from blink.server.names import MAX_NAME, name_key
from blink.server.profiles import profiles
from blink.server.room_setup import CreateRoom
from blink.server.routes.bots import BotDep
from blink.server.routes.deps import HubDep, WritableHubDep, check_room_creation
from blink.server.sse import event_stream, frame

__all__ = ["UNRATED", "ChallengeIn", "router"]

router = APIRouter(tags=["challenges"])

UNRATED: Final = "unrated"
"""The room option of an accepted challenge's room that asked not to be rated."""


class ChallengeIn(BaseModel):
    """A challenge to send: the bot account's name and the room asked for."""

    to: str = Field(min_length=1, max_length=MAX_NAME)
    game: str = Field(DEFAULT_GAME, max_length=16)
    players: int = Field(2, ge=2, le=2)
    best_of: int = Field(1, ge=1, le=15)
    rated: bool = True
    ruleset: str = Field("official", max_length=32)


def book_of(h: Hub) -> ChallengeBook:
    """The server's challenges (made the first time they are asked for, on its wall clock).
    Each challenge that expires wakes both sides' streams: it is looked for at every sweep of
    the hub (``Settings.sweep_interval``) and at each challenge's own time (:func:`send`)."""
    book: ChallengeBook | None = getattr(h, "challenge_book", None)
    if book is None:
        book = ChallengeBook(h.settings.wall_clock, on_expired=lambda c: _changed(h, c))
        h.challenge_book = book  # type: ignore[attr-defined]
        h.sweep_hooks.append(book.sweep)
    return book


class _Watchers:
    """The challenge streams of one node, by profile: each change of a profile's challenges
    wakes its streams (:class:`~blink.server.bus.Subscription` fed here, not by the bus:
    the challenges are this node's)."""

    def __init__(self) -> None:
        self.subs: dict[str, set[bus.Subscription]] = {}

    def subscribe(self, profile: str) -> bus.Subscription:
        """A new stream's subscription to ``profile``'s changes."""
        group = self.subs.setdefault(profile, set())
        holder = _Group(group)
        sub = bus.Subscription(cast(Any, holder), 16)
        group.add(sub)
        return sub

    def changed(self, *profiles: str) -> None:
        """Wake the streams of these profiles."""
        for p in profiles:
            group = self.subs.get(p)
            if group is not None and not group:
                del self.subs[p]
            for sub in list(group or ()):
                sub.put(bus.RESYNC)


class _Group:
    """What a :class:`~blink.server.bus.Subscription` closes itself from."""

    def __init__(self, subs: set[bus.Subscription]) -> None:
        self.subs = subs


def watchers_of(h: Hub) -> _Watchers:
    """The node's challenge streams."""
    found: _Watchers | None = getattr(h, "challenge_watchers", None)
    if found is None:
        found = _Watchers()
        h.challenge_watchers = found  # type: ignore[attr-defined]
    return found


def _changed(h: Hub, c: Challenge) -> None:
    watchers_of(h).changed(c.sender.profile, c.to.profile)


async def _caller(
    h: HubDep, bot: BotDep, blink_session: Annotated[str | None, Cookie()] = None
) -> Party:
    if bot is not None:
        return Party(bot.profile_id, bot.name, True)
    cur = accounts.need(accounts.current(h, blink_session))
    return Party(cur.account.profile_id, cur.account.name, False)


CallerDep = Annotated[Party, Depends(_caller)]
"""The caller: a bot account (``Authorization: Bearer``) or a logged-in person (cookie);
``401 not_logged_in`` for neither."""


def _refused(exc: ChallengeError) -> ApiError:
    return ApiError(exc.status, exc.code, exc.message)


def _bot_named(h: Hub, name: str) -> tuple[Party, str]:
    """The bot account called ``name`` and the hash of its live token (its profile's secret
    hash), or ``404 no_such_bot``."""
    query = (
        select(profiles.c.id, profiles.c.name, profiles.c.secret_hash)
        .select_from(profiles.join(bot_store.bots, bot_store.bots.c.profile_id == profiles.c.id))
        .where(profiles.c.name_key == name_key(name))
    )
    with h.storage.engine.connect() as conn:
        row = conn.execute(query).first()
    if row is None:
        raise ApiError(404, "no_such_bot", f"there is no bot account called {name!r}")
    return Party(row.id, row.name, True), row.secret_hash


def _secret_hash(h: Hub, side: Party) -> str:
    """The hash of ``side``'s profile secret now: its seat is reserved by it, so that the
    seat carries the profile (rated, and filed in its archive, as any seat taken with a
    profile secret). ``409 no_such_bot`` / ``no_such_profile`` when the profile is gone."""
    with h.storage.engine.connect() as conn:
        found = conn.execute(select(profiles.c.secret_hash).where(profiles.c.id == side.profile))
        value = found.scalar_one_or_none()
    if value is None:
        if side.bot:
            raise ApiError(409, "no_such_bot", "the challenging bot account is gone")
        raise ApiError(409, "no_such_profile", "the challenging person's profile is gone")
    return str(value)


@router.post("/api/challenges", status_code=201)
async def send(h: HubDep, me: CallerDep, body: ChallengeIn) -> dict[str, Any]:
    """Challenge the bot account ``to``: the open challenge (it expires unanswered)."""
    to, _hash = _bot_named(h, body.to)
    room_setup.check_room(
        CreateRoom(game=body.game, players=body.players, best_of=body.best_of, ruleset=body.ruleset)
    )
    try:
        book = book_of(h)
        made = book.send(me, to, body.game, body.players, body.best_of, body.rated, body.ruleset)
    except ChallengeError as exc:
        raise _refused(exc) from None
    h.later(made.expires_at - book.clock(), book.sweep)  # its streams learn of it at once
    _changed(h, made)
    return made.view(me.profile)


def _listing(h: Hub, profile: str) -> dict[str, Any]:
    incoming, outgoing = book_of(h).of(profile)
    return {
        "incoming": [c.view(profile) for c in incoming],
        "outgoing": [c.view(profile) for c in outgoing],
    }


@router.get("/api/challenges")
async def listing(h: HubDep, me: CallerDep) -> dict[str, Any]:
    """The caller's challenges, received (``incoming``) and sent (``outgoing``), oldest first
    (open ones, and those closed in the last minutes with what became of them)."""
    return _listing(h, me.profile)


class _Stream:
    """One caller's challenge stream: the listing first, then again at each change."""

    def __init__(self, h: Hub, profile: str) -> None:
        self.h, self.profile = h, profile

    async def start(self) -> list[bytes]:
        return [frame("challenges", _listing(self.h, self.profile))]

    async def changed(self, events: list[bus.Event]) -> list[bytes]:
        return [frame("challenges", _listing(self.h, self.profile))]


# Before "/api/challenges/{cid}", which would take "events" for an id.
@router.get("/api/challenges/events")
async def events(h: HubDep, me: CallerDep, request: Request) -> Response:
    """The caller's challenges as an event stream (Server-Sent Events): ``event:
    challenges`` with the listing of ``GET /api/challenges``, first and at each change of
    one of them (sent, accepted, declined, cancelled; an expiry shows at the next change)."""
    sub = watchers_of(h).subscribe(me.profile)
    return event_stream(request, sub, _Stream(h, me.profile))


_CONNECT_WITH: Final[dict[bool, str]] = {True: "bot_token", False: "profile_secret"}
"""What each side of an accepted challenge says ``hello`` with: a bot its token, a person
their profile's secret (``profile.secret`` of ``GET /api/me``)."""


async def _open_room(h: Hub, c: Challenge) -> dict[str, dict[str, Any]]:
    """Open an accepted challenge's room, the sender in seat 0: each side's seat, reserved by
    the side's profile secret (a bot's token, a person's profile secret), so that the game is
    filed under both profiles. No secret is handed out: each side connects with the one it
    holds (``connect_with``)."""
    holders: list[tuple[str, str]] = []
    seats: dict[str, dict[str, Any]] = {}
    for i, side in enumerate((c.sender, c.to)):
        holders.append((side.name, _secret_hash(h, side)))
        seats[side.profile] = {"seat": i, "connect_with": _CONNECT_WITH[side.bot]}
    extra: dict[str, Any] = {"challenge": c.id}
    if not c.rated:
        extra[UNRATED] = True
    body = CreateRoom(
        game=c.game,
        players=c.players,
        best_of=c.best_of,
        ruleset=c.ruleset,
        public=False,
        take_seat=None,
    )
    room = await room_setup.open_reserved_room(h, body, holders, extra)
    book_of(h).opened(c, room.code, seats)
    return seats


@router.post("/api/challenges/{cid}/accept", dependencies=[Depends(check_room_creation)])
async def accept(h: WritableHubDep, me: CallerDep, cid: str) -> dict[str, Any]:
    """The challenged bot accepts: a private room with both seats reserved. The answer (and
    the sender's listing) gives the room's ``room`` code and the caller's ``seat``; connect to
    ``/ws/CODE`` with the bot's token (a person's seat: with the person's profile secret)."""
    book = book_of(h)
    try:
        c = book.claim(cid, me.profile)
    except ChallengeError as exc:
        raise _refused(exc) from None
    try:
        await _open_room(h, c)
    except ApiError:
        book.reopen(c)
        raise
    _changed(h, c)
    return c.view(me.profile)


@router.post("/api/challenges/{cid}/decline")
async def decline(h: HubDep, me: CallerDep, cid: str) -> dict[str, Any]:
    """The challenged bot declines."""
    try:
        c = book_of(h).decline(cid, me.profile)
    except ChallengeError as exc:
        raise _refused(exc) from None
    _changed(h, c)
    return c.view(me.profile)


@router.delete("/api/challenges/{cid}")
async def cancel(h: HubDep, me: CallerDep, cid: str) -> dict[str, Any]:
    """The sender cancels an open challenge."""
    try:
        c = book_of(h).cancel(cid, me.profile)
    except ChallengeError as exc:
        raise _refused(exc) from None
    _changed(h, c)
    return c.view(me.profile)
