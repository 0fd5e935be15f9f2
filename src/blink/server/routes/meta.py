"""What the server is and what it offers: ``/api/health``, ``/api/options``, ``/api/cards``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from blink.cards import STANDARD_DECK
from blink.model.base import GameInfo
from blink.model.registry import DEFAULT_GAME, front_end, game, get_game, get_table
from blink.server import room_setup
from blink.server.protocol import PROTOCOL, protocol_schema
from blink.server.routes.deps import HubDep
from blink.server.routes.web import web_module_url

__all__ = ["router"]

router = APIRouter()


@router.get("/api/health")
async def health(h: HubDep) -> JSONResponse:
    """Server health: ``200 ok``; ``503 unhealthy`` with the ``reason`` while the database
    cannot be written, or (PostgreSQL) does not answer ``SELECT 1`` within
    ``Settings.health_db_timeout`` seconds; ``503 draining`` once a cluster node is stopping
    (the router sends its traffic to the other nodes)."""
    failure = h.write_failure() or await h.db_probe.failure()
    status = "ok" if failure is None else "unhealthy"
    if h.draining and h.leases.shared:
        status, failure = "draining", "this node is stopping: its rooms move to the other nodes"
    body = {
        "status": status,
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


def _game_options(name: str) -> dict[str, Any]:
    """What ``/api/options`` says of one game: its registry facts (``titles``: its title in each
    language it has one for), its browser module and pages (``null`` when the client's main
    page plays it), whether it has a study (``study``), the piles each seat reaches
    (``reach``: by player count, one list per seat, from its rules) and its bots (from its live
    table)."""
    rules = get_game(name)
    info = rules.info
    front = front_end(name)
    return {
        "name": info.name,
        "title": info.title,
        "titles": dict(game(name).titles),
        "min_players": info.min_players,
        "max_players": info.max_players,
        "default_players": info.default_players,
        "reach": {
            str(n): [list(rules.reach(n, seat)) for seat in range(n)] for n in _seat_counts(info)
        },
        "web": web_module_url(name),
        "pages": None if front.pages is None else {"play": front.pages[0], "watch": front.pages[1]},
        "study": game(name).has_study,
        **get_table(name).bot_info(),
    }


@router.get("/api/options")
async def options() -> dict[str, Any]:
    """What rooms can be made of."""
    classic = get_table(DEFAULT_GAME)
    levels = classic.bot_names()
    # The default game's own choices (classic Blink's table offers them), kept at the top level.
    strategies: list[str] = getattr(classic, "strategies", list)()
    rulesets: list[str] = getattr(classic, "rulesets", list)()
    games = room_setup.room_games()
    # Before game_info, each other game's players and bots had their own fields (kept).
    legacy: dict[str, list[Any]] = {}
    for name in games:
        if name != DEFAULT_GAME:
            legacy[f"{name}_players"] = _seat_counts(get_game(name).info)
            legacy[f"{name}_bots"] = get_table(name).bot_names()
    return {
        "protocol": PROTOCOL,
        "players": _seat_counts(get_game(DEFAULT_GAME).info),
        "rulesets": rulesets,
        "bot_levels": levels,
        "bot_strategies": strategies,
        "bots_available": bool(levels),
        "best_of": [1, 3, 5, 7, 9],
        "games": list(games),
        **legacy,
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
