"""How a Redis URL is shown: never with its password.

A node's ``--redis-url`` holds the password of its Redis user (``redis://blink:PASSWORD@host:
6379/0``, or ``?password=...`` in its query, which redis-py reads as well). Whatever prints or
logs such a URL (``blink serve``'s start-up line, ``blink cluster run``, the bus's logs, the
errors of ``--redis-url``) shows :func:`shown_redis_url` of it: the same URL with ``***`` in
place of the password. The URL is read the way redis-py reads it (:func:`urllib.parse.urlsplit`,
as ``redis.connection.parse_url`` does), not by a pattern.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit

__all__ = ["HIDDEN", "UNREADABLE", "shown_redis_url", "without_password"]

HIDDEN = "***"
"""What stands for a password."""
UNREADABLE = "(a Redis URL that could not be read; not shown)"
"""What stands for a whole value that is not a URL (it may hold a password anywhere)."""


def shown_redis_url(url: str) -> str:
    """``url`` as it may be shown: its scheme, user, host, port, database (or socket path)
    and query as given, its password (in the user part, or a ``password`` query parameter)
    replaced by ``***``. A value that cannot be read as a URL is not shown at all."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  # raises ValueError on a port that is not a number
    except ValueError:
        return UNREADABLE
    if not parts.scheme or "://" not in url:
        return UNREADABLE
    netloc = parts.netloc
    if "@" in netloc:
        user_info, _, where = netloc.rpartition("@")
        user, colon, _password = user_info.partition(":")
        netloc = f"{user}:{HIDDEN}@{where}" if colon else f"{user}@{where}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(k.lower() == "password" for k, _ in pairs):
            hidden = [(k, HIDDEN if k.lower() == "password" else v) for k, v in pairs]
            query = urlencode(hidden, safe="*")
    # (Not urlunsplit: it writes ``unix:/path`` for ``unix:///path``.)
    shown = f"{parts.scheme}://{netloc}{parts.path}"
    shown += f"?{query}" if query else ""
    return shown + (f"#{parts.fragment}" if parts.fragment else "")


def without_password(text: str, url: str) -> str:
    """``text`` (an error's message, say) with the password of ``url`` replaced by ``***``
    wherever it appears, the password read as redis-py reads it (``redis.connection.parse_url``;
    ``text`` as it is when redis-py is not installed or the URL cannot be read)."""
    try:
        from redis.connection import parse_url

        password = parse_url(url).get("password")  # type: ignore[no-untyped-call]
    except Exception:
        return text
    return text.replace(password, HIDDEN) if password else text
