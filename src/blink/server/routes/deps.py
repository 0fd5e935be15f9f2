"""FastAPI dependencies: the server's state as the endpoints see it (``request.app.state``).

The app keeps its :class:`~blink.server.settings.Settings` in ``app.state.settings`` from the
start and its :class:`~blink.server.hub.Hub` in ``app.state.hub`` once it has started (its
lifespan opens the database); the hub carries the tournament manager
(:func:`blink.server.tournaments.manager.attach`).
"""

from __future__ import annotations

import math
from typing import Annotated

from fastapi import Depends, Request

from blink.server.creation_limits import ROOMS, CreationLimiter, too_many_rooms
from blink.server.errors import ApiError
from blink.server.hub import Hub
from blink.server.settings import Settings
from blink.server.tournaments.manager import Manager

__all__ = [
    "HubDep",
    "ManagerDep",
    "SettingsDep",
    "WritableHubDep",
    "WritableManagerDep",
    "check_creation",
    "check_lookup",
    "check_room_creation",
    "count_miss",
    "get_hub",
    "get_manager",
    "get_settings",
    "writable_hub",
    "writable_manager",
]


async def get_hub(request: Request) -> Hub:
    """The running server's hub (every room, the storage)."""
    hub: Hub = request.app.state.hub
    return hub


async def writable_hub(request: Request) -> Hub:
    """The hub, for an endpoint that stores something: ``503 storage_unavailable`` while the
    database cannot be written (nothing would be kept)."""
    hub: Hub = request.app.state.hub
    failure = hub.write_failure()
    if failure is not None:
        raise ApiError(
            503, "storage_unavailable", f"the server cannot save anything now ({failure})"
        )
    return hub


async def get_manager(request: Request) -> Manager:
    """The running server's tournaments."""
    mgr: Manager = request.app.state.hub.tournaments
    return mgr


async def writable_manager(request: Request) -> Manager:
    """The tournaments, for an endpoint that stores something (503 as :func:`writable_hub`)."""
    await writable_hub(request)
    return await get_manager(request)


async def get_settings(request: Request) -> Settings:
    """The server's settings."""
    settings: Settings = request.app.state.settings
    return settings


HubDep = Annotated[Hub, Depends(get_hub)]
"""An endpoint parameter given the hub."""
WritableHubDep = Annotated[Hub, Depends(writable_hub)]
"""An endpoint parameter given the hub, refused with 503 while nothing can be stored."""
ManagerDep = Annotated[Manager, Depends(get_manager)]
"""An endpoint parameter given the tournament manager."""
WritableManagerDep = Annotated[Manager, Depends(writable_manager)]
"""The tournament manager, refused with 503 while nothing can be stored."""
SettingsDep = Annotated[Settings, Depends(get_settings)]
"""An endpoint parameter given the settings."""


def _too_many(wait: float, what: str) -> ApiError:
    seconds = math.ceil(wait)
    return ApiError(
        429,
        "rate_limited",
        f"too many {what} from your address: try again in {seconds} s",
        headers={"Retry-After": str(seconds)},
    )


async def check_lookup(request: Request) -> None:
    """A FastAPI dependency of the endpoints that look a room up by its code."""
    limiter: CreationLimiter = request.app.state.creation_limiter
    address = request.client.host if request.client is not None else ""
    wait = await limiter.check_lookups(address)
    if wait is not None:
        raise _too_many(wait, "unknown room codes")


async def count_miss(request: Request) -> None:
    """Count a lookup of a room code that does not exist."""
    limiter: CreationLimiter = request.app.state.creation_limiter
    await limiter.count_miss(request.client.host if request.client is not None else "")


async def check_creation(request: Request) -> None:
    """A FastAPI dependency of the endpoints that create something (their path is the kind)."""
    limiter: CreationLimiter = request.app.state.creation_limiter
    address = request.client.host if request.client is not None else ""
    wait = await limiter.count(address, request.url.path)
    if wait is not None:
        raise _too_many(wait, "of these")


async def check_room_creation(request: Request) -> None:
    """A FastAPI dependency of the endpoints that make a room: one window (:data:`ROOMS`)."""
    limiter: CreationLimiter = request.app.state.creation_limiter
    address = request.client.host if request.client is not None else ""
    wait = await limiter.count(address, ROOMS)
    if wait is not None:
        seconds = math.ceil(wait)
        raise ApiError(
            429, "rate_limited", too_many_rooms(wait), headers={"Retry-After": str(seconds)}
        )
