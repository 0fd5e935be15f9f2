"""The bot accounts' tables (migration ``0013_bots``) and the queries on them.

- ``bots``: one a bot account: its profile (``profile_id``, the primary key) and the account
  that owns it (``account_id``).
- ``bot_tokens``: every token a bot was given, as its SHA-256 only, with when it was made and
  when it was rotated away or revoked (``revoked_at``; null for the live one).

Reads go straight to the database; writes are storage jobs (functions of a connection, run by
the server's writer).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from sqlalchemy import (
    Column,
    Connection,
    Float,
    MetaData,
    String,
    Table,
    func,
    insert,
    select,
    update,
)

from blink.server.accounts.store import accounts
from blink.server.profiles import profiles

__all__ = [
    "bot_tokens",
    "bots",
    "bots_of",
    "count_bots",
    "job_new_bot",
    "job_new_token",
    "owner_of",
    "token_owners",
]

meta = MetaData()

bots = Table(
    "bots",
    meta,
    Column("profile_id", String(16), primary_key=True),
    Column("account_id", String(16), nullable=False, index=True),
    Column("created_at", Float, nullable=False),
)

bot_tokens = Table(
    "bot_tokens",
    meta,
    Column("token_hash", String(64), primary_key=True),
    Column("profile_id", String(16), nullable=False, index=True),
    Column("created_at", Float, nullable=False),
    Column("revoked_at", Float, nullable=True),
)

_owner = profiles.alias("owner")


def bots_of(conn: Connection, account_id: str) -> list[Any]:
    """An account's bots, oldest first: each with its profile's public fields and whether it
    has a live token (``live``)."""
    live = (
        select(func.count())
        .select_from(bot_tokens)
        .where(bot_tokens.c.profile_id == bots.c.profile_id, bot_tokens.c.revoked_at.is_(None))
        .scalar_subquery()
    )
    return list(
        conn.execute(
            select(profiles, bots.c.created_at.label("bot_created_at"), live.label("live"))
            .select_from(bots.join(profiles, profiles.c.id == bots.c.profile_id))
            .where(bots.c.account_id == account_id)
            .order_by(bots.c.created_at, profiles.c.id)
        )
    )


def count_bots(conn: Connection, account_id: str) -> int:
    """How many bots an account has."""
    n = conn.execute(
        select(func.count()).select_from(bots).where(bots.c.account_id == account_id)
    ).scalar_one()
    return int(n)


def _with_owner() -> Any:
    """The bots joined to their owner's profile (``None`` once the account is deleted)."""
    return bots.outerjoin(accounts, accounts.c.id == bots.c.account_id).outerjoin(
        _owner, _owner.c.id == accounts.c.profile_id
    )


def owner_of(conn: Connection, profile_id: str) -> tuple[bool, str | None]:
    """Whether profile ``profile_id`` is a bot's, and the name of the account that owns it
    (``None``: no bot, or its account was deleted)."""
    row = conn.execute(
        select(_owner.c.name).select_from(_with_owner()).where(bots.c.profile_id == profile_id)
    ).first()
    return (False, None) if row is None else (True, row[0])


def token_owners(conn: Connection, hashes: Iterable[str]) -> dict[str, Any]:
    """The bot tokens among ``hashes`` (live or not), by hash: each row has the bot's
    ``profile_id``, its ``name``, ``revoked_at`` and its owner's name (``owner``, ``None``
    once the account is deleted)."""
    wanted = list(set(hashes))
    if not wanted:
        return {}
    rows = conn.execute(
        select(
            bot_tokens.c.token_hash,
            bot_tokens.c.profile_id,
            bot_tokens.c.revoked_at,
            profiles.c.name,
            _owner.c.name.label("owner"),
        )
        .select_from(
            _with_owner()
            .join(bot_tokens, bot_tokens.c.profile_id == bots.c.profile_id)
            .join(profiles, profiles.c.id == bots.c.profile_id)
        )
        .where(bot_tokens.c.token_hash.in_(wanted))
    )
    return {r.token_hash: r for r in rows}


# -- storage jobs


def job_new_bot(bot: dict[str, Any], token: dict[str, Any]) -> Callable[[Connection], None]:
    """Insert a bot (its profile is already in) and its first token."""

    def job(conn: Connection) -> None:
        conn.execute(insert(bots).values(**bot))
        conn.execute(insert(bot_tokens).values(**token))

    return job


def job_new_token(
    profile_id: str, secret_hash: str, token: dict[str, Any] | None, at: float
) -> Callable[[Connection], None]:
    """Revoke the bot's live token (at ``at``) and give its profile the secret hash
    ``secret_hash``: a new token's (``token``, inserted) or, to revoke, one nobody holds."""

    def job(conn: Connection) -> None:
        conn.execute(
            update(bot_tokens)
            .where(bot_tokens.c.profile_id == profile_id, bot_tokens.c.revoked_at.is_(None))
            .values(revoked_at=at)
        )
        if token is not None:
            conn.execute(insert(bot_tokens).values(**token))
        conn.execute(
            update(profiles).where(profiles.c.id == profile_id).values(secret_hash=secret_hash)
        )

    return job
