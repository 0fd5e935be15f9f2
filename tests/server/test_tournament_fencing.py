"""Fenced tournament writes on a real PostgreSQL (tests/server/test_fencing.py's way): two
cluster nodes in one process; node a organises a tournament and has its match room in memory
when its lease session is ended without its knowing (as when the database drops a node cut
off); node b takes the room, where the players come. What a still holds of the room (nobody
came) must never reach the tournament: a's store of a no-show forfeit, and an organiser's
request through a, are refused by the room's lease (logged, the room dropped from a's memory,
the request answered ``409 tournament_changed``), and the stored tournament has no forfeit
(docs/cluster.md, "Fencing").

The tournament's own lease has an epoch too: a node whose lease of the tournament went
unnoticed while another node took it never stores the tournament as its organiser again (its
match room unmoved, so only that epoch can stop it)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from srvkit import TIMEOUT, Client, ServerThread, fast_settings
from test_leases import db, postgres, terminate_lease_connections
from test_tournaments import profile

from blink.server.lease import TOURNAMENT_NAMESPACE, PgLeases

__all__ = ["db", "postgres"]  # the fixtures

pytestmark = pytest.mark.timeout(300)

DEADLINE = 60.0


class Clock:
    """A wall clock the test moves (the no-show deadline)."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def nodes(db: str, clock: Clock) -> Iterator[list[ServerThread]]:
    """Two cluster nodes on the database (no Redis: each hears its own events), which check
    running tournaments only when the test asks."""
    started = []
    try:
        for _ in range(2):
            s = ServerThread(
                fast_settings(
                    db,
                    cluster=True,
                    release_after=3600.0,
                    tournament_check_interval=3600.0,
                    wall_clock=clock,
                )
            )
            s.start()
            started.append(s)
        yield started
    finally:
        for s in started:
            s.stop()


def on_loop(server: ServerThread, coro: Any) -> Any:
    """Run ``coro`` on the server's event loop and return its result."""
    loop = server.app.state.hub.storage._loop
    return asyncio.run_coroutine_threadsafe(coro, loop).result(TIMEOUT)


async def cut_off_with_the_room(
    a: ServerThread, b: ServerThread, clock: Clock
) -> tuple[str, str, str, str, list[Client]]:
    """A tournament organised by a with its match room in a's memory; a's lease session ends
    unnoticed; b takes the room and both players connect to it there; the no-show deadline
    passes. Returns the tournament's id, the organiser's secret, the match's id, its room's
    code and the players' clients."""
    players = [profile(a, n) for n in ("Ann", "Bob")]
    r = a.post("/api/tournaments", {"name": "Fenced", "no_show_after": DEADLINE})
    assert r.status_code == 201, r.text
    tid, org = r.json()["id"], r.json()["organiser_secret"]
    for p in players:
        assert a.post(f"/api/tournaments/{tid}/join", {"profile_secret": p["secret"]}).is_success
    s = a.post(f"/api/tournaments/{tid}/start", {"organiser_secret": org, "seed": 3}).json()
    ((match, room),) = s["rooms"].items()
    code = room["code"]
    assert a.get(f"/api/rooms/{code}").status_code == 200  # a takes the room's lease
    hub_a = a.app.state.hub
    assert code in hub_a.rooms and tid in hub_a.leases.organised

    assert terminate_lease_connections(a.settings.database_url) >= 1
    assert b.get(f"/api/rooms/{code}").status_code == 200  # b takes the room over
    assert code in b.app.state.hub.rooms
    clients = [await Client(p["name"]).connect(b.ws, room=code, token=p["secret"]) for p in players]
    for c in clients:
        await c.expect("welcome")
    clock.now += DEADLINE + 1  # a's copy of the room says nobody came
    assert code in hub_a.rooms and tid in hub_a.leases.organised  # a has noticed nothing
    return tid, org, match, code, clients


def no_forfeit(server: ServerThread, tid: str) -> bool:
    """Whether the stored tournament has no forfeit in it."""
    stored = server.app.state.hub.tournaments.read(tid)
    assert stored is not None
    return not stored.t.changes and not any(m.forfeits for m in stored.t.matches())


