"""Whether a room admits bot accounts (docs/bot-api.md, "The rules bots must follow").

A room a person opens admits bot accounts only when its host said so (``bot_accounts`` of
``POST /api/rooms``, off by default); a room a bot account opens admits them, and says its
host is a bot. The choice is kept in the room's options (:data:`OPTION`, :data:`HOST_OPTION`),
so it is stored with the room and survives a restart. Rooms the server opens itself (quick
play's pairings, the bot arena's, tournaments' matches) seat every player at once and do not
carry the option: they admit whom they seated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "CODE",
    "HOST_OPTION",
    "MESSAGE",
    "OPTION",
    "admits_bots",
    "host_is_bot",
    "room_options",
]

OPTION: Final = "bot_accounts"
"""The room option saying whether bot accounts may take a seat."""
HOST_OPTION: Final = "bot_host"
"""The room option saying the room was opened by a bot account."""
CODE: Final = "bots_not_admitted"
"""The code of a bot account's seat refused by a room that does not admit bots."""
MESSAGE: Final = "this room's host did not allow bot accounts to join it"
"""The sentence of :data:`CODE`."""


def admits_bots(options: Mapping[str, Any]) -> bool:
    """Whether a room with these options admits bot accounts (a room without the option,
    opened by the server with every seat given, admits whom it seated)."""
    return options.get(OPTION) is not False


def host_is_bot(options: Mapping[str, Any]) -> bool:
    """Whether a room with these options was opened by a bot account."""
    return options.get(HOST_OPTION) is True


def room_options(allowed: bool, host_bot: bool) -> dict[str, Any]:
    """The options that record a new room's choice: a bot account's room always admits
    bots (people who join it chose to play one)."""
    if host_bot:
        return {OPTION: True, HOST_OPTION: True}
    return {OPTION: allowed}
