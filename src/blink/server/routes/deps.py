"""FastAPI dependencies: the server's state as the endpoints see it (``request.app.state``).

The app keeps its :class:`~blink.server.settings.Settings` in ``app.state.settings`` from the
start and its :class:`~blink.server.hub.Hub` in ``app.state.hub`` once it has started (its
lifespan opens the database); the hub carries the tournament manager
(:func:`blink.server.tournaments.attach`).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from blink.server.errors import ApiError
from blink.server.hub import Hub
from blink.server.settings import Settings
from blink.server.tournaments import Manager

__all__ = [
    "HubDep",
    "ManagerDep",
    "SettingsDep",
    "WritableHubDep",
    "WritableManagerDep",
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
