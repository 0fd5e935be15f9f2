"""What the server is and what it offers: ``/api/health``, ``/api/options``, ``/api/cards``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from blink.cards import STANDARD_DECK
from blink.games.classic.definition import CLASSIC
from blink.games.classic.rules import RULESETS
from blink.games.goblink import bots as gobots
from blink.games.goblink.definition import GOBLINK
from blink.model.base import GameInfo
from blink.model.registry import get_game, get_table
from blink.server import room_setup
from blink.server.protocol import PROTOCOL, protocol_schema
from blink.server.routes.deps import HubDep

__all__ = ["router"]

router = APIRouter()


@router.get("/api/health")
async def health(h: HubDep) -> JSONResponse:
    """Server health: ``200 ok``, or ``503 unhealthy`` with the ``reason`` while the database
    cannot be written."""
    failure = h.write_failure()
    body = {
        "status": "ok" if failure is None else "unhealthy",
        "reason": failure,
        "protocol": PROTOCOL,
        "version": h.version,
        "database": h.storage.kind,
        "rooms": len(h.rooms),
        "games": h.live_games,
        "connections": h.connections,
    }
    return JSONResponse(body, status_code=200 if failure is None else 503)


def _seat_counts(info: GameInfo) -> list[int]:
    """Every number of players ``info``'s game can be played by, fewest first."""
    return list(range(info.min_players, info.max_players + 1))


def _classic_bots() -> dict[str, Any]:
    """Classic Blink's bot levels and strategies with their descriptions, and the defaults
    (empty, and no defaults, when the optional bot package is missing)."""
    if not get_table(CLASSIC.info.name).bot_names():
        return {"levels": [], "strategies": [], "default_level": None, "default_strategy": None}
    # Present: the table found it (it is optional, see blink.games.classic.table).
    from blink.games.classic.bots import DEFAULT_LEVEL, DEFAULT_STRATEGY, LEVELS, STRATEGIES

    return {
        "levels": [{"name": lv.name, "description": lv.description} for lv in LEVELS.values()],
        "strategies": [
            {"name": st.name, "description": st.description} for st in STRATEGIES.values()
        ],
        "default_level": DEFAULT_LEVEL,
        "default_strategy": DEFAULT_STRATEGY,
    }


def _go_bots() -> dict[str, Any]:
    """Go Blink's bots with their descriptions, and the bot of a seat when none is named."""
    return {
        "bots": [{"name": k.name, "description": k.description} for k in gobots.GOBOTS.values()],
        "default_bot": gobots.DEFAULT_GOBOT,
    }


_BOTS: Final[dict[str, Callable[[], dict[str, Any]]]] = {
    CLASSIC.info.name: _classic_bots,
    GOBLINK.info.name: _go_bots,
}
"""Each hosted game's bots, from its own bot package."""


def _game_options(name: str) -> dict[str, Any]:
    """What ``/api/options`` says of one game: its registry facts and its bots."""
    info = get_game(name).info
    bots = _BOTS.get(name)
    return {
        "name": info.name,
        "title": info.title,
        "min_players": info.min_players,
        "max_players": info.max_players,
        "default_players": info.default_players,
        **(bots() if bots is not None else {}),
    }


@router.get("/api/options")
async def options() -> dict[str, Any]:
    """What rooms can be made of."""
    classic = get_table(CLASSIC.info.name)
    levels = classic.bot_names()
    strategies: list[str] = getattr(classic, "strategies", list)()
    games = room_setup.room_games()
    return {
        "protocol": PROTOCOL,
        "players": _seat_counts(CLASSIC.info),
        "rulesets": list(RULESETS),
        "bot_levels": levels,
        "bot_strategies": strategies,
        "bots_available": bool(levels),
        "best_of": [1, 3, 5, 7, 9],
        "games": list(games),
        "goblink_players": _seat_counts(GOBLINK.info),
        "goblink_bots": list(gobots.GOBOTS),
        "game_info": {name: _game_options(name) for name in games},
    }


@router.get("/api/protocol.schema.json")
async def schema() -> dict[str, Any]:
    """The JSON Schema of the game protocol: every client message (common, and each game's)
    and every server frame (docs/protocol.schema.json is the same document)."""
    return protocol_schema()


@router.get("/api/cards")
async def cards() -> dict[str, Any]:
    """Every card of the standard deck, with names and display colours."""
    return {"cards": [c.to_dict() for c in STANDARD_DECK]}
