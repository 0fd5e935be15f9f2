"""Who may enter a tournament: people, or bot accounts only (a *bot tournament*,
``entrants: "bots"``; docs/bot-api.md, "Bot tournaments").

A bot tournament's entrants are bot accounts, each entered with its token (``Authorization:
Bearer``, or the token as ``profile_secret``); a person's profile is refused
(``403 bots_only``). A people's tournament stays people's: a bot account is refused there
(``403 people_only``), as a bot meets people only in rooms they chose. The endpoints are
:mod:`blink.server.routes.tournaments`.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from blink.server.bot_accounts.service import BotAuth, profile_marks
from blink.server.errors import ProfileError
from blink.server.hub import Hub
from blink.server.tournaments.entry import Entry

__all__ = ["ENTRANTS", "Entrants", "check_entrant", "secret_of", "you"]

Entrants = Literal["people", "bots"]
"""Who may enter a tournament."""
ENTRANTS: Final = ("people", "bots")


def secret_of(bot: BotAuth | None, profile_secret: str | None) -> str | None:
    """The secret a request enters with: the bot's token of its ``Authorization: Bearer``
    header, else the body's ``profile_secret``."""
    return bot.token if bot is not None else profile_secret


def check_entrant(hub: Hub, e: Entry, profile_id: str | None) -> None:
    """Refuse a profile (``None``: a player entered by name alone) that may not enter ``e``:
    ``403 bots_only`` for anyone but a bot account in a bot tournament, ``403 people_only``
    for a bot account in a people's one."""
    bot = profile_id is not None and bool(profile_marks(hub, profile_id)["bot"])
    if e.entrants == "bots" and not bot:
        raise ProfileError(
            403, "bots_only", "only bot accounts may enter a bot tournament, with their tokens"
        )
    if e.entrants != "bots" and bot:
        raise ProfileError(
            403, "people_only", "a bot account may enter bot tournaments only, not this one"
        )


def you(e: Entry, bot: BotAuth | None) -> dict[str, Any]:
    """What a bot's request is told of itself: ``you``, its name in the tournament (``None``:
    not entered), for a request with a bot's token; nothing otherwise."""
    if bot is None:
        return {}
    name = next((n for n, pid in e.profiles.items() if pid == bot.profile_id), None)
    return {"you": {"profile": bot.profile_id, "name": name}}
