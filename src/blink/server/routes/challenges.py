"""The challenge endpoints: ``/api/challenges`` (send, list), ``/api/challenges/{id}/accept``,
``/decline`` and ``DELETE /api/challenges/{id}`` (cancel). A caller is a bot account
(``Authorization: Bearer``) or a logged-in person (the session cookie); challenges go to bot
accounts only. The bookkeeping is :mod:`blink.server.challenges`; accepting opens a room with
both seats reserved (:func:`blink.server.room_setup.open_reserved_room`). See
docs/bot-api.md, "Challenges".
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from fastapi import APIRouter, Cookie, Depends
from pydantic import BaseModel, Field
from sqlalchemy import select

from blink.model.registry import DEFAULT_GAME
from blink.server import room_setup
from blink.server.accounts import service as accounts
from blink.server.bot_accounts import store as bot_store
from blink.server.challenges import Challenge, ChallengeBook, ChallengeError, Party
from blink.server.errors import ApiError
from blink.server.hub import Hub
from blink.server.names import MAX_NAME, name_key
from blink.server.profiles import profiles, seat_token
from blink.server.room.room import hash_token
from blink.server.room_setup import CreateRoom
from blink.server.routes.bots import BotDep
from blink.server.routes.deps import HubDep, WritableHubDep, check_room_creation

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
    """The server's challenges (made the first time they are asked for, on its wall clock)."""
    book: ChallengeBook | None = getattr(h, "challenge_book", None)
    if book is None:
        book = ChallengeBook(h.settings.wall_clock)
        h.challenge_book = book  # type: ignore[attr-defined]
    return book


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


def _secret_hash(h: Hub, profile: str) -> str:
    with h.storage.engine.connect() as conn:
        found = conn.execute(select(profiles.c.secret_hash).where(profiles.c.id == profile))
        value = found.scalar_one_or_none()
    if value is None:
        raise ApiError(409, "no_such_bot", "the challenging bot account is gone")
    return str(value)


@router.post("/api/challenges", status_code=201)
async def send(h: HubDep, me: CallerDep, body: ChallengeIn) -> dict[str, Any]:
    """Challenge the bot account ``to``: the open challenge (it expires unanswered)."""
    to, _hash = _bot_named(h, body.to)
    room_setup.check_room(
        CreateRoom(game=body.game, players=body.players, best_of=body.best_of, ruleset=body.ruleset)
    )
    try:
        made = book_of(h).send(
            me, to, body.game, body.players, body.best_of, body.rated, body.ruleset
        )
    except ChallengeError as exc:
        raise _refused(exc) from None
    return made.view(me.profile)


@router.get("/api/challenges")
async def listing(h: HubDep, me: CallerDep) -> dict[str, Any]:
    """The caller's challenges, received (``incoming``) and sent (``outgoing``), oldest first
    (open ones, and those closed in the last minutes with what became of them)."""
    incoming, outgoing = book_of(h).of(me.profile)
    return {
        "incoming": [c.view(me.profile) for c in incoming],
        "outgoing": [c.view(me.profile) for c in outgoing],
    }


async def _open_room(h: Hub, c: Challenge) -> dict[str, dict[str, Any]]:
    """Open an accepted challenge's room, the sender in seat 0: each side's seat (and a
    person's seat token)."""
    holders: list[tuple[str, str]] = []
    seats: dict[str, dict[str, Any]] = {}
    for i, side in enumerate((c.sender, c.to)):
        if side.bot:
            holders.append((side.name, _secret_hash(h, side.profile)))
            seats[side.profile] = {"seat": i, "token": None}
        else:
            token = seat_token(h, None)
            holders.append((side.name, hash_token(token)))
            seats[side.profile] = {"seat": i, "token": token}
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
    ``/ws/CODE`` with the bot's token (a person's seat: with ``token``)."""
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
    return c.view(me.profile)


@router.post("/api/challenges/{cid}/decline")
async def decline(h: HubDep, me: CallerDep, cid: str) -> dict[str, Any]:
    """The challenged bot declines."""
    try:
        return book_of(h).decline(cid, me.profile).view(me.profile)
    except ChallengeError as exc:
        raise _refused(exc) from None


@router.delete("/api/challenges/{cid}")
async def cancel(h: HubDep, me: CallerDep, cid: str) -> dict[str, Any]:
    """The sender cancels an open challenge."""
    try:
        return book_of(h).cancel(cid, me.profile).view(me.profile)
    except ChallengeError as exc:
        raise _refused(exc) from None
