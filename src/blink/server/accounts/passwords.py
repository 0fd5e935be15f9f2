"""Passwords and the account's key.

A password is stored as its Argon2id hash (``argon2-cffi``'s :class:`~argon2.PasswordHasher`,
its defaults: RFC 9106's second recommended set). The profile's secret is the seat token of
every rated game, and the server keeps only its SHA-256, so another device cannot be handed it
from that: the account keeps it sealed (AES-256-GCM) under a random account key, and the
account key sealed in turn under

- a key derived from the password (Argon2id again, its own salt),
- a key derived from each session's token (the cookie's value, which only its holder has:
  SHA-256 of a 256-bit random token), and
- a key derived from each unused recovery code (80 random bits, SHA-256).

So the database alone opens none of them: it takes the password, a session's cookie or a
recovery code.
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
from typing import Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from argon2.low_level import Type, hash_secret_raw
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

__all__ = [
    "MAX_PASSWORD",
    "MIN_PASSWORD",
    "BoxError",
    "check_password",
    "code_key",
    "hash_password",
    "new_account_key",
    "new_recovery_code",
    "normal_code",
    "open_box",
    "open_password_box",
    "password_box",
    "password_key",
    "seal",
    "token_key",
    "verify_password",
]

MIN_PASSWORD: Final = 8
"""The shortest password, in characters."""
MAX_PASSWORD: Final = 128
"""The longest password (a longer one would only make hashing it slow)."""

_HASHER: Final = PasswordHasher()
_SALT: Final = 16
_NONCE: Final = 12


class BoxError(ValueError):
    """A sealed box that the key given does not open (or that is damaged)."""


def check_password(password: str) -> str | None:
    """Why ``password`` cannot be used, as a sentence; ``None`` when it can."""
    if len(password) < MIN_PASSWORD:
        return f"a password has at least {MIN_PASSWORD} characters"
    if len(password) > MAX_PASSWORD:
        return f"a password has at most {MAX_PASSWORD} characters"
    return None


def hash_password(password: str) -> str:
    """The Argon2id hash of ``password`` (a PHC string with its salt and parameters)."""
    return _HASHER.hash(password)


def verify_password(stored: str, password: str) -> bool:
    """Whether ``password`` is the one ``stored`` is the hash of."""
    try:
        return bool(_HASHER.verify(stored, password))
    except (VerificationError, InvalidHashError):
        return False


def password_key(password: str, salt: bytes) -> bytes:
    """The 256-bit key a password opens its box with (Argon2id over ``salt``)."""
    p = _HASHER
    return hash_secret_raw(
        password.encode("utf-8"),
        salt,
        time_cost=p.time_cost,
        memory_cost=p.memory_cost,
        parallelism=p.parallelism,
        hash_len=32,
        type=Type.ID,
    )


def token_key(token: str) -> bytes:
    """The key a session's token opens its box with."""
    return hashlib.sha256(b"blink session key\0" + token.encode("utf-8")).digest()


def code_key(code: str) -> bytes:
    """The key a recovery code (in its normal form) opens its box with."""
    return hashlib.sha256(b"blink recovery key\0" + code.encode("utf-8")).digest()


def new_account_key() -> bytes:
    """A random account key."""
    return os.urandom(32)


def seal(key: bytes, plain: bytes, what: str) -> str:
    """``plain`` sealed under ``key`` (AES-256-GCM, a random nonce; ``what`` is bound to it,
    so that a box cannot stand for another kind), as text."""
    nonce = os.urandom(_NONCE)
    sealed = AESGCM(key).encrypt(nonce, plain, what.encode())
    return base64.b64encode(nonce + sealed).decode("ascii")


def open_box(key: bytes, box: str, what: str) -> bytes:
    """What :func:`seal` sealed; :class:`BoxError` for another key or a damaged box."""
    try:
        raw = base64.b64decode(box.encode("ascii"), validate=True)
        return AESGCM(key).decrypt(raw[:_NONCE], raw[_NONCE:], what.encode())
    except (InvalidTag, ValueError) as exc:
        raise BoxError("this key does not open the box") from exc


def password_box(password: str, account_key: bytes, salt: bytes | None = None) -> str:
    """The account key sealed under ``password``: the salt, then the box, as text."""
    salt = salt or os.urandom(_SALT)
    sealed = seal(password_key(password, salt), account_key, "account key")
    return base64.b64encode(salt).decode("ascii") + "." + sealed


def open_password_box(password: str, box: str) -> bytes:
    """The account key from its password box; :class:`BoxError` for a wrong password."""
    salt, _, sealed = box.partition(".")
    try:
        raw_salt = base64.b64decode(salt.encode("ascii"), validate=True)
    except ValueError as exc:
        raise BoxError("a damaged box") from exc
    return open_box(password_key(password, raw_salt), sealed, "account key")


_CODE_ALPHABET: Final = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Recovery codes' letters: no 0/O, 1/I to misread (32 letters, 5 bits each)."""


def new_recovery_code() -> str:
    """A recovery code as shown: 16 letters (80 bits) in four groups, ``ABCD-EFGH-JKLM-NPQR``."""
    letters = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(16))
    return "-".join(letters[i : i + 4] for i in range(0, 16, 4))


def normal_code(code: str) -> str:
    """A recovery code as typed, in the form it is hashed in: capitals, no spaces or dashes."""
    return "".join(c for c in code.upper() if c.isalnum())
