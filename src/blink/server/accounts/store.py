"""The accounts' tables (migration ``0010_accounts``) and the queries on them.

- ``accounts``: one a profile (``profile_id``, unique: the account owns the profile and its
  name); the password's Argon2id hash, the account key sealed under the password
  (``password_box``) and the profile's secret sealed under the account key (``vault``).
- ``account_sessions``: one a logged-in browser. Only the SHA-256 of its token (the cookie's
  value) is kept, with a public id to name it by, the account key sealed under the token, when
  it was made and last seen, and the browser's own description (its User-Agent, cut short).
- ``recovery_codes``: the SHA-256 of each unused recovery code, with the account key sealed
  under it. A code is deleted when used.
- ``password_resets`` (migration ``0014_account_mail``, with the accounts' optional ``email``
  and its lower-case ``email_key``): the SHA-256 of each password reset token mailed, with
  when it expires. A token is deleted when used, and with every other of its account.

Reads go straight to the database; writes are storage jobs (functions of a connection, run
by the server's writer).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import (
    Column,
    Connection,
    Float,
    MetaData,
    String,
    Table,
    Text,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)

from blink.server.jobs import insert_new
from blink.server.names import name_key, plain_key
from blink.server.profiles import profile_games, profiles

__all__ = [
    "account_sessions",
    "accounts",
    "by_email",
    "by_id",
    "by_name",
    "by_profile",
    "by_session",
    "codes_left",
    "password_resets",
    "recovery_codes",
    "sessions_of",
]

meta = MetaData()

accounts = Table(
    "accounts",
    meta,
    Column("id", String(16), primary_key=True),
    Column("profile_id", String(16), nullable=False, unique=True),
    Column("password_hash", String(200), nullable=False),
    Column("password_box", Text, nullable=False),
    Column("vault", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("email", String(254), nullable=True),
    Column("email_key", String(254), nullable=True, index=True),
)

account_sessions = Table(
    "account_sessions",
    meta,
    Column("token_hash", String(64), primary_key=True),
    Column("id", String(16), nullable=False, unique=True),
    Column("account_id", String(16), nullable=False, index=True),
    Column("key_box", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("seen_at", Float, nullable=False),
    Column("agent", String(160), nullable=False),
)

recovery_codes = Table(
    "recovery_codes",
    meta,
    Column("code_hash", String(64), primary_key=True),
    Column("account_id", String(16), nullable=False, index=True),
    Column("key_box", Text, nullable=False),
)

password_resets = Table(
    "password_resets",
    meta,
    Column("token_hash", String(64), primary_key=True),
    Column("account_id", String(16), nullable=False, index=True),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
)

_JOINED = accounts.join(profiles, profiles.c.id == accounts.c.profile_id)
_COLUMNS = (
    accounts,
    profiles.c.name,
    profiles.c.name_key,
    profiles.c.secret_hash,
)


def by_name(conn: Connection, name: str) -> Any | None:
    """The account (with its profile's name) called ``name``: the one whose profile's name has
    its key (:func:`blink.server.names.name_key`). Two profiles whose names came to share a key
    by migration 0010 (the later one's key is the key, ``#`` and its id) are told apart by the
    name as written (NFKC, case folded)."""
    key = name_key(name)
    rows = conn.execute(
        select(*_COLUMNS)
        .select_from(_JOINED)
        .where(
            or_(
                profiles.c.name_key == key,
                profiles.c.name_key.startswith(key + "#", autoescape=True),
            )
        )
    ).all()
    plain = plain_key(name)
    for row in rows:
        if plain_key(row.name) == plain:
            return row
    return next((row for row in rows if row.name_key == key), None)


def email_key(email: str) -> str:
    """The form an address is looked up by: stripped, lower case."""
    return email.strip().lower()


def by_email(conn: Connection, email: str, most: int = 5) -> list[Any]:
    """The accounts (at most ``most``) that recorded the address ``email``."""
    return list(
        conn.execute(
            select(*_COLUMNS)
            .select_from(_JOINED)
            .where(accounts.c.email_key == email_key(email))
            .order_by(accounts.c.created_at)
            .limit(most)
        )
    )


def by_id(conn: Connection, account_id: str) -> Any | None:
    """The account ``account_id`` (with its profile's name and secret hash)."""
    return conn.execute(
        select(*_COLUMNS).select_from(_JOINED).where(accounts.c.id == account_id)
    ).first()


def by_profile(conn: Connection, pid: str) -> Any | None:
    """The account that owns profile ``pid``."""
    return conn.execute(
        select(*_COLUMNS).select_from(_JOINED).where(accounts.c.profile_id == pid)
    ).first()


def by_session(conn: Connection, token_hash: str) -> tuple[Any, Any] | None:
    """The session of this token hash and its account, or ``None``."""
    s = conn.execute(
        select(account_sessions).where(account_sessions.c.token_hash == token_hash)
    ).first()
    if s is None:
        return None
    a = conn.execute(
        select(*_COLUMNS).select_from(_JOINED).where(accounts.c.id == s.account_id)
    ).first()
    return None if a is None else (s, a)


def sessions_of(conn: Connection, account_id: str) -> list[Any]:
    """An account's sessions, the latest seen first."""
    return list(
        conn.execute(
            select(account_sessions)
            .where(account_sessions.c.account_id == account_id)
            .order_by(account_sessions.c.seen_at.desc(), account_sessions.c.id)
        )
    )


def codes_left(conn: Connection, account_id: str) -> int:
    """How many unused recovery codes an account has."""
    n = conn.execute(
        select(func.count())
        .select_from(recovery_codes)
        .where(recovery_codes.c.account_id == account_id)
    ).scalar_one()
    return int(n)


# -- storage jobs


def job_new_account(
    account: dict[str, Any], codes: list[dict[str, Any]], session: dict[str, Any]
) -> Callable[[Connection], bool]:
    """Insert an account with its recovery codes and first session; ``False`` (nothing
    written) when its profile has an account already."""

    def job(conn: Connection) -> bool:
        if not insert_new(conn, accounts, account, "profile_id"):
            return False
        if codes:
            conn.execute(insert(recovery_codes), codes)
        conn.execute(insert(account_sessions).values(**session))
        return True

    return job


def job_new_session(session: dict[str, Any]) -> Callable[[Connection], None]:
    """Insert a session."""

    def job(conn: Connection) -> None:
        conn.execute(insert(account_sessions).values(**session))

    return job


def job_end_sessions(
    account_id: str, ids: list[str] | None = None, keep: str | None = None
) -> Callable[[Connection], int]:
    """Delete an account's sessions (those of ``ids``, else all but ``keep``); how many."""

    def job(conn: Connection) -> int:
        stmt = delete(account_sessions).where(account_sessions.c.account_id == account_id)
        if ids is not None:
            stmt = stmt.where(account_sessions.c.id.in_(ids))
        if keep is not None:
            stmt = stmt.where(account_sessions.c.id != keep)
        return int(conn.execute(stmt).rowcount or 0)

    return job


def job_seen(token_hash: str, at: float) -> Callable[[Connection], None]:
    """A session was used at ``at``."""

    def job(conn: Connection) -> None:
        conn.execute(
            update(account_sessions)
            .where(account_sessions.c.token_hash == token_hash)
            .values(seen_at=at)
        )

    return job


def job_use_code(
    account_id: str,
    code_hash: str,
    password_hash: str,
    password_box: str,
    session: dict[str, Any],
) -> Callable[[Connection], bool]:
    """Spend a recovery code: delete it, set the new password, open a session; ``False``
    (nothing written) when the code was spent meanwhile."""

    def job(conn: Connection) -> bool:
        gone = conn.execute(
            delete(recovery_codes).where(
                recovery_codes.c.code_hash == code_hash,
                recovery_codes.c.account_id == account_id,
            )
        ).rowcount
        if gone != 1:
            return False
        conn.execute(
            update(accounts)
            .where(accounts.c.id == account_id)
            .values(password_hash=password_hash, password_box=password_box)
        )
        conn.execute(insert(account_sessions).values(**session))
        return True

    return job


def job_new_secret(
    account_id: str, profile_id: str, secret_hash: str, vault: str, keep: str
) -> Callable[[Connection], int]:
    """Give the profile a new secret (its hash, and the vault sealing it) and end every
    session of the account but ``keep``; how many ended."""

    def job(conn: Connection) -> int:
        conn.execute(
            update(profiles).where(profiles.c.id == profile_id).values(secret_hash=secret_hash)
        )
        conn.execute(update(accounts).where(accounts.c.id == account_id).values(vault=vault))
        return job_end_sessions(account_id, keep=keep)(conn)

    return job


def job_delete_account(
    account_id: str, profile_id: str, name: str, shown: str, unusable_hash: str
) -> Callable[[Connection], None]:
    """Delete an account, its sessions and codes, and anonymise its profile: the profile row
    stays (its games, ratings and tournament places stay whole) named ``shown``, with no name
    key (the name is free again) and a secret hash nobody holds; in other profiles' histories
    its name becomes ``shown`` too."""

    def job(conn: Connection) -> None:
        conn.execute(delete(account_sessions).where(account_sessions.c.account_id == account_id))
        conn.execute(delete(recovery_codes).where(recovery_codes.c.account_id == account_id))
        conn.execute(delete(password_resets).where(password_resets.c.account_id == account_id))
        conn.execute(delete(accounts).where(accounts.c.id == account_id))
        conn.execute(
            update(profiles)
            .where(profiles.c.id == profile_id)
            .values(name=shown, name_key=None, secret_hash=unusable_hash)
        )
        quoted, anon = json.dumps(name), json.dumps(shown)
        conn.execute(
            update(profile_games)
            .where(profile_games.c.opponents.contains(quoted, autoescape=True))
            .values(opponents=func.replace(profile_games.c.opponents, quoted, anon))
        )

    return job


def job_set_email(account_id: str, email: str | None) -> Callable[[Connection], None]:
    """Record (or, with ``None``, forget) the account's address."""

    def job(conn: Connection) -> None:
        conn.execute(
            update(accounts)
            .where(accounts.c.id == account_id)
            .values(email=email, email_key=None if email is None else email_key(email))
        )

    return job


def job_new_reset(row: dict[str, Any]) -> Callable[[Connection], None]:
    """Record a mailed reset token (its hash) and drop the account's expired ones."""

    def job(conn: Connection) -> None:
        conn.execute(
            delete(password_resets).where(
                password_resets.c.account_id == row["account_id"],
                password_resets.c.expires_at <= row["created_at"],
            )
        )
        conn.execute(insert(password_resets).values(**row))

    return job


def job_reset_password(
    token_hash: str,
    account_id: str,
    profile_id: str,
    secret_hash: str,
    now: float,
    values: dict[str, Any],
    codes: list[dict[str, Any]],
) -> Callable[[Connection], bool]:
    """Spend a reset token unexpired at ``now``: delete it and the account's other tokens,
    set the account's new password, key boxes and vault (``values``), replace its recovery
    codes with ``codes``, give the profile its new secret's hash and end every session;
    ``False`` (nothing but spent tokens written) for a token unknown, spent, expired or
    another account's."""

    def job(conn: Connection) -> bool:
        found = conn.execute(
            select(password_resets).where(
                password_resets.c.token_hash == token_hash,
                password_resets.c.account_id == account_id,
            )
        ).first()
        if found is None:
            return False
        conn.execute(delete(password_resets).where(password_resets.c.account_id == account_id))
        if found.expires_at <= now:
            return False
        conn.execute(update(accounts).where(accounts.c.id == account_id).values(**values))
        conn.execute(
            update(profiles).where(profiles.c.id == profile_id).values(secret_hash=secret_hash)
        )
        conn.execute(delete(recovery_codes).where(recovery_codes.c.account_id == account_id))
        if codes:
            conn.execute(insert(recovery_codes), [{**c, "account_id": account_id} for c in codes])
        conn.execute(delete(account_sessions).where(account_sessions.c.account_id == account_id))
        return True

    return job
