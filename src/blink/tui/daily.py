"""``blink play --server URL --daily``: the server's daily challenge in the terminal.

The room is made by ``POST /api/daily`` (docs/protocol.md) and played with the online client
(:func:`blink.tui.online.run_seat`), like any online room. With a profile it is the profile's
ranked attempt of the day; when the server says the attempt was had already
(``daily_played``) or refuses the profile, the day's deal is played as a guest, unranked, and
a notice says so. ``date`` plays a past day's deal again (practice, unranked).
"""

from __future__ import annotations

from typing import Any

from blink.tui.online import (
    PROFILE_REFUSALS,
    OnlineError,
    Seat,
    _base_url,
    _request,
    run_seat,
)

__all__ = ["GUEST_REFUSALS", "prepare_daily", "run_daily"]

GUEST_REFUSALS = PROFILE_REFUSALS | {"daily_played"}
"""Refusals of a profile's daily room after which the deal is played as a guest."""


def _seat(base: str, data: dict[str, Any], notice: str | None) -> Seat:
    day = data.get("date")
    bot = data.get("bot")
    bot_name = bot.get("name") if isinstance(bot, dict) else None
    ranked = "ranked" if data.get("ranked") else "unranked"
    line = f"daily challenge of {day} against the {bot_name or 'bot'} ({ranked})"
    return Seat(
        base,
        str(data["code"]),
        int(data["seat"]),
        str(data["token"]),
        line if notice is None else f"{notice}; {line}",
    )


def prepare_daily(
    server: str, *, name: str, profile_secret: str | None = None, date: str | None = None
) -> Seat:
    """Make a daily room (today's, or ``date``'s for practice) and take its seat; the seat's
    notice names the day, the bot and whether it is ranked. Raises :class:`OnlineError`."""
    base = _base_url(server)
    body: dict[str, Any] = {"name": name}
    if date is not None:
        body["date"] = date
    notice = None
    if profile_secret and date is None:
        try:
            data = _request("POST", f"{base}/api/daily", {**body, "profile_secret": profile_secret})
            return _seat(base, data, None)
        except OnlineError as exc:
            if exc.code not in GUEST_REFUSALS:
                raise
            notice = f"{exc}: playing as a guest"
    return _seat(base, _request("POST", f"{base}/api/daily", body), notice)


def run_daily(
    server: str,
    *,
    name: str,
    profile_secret: str | None = None,
    date: str | None = None,
    colorblind: bool = False,
    ascii_symbols: bool = False,
) -> int:
    """Prepare the daily seat (one clear :class:`OnlineError` if that fails), then play it."""
    seat = prepare_daily(server, name=name, profile_secret=profile_secret, date=date)
    return run_seat(seat, name, colorblind, ascii_symbols)
