"""What accounts do: sign up (or claim a browser's profile), log in, sessions, recovery codes,
the account's data and its deletion. The endpoints are :mod:`blink.server.routes.accounts`.

Every function takes the server's :class:`~blink.server.hub.Hub`; refusals are
:class:`~blink.server.errors.ApiError` with a stable code and one sentence. Argon2 runs in a
worker thread, never on the event loop.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass
from typing import Any, Final

from blink.server.accounts import passwords as pw
from blink.server.accounts import store
from blink.server.accounts.logins import LoginLimiter
from blink.server.errors import ApiError, ProfileError
from blink.server.hub import Hub
from blink.server.names import name_key
from blink.server.profiles import add_profile, lookup_secret, profile_hashes, profile_with_history
from blink.server.room.seats import hash_token

__all__ = [
    "RECOVERY_CODES",
    "SESSION_DAYS",
    "Current",
    "Opened",
    "current",
    "delete_account",
    "end_session",
    "export",
    "log_in",
    "log_out",
    "log_out_everywhere",
    "me",
    "need",
    "recover",
    "sessions",
    "sign_up",
    "too_many_logins",
]

RECOVERY_CODES: Final = 8
"""Recovery codes made at sign-up (each logs in once)."""
SESSION_DAYS: Final = 180
"""A session unused this many days is refused (the cookie lasts as long)."""
SEEN_EVERY: Final = 3600.0
"""A session's last use is written again at most once an hour."""
DELETED_NAME: Final = "Deleted player"
"""The name a deleted account's profile keeps, in its games and others' histories."""


@dataclass(frozen=True)
class Opened:
    """A new session: its token (the cookie's value, given this once), and the answer."""

    token: str
    answer: dict[str, Any]


@dataclass(frozen=True)
class Current:
    """The session a request's cookie names, its account and the account key it opens."""

    session: Any
    account: Any
    key: bytes


def _profile(account: Any, secret: str) -> dict[str, Any]:
    return {"id": account.profile_id, "name": account.name, "secret": secret}


def _new_session(account_id: str, key: bytes, agent: str) -> tuple[str, dict[str, Any]]:
    token = secrets.token_urlsafe(32)
    now = time.time()
    row = {
        "token_hash": hash_token(token),
        "id": secrets.token_hex(6),
        "account_id": account_id,
        "key_box": pw.seal(pw.token_key(token), key, "session"),
        "created_at": now,
        "seen_at": now,
        "agent": agent[:160],
    }
    return token, row


def _weak(password: str) -> None:
    why = pw.check_password(password)
    if why is not None:
        raise ApiError(400, "weak_password", why)


def too_many_logins(wait: float) -> ApiError:
    """``429 too_many_logins`` with its ``Retry-After``, ``wait`` seconds rounded up."""
    seconds = int(wait + 0.999)
    return ApiError(
        429,
        "too_many_logins",
        f"too many login attempts: try again in {seconds} s",
        headers={"Retry-After": str(seconds)},
    )


async def sign_up(
    hub: Hub, name: str | None, password: str, profile_secret: str | None, agent: str
) -> Opened:
    """Make an account (``POST /api/accounts``): over the browser's profile whose secret is
    ``profile_secret`` (claimed: its games and rating stay, its name is the account's), else
    over a new profile named ``name``. The answer holds the recovery codes, shown this once."""
    _weak(password)
    if profile_secret:
        found = lookup_secret(hub, profile_secret)
        if found is None:
            raise ApiError(400, "no_such_profile", "no profile has this secret")
        pid, pname, secret = found["id"], found["name"], profile_secret
        with hub.storage.engine.connect() as conn:
            if store.by_profile(conn, pid) is not None:
                raise ApiError(409, "profile_claimed", "this profile belongs to an account already")
    else:
        if not name:
            raise ApiError(400, "bad_name", "an account needs a name")
        try:
            made = await add_profile(hub, name)
        except ProfileError as exc:
            raise ApiError(exc.status, exc.code, exc.message) from None
        pid, pname, secret = made["id"], made["name"], made["secret"]
    key = pw.new_account_key()
    phash, pbox = await asyncio.to_thread(
        lambda: (pw.hash_password(password), pw.password_box(password, key))
    )
    account_id = secrets.token_hex(6)
    codes = [pw.new_recovery_code() for _ in range(RECOVERY_CODES)]
    code_rows = [
        {
            "code_hash": hash_token(pw.normal_code(c)),
            "account_id": account_id,
            "key_box": pw.seal(pw.code_key(pw.normal_code(c)), key, "recovery"),
        }
        for c in codes
    ]
    token, session = _new_session(account_id, key, agent)
    account = {
        "id": account_id,
        "profile_id": pid,
        "password_hash": phash,
        "password_box": pbox,
        "vault": pw.seal(key, secret.encode("utf-8"), "profile secret"),
        "created_at": time.time(),
    }
    if not await hub.storage.run(store.job_new_account(account, code_rows, session)):
        raise ApiError(409, "profile_claimed", "this profile belongs to an account already")
    answer = {
        "name": pname,
        "profile": {"id": pid, "name": pname, "secret": secret},
        "session": session["id"],
        "recovery_codes": codes,
    }
    return Opened(token, answer)


