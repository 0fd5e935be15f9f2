"""``blink play --server URL --daily``: the server's daily challenge in the terminal.

The room is made by ``POST /api/daily`` (docs/protocol.md) and played with the default game's
online client (:func:`blink.tui.seats.online_client`), like any online room. With a profile it
is the profile's ranked attempt of the day; when the server says the attempt was had already
(``daily_played``) or refuses the profile, the day's deal is played as a guest, unranked, and
a notice says so. ``date`` plays a past day's deal again (practice, unranked).
"""

from __future__ import annotations

from typing import Any

from blink.tui.i18n import _
from blink.tui.seats import (
    PROFILE_REFUSALS,
    OnlineError,
    Seat,
    _request,
    base_url,
    online_client,
)

__all__ = ["GUEST_REFUSALS", "prepare_daily", "run_daily"]

GUEST_REFUSALS = PROFILE_REFUSALS | {"daily_played"}
"""Refusals of a profile's daily room after which the deal is played as a guest."""


def _seat(base: str, data: dict[str, Any], notice: str | None) -> Seat:
    day = data.get("date")
    bot = data.get("bot")
    spec = bot.get("spec") if isinstance(bot, dict) else None
    if data.get("ranked"):
        line = _("daily challenge of {day} against {bot} (ranked)")
    else:
        line = _("daily challenge of {day} against {bot} (unranked)")
    bot_line: str = online_client().bot_name(spec) if spec else _("the bot")
    line = line.format(day=day, bot=bot_line)
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
    base = base_url(server)
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
            notice = _("{reason}: playing as a guest").format(reason=exc)
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
    played: int = online_client().play_seat(
        seat, name=name, colorblind=colorblind, ascii_symbols=ascii_symbols
    )
    return played
