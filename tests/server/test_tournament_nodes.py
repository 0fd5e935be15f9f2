"""The organiser of a tournament on two cluster nodes in one process (real uvicorn servers on
one real PostgreSQL and one real Redis), its periodic check turned off so that only the events
drive it: a match room served by the node that does not organise the tournament sends its
results to the organiser (``MatchFinished``), which enters them from the stored games; and an
organiser's request stored over a newer version is refused with ``409 tournament_changed``."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from rediskit import redis_url
from srvkit import TIMEOUT, Client, ServerThread, fast_settings
from test_leases import db, postgres
from test_tournaments import play_room, profile

__all__ = ["db", "postgres", "redis_url"]  # the fixtures

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def nodes(db: str, redis_url: str) -> Iterator[list[ServerThread]]:
    """Two cluster nodes sharing the database and Redis, checking running tournaments only
    once an hour."""
    started = []
    try:
        for _ in range(2):
            s = ServerThread(
                fast_settings(
                    db,
                    cluster=True,
                    redis_url=redis_url,
                    release_after=3600.0,
                    tournament_check_interval=3600.0,
                )
            )
            s.start()
            started.append(s)
        yield started
    finally:
        for s in started:
            s.stop()


async def until(check: Callable[[], Any], timeout: float = TIMEOUT) -> Any:
    """Wait until ``check()`` is true (generous timeout), and return it."""
    deadline = time.monotonic() + timeout
    while not (got := check()):
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)
    return got


async def test_a_match_played_on_the_other_node_reaches_the_organiser(
    nodes: list[ServerThread],
) -> None:
    a, b = nodes
    await until(lambda: all(n.app.state.hub.bus.connected for n in nodes))
    players = [profile(a, n) for n in ("Ann", "Bob")]
    r = a.post("/api/tournaments", {"name": "Two nodes"})
    assert r.status_code == 201, r.text
    tid, org = r.json()["id"], r.json()["organiser_secret"]
    for p in players:
        assert a.post(f"/api/tournaments/{tid}/join", {"profile_secret": p["secret"]}).is_success
    s = a.post(f"/api/tournaments/{tid}/start", {"organiser_secret": org, "seed": 3}).json()
    (room,) = s["rooms"].values()
    code = room["code"]
    # a organises (it made the tournament) and handed the room off; b serves it.
    assert tid in a.app.state.hub.leases.organised and code not in a.app.state.hub.rooms
    clients = [await Client(p["name"]).connect(b.ws, room=code, token=p["secret"]) for p in players]
    for c in clients:
        await c.expect("welcome")
    assert code in b.app.state.hub.rooms
    await asyncio.wait_for(asyncio.gather(*(play_room(c) for c in clients)), 120)
    for c in clients:
        await c.close()
    # Only b saw the games; a entered them (from the stored games) on b's events.
    mgr_a = a.app.state.hub.tournaments
    await until(lambda: mgr_a.items[tid].status == "finished")
    t = mgr_a.items[tid].t
    refs = [g.ref for m in t.matches() for g in m.games]
    assert refs and all(ref.startswith(f"{code}/") for ref in refs)
    assert len(refs) == len(set(refs))
    assert tid not in b.app.state.hub.leases.organised
    got = b.get(f"/api/tournaments/{tid}").json()
    assert got["status"] == "finished" and got["tournament"]["champion"] == t.champion


async def test_a_change_stored_meanwhile_refuses_the_request(nodes: list[ServerThread]) -> None:
    a, b = nodes
    r = a.post("/api/tournaments", {"name": "Cards", "kind": "cards"})
    tid, org = r.json()["id"], r.json()["organiser_secret"]
    add = {"organiser_secret": org, "name": "Ann"}
    assert b.post(f"/api/tournaments/{tid}/players", add).status_code == 200
    # a's copy is behind the stored one; a request through a works on the stored one.
    add["name"] = "Bob"
    got = a.post(f"/api/tournaments/{tid}/players", add)
    assert got.status_code == 200, got.text
    assert [p["name"] for p in got.json()["players"]] == ["Ann", "Bob"]
    # b still holds the version before Bob's: its store is refused, and nothing changes.
    mgr_b = b.app.state.hub.tournaments
    e = mgr_b.items[tid]
    e.t.add_player("Cleo")
    job = mgr_b.save(e)
    with mgr_b.hub.storage.engine.begin() as conn:
        assert job(conn) is False
    stored = mgr_b.read(tid)
    assert stored is not None and [x.name for x in stored.t.entrants] == ["Ann", "Bob"]
    # Once it reads the stored one again, its request goes through.
    mgr_b.forget(tid)
    add["name"] = "Cleo"
    got = b.post(f"/api/tournaments/{tid}/players", add)
    assert got.status_code == 200, got.text
    assert got.json()["version"] == stored.version + 1
