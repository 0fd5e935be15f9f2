"""An account's address and the password reset by mail.

An account may record an address (``PUT /api/me/email``, with its password). When the
operator gave the server an SMTP server (:class:`~blink.server.settings.MailSettings`),
``POST /api/password-reset`` with a name or an address mails each account it names that has
an address a link with a single-use token (256 random bits; only its SHA-256 is stored, with
an expiry :attr:`~blink.server.settings.Settings.reset_minutes` ahead on the server's
``wall_clock``). The answer is always the same ``202``, sent before anything about the
account is looked at (the lookup, the token and the mail happen after, in a task), so it
tells nobody whether the name or address has an account.

``POST /api/password-reset/confirm`` with the token and a new password spends the token
(and the account's others). The account key was sealed under the old password, the sessions
and the recovery codes, none of which the token opens: the account gets a new key, the
profile a new secret (its old copies no longer take a seat), every session ends, and new
recovery codes replace the old ones, shown in the answer this once.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
from typing import Any, Final

from blink.server.accounts import mail, store
from blink.server.accounts import passwords as pw
from blink.server.accounts.logins import LoginLimiter
from blink.server.accounts.service import RECOVERY_CODES, Current, too_many_logins
from blink.server.errors import ApiError
from blink.server.hub import Hub
from blink.server.profiles import profile_hashes
from blink.server.room.seats import hash_token

__all__ = [
    "ACCOUNT_RATE",
    "ADDRESS_RATE",
    "MAX_EMAIL",
    "check_email",
    "confirm_reset",
    "request_reset",
    "reset_limiter",
    "set_email",
]

MAX_EMAIL: Final = 254
"""The longest address (RFC 5321's path)."""
ADDRESS_RATE: Final = "10/10 minutes"
"""Reset requests (and confirmations) from one client address."""
ACCOUNT_RATE: Final = "3/hour"
"""Reset mails sent to one account."""
_EMAIL: Final = re.compile(r"[^@\s<>()\[\],;:\"]+@[^@\s<>()\[\],;:\"]+\.[^@\s<>()\[\],;:\"]+")

log = logging.getLogger(__name__)
_tasks: set[asyncio.Task[None]] = set()


def reset_limiter() -> LoginLimiter:
    """The windows of reset requests: per client address and per account (mails sent)."""
    return LoginLimiter(ADDRESS_RATE, ACCOUNT_RATE)


def check_email(email: str) -> str | None:
    """Why ``email`` is not an address to record, as a sentence; ``None`` when it is."""
    if len(email) > MAX_EMAIL or not _EMAIL.fullmatch(email):
        return "this is not a mail address (name@example.org)"
    return None


async def set_email(
    hub: Hub, limiter: LoginLimiter, address: str, cur: Current, email: str, password: str
) -> dict[str, Any]:
    """Record the account's address, or forget it with ``""`` (``PUT /api/me/email``, with
    the account's password)."""
    email = email.strip()
    if email:
        why = check_email(email)
        if why is not None:
            raise ApiError(400, "bad_email", why)
    who = cur.account.name_key or cur.account.id
    wait = await limiter.attempt(address)
    if wait is None:
        wait = await limiter.account_blocked(who)
    if wait is not None:
        raise too_many_logins(wait)
    if not await asyncio.to_thread(pw.verify_password, cur.account.password_hash, password):
        await limiter.failed(who)
        raise ApiError(403, "wrong_password", "the password is wrong")
    await hub.storage.run(store.job_set_email(cur.account.id, email or None))
    return {"email": email or None}


def _no_mail() -> ApiError:
    return ApiError(
        503,
        "mail_not_configured",
        "this server sends no mail: log in with one of your recovery codes instead",
    )


async def request_reset(hub: Hub, limiter: LoginLimiter, address: str, who: str) -> None:
    """Ask for a reset mail for the account named ``who`` (a name or an address); returns at
    once, the same way whether or not an account answers to it."""
    if hub.settings.mail is None:
        raise _no_mail()
    wait = await limiter.attempt(address)
    if wait is not None:
        seconds = int(wait + 0.999)
        raise ApiError(
            429,
            "too_many_resets",
            f"too many password reset requests: try again in {seconds} s",
            headers={"Retry-After": str(seconds)},
        )
    task = asyncio.create_task(_mail_resets(hub, limiter, who.strip()))
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


async def _mail_resets(hub: Hub, limiter: LoginLimiter, who: str) -> None:
    try:
        with hub.storage.engine.connect() as conn:
            if "@" in who:
                rows = store.by_email(conn, who)
            else:
                one = store.by_name(conn, who)
                rows = [] if one is None else [one]
        for row in rows:
            if row.email and await limiter.account_blocked(row.id) is None:
                await limiter.failed(row.id)
                await _mail_one(hub, row)
    except Exception:  # a task's failure is logged, never lost
        log.exception("a password reset request failed")


async def _mail_one(hub: Hub, row: Any) -> None:
    settings = hub.settings
    assert settings.mail is not None
    token = secrets.token_urlsafe(32)
    now = settings.wall_clock()
    await hub.storage.run(
        store.job_new_reset(
            {
                "token_hash": hash_token(token),
                "account_id": row.id,
                "created_at": now,
                "expires_at": now + settings.reset_minutes * 60,
            }
        )
    )
    minutes = round(settings.reset_minutes)
    msg = mail.reset_message(settings.mail, row.email, row.name, token, minutes)
    await mail.send_in_thread(settings.mail, msg)


def _bad_token() -> ApiError:
    return ApiError(400, "bad_reset_token", "this reset link is unknown, used or expired")


async def confirm_reset(
    hub: Hub, limiter: LoginLimiter, address: str, token: str, password: str
) -> dict[str, Any]:
    """Set a new password with a mailed token (``POST /api/password-reset/confirm``): the
    token is spent, every session ends; the answer holds the account's name and its new
    recovery codes."""
    why = pw.check_password(password)
    if why is not None:
        raise ApiError(400, "weak_password", why)
    wait = await limiter.attempt(address)
    if wait is not None:
        seconds = int(wait + 0.999)
        raise ApiError(
            429,
            "too_many_resets",
            f"too many password reset requests: try again in {seconds} s",
            headers={"Retry-After": str(seconds)},
        )
    token_hash = hash_token(token)
    now = hub.settings.wall_clock()
    with hub.storage.engine.connect() as conn:
        found = conn.execute(
            store.password_resets.select().where(store.password_resets.c.token_hash == token_hash)
        ).first()
        row = None if found is None else store.by_id(conn, found.account_id)
    if found is None or row is None or found.expires_at <= now:
        raise _bad_token()
    key = pw.new_account_key()
    secret = secrets.token_urlsafe(24)
    phash, pbox = await asyncio.to_thread(
        lambda: (pw.hash_password(password), pw.password_box(password, key))
    )
    codes = [pw.new_recovery_code() for _ in range(RECOVERY_CODES)]
    code_rows = [
        {
            "code_hash": hash_token(pw.normal_code(c)),
            "key_box": pw.seal(pw.code_key(pw.normal_code(c)), key, "recovery"),
        }
        for c in codes
    ]
    values = {
        "password_hash": phash,
        "password_box": pbox,
        "vault": pw.seal(key, secret.encode("utf-8"), "profile secret"),
    }
    job = store.job_reset_password(
        token_hash, row.id, row.profile_id, hash_token(secret), now, values, code_rows
    )
    if not await hub.storage.run(job):
        raise _bad_token()
    profile_hashes(hub).add(hash_token(secret))
    profile_hashes(hub).discard(row.secret_hash)
    return {"name": row.name, "recovery_codes": codes}
