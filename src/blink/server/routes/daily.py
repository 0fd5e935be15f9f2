"""The daily challenge's endpoints: ``GET /api/daily`` (today), ``GET /api/daily/{date}`` and
``POST /api/daily`` (a room of today's deal, or a past day's for practice).

The days, entries, board and streaks are :mod:`blink.server.daily`; the room is opened by
:func:`blink.server.room_setup.create_room` like a quick game.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field

from blink.model.registry import get_table
from blink.model.table import BadMessage
from blink.server import daily, room_setup
from blink.server.accounts import store
from blink.server.errors import ApiError
from blink.server.hub import Hub
from blink.server.profiles import lookup_secret
from blink.server.room_setup import CreateRoom
from blink.server.routes.deps import HubDep, WritableHubDep, check_room_creation

__all__ = ["PlayDaily", "ProfileQuery", "router"]

router = APIRouter()

ProfileQuery = Annotated[str | None, Query(max_length=16)]
"""The profile whose streak to give (its id)."""


class PlayDaily(BaseModel):
    """A daily room to make: today's (ranked with an account's profile, else practice on
    another deal) or a past day's (practice)."""

    name: str = Field("Player", min_length=1, max_length=24)
    profile_secret: str | None = Field(None, max_length=128)
    date: str | None = Field(None, max_length=10)
    """A past day whose deal to play again (unranked); ``None``: today's."""


def _bot(spec: str) -> dict[str, str]:
    """A day's bot as answered: its spec and its name for people."""
    try:
        title = get_table(daily.DAILY_GAME).bot_title(spec)
    except BadMessage:
        title = spec
    return {"spec": spec, "name": title}


def _date(text: str) -> str:
    date = daily.parse_date(text)
    if date is None:
        raise ApiError(400, "bad_date", f"{text!r} is not a date like 2026-12-02")
    return date


async def _day(h: Hub, date: str) -> tuple[daily.Day, str]:
    """The day ``date`` and its state: ``"today"`` (drawn when first asked for),
    ``"closing"`` (over, in the grace for its last games) or ``"over"``. Raises
    :class:`ApiError` for a day to come or a past day nobody played."""
    now = daily.today(h)
    if date > now:
        raise ApiError(404, "no_such_day", f"the challenge of {date} is not out yet")
    if date == now:
        try:
            return await daily.day_of(h, date), "today"
        except BadMessage as exc:  # no bot package, or a daily bot the table does not know
            status = 503 if exc.code == "bots_unavailable" else 500
            raise ApiError(status, exc.code, exc.message) from None
    day = daily.known_day(h, date)
    if day is None:
        raise ApiError(404, "no_such_day", f"nobody played the challenge of {date}")
    return day, "over" if daily.revealed(date, h.settings.wall_clock()) else "closing"


async def _answer(h: Hub, date: str, profile: str | None) -> dict[str, Any]:
    day, state = await _day(h, date)
    over = state == "over"
    out: dict[str, Any] = {
        "date": day.date,
        "today": daily.today(h),
        "over": over,
        "bot": _bot(day.bot),
        "board": daily.board(h, day.date, over),
        "seed": day.seed if over else None,
        "replay": {"date": day.date} if over else None,
        "previous": daily.previous(day.date),
    }
    if profile is not None:
        out["streak"] = daily.streak(h, profile, daily.today(h))
    return out


@router.get("/api/daily")
async def daily_today(h: HubDep, profile: ProfileQuery = None) -> dict[str, Any]:
    """Today's challenge: its bot and board (and ``profile``'s streak when given), and
    yesterday's as ``GET /api/daily/{date}`` answers it (``null``: nobody played it)."""
    out = await _answer(h, daily.today(h), profile)
    before = out["previous"]
    out["yesterday"] = (
        None if daily.known_day(h, before) is None else await _answer(h, before, None)
    )
    return out


@router.get("/api/daily/{date}")
async def daily_day(h: HubDep, date: str, profile: ProfileQuery = None) -> dict[str, Any]:
    """A day's challenge: its bot and board, and once it is over its seed and replay."""
    return await _answer(h, _date(date), profile)


def _has_account(h: Hub, profile: str) -> bool:
    """Whether an account owns the profile ``profile``."""
    with h.storage.engine.connect() as conn:
        return store.by_profile(conn, profile) is not None


async def _attempt(h: Hub, day: daily.Day, secret: str) -> str | None:
    """Spend the ranked attempt of the profile whose secret this is; its id, or ``None`` when
    no account owns the profile (daily ranks need an account: it plays unranked). Raises
    :class:`ApiError` for an unknown secret or an attempt spent already."""
    found = lookup_secret(h, secret)
    if found is None:
        raise ApiError(400, "no_such_profile", "no profile has this secret")
    profile = str(found["id"])
    if not _has_account(h, profile):
        return None
    # The board shows the profile's own name, whatever the seat is called.
    if not await daily.take_attempt(h, day.date, profile, str(found["name"])):
        raise ApiError(
            409,
            "daily_played",
            "this profile has had its attempt at today's challenge; "
            "play again tomorrow, or play as a guest (unranked)",
        )
    return profile


def _unranked(ranked: bool, over: bool, secret: str | None) -> str | None:
    """Why a daily room is not ranked (``None``: it is)."""
    if ranked:
        return None
    if over:
        return "past_day"
    return "account_needed" if secret else "guest"


@router.post("/api/daily", status_code=201, dependencies=[Depends(check_room_creation)])
async def play_daily(h: WritableHubDep, body: PlayDaily) -> dict[str, Any]:
    """A private room of one game against the day's bot: the day's deal for a ranked attempt
    (a profile owned by an account; its one attempt of the day) or a past day's; today's
    practice deal, unranked, for anyone else (``unranked`` says why: ``guest``,
    ``account_needed``, ``past_day``)."""
    date = daily.today(h) if body.date is None else _date(body.date)
    day, state = await _day(h, date)
    if state == "closing":
        raise ApiError(
            409,
            "daily_closing",
            f"the deal of {date} can be played again once its last games are in, "
            f"{round(daily.GRACE / 60)} minutes after the day",
        )
    over = state == "over"
    profile = (
        None if over or not body.profile_secret else await _attempt(h, day, body.profile_secret)
    )
    ranked = profile is not None
    # Only the ranked attempt, or a past day's deal (known by then), is dealt the day's deal:
    # an unranked game of today is the day's practice deal, so nobody rehearses the ranked one.
    seed = day.seed if ranked or over else daily.practice_seed(day)
    extra: dict[str, Any] = {daily.OPTION_DAY: day.date, daily.OPTION_SEED: seed}
    if profile is not None:
        extra[daily.OPTION_PROFILE] = profile
    unranked = _unranked(ranked, over, body.profile_secret)
    room = CreateRoom(
        game=daily.DAILY_GAME,
        players=2,
        seats=[None, day.bot],
        best_of=1,
        name=body.name,
        take_seat=0,
        public=False,
        # Practice (a past day's deal, known by now, or today's practice deal) seats a guest:
        # it is neither ranked nor rated.
        profile_secret=body.profile_secret if ranked else None,
    )
    try:
        made = await room_setup.create_room(h, room, extra)
    except BaseException:
        if profile is not None:
            await daily.forget_attempt(h, day.date, profile)
        raise
    return {
        **made,
        "date": day.date,
        "ranked": ranked,
        "unranked": unranked,
        "bot": _bot(day.bot),
    }
