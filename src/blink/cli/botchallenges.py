"""Challenges in the reference Bot API client: ``blink bot play --challenge NAME`` and
``--accept-challenges`` (docs/bot-api.md, "Challenges").

It speaks the public REST routes only (``/api/challenges`` with ``Authorization: Bearer``),
polling them, and plays each accepted challenge's room with :mod:`blink.cli.botclient`'s
seat and :func:`~blink.cli.botclient.play_room`: the room's whole series, then the next.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Final

import httpx

from blink.cli.botclient import (
    TABLE_PLAYERS,
    BotRunError,
    MatchSeat,
    Plan,
    error_sentence,
    new_seat,
    play_room,
)
from blink.tui.i18n import _

__all__ = ["POLL", "accept_challenges", "challenge"]

POLL: Final = 0.5
"""Seconds between two looks at the bot's challenges."""
MOST_GAMES: Final = 15
"""The longest series a challenge may ask for (``best_of``)."""


async def _call(http: httpx.AsyncClient, method: str, path: str, **kw: Any) -> httpx.Response:
    try:
        return await http.request(method, path, **kw)
    except httpx.HTTPError as exc:
        raise BotRunError(
            _("cannot reach {server}: {exc}").format(server=http.base_url, exc=exc)
        ) from None


async def _mine(http: httpx.AsyncClient) -> dict[str, Any]:
    r = await _call(http, "GET", "/api/challenges")
    if r.status_code >= 400:
        raise BotRunError(error_sentence(r))
    found: dict[str, Any] = r.json()
    return found


async def _play(
    server: str, token: str, code: str, policy: Callable[[int], Plan], best_of: int
) -> int:
    seat = MatchSeat(new_seat(policy, min(best_of, MOST_GAMES)))
    await play_room(server, token, code, seat)
    return seat.ended


async def accept_challenges(
    server: str,
    token: str,
    games: int,
    policy: Callable[[int], Plan],
    announce: Callable[[str], None] = print,
    poll: float = POLL,
) -> int:
    """Accept challenges as they come, oldest first, and play each one's series, until
    ``games`` games are played; return how many. Each room's code is ``announce``-d."""
    played = 0
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=server, headers=headers, timeout=30) as http:
        while played < games:
            waiting = [c for c in (await _mine(http))["incoming"] if c["status"] == "open"]
            if not waiting:
                await asyncio.sleep(poll)
                continue
            r = await _call(http, "POST", f"/api/challenges/{waiting[0]['id']}/accept")
            if r.status_code == 409 or r.status_code == 404:
                continue  # cancelled or expired meanwhile: the next one
            if r.status_code >= 400:
                raise BotRunError(error_sentence(r))
            code = str(r.json()["room"])
            announce(code)
            played += await _play(server, token, code, policy, int(r.json()["best_of"]))
    return played


def _closed(status: str, name: str) -> str:
    if status == "declined":
        return _("the challenge to {name} was declined").format(name=name)
    if status == "expired":
        return _("the challenge to {name} expired before it was accepted").format(name=name)
    return _("the challenge to {name} was cancelled").format(name=name)


async def challenge(
    server: str,
    token: str,
    name: str,
    games: int,
    policy: Callable[[int], Plan],
    announce: Callable[[str], None] = print,
    poll: float = POLL,
) -> int:
    """Challenge the bot account ``name`` to one game at a time and play each once it is
    accepted, until ``games`` games are played; return how many. A declined or expired
    challenge ends the run (:class:`BotRunError`, one sentence)."""
    played = 0
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=server, headers=headers, timeout=30) as http:
        while played < games:
            r = await _call(
                http, "POST", "/api/challenges", json={"to": name, "players": TABLE_PLAYERS}
            )
            if r.status_code >= 400:
                raise BotRunError(error_sentence(r))
            cid = r.json()["id"]
            while True:
                mine = [c for c in (await _mine(http))["outgoing"] if c["id"] == cid]
                status = mine[0]["status"] if mine else "expired"
                if status == "accepted" and mine[0]["room"]:
                    break
                if status != "open" and status != "accepted":
                    raise BotRunError(_closed(status, name))
                await asyncio.sleep(poll)
            code = str(mine[0]["room"])
            announce(code)
            played += await _play(server, token, code, policy, int(mine[0]["best_of"]))
    return played