def _find(hub: Hub, name: str) -> Any | None:
    with hub.storage.engine.connect() as conn:
        return store.by_name(conn, name)


async def _limit(limiter: LoginLimiter, address: str, account: str) -> None:
    wait = await limiter.attempt(address)
    if wait is None:
        wait = await limiter.account_blocked(account)
    if wait is not None:
        raise too_many_logins(wait)


async def log_in(
    hub: Hub, limiter: LoginLimiter, address: str, name: str, password: str, agent: str
) -> Opened:
    """Log in with a name and a password (``POST /api/session``)."""
    await _limit(limiter, address, name_key(name))
    row = _find(hub, name)
    if row is None:
        await limiter.failed(name_key(name))
        raise ApiError(401, "bad_login", "the name or the password is wrong")
    try:
        key = await asyncio.to_thread(_open_with_password, row, password)
    except pw.BoxError:
        await limiter.failed(name_key(name))
        raise ApiError(401, "bad_login", "the name or the password is wrong") from None
    token, session = _new_session(row.id, key, agent)
    await hub.storage.run(store.job_new_session(session))
    secret = pw.open_box(key, row.vault, "profile secret").decode("utf-8")
    return Opened(
        token, {"name": row.name, "profile": _profile(row, secret), "session": session["id"]}
    )


def _open_with_password(row: Any, password: str) -> bytes:
    if not pw.verify_password(row.password_hash, password):
        raise pw.BoxError("wrong password")
    return pw.open_password_box(password, row.password_box)


async def recover(
    hub: Hub,
    limiter: LoginLimiter,
    address: str,
    name: str,
    code: str,
    password: str,
    agent: str,
) -> Opened:
    """Log in with a recovery code and set a new password (``POST /api/session/recover``):
    the code is spent."""
    _weak(password)
    await _limit(limiter, address, name_key(name))
    row = _find(hub, name)
    code = pw.normal_code(code)
    found = None
    if row is not None:
        with hub.storage.engine.connect() as conn:
            found = conn.execute(
                store.recovery_codes.select().where(
                    store.recovery_codes.c.code_hash == hash_token(code),
                    store.recovery_codes.c.account_id == row.id,
                )
            ).first()
    if row is None or found is None:
        await limiter.failed(name_key(name))
        raise ApiError(401, "bad_code", "this is not an unused recovery code of this account")
    key = pw.open_box(pw.code_key(code), found.key_box, "recovery")
    phash, pbox = await asyncio.to_thread(
        lambda: (pw.hash_password(password), pw.password_box(password, key))
    )
    token, session = _new_session(row.id, key, agent)
    if not await hub.storage.run(store.job_use_code(row.id, found.code_hash, phash, pbox, session)):
        raise ApiError(401, "bad_code", "this is not an unused recovery code of this account")
    secret = pw.open_box(key, row.vault, "profile secret").decode("utf-8")
    return Opened(
        token, {"name": row.name, "profile": _profile(row, secret), "session": session["id"]}
    )


def current(hub: Hub, token: str | None) -> Current | None:
    """The session of a cookie's ``token`` (``None``: none, ended, or unused too long)."""
    if not token or len(token) > 100:
        return None
    with hub.storage.engine.connect() as conn:
        found = store.by_session(conn, hash_token(token))
    if found is None:
        return None
    session, account = found
    if session.seen_at < time.time() - SESSION_DAYS * 86_400:
        return None
    try:
        key = pw.open_box(pw.token_key(token), session.key_box, "session")
    except pw.BoxError:
        return None
    return Current(session, account, key)


