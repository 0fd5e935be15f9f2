"""A bot's random generator owes nothing to the deal: each game draws its bots' seeds apart,
keeps them with the game, and a restart gives the restored bots the same seeds."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import create_engine, select, update
from srvkit import Client, ServerThread

from blink.server import schema

pytestmark = pytest.mark.timeout(120)

DEAL_SEED = 1000  # fast_settings' deal_seed: game n is shuffled with DEAL_SEED + n
SLOW = {"countdown": 600.0}  # the games stay dealt, not revealed: nothing ends them


def _live_seed(server: ServerThread, code: str) -> int:
    """The seed the room's live bot (seat 1) was built with."""
    room = server.app.state.hub.rooms[code]  # type: ignore[attr-defined]
    assert room.game is not None and len(room.game.bots) == 1
    seed: int = room.game.bots[0].bot.seed
    return seed


def _stored(db_url: str, code: str) -> tuple[int, list[int | None] | None]:
    """The game id and stored bot seeds of the room's (only) game, once its writer (which may
    commit after the player's snapshot, as the async writer does) has stored it."""
    engine = create_engine(db_url)
    deadline = time.monotonic() + 60  # a generous bound, not a speed assumption
    try:
        while True:
            with engine.connect() as conn:
                row = conn.execute(
                    select(schema.games.c.id, schema.games.c.bot_seeds).where(
                        schema.games.c.room_code == code
                    )
                ).one_or_none()
            if row is not None or time.monotonic() > deadline:
                break
            time.sleep(0.05)
    finally:
        engine.dispose()
    assert row is not None, f"room {code}'s game was never stored"
    return row.id, json.loads(row.bot_seeds) if row.bot_seeds else None


async def _quick(server: ServerThread) -> tuple[str, str]:
    """A quick game against a classic bot, dealt (its one player connected)."""
    r = server.post("/api/quick", {"bot": "expert:blocker", "name": "Ann"})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    code, token = body["room"]["code"], body["token"]
    c = await Client("Ann").connect(server.ws, room=code, token=token)
    await c.expect("snapshot")
    await c.close()
    return code, token


async def test_the_deal_seed_does_not_give_the_bot_seed(
    make_server: Callable[..., ServerThread], db_url: str
) -> None:
    server = make_server(**SLOW)
    offsets = set()
    for _ in range(3):
        code, _ = await _quick(server)
        gid, stored = _stored(db_url, code)
        assert stored is not None and stored[0] is None and isinstance(stored[1], int)
        assert _live_seed(server, code) == stored[1]
        # Formerly DEAL_SEED + gid + 1000 * (seat + 1): the same offset from the deal's seed
        # in every game.
        offsets.add(stored[1] - (DEAL_SEED + gid))
    assert len(offsets) == 3


async def test_a_restart_keeps_the_bot_seed(
    make_server: Callable[..., ServerThread], db_url: str
) -> None:
    first = make_server(**SLOW)
    code, _ = await _quick(first)
    seed = _live_seed(first, code)
    first.stop()
    again = make_server(**SLOW)
    assert _live_seed(again, code) == seed
    assert _stored(db_url, code)[1] == [None, seed]


async def test_a_game_stored_without_bot_seeds_restores(
    make_server: Callable[..., ServerThread], db_url: str
) -> None:
    first = make_server(**SLOW)
    code, _ = await _quick(first)
    first.stop()
    engine = create_engine(db_url)
    with engine.begin() as conn:  # as rows written before games kept their bots' seeds
        conn.execute(update(schema.games).values(bot_seeds=None))
    engine.dispose()
    again = make_server(**SLOW)
    # Seeded as restores seeded them before: the deal seed setting plus 1000 * (seat + 1).
    assert _live_seed(again, code) == DEAL_SEED + 1000 * 2
