"""Room leases on a real PostgreSQL (a throwaway server started by the fixture): the advisory
locks themselves, and two cluster nodes (real uvicorn servers) on one database, each room
served by the node holding its lease, the other answering ``room_elsewhere``."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

import httpx
import psycopg
import pytest
from sqlalchemy.engine import make_url
from srvkit import TIMEOUT, Client, ServerThread, fast_settings, pg_create_db, pg_drop_db

from blink.cluster.local import LocalPostgres
from blink.server.app import begin_shutdown, ws_room
from blink.server.bus import RoomWanted
from blink.server.hub import MOVE_BACK_AFTER
from blink.server.lease import TOURNAMENT_NAMESPACE, LocalLeases, PgLeases, lease_key
from blink.server.storage import make_engine, migrate

T = TypeVar("T")


@pytest.fixture(scope="module")
def postgres() -> Iterator[LocalPostgres]:
    """A PostgreSQL server of the module's own, stopped (and removed) at its end."""
    pg = LocalPostgres()
    pg.start()
    try:
        yield pg
    finally:
        pg.stop()


@pytest.fixture
def db(postgres: LocalPostgres) -> Iterator[str]:
    """A fresh database on that server, with the schema."""
    name = "lease_" + secrets.token_hex(5)
    url = pg_create_db(postgres.url, name)
    engine = make_engine(url)
    migrate(engine)  # the schema a node's storage makes (the leases' epochs are in it)
    engine.dispose()
    try:
        yield url
    finally:
        pg_drop_db(postgres.url, name)


def on_loop(server: ServerThread, call: Callable[[], T]) -> T:
    """Run ``call`` on the server's event loop (where its hub lives) and return its result."""
    loop = server.app.state.hub.storage._loop

    async def run() -> T:
        return call()

    return asyncio.run_coroutine_threadsafe(run(), loop).result(TIMEOUT)


def terminate_lease_connections(url: str) -> int:
    """Kill the database sessions that hold room leases (as if their node vanished), and wait
    until the server has let their locks go (a terminated session ends a moment later)."""
    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory'"
        ).fetchall()
        deadline = time.monotonic() + TIMEOUT
        while conn.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'").fetchone()[
            0
        ]:
            assert time.monotonic() < deadline, "the terminated sessions kept their locks"
            time.sleep(0.02)
    return len(rows)


def test_a_lease_is_held_by_one_node_at_a_time(db: str) -> None:
    a, b = PgLeases(db), PgLeases(db)
    try:
        assert a.acquire("ROOM01") and a.acquire("ROOM01")  # held: taking it again is a yes
        assert not b.acquire("ROOM01")
        assert b.acquire("ROOM02")
        a.release("ROOM01")
        assert b.acquire("ROOM01") and not a.acquire("ROOM01")
        assert b.held == {"ROOM01", "ROOM02"} and a.held == frozenset()
        b.close()  # a node that stops gives every lease up
        assert a.acquire("ROOM01") and a.acquire("ROOM02")
        assert a.alive()
        # The lease connection dies (the database dropped it): every lease went with it.
        assert terminate_lease_connections(db) >= 1
        assert not a.alive()
        assert a.held == frozenset()
        assert a.alive()  # said once; its next leases are taken on a new connection
        c = PgLeases(db)
        assert c.acquire("ROOM01")
        assert not a.acquire("ROOM01") and a.acquire("ROOM03")
        c.close()
    finally:
        a.close()
        b.close()


def test_a_tournament_lease_is_apart_from_the_room_of_the_same_name(db: str) -> None:
    a, b = PgLeases(db), PgLeases(db)
    try:
        assert a.acquire("ABC123", TOURNAMENT_NAMESPACE)
        assert not b.acquire("ABC123", TOURNAMENT_NAMESPACE)
        assert b.acquire("ABC123")  # the room ABC123 is another lease
        assert a.organised == {"ABC123"} and a.held == frozenset()
        assert b.held == {"ABC123"} and b.organised == frozenset()
        a.release("ABC123", TOURNAMENT_NAMESPACE)
        assert b.acquire("ABC123", TOURNAMENT_NAMESPACE) and not a.acquire("ABC123")
        b.close()  # the organiser stops: another node takes its tournaments' leases
        assert a.acquire("ABC123", TOURNAMENT_NAMESPACE)
    finally:
        a.close()
        b.close()
    assert lease_key("ABC123") != lease_key("ABC123", TOURNAMENT_NAMESPACE)


