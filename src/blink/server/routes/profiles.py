"""The profile endpoints: ``/api/profiles`` (create, look up) and ``/api/leaderboard``.

Profiles and ratings themselves are :mod:`blink.server.profiles`.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from blink.server import profiles
from blink.server.creation_limits import check_creation
from blink.server.routes.deps import HubDep, WritableHubDep

__all__ = ["NewProfile", "router"]

router = APIRouter()


class NewProfile(BaseModel):
    """A profile to create."""

    name: str = Field(min_length=1, max_length=24)


@router.post("/api/profiles", status_code=201, dependencies=[Depends(check_creation)])
async def create_profile(h: WritableHubDep, body: NewProfile) -> dict[str, Any]:
    """Create a profile; its secret is returned this once (keep it)."""
    return await profiles.add_profile(h, body.name)


@router.get("/api/profiles/{pid}")
async def get_profile(h: HubDep, pid: str) -> dict[str, Any]:
    """A profile's rating and its latest rated games."""
    return profiles.profile_with_history(h, pid)


@router.get("/api/leaderboard")
async def leaderboard(h: HubDep, limit: int = 100, min_games: int = 0) -> dict[str, Any]:
    """Profiles by conservative rating (``mu - 3 sigma``), best first."""
    return profiles.leaderboard(h, limit, min_games)
