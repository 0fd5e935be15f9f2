"""What bot accounts do: making one, listing an account's, rotating and revoking a token,
checking a bearer token, and marking the seats a bot account holds.

Every function takes the server's :class:`~blink.server.hub.Hub`; refusals are
:class:`~blink.server.errors.ApiError` with a stable code and one sentence. The endpoints are
:mod:`blink.server.routes.bots`.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from blink.server.bot_accounts import store
from blink.server.errors import ApiError, ProfileError
from blink.server.hub import Hub
from blink.server.names import name_key, plain_key
from blink.server.profiles import add_profile, profile_hashes, public_profile
from blink.server.room.seats import BotAccount, Seat, hash_token

__all__ = [
    "MAX_BOTS",
    "BotAuth",
    "bearer",
    "bearer_token",
    "check_token",
    "list_bots",
    "live_seat",
    "make_bot",
    "mark_seats",
    "profile_marks",
    "revoke",
    "revoke_all",
    "rotate",
]

MAX_BOTS: Final = 5
"""Bot accounts one account may own."""
MAX_TOKEN: Final = 128
"""The longest token read from an ``Authorization`` header (a longer one is refused unread)."""


@dataclass(frozen=True)
class BotAuth:
    """A live bot token as a request gave it: the bot's profile and the token itself (its
    profile's secret, which takes the bot's seats)."""

    profile_id: str
    name: str
    owner: str | None
    token: str


def _bot_answer(row: Any) -> dict[str, Any]:
    return {
        **public_profile(row),
        "bot": True,
        "token_live": bool(row.live),
        "created_at": row.bot_created_at,
    }


async def make_bot(hub: Hub, account_id: str, name: str) -> dict[str, Any]:
    """Make a bot account named ``name`` for account ``account_id`` (``POST /api/bots``): its
    profile and its token, given this once. Raises ``409 too_many_bots`` past
    :data:`MAX_BOTS`, and the profile name refusals (``name_taken``, ``name_lookalike``, ...)."""
    with hub.storage.engine.connect() as conn:
        if store.count_bots(conn, account_id) >= MAX_BOTS:
            raise ApiError(
                409, "too_many_bots", f"an account may own {MAX_BOTS} bots: delete a token first"
            )
    try:
        made = await add_profile(hub, name)
    except ProfileError as exc:
        raise ApiError(exc.status, exc.code, exc.message) from None
    now = time.time()
    token = made["secret"]
    await hub.storage.run(
        store.job_new_bot(
            {"profile_id": made["id"], "account_id": account_id, "created_at": now},
            {"token_hash": hash_token(token), "profile_id": made["id"], "created_at": now},
        )
    )
    return {"id": made["id"], "name": made["name"], "bot": True, "token": token}


def list_bots(hub: Hub, account_id: str) -> list[dict[str, Any]]:
    """The account's bots (``GET /api/bots``), without their tokens."""
    with hub.storage.engine.connect() as conn:
        return [_bot_answer(r) for r in store.bots_of(conn, account_id)]


def _own_bot(hub: Hub, account_id: str, name: str) -> Any:
    """The account's bot called ``name`` (any spelling of it), or ``404 no_such_bot``."""
    with hub.storage.engine.connect() as conn:
        rows = store.bots_of(conn, account_id)
    key, plain = name_key(name), plain_key(name)
    for row in rows:
        if plain_key(row.name) == plain or row.name_key == key:
            return row
    raise ApiError(404, "no_such_bot", f"you have no bot called {name!r}")


async def _replace(hub: Hub, row: Any, token: str | None) -> None:
    now = time.time()
    new_hash = hash_token(token if token is not None else secrets.token_urlsafe(32))
    token_row = (
        None if token is None else {"token_hash": new_hash, "profile_id": row.id, "created_at": now}
    )
    await hub.storage.run(store.job_new_token(row.id, new_hash, token_row, now))
    known = profile_hashes(hub)
    known.discard(row.secret_hash)
    if token is not None:
        known.add(new_hash)


async def rotate(hub: Hub, account_id: str, name: str) -> dict[str, Any]:
    """A new token for the account's bot ``name`` (``POST /api/bots/{name}/token``), given
    this once; the old one is refused from now on."""
    row = _own_bot(hub, account_id, name)
    token = secrets.token_urlsafe(24)
    await _replace(hub, row, token)
    return {"id": row.id, "name": row.name, "bot": True, "token": token}


async def revoke(hub: Hub, account_id: str, name: str) -> None:
    """Revoke the token of the account's bot ``name`` (``DELETE /api/bots/{name}/token``):
    the bot cannot play until it is given a new one."""
    await _replace(hub, _own_bot(hub, account_id, name), None)


async def revoke_all(hub: Hub, account_id: str) -> None:
    """Revoke every bot token of account ``account_id`` (the account is being deleted: its
    bots stop playing; their profiles and games stay)."""
    with hub.storage.engine.connect() as conn:
        rows = store.bots_of(conn, account_id)
    for row in rows:
        await _replace(hub, row, None)


def bearer_token(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header (``None``: no such header)."""
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return ""
    return token.strip()


def _refused() -> ApiError:
    return ApiError(
        401, "bad_bot_token", "this bot token is not valid: it was revoked, rotated or never given"
    )


def check_token(hub: Hub, token: str) -> BotAuth:
    """The bot whose live token this is, or ``401 bad_bot_token`` (revoked, rotated, unknown)."""
    if not token or len(token) > MAX_TOKEN:
        raise _refused()
    with hub.storage.engine.connect() as conn:
        row = store.token_owners(conn, [hash_token(token)]).get(hash_token(token))
    if row is None or row.revoked_at is not None:
        raise _refused()
    return BotAuth(row.profile_id, row.name, row.owner, token)


def bearer(hub: Hub, header: str | None) -> BotAuth | None:
    """The bot of a request's ``Authorization`` header (``None`` without one); ``401
    bad_bot_token`` for a header that is no live bot token."""
    token = bearer_token(header)
    return None if token is None else check_token(hub, token)


def mark_seats(hub: Hub, seats: Iterable[Seat]) -> None:
    """Mark the seats held with a bot's token (live or not) as that bot account's
    (:attr:`Seat.bot_account`). Seats whose token is known to be no profile's (a random seat
    token) cost no query."""
    wanted = [
        s
        for s in seats
        if s.kind == "human" and s.token_hash is not None and s.token_hash not in hub.not_profiles
    ]
    if not wanted:
        return
    with hub.storage.engine.connect() as conn:
        found = store.token_owners(conn, [s.token_hash for s in wanted if s.token_hash])
    for s in wanted:
        row = found.get(s.token_hash or "")
        s.bot_account = None if row is None else BotAccount(row.profile_id, row.owner)


def live_seat(hub: Hub, seat: Seat) -> bool:
    """Whether a bot account's seat is still held with its bot's live token (a seat taken
    with a token since rotated away or revoked is not)."""
    if seat.token_hash is None:
        return False
    with hub.storage.engine.connect() as conn:
        row = store.token_owners(conn, [seat.token_hash]).get(seat.token_hash)
    return row is not None and row.revoked_at is None


def profile_marks(hub: Hub, pid: str) -> dict[str, Any]:
    """What a profile's page says of it being a bot: ``bot`` and its ``owner``'s name."""
    with hub.storage.engine.connect() as conn:
        bot, owner = store.owner_of(conn, pid)
    return {"bot": bot, "owner": owner}