def _not_logged_in() -> ApiError:
    return ApiError(401, "not_logged_in", "you are not logged in")


def need(cur: Current | None) -> Current:
    """``cur``, or ``401 not_logged_in``."""
    if cur is None:
        raise _not_logged_in()
    return cur


async def me(hub: Hub, cur: Current) -> dict[str, Any]:
    """Who is logged in (``GET /api/me``), with the profile's secret for this browser."""
    now = time.time()
    if now - cur.session.seen_at > SEEN_EVERY:
        await hub.storage.run(store.job_seen(cur.session.token_hash, now))
    secret = pw.open_box(cur.key, cur.account.vault, "profile secret").decode("utf-8")
    with hub.storage.engine.connect() as conn:
        left = store.codes_left(conn, cur.account.id)
    return {
        "name": cur.account.name,
        "profile": _profile(cur.account, secret),
        "session": cur.session.id,
        "created_at": cur.account.created_at,
        "recovery_codes_left": left,
        "email": cur.account.email,
    }


async def log_out(hub: Hub, cur: Current) -> None:
    """End this session (``DELETE /api/session``)."""
    await hub.storage.run(store.job_end_sessions(cur.account.id, ids=[cur.session.id]))


def sessions(hub: Hub, cur: Current) -> list[dict[str, Any]]:
    """The account's sessions (``GET /api/me/sessions``)."""
    with hub.storage.engine.connect() as conn:
        rows = store.sessions_of(conn, cur.account.id)
    return [
        {
            "id": s.id,
            "created_at": s.created_at,
            "seen_at": s.seen_at,
            "agent": s.agent,
            "current": s.id == cur.session.id,
        }
        for s in rows
    ]


async def end_session(hub: Hub, cur: Current, sid: str) -> None:
    """End one of the account's sessions (``DELETE /api/me/sessions/{id}``)."""
    if not await hub.storage.run(store.job_end_sessions(cur.account.id, ids=[sid])):
        raise ApiError(404, "no_such_session", "this account has no such session")


async def log_out_everywhere(hub: Hub, cur: Current) -> dict[str, Any]:
    """End every other session and give the profile a new secret (``POST
    /api/me/sessions/end-others``): the other browsers' copies of the old one no longer take
    a seat as the profile. The answer is this browser's profile with the new secret."""
    secret = secrets.token_urlsafe(24)
    vault = pw.seal(cur.key, secret.encode("utf-8"), "profile secret")
    ended = await hub.storage.run(
        store.job_new_secret(
            cur.account.id, cur.account.profile_id, hash_token(secret), vault, cur.session.id
        )
    )
    profile_hashes(hub).add(hash_token(secret))
    profile_hashes(hub).discard(cur.account.secret_hash)
    return {"profile": _profile(cur.account, secret), "ended": ended}


def export(hub: Hub, cur: Current) -> dict[str, Any]:
    """Everything the server keeps about the account (``GET /api/me/export``), but what it
    keeps only as hashes or sealed (the password, the tokens, the codes)."""
    with hub.storage.engine.connect() as conn:
        left = store.codes_left(conn, cur.account.id)
    return {
        "account": {
            "name": cur.account.name,
            "created_at": cur.account.created_at,
            "recovery_codes_left": left,
            "email": cur.account.email,
        },
        "sessions": sessions(hub, cur),
        "profile": profile_with_history(hub, cur.account.profile_id),
        "exported_at": time.time(),
    }


async def delete_account(
    hub: Hub, limiter: LoginLimiter, address: str, cur: Current, password: str
) -> None:
    """Delete the account (``DELETE /api/me``, with its password): its sessions and codes
    go, its profile stays with its games, named :data:`DELETED_NAME`, its secret unusable."""
    await _limit(limiter, address, cur.account.name_key or cur.account.id)
    if not await asyncio.to_thread(pw.verify_password, cur.account.password_hash, password):
        await limiter.failed(cur.account.name_key or cur.account.id)
        raise ApiError(403, "wrong_password", "the password is wrong")
    unusable = hash_token(secrets.token_urlsafe(32))
    await hub.storage.run(
        store.job_delete_account(
            cur.account.id, cur.account.profile_id, cur.account.name, DELETED_NAME, unusable
        )
    )
    if hub.profile_names is not None and cur.account.name_key:
        hub.profile_names.discard(cur.account.name_key)
    profile_hashes(hub).discard(cur.account.secret_hash)
