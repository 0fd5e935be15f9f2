"""What the server is and what it offers: ``/api/health``, ``/api/options``, ``/api/cards``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from blink.cards import STANDARD_DECK
from blink.games.classic.rules import RULESETS
from blink.server import go_rooms
from blink.server.bots import bot_options, bots_available
from blink.server.protocol import PROTOCOL
from blink.server.routes.deps import HubDep

__all__ = ["router"]

router = APIRouter()


@router.get("/api/health")
async def health(h: HubDep) -> dict[str, Any]:
    """Server health."""
    return {
        "status": "ok",
        "protocol": PROTOCOL,
        "version": h.version,
        "database": h.storage.kind,
        "rooms": len(h.rooms),
        "games": h.live_games,
        "connections": h.connections,
    }


@router.get("/api/options")
async def options() -> dict[str, Any]:
    """What rooms can be made of."""
    levels, strategies = bot_options()
    return {
        "protocol": PROTOCOL,
        "players": [2, 3],
        "rulesets": list(RULESETS),
        "bot_levels": levels,
        "bot_strategies": strategies,
        "bots_available": bots_available(),
        "best_of": [1, 3, 5, 7, 9],
        "games": ["classic", go_rooms.GAME_KIND],
        "goblink_players": [2, 3, 4, 5, 6],
        "goblink_bots": go_rooms.gobot_names(),
    }


@router.get("/api/cards")
async def cards() -> dict[str, Any]:
    """Every card of the standard deck, with names and display colours."""
    return {"cards": [c.to_dict() for c in STANDARD_DECK]}
