"""The profile endpoints: ``/api/profiles`` (create, look up) and ``/api/leaderboard`` (and
its event stream).

Profiles and ratings themselves are :mod:`blink.server.profiles`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request, Response
from pydantic import BaseModel, Field

from blink.server import daily, profiles
from blink.server.bot_accounts.service import profile_marks
from blink.server.bus import LEADERBOARD, Event
from blink.server.errors import ApiError
from blink.server.feeds import Feeds
from blink.server.routes.deps import HubDep, WritableHubDep, check_creation
from blink.server.sse import event_stream, frame

__all__ = ["NewProfile", "router"]

router = APIRouter()


class NewProfile(BaseModel):
    """A profile to create."""

    name: str = Field(min_length=1, max_length=24)


@router.post("/api/profiles", status_code=201, dependencies=[Depends(check_creation)])
async def create_profile(h: WritableHubDep, body: NewProfile) -> dict[str, Any]:
    """Create a profile; its secret is returned this once (keep it)."""
    made = await profiles.add_profile(h, body.name)
    feeds: Feeds = h.feeds  # type: ignore[attr-defined]
    feeds.profile_made()
    return made


@router.get("/api/profiles/{pid}")
async def get_profile(h: HubDep, pid: str) -> dict[str, Any]:
    """A profile's rating, its latest rated games and its daily challenge streak; ``bot``
    and ``owner`` for a bot account's."""
    out = profiles.profile_with_history(h, pid)
    out.update(profile_marks(h, pid))
    out["daily_streak"] = daily.streak(h, pid, daily.today(h))
    return out


LadderQuery = Annotated[
    str, Query(description="people (the default: every profile but the bot accounts) or bots")
]


def _ladder(ladder: str) -> str:
    """``ladder`` when it is one of :data:`blink.server.profiles.LADDERS`; else ``400
    bad_ladder``."""
    if ladder not in profiles.LADDERS:
        raise ApiError(400, "bad_ladder", "the ladder is either people or bots")
    return ladder


@router.get("/api/leaderboard")
async def leaderboard(
    h: HubDep, limit: int = 100, min_games: int = 0, ladder: LadderQuery = "people"
) -> dict[str, Any]:
    """One ladder's profiles by conservative rating (``mu - 3 sigma``), best first: the
    people's (``ladder=people``, the default) or the bot accounts' (``ladder=bots``)."""
    return profiles.leaderboard(h, limit, min_games, _ladder(ladder))


class _BoardSource:
    """The leaderboard's stream: the leaderboard now, and again after each change."""

    def __init__(self, feeds: Feeds, limit: int, min_games: int, ladder: str) -> None:
        self.feeds = feeds
        self.limit = max(1, min(limit, 1000))
        self.min_games = min_games
        self.ladder = ladder
        self.count = 0

    async def _frame(self) -> list[bytes]:
        self.count += 1
        data = await self.feeds.board(self.limit, self.min_games, self.ladder)
        return [frame("leaderboard", data, self.count)]

    async def start(self) -> list[bytes]:
        return await self._frame()

    async def changed(self, events: list[Event]) -> list[bytes]:
        return await self._frame()


@router.get("/api/leaderboard/events")
async def leaderboard_events(
    h: HubDep,
    request: Request,
    limit: int = 100,
    min_games: int = 0,
    ladder: LadderQuery = "people",
) -> Response:
    """The leaderboard's event stream (Server-Sent Events): ``leaderboard`` frames, each the
    whole leaderboard as ``GET /api/leaderboard`` answers it."""
    feeds: Feeds = h.feeds  # type: ignore[attr-defined]
    sub = h.bus.subscribe(LEADERBOARD)
    return event_stream(request, sub, _BoardSource(feeds, limit, min_games, _ladder(ladder)))
