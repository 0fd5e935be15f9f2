"""A tournament of the tests' own High Card (registered in-process, as
tests/server/test_generic_room.py does) on two cluster nodes in one process (real uvicorn
servers on one real PostgreSQL and one real Redis): the node that made it stops once it has
started, and the other node, taking the tournament over on its match room's game end, keeps
its game and plays it to the champion."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from rediskit import redis_url
from srvkit import Client, ServerThread, fast_settings
from test_leases import db, postgres
from test_tournament_games import _lay_first, high_card
from test_tournament_nodes import until
from test_tournaments import play_room, profile

__all__ = ["db", "high_card", "postgres", "redis_url"]  # the fixtures

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def nodes(high_card: None, db: str, redis_url: str) -> Iterator[list[ServerThread]]:
    """Two cluster nodes sharing the database and Redis (High Card registered first)."""
    started = []
    try:
        for _ in range(2):
            s = ServerThread(fast_settings(db, cluster=True, redis_url=redis_url))
            s.start()
            started.append(s)
        yield started
    finally:
        for s in started:
            s.stop()


async def test_the_node_taking_a_tournament_over_keeps_its_game(
    nodes: list[ServerThread],
) -> None:
    a, b = nodes
    await until(lambda: all(n.app.state.hub.bus.connected for n in nodes))
    players = [profile(a, n) for n in ("Ann", "Bob")]
    r = a.post("/api/tournaments", {"name": "Two nodes", "game": "highcard"})
    assert r.status_code == 201, r.text
    tid, org = r.json()["id"], r.json()["organiser_secret"]
    for p in players:
        assert a.post(f"/api/tournaments/{tid}/join", {"profile_secret": p["secret"]}).is_success
    s = a.post(f"/api/tournaments/{tid}/start", {"organiser_secret": org, "seed": 3}).json()
    assert s["game"] == "highcard"
    (room,) = s["rooms"].values()
    code = room["code"]
    assert tid in a.app.state.hub.leases.organised
    a.stop()  # the organiser goes: its leases with it

    clients = [await Client(p["name"]).connect(b.ws, room=code, token=p["secret"]) for p in players]
    for c in clients:
        await c.expect("welcome")
    assert b.get(f"/api/rooms/{code}").json()["game"] == "highcard"
    await asyncio.wait_for(asyncio.gather(*(play_room(c, _lay_first) for c in clients)), 120)
    for c in clients:
        await c.close()
    mgr_b = b.app.state.hub.tournaments
    await until(lambda: tid in mgr_b.items and mgr_b.items[tid].status == "finished", 60)
    got = b.get(f"/api/tournaments/{tid}").json()
    assert got["game"] == "highcard" and got["tournament"]["game"] == "highcard"
    assert got["status"] == "finished" and got["tournament"]["champion"] in ("Ann", "Bob")
    refs = [g["ref"] for m in got["tournament"]["matches"] for g in m["games"]]
    assert refs and all(ref.startswith(f"{code}/") for ref in refs)
