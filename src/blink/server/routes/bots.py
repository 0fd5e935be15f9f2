"""The bot account endpoints: ``/api/bots`` (make one, list the account's) and
``/api/bots/{name}/token`` (rotate, revoke). Every one needs a logged-in account (its session
cookie); what they do is :mod:`blink.server.bot_accounts.service`. See docs/bot-api.md.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header
from pydantic import BaseModel, Field

from blink.server.bot_accounts import service
from blink.server.bot_accounts.service import BotAuth
from blink.server.names import MAX_NAME
from blink.server.routes.accounts import CurrentDep
from blink.server.routes.deps import HubDep, WritableHubDep, check_creation

__all__ = ["BotDep", "router"]

router = APIRouter(tags=["bots"])


class NewBot(BaseModel):
    """A bot account to make: its profile's name (the same rules as a person's)."""

    name: str = Field(min_length=1, max_length=MAX_NAME)


class BotToken(BaseModel):
    """A bot and its token, shown this once (only its hash is kept)."""

    id: str
    name: str
    bot: bool
    token: str


class RatingOut(BaseModel):
    """A conservative rating."""

    mu: float
    sigma: float
    ordinal: float


class BotOut(BaseModel):
    """One of the account's bots (never its token)."""

    id: str
    name: str
    bot: bool
    token_live: bool
    rating: RatingOut
    games: int
    wins: int
    created_at: float


class BotList(BaseModel):
    """The account's bots, oldest first."""

    bots: list[BotOut]
    limit: int


async def _bearer(
    h: HubDep, authorization: Annotated[str | None, Header()] = None
) -> BotAuth | None:
    return service.bearer(h, authorization)


BotDep = Annotated[BotAuth | None, Depends(_bearer)]
"""An endpoint parameter given the bot of the request's ``Authorization: Bearer`` header
(``None`` without one; ``401 bad_bot_token`` for a token that is not live)."""


@router.post(
    "/api/bots",
    status_code=201,
    dependencies=[Depends(check_creation)],
    response_model=BotToken,
)
async def make_bot(h: WritableHubDep, cur: CurrentDep, body: NewBot) -> dict[str, Any]:
    """Make a bot account owned by the logged-in account: its own profile (``bot: true``) and
    its token, in this answer only. ``409 too_many_bots`` past the limit."""
    out = await service.make_bot(h, cur.account.id, body.name)
    h.feeds.profile_made()  # type: ignore[attr-defined]
    return out


@router.get("/api/bots", response_model=BotList)
async def list_bots(h: HubDep, cur: CurrentDep) -> dict[str, Any]:
    """The logged-in account's bots, without their tokens."""
    return {"bots": service.list_bots(h, cur.account.id), "limit": service.MAX_BOTS}


@router.post("/api/bots/{name}/token", response_model=BotToken)
async def rotate_token(h: WritableHubDep, cur: CurrentDep, name: str) -> dict[str, Any]:
    """A new token for the bot (in this answer only); the old one is refused from now on,
    and the seats it took in games underway are lost. ``404 no_such_bot``."""
    return await service.rotate(h, cur.account.id, name)


@router.delete("/api/bots/{name}/token", status_code=204)
async def revoke_token(h: WritableHubDep, cur: CurrentDep, name: str) -> None:
    """Revoke the bot's token: refused from now on, until a new one is made (``POST``)."""
    await service.revoke(h, cur.account.id, name)