def test_single_node_leases_are_always_held() -> None:
    leases = LocalLeases()
    assert not leases.shared
    assert leases.acquire("ANY") and leases.alive()
    leases.release("ANY")


def test_lease_keys_are_stable_signed_64_bit() -> None:
    assert lease_key("K7QX2M") == lease_key("K7QX2M") != lease_key("K7QX2N")
    assert -(2**63) <= lease_key("K7QX2M") < 2**63


def test_the_room_code_of_a_websocket_path() -> None:
    assert ws_room("/ws") is None
    assert ws_room("/ws/k7qx2m") == "K7QX2M"
    assert ws_room("/ws/K7QX2M/") == "K7QX2M"
    for other in ("/wsx", "/ws/", "/ws/A/B", "/ws/" + "A" * 17, "/api/ws", "/"):
        assert ws_room(other) is False, other


@pytest.fixture
def nodes(db: str) -> Iterator[list[ServerThread]]:
    """Two cluster nodes (uvicorn in threads) on one database."""
    started = []
    try:
        for _ in range(2):
            s = ServerThread(fast_settings(db, cluster=True, release_after=3600.0))
            s.start()
            started.append(s)
        yield started
    finally:
        for s in started:
            s.stop()


async def test_two_nodes_serve_each_room_from_one_of_them(nodes: list[ServerThread]) -> None:
    a, b = nodes
    r = a.post("/api/rooms", {"name": "Ann"})
    assert r.status_code == 201, r.text
    code, token = r.json()["code"], r.json()["token"]
    # Made through a, then handed off: whichever node is asked first serves it.
    assert code not in a.app.state.hub.rooms
    joined = b.post(f"/api/rooms/{code}/join", {"name": "Bob"})
    assert joined.status_code == 200, joined.text
    assert code in b.app.state.hub.rooms
    info = a.get(f"/api/rooms/{code}")
    assert info.status_code == 503 and info.headers["retry-after"] == "1"
    assert info.json()["error"]["code"] == "room_elsewhere"
    assert a.get(f"/play/{code}").status_code == 503
    assert b.get(f"/api/rooms/{code}").status_code == 200
    # The WebSocket of a node without the lease: try again (1013), nothing attached.
    c = await Client("A").connect(a.ws, room=code, token=token)
    err = await c.expect("error")
    assert err["code"] == "room_elsewhere"
    assert await c.closed() == 1013
    # The node with it serves the room, by the code in the path (any letter case).
    p = await Client("A").connect(f"{b.ws}/{code.lower()}")
    await p.send({"type": "hello", "protocol": 1, "room": code.lower(), "token": token})
    welcome = await p.expect("welcome")
    assert welcome["room"] == code and welcome["seat"] == 0
    # b's lease connection is lost: b drops the room and closes its connections with 1013,
    # and a takes it over.
    assert terminate_lease_connections(b.settings.database_url) >= 1
    assert on_loop(b, b.app.state.hub.check_leases) == [code]
    assert await p.closed(TIMEOUT) == 1013
    assert code not in b.app.state.hub.rooms
    assert a.get(f"/api/rooms/{code}").status_code == 200
    again = await Client("A2").connect(b.ws, room=code, token=token)
    assert (await again.expect("error"))["code"] == "room_elsewhere"
    p2 = await Client("A3").connect(a.ws, room=code, token=token)
    assert (await p2.expect("welcome"))["seat"] == 0
    await p2.close()


async def test_a_node_lets_go_of_a_room_nobody_is_connected_to(db: str) -> None:
    clock = [1000.0]
    settings = fast_settings(db, cluster=True, release_after=15.0, clock=lambda: clock[0])
    a, b = ServerThread(settings), ServerThread(fast_settings(db, cluster=True))
    a.start()
    b.start()
    try:
        code = a.post("/api/rooms", {"name": "Ann"}).json()["code"]
        assert a.get(f"/api/rooms/{code}").status_code == 200  # a serves it now
        assert b.get(f"/api/rooms/{code}").status_code == 503
        hub = a.app.state.hub
        assert on_loop(a, hub.evict_idle) == []  # idle from now
        clock[0] += 14.0
        assert on_loop(a, hub.evict_idle) == []
        clock[0] += 1.0
        assert on_loop(a, hub.evict_idle) == [code]  # released: the next node asked takes it
        assert b.get(f"/api/rooms/{code}").status_code == 200
        assert httpx.get(f"{a.http}/api/rooms/{code}", timeout=TIMEOUT).status_code == 503
    finally:
        a.stop()
        b.stop()


