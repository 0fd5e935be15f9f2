"""FastAPI dependencies: the server's state as the endpoints see it (``request.app.state``).

The app keeps its :class:`~blink.server.settings.Settings` in ``app.state.settings`` from the
start and its :class:`~blink.server.hub.Hub` in ``app.state.hub`` once it has started (its
lifespan opens the database); the hub carries the tournament manager
(:func:`blink.server.tournaments.attach`).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from blink.server.hub import Hub
from blink.server.settings import Settings
from blink.server.tournaments import Manager

__all__ = ["HubDep", "ManagerDep", "SettingsDep", "get_hub", "get_manager", "get_settings"]


async def get_hub(request: Request) -> Hub:
    """The running server's hub (every room, the storage)."""
    hub: Hub = request.app.state.hub
    return hub


async def get_manager(request: Request) -> Manager:
    """The running server's tournaments."""
    mgr: Manager = request.app.state.hub.tournaments
    return mgr


async def get_settings(request: Request) -> Settings:
    """The server's settings."""
    settings: Settings = request.app.state.settings
    return settings


HubDep = Annotated[Hub, Depends(get_hub)]
"""An endpoint parameter given the hub."""
ManagerDep = Annotated[Manager, Depends(get_manager)]
"""An endpoint parameter given the tournament manager."""
SettingsDep = Annotated[Settings, Depends(get_settings)]
"""An endpoint parameter given the settings."""