async def test_a_node_that_lost_a_match_room_never_stores_what_it_held_of_it(
    nodes: list[ServerThread], clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="blink.server")
    a, b = nodes
    tid, _org, _match, code, clients = await cut_off_with_the_room(a, b, clock)
    version = a.app.state.hub.tournaments.read(tid).version

    on_loop(a, a.app.state.hub.tournaments.organise(tid))  # a's periodic check

    assert no_forfeit(b, tid), "a stored a no-show of players who play on b"
    assert a.app.state.hub.tournaments.read(tid).version == version
    said = [m for r in caplog.records if f"tournament {tid}: not stored" in (m := r.getMessage())]
    assert said and code in said[0], said
    assert code not in a.app.state.hub.rooms  # dropped: its clients go where it is served
    # b, which serves the room, sees the players there: no forfeit from b either.
    on_loop(b, b.app.state.hub.tournaments.organise(tid))
    assert no_forfeit(b, tid)
    for c in clients:
        await c.close()


async def test_a_request_through_that_node_is_answered_tournament_changed(
    nodes: list[ServerThread], clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="blink.server")
    a, b = nodes
    tid, org, match, code, clients = await cut_off_with_the_room(a, b, clock)
    body = {"organiser_secret": org, "match": match, "players": ["Bob"], "note": "late"}

    got = a.post(f"/api/tournaments/{tid}/forfeit", body)

    assert got.status_code == 409, got.text
    error = got.json()["error"]
    assert error["code"] == "tournament_changed"
    assert "moved to another server" in error["message"]
    assert no_forfeit(b, tid)
    assert any(f"tournament {tid}: not stored" in r.getMessage() for r in caplog.records)
    assert code not in a.app.state.hub.rooms
    # Tried again, the request goes through (on the stored tournament, without a's copy).
    again = a.post(f"/api/tournaments/{tid}/forfeit", body)
    assert again.status_code == 200, again.text
    assert not no_forfeit(b, tid)
    for c in clients:
        await c.close()


async def test_a_node_that_lost_the_tournaments_lease_never_stores_it_as_organiser(
    nodes: list[ServerThread], clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="blink.server")
    a, b = nodes
    players = [profile(a, n) for n in ("Ann", "Bob")]
    r = a.post("/api/tournaments", {"name": "Leased", "no_show_after": DEADLINE})
    tid, org = r.json()["id"], r.json()["organiser_secret"]
    for p in players:
        assert a.post(f"/api/tournaments/{tid}/join", {"profile_secret": p["secret"]}).is_success
    s = a.post(f"/api/tournaments/{tid}/start", {"organiser_secret": org, "seed": 3}).json()
    ((_match, room),) = s["rooms"].items()
    code = room["code"]
    assert a.get(f"/api/rooms/{code}").status_code == 200  # a serves the match room
    hub_a = a.app.state.hub
    assert tid in hub_a.leases.organised
    mine = hub_a.leases.fence(tid, TOURNAMENT_NAMESPACE)
    assert mine >= 1
    # a's lease session ends unnoticed; b takes the tournament's lease (not the room's).
    assert terminate_lease_connections(a.settings.database_url) >= 1
    assert b.app.state.hub.leases.acquire(tid, TOURNAMENT_NAMESPACE)
    assert b.app.state.hub.leases.fence(tid, TOURNAMENT_NAMESPACE) == mine + 1
    clock.now += DEADLINE + 1  # nobody came to a's room: a, as organiser, would forfeit them
    version = hub_a.tournaments.read(tid).version

    on_loop(a, hub_a.tournaments.organise(tid))  # a's periodic check

    assert no_forfeit(b, tid), "a stored the tournament as its organiser after losing its lease"
    assert hub_a.tournaments.read(tid).version == version
    said = [m for r in caplog.records if "another node took its lease" in (m := r.getMessage())]
    assert said == [
        f"tournament {tid}: another node took its lease (epoch {mine + 1}, this node's was "
        f"{mine}): dropped the store this node made as its organiser"
    ], said
    assert tid not in hub_a.leases.organised  # given up: b organises it


def test_taking_a_tournaments_lease_adds_one_to_its_epoch(db: str) -> None:
    a, b = PgLeases(db), PgLeases(db)
    try:
        assert a.fence("T1", TOURNAMENT_NAMESPACE) == 0
        assert a.acquire("T1", TOURNAMENT_NAMESPACE) and a.fence("T1", TOURNAMENT_NAMESPACE) == 1
        assert a.fence("T1") == 0  # a room of the same name is another lease
        a.release("T1", TOURNAMENT_NAMESPACE)
        assert b.acquire("T1", TOURNAMENT_NAMESPACE) and b.fence("T1", TOURNAMENT_NAMESPACE) == 2
        assert not a.acquire("T1", TOURNAMENT_NAMESPACE)
        assert a.fence("T1", TOURNAMENT_NAMESPACE) == 0
    finally:
        a.close()
        b.close()