async def test_a_stopping_node_hands_its_rooms_over(nodes: list[ServerThread]) -> None:
    a, b = nodes
    code, token = (r := b.post("/api/rooms", {"name": "Ann"}).json())["code"], r["token"]
    joined = b.post(f"/api/rooms/{code}/join", {"name": "Bob"})
    assert joined.status_code == 200, joined.text
    players = [
        await Client(f"P{i}").connect(b.ws, room=code, token=t)
        for i, t in enumerate((token, joined.json()["token"]))
    ]
    for p in players:
        await p.expect("welcome")
    # SIGTERM: the health check fails at once (the router stops sending traffic here) while
    # the room is still served.
    begin_shutdown(b.app)
    health = b.get("/api/health")
    assert health.status_code == 503 and health.json()["status"] == "draining"
    assert a.get("/api/health").status_code == 200
    assert b.get(f"/api/rooms/{code}").status_code == 200
    # A stopping cluster node still makes rooms: each is stored and handed off, not served
    # here (a single server refuses them: tests/test_serve_shutdown.py).
    made = b.post("/api/rooms", {"name": "Cy"})
    assert made.status_code == 201, made.text
    new_code = made.json()["code"]
    hub = b.app.state.hub
    assert new_code not in hub.rooms
    handed = asyncio.run_coroutine_threadsafe(hub.hand_over(), hub.storage._loop)
    assert handed.result(TIMEOUT) == 1
    for p in players:
        assert await p.closed(TIMEOUT) == 1012
        assert [m for m in p.msgs if m["type"] == "error"] == []
    # The lease is already given up: the other node takes the room at once, and the stopping
    # node loads no room any more.
    assert code not in hub.rooms
    assert a.get(f"/api/rooms/{code}").status_code == 200
    elsewhere = b.get(f"/api/rooms/{code}")
    assert elsewhere.status_code == 503 and elsewhere.json()["error"]["code"] == "room_elsewhere"
    back = await Client("P0b").connect(a.ws, room=code, token=token)
    assert (await back.expect("welcome"))["seat"] == 0
    await back.close()
    assert a.get(f"/api/rooms/{new_code}").status_code == 200


async def test_a_node_hands_a_room_over_to_the_node_that_wants_it(db: str) -> None:
    # The router sends room R's new connections to node a, while node b holds R (it took
    # R while a was away): a asks on the bus, and b hands R over, unless it took R a moment
    # ago. Here b hears the ask directly (the bus between nodes is Redis: the real cluster's
    # test, tests/server/test_rolling_restart.py).
    clock = [1000.0]
    a = ServerThread(fast_settings(db, cluster=True))
    b = ServerThread(fast_settings(db, cluster=True, clock=lambda: clock[0]))
    a.start()
    b.start()
    try:
        code, token = (r := b.post("/api/rooms", {"name": "Ann"}).json())["code"], r["token"]
        p = await Client("P0").connect(f"{b.ws}/{code}", room=code, token=token)
        await p.expect("welcome")
        hub = b.app.state.hub
        wanted = RoomWanted(code, "another-node")
        assert not on_loop(b, lambda: hub.heard_wanted(RoomWanted(code, hub.bus.node)))
        assert not on_loop(b, lambda: hub.heard_wanted(RoomWanted("NOSUCH", "another-node")))
        clock[0] += MOVE_BACK_AFTER - 0.5
        assert not on_loop(b, lambda: hub.heard_wanted(wanted))  # b took it just now
        clock[0] += 0.5
        assert on_loop(b, lambda: hub.heard_wanted(wanted))
        # b commits what was queued, gives the lease up, then closes with 1012: the player
        # reconnects (through the router: to a) and finds the room there at once.
        assert await p.closed(TIMEOUT) == 1012
        assert [m for m in p.msgs if m["type"] == "error"] == []
        back = await Client("P0b").connect(f"{a.ws}/{code}", room=code, token=token)
        assert (await back.expect("welcome"))["seat"] == 0
        assert code in a.app.state.hub.rooms and code not in hub.rooms
        await back.close()
    finally:
        a.stop()
        b.stop()
