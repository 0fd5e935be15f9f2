"""Taking a seat on a server, by HTTP: create a room, join one, check one to watch, and the
player's profile there.

What a game's online client (classic Blink's
:func:`blink.games.classic.tui.online.run_online`) does before the full-screen app opens, so
that an unreachable server or a wrong code is reported as one line (an :class:`OnlineError`, in the
terminal's language) first. :class:`Seat` is where the table then connects.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import httpx

from blink import profile_store
from blink.model.registry import front_end
from blink.profile_store import StoredProfile
from blink.tui.i18n import N_, _, language

__all__ = [
    "HTTP_ERRORS",
    "HTTP_TIMEOUT",
    "PROFILE_REFUSALS",
    "OnlineError",
    "Seat",
    "base_url",
    "fetch_profile",
    "online_client",
    "prepare",
    "resolve_profile",
]


def online_client() -> ModuleType:
    """The default game's online terminal client (:func:`blink.model.registry.front_end`: its
    commands module's ``online_client()``, classic Blink's
    :mod:`blink.games.classic.tui.online`), on which quick play and the daily challenge play
    their seat: its ``play_seat``, ``run_online`` and ``bot_name``."""
    commands = front_end().commands
    if commands is None:
        raise LookupError("the default game has no terminal client")
    client: ModuleType = importlib.import_module(commands).online_client()
    return client


HTTP_TIMEOUT = 10.0
"""Seconds to wait for an answer of the server over HTTP, or for its WebSocket to open."""

PROFILE_REFUSALS = frozenset({"no_such_profile", "profile_seated"})
"""Error codes with which a server refuses a profile secret (the seat is then taken anonymously)."""

HTTP_ERRORS = {
    "no_such_room": N_("there is no room with that code"),
    "room_full": N_("the room has no free seat"),
    "seat_taken": N_("that seat is taken"),
    "room_closed": N_("the room is closed: its series is over, or everyone left"),
    "no_such_profile": N_("the server does not know that profile"),
    "profile_seated": N_("that profile already has a seat in a game"),
}
"""The server's refusals of a room, seat or profile that the terminal says in its own words
(any other code shows the server's sentence in English, and its code in another language)."""


class OnlineError(Exception):
    """The server cannot be reached, or refused the room, code or seat: ``str()`` says why."""

    def __init__(self, message: str, code: str = "unreachable") -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class Seat:
    """Where to connect: the room, and the seat token (``None`` to watch)."""

    base_url: str
    code: str
    seat: int | None
    token: str | None
    notice: str | None = None
    """A line for the player about the seat (the stored profile was refused, for example)."""

    @property
    def ws_url(self) -> str:
        """The WebSocket endpoint of the room on the server (``/ws/CODE``)."""
        parts = urlsplit(self.base_url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        path = parts.path.rstrip("/") + "/ws/" + quote(self.code.upper(), safe="")
        return urlunsplit((scheme, parts.netloc, path, "", ""))


def base_url(server: str) -> str:
    """The server's base URL (``http://`` unless given). Raises :class:`OnlineError`."""
    raw = server.strip()
    if "://" not in raw:
        raw = "http://" + raw
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise OnlineError(
            _("{server} is not a server address (for example http://localhost:8000)").format(
                server=repr(server)
            )
        )
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


def _request(method: str, url: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    try:
        r = httpx.request(method, url, json=body, timeout=HTTP_TIMEOUT)
    except httpx.HTTPError as exc:
        host = urlsplit(url).netloc
        raise OnlineError(
            _("cannot reach the server at {host} ({error})").format(
                host=host, error=type(exc).__name__
            )
        ) from None
    try:
        data = r.json()
    except ValueError:
        data = None
    if r.status_code >= 400:
        err = data.get("error") if isinstance(data, dict) else None
        if isinstance(err, dict):
            code = str(err.get("code"))
            raise OnlineError(_http_error(code, str(err.get("message"))), code)
        raise OnlineError(
            _("the server answered {status} to {path}").format(
                status=r.status_code, path=urlsplit(url).path
            ),
            "http",
        )
    if not isinstance(data, dict):
        raise OnlineError(
            _("the server sent something other than JSON for {path}").format(
                path=urlsplit(url).path
            )
        )
    return data


def _http_error(code: str, message: str) -> str:
    """The server's refusal in the terminal's words (see :data:`HTTP_ERRORS`)."""
    words = HTTP_ERRORS.get(code)
    if words is not None:
        return _(words)
    return message if language() == "en" else _("the server refused ({code})").format(code=code)


def prepare(
    server: str,
    *,
    join: str | None = None,
    watch: str | None = None,
    name: str = "Player",
    players: int = 2,
    seats: list[str | None] | None = None,
    best_of: int = 1,
    handicap: str = "",
    ruleset: str = "official",
    profile_secret: str | None = None,
    public: bool = False,
) -> Seat:
    """Create a room and take seat 0, take a seat in room ``join``, or check room ``watch``.

    A room made here is private (joined by its code) unless ``public``: then the lobby lists it
    among the live games, as the browser's "list it" box does.

    With ``profile_secret`` the seat carries that profile (its games are rated). If the server
    refuses the secret (:data:`PROFILE_REFUSALS`) the seat is taken anonymously instead and
    :attr:`Seat.notice` says so. Raises :class:`OnlineError` with one sentence when the server
    cannot be reached or refuses.
    """
    base = base_url(server)
    if watch is not None:
        code = watch.strip().upper()
        _request("GET", f"{base}/api/rooms/{code}")
        return Seat(base, code, None, None)
    notice = None
    if profile_secret:
        try:
            return _take_seat(
                base,
                join,
                name,
                players,
                seats,
                best_of,
                handicap,
                ruleset,
                {"profile_secret": profile_secret},
                public,
            )
        except OnlineError as exc:
            if exc.code not in PROFILE_REFUSALS:
                raise
            notice = _(
                "the server refused your profile ({reason}): playing anonymously, not rated"
            ).format(reason=exc)
    seat = _take_seat(base, join, name, players, seats, best_of, handicap, ruleset, {}, public)
    return Seat(seat.base_url, seat.code, seat.seat, seat.token, notice)


def _take_seat(
    base: str,
    join: str | None,
    name: str,
    players: int,
    seats: list[str | None] | None,
    best_of: int,
    handicap: str,
    ruleset: str,
    extra: dict[str, Any],
    public: bool,
) -> Seat:
    if join is not None:
        code = join.strip().upper()
        data = _request("POST", f"{base}/api/rooms/{code}/join", {"name": name, **extra})
        return Seat(base, str(data["code"]), int(data["seat"]), str(data["token"]))
    body: dict[str, Any] = {
        "players": players,
        "seats": seats or [None] * players,
        "best_of": best_of,
        "handicap": handicap,
        "ruleset": ruleset,
        "name": name,
        "take_seat": 0,
        "public": public,
        **extra,
    }
    data = _request("POST", f"{base}/api/rooms", body)
    seat = data.get("seat")
    token = data.get("token")
    return Seat(
        base,
        str(data["code"]),
        None if seat is None else int(seat),
        None if not token else str(token),
    )


def fetch_profile(server: str, pid: str) -> dict[str, Any]:
    """``GET /api/profiles/{pid}``: the profile's rating, games and latest rated games."""
    return _request("GET", f"{base_url(server)}/api/profiles/{pid}")


def resolve_profile(
    server: str,
    *,
    create: str | None = None,
    anonymous: bool = False,
    home: Path | None = None,
) -> tuple[StoredProfile | None, str | None]:
    """The profile to play with on ``server``, and a line for the player (or ``None``).

    The stored profile for the server is used. With ``create`` (a name) and no stored profile,
    or a stored one the server no longer knows, a profile is made on the server and stored.
    ``anonymous`` plays without a profile. Raises :class:`OnlineError` (server) or
    :class:`~blink.profile_store.ProfileStoreError` (the file).
    """
    if anonymous:
        return None, None
    base = base_url(server)
    stored = profile_store.load(base, home)
    if create is None:
        return stored, None
    if stored is not None:
        try:
            fetch_profile(base, stored.id)
        except OnlineError as exc:
            if exc.code != "no_such_profile":
                raise
        else:
            note = None
            if stored.name != create.strip():
                note = _("using your stored profile {name} on this server").format(
                    name=repr(stored.name)
                )
            return stored, note
    data = _request("POST", f"{base}/api/profiles", {"name": create})
    made = StoredProfile(
        server=profile_store.server_key(base),
        id=str(data["id"]),
        name=str(data["name"]),
        secret=str(data["secret"]),
    )
    path = profile_store.save(made, home)
    return made, _("profile {name} created and kept in {path}").format(
        name=repr(made.name), path=path
    )
