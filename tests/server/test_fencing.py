"""Fenced room leases on a real PostgreSQL (a throwaway server started by the fixture): two
cluster nodes (real uvicorn servers, real WebSocket clients) on one database, where the node
that served a room loses its lease without knowing it, or is cut off from the database with
writes held, while the other node takes the room over and plays on. The first node's writes
must never reach the room (docs/cluster.md, "Fencing"), and the stored game must replay."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql
from sqlalchemy import select
from sqlalchemy.engine import make_url
from srvkit import TIMEOUT, Client, ServerThread, fast_settings, pg_create_db, pg_drop_db
from test_leases import terminate_lease_connections

from blink.cluster.local import LocalPostgres
from blink.server.jobs import AppendJob, Fenced, FencedOut
from blink.server.lease import PgLeases
from blink.server.schema import actions
from blink.server.storage import Storage, make_engine, migrate
from blink.server.stored import rebuild


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
    name = "fence_" + secrets.token_hex(5)
    url = pg_create_db(postgres.url, name)
    engine = make_engine(url)
    migrate(engine)  # the schema a node's storage makes (the leases' epochs are in it)
    engine.dispose()
    try:
        yield url
    finally:
        pg_drop_db(postgres.url, name)


def _conninfo(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def _until(what: str, cond: Any) -> None:
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while not cond():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting until {what}"
        await asyncio.sleep(0.02)


async def play_once(c: Client) -> str:
    """Play one legal card and wait for its ack; the action's id (a refused play, one the
    other player's play made illegal first, is chosen again)."""
    while True:
        await _until(f"{c.name} can play", lambda: bool(c.legal()))
        mid = await c.play(*c.legal()[0])
        m = await c.wait(lambda m, mid=mid: m.get("id") == mid and m["type"] in ("ack", "refused"))
        if m["type"] == "ack":
            return mid


async def connect(server: ServerThread, code: str, tokens: list[str], name: str) -> list[Client]:
    """The players of ``tokens`` connected to ``server``'s room ``code``, once each was sent
    its game's snapshot (named ``name`` and their seat)."""
    clients = []
    for i, token in enumerate(tokens):
        c = await Client(f"{name}{i}").connect(server.ws, room=code, token=token)
        await c.expect("welcome")
        clients.append(c)
    for c in clients:
        await _until(f"{c.name} sees the game", lambda c=c: c.view is not None and c.game)
    return clients


def stored_log(url: str, game: int) -> list[tuple[int, str | None]]:
    """The stored action log of ``game``: (seq, client id) in order."""
    from sqlalchemy import create_engine

    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            q = select(actions.c.seq, actions.c.client_id).where(actions.c.game_id == game)
            return [(r.seq, r.client_id) for r in conn.execute(q.order_by(actions.c.seq))]
    finally:
        engine.dispose()


def test_taking_a_lease_adds_one_to_its_epoch(db: str) -> None:
    a, b = PgLeases(db), PgLeases(db)
    try:
        assert a.fence("ROOM01") == 0  # not held: a fence no stored epoch ever matches
        assert a.acquire("ROOM01") and a.fence("ROOM01") == 1
        assert a.acquire("ROOM01") and a.fence("ROOM01") == 1  # held already: the same
        a.release("ROOM01")
        assert a.fence("ROOM01") == 0
        assert b.acquire("ROOM01") and b.fence("ROOM01") == 2
        assert not a.acquire("ROOM01") and a.fence("ROOM01") == 0  # refused: no epoch taken
        with psycopg.connect(_conninfo(db)) as conn:
            row = conn.execute("SELECT epoch FROM room_leases WHERE code = 'ROOM01'").fetchone()
            assert row == (2,)
    finally:
        a.close()
        b.close()


def test_a_lease_is_not_taken_while_a_write_of_its_last_holder_is_open(db: str) -> None:
    # The last holder's write transaction holds the epoch's row (FOR SHARE) until it ends:
    # taking the lease waits for it a moment, then gives the lock back (the room is
    # elsewhere for now), and takes it once the write is over.
    a = PgLeases(db)
    try:
        assert a.acquire("ROOM01")
        a.release("ROOM01")
        with psycopg.connect(_conninfo(db)) as writer:
            writer.execute("SELECT epoch FROM room_leases WHERE code = 'ROOM01' FOR SHARE")
            assert not a.acquire("ROOM01")
            assert a.held == frozenset()
            writer.rollback()
        assert a.acquire("ROOM01") and a.fence("ROOM01") == 2
    finally:
        a.close()


@pytest.mark.parametrize("writer", ["thread", "async"])
async def test_a_batch_commits_the_writes_of_the_rooms_whose_leases_hold(
    db: str, writer: str
) -> None:
    # One batch with writes of two rooms, one of whose leases moved: its writes are refused
    # (FencedOut, the hub told), the other room's are committed. Again with a batch that
    # fails on a job of its own (a duplicate key), committed one job at a time.
    mine, other = PgLeases(db), PgLeases(db)
    storage = Storage(db, writer=writer)
    storage.start(asyncio.get_running_loop())
    told: list[tuple[str, int]] = []
    storage.on_fenced = lambda code, epoch: told.append((code, epoch))
    try:
        assert mine.acquire("ROOM01") and mine.acquire("ROOM02")
        mine.release("ROOM01")
        assert other.acquire("ROOM01")  # epoch 2 now

        def append(room: str, game: int, seq: int) -> Any:
            return storage.run(Fenced(AppendJob((game, seq, "{}", None, f"{room}-{seq}")), room, 1))

        got = await asyncio.gather(
            append("ROOM01", 1, 1), append("ROOM02", 2, 1), return_exceptions=True
        )
        assert isinstance(got[0], FencedOut) and got[0].now == 2 and got[1] is None
        assert told == [("ROOM01", 1)]
        got = await asyncio.gather(
            append("ROOM02", 2, 2),
            append("ROOM01", 1, 2),
            append("ROOM02", 2, 1),  # stored already: this batch fails, then goes one by one
            return_exceptions=True,
        )
        assert got[0] is None and isinstance(got[1], FencedOut)
        assert isinstance(got[2], Exception) and not isinstance(got[2], FencedOut)
        assert stored_log(db, 1) == []
        assert stored_log(db, 2) == [(1, "ROOM02-1"), (2, "ROOM02-2")]
        assert storage.failure is None
    finally:
        storage.stop()
        mine.close()
        other.close()


@pytest.mark.parametrize("writer", ["thread", "async"])
async def test_a_node_that_lost_a_lease_never_writes_into_the_room_again(
    db: str, writer: str, caplog: pytest.LogCaptureFixture
) -> None:
    # Node a serves a room; its lease session ends (the database dropped it) and a has not
    # noticed yet (its next sweep is far off); node b is asked for the room, takes the lease
    # and serves it. A play that still reaches a is refused by the fence in a's own commit:
    # never acknowledged, never stored, and a drops the room (1013: try again).
    caplog.set_level(logging.WARNING, logger="blink.server")
    a, b = (
        ServerThread(fast_settings(db, cluster=True, release_after=3600.0, db_writer=writer))
        for _ in range(2)
    )
    a.start()
    b.start()
    try:
        r = a.post("/api/rooms", {"name": "Ann"})
        assert r.status_code == 201, r.text
        code, t0 = r.json()["code"], r.json()["token"]
        t1 = a.post(f"/api/rooms/{code}/join", {"name": "Bob"}).json()["token"]
        p0, p1 = await connect(a, code, [t0, t1], "A")
        await play_once(p0)
        assert code in a.app.state.hub.rooms
        game = p0.game
        assert game is not None

        assert terminate_lease_connections(db) >= 1
        assert b.get(f"/api/rooms/{code}").status_code == 200  # b takes the lease
        assert code in b.app.state.hub.rooms

        await _until("A0 can play", lambda: bool(p0.legal()))
        mid = await p0.play(*p0.legal()[0])  # a applies it, then its commit is fenced
        assert await p0.closed(TIMEOUT) == 1013
        assert await p1.closed(TIMEOUT) == 1013
        assert not [m for m in p0.msgs if m.get("id") == mid]  # no ack, no refusal
        assert code not in a.app.state.hub.rooms
        assert mid not in [cid for _, cid in stored_log(db, game)]
        said = [r.getMessage() for r in caplog.records if f"room {code}:" in r.getMessage()]
        assert any("dropped 1 writes" in s for s in said), said

        # The players come back through b, which plays the game on from its stored log.
        q0, q1 = await connect(b, code, [t0, t1], "B")
        played = [await play_once(q0), await play_once(q1)]
        log = stored_log(db, game)
        assert [seq for seq, _ in log] == list(range(1, len(log) + 1))
        assert set(played) <= {cid for _, cid in log} and mid not in {cid for _, cid in log}
        loaded = b.app.state.hub.storage.load_game(game)
        rebuild(loaded)  # the stored game replays
        await q0.close()
        await q1.close()
    finally:
        a.stop()
        b.stop()


async def test_writes_held_through_a_cut_are_dropped_when_it_heals(
    db: str, postgres: LocalPostgres, caplog: pytest.LogCaptureFixture
) -> None:
    # Node a reaches the database as its own role. The cut: the role may not log in any more
    # and its sessions are ended (its lease and its writer's connection with them). A play a
    # accepts then cannot be committed: a keeps it, to commit it once the database is back.
    # Meanwhile b takes the room and its players play on from the stored log. When the cut
    # heals, a's kept write is refused by the room's lease (it would have been the game's
    # next action) and the stored game replays.
    caplog.set_level(logging.WARNING, logger="blink.server")
    role = "node_" + secrets.token_hex(4)
    password = make_url(db).password  # the cluster's PostgreSQL asks every role for one
    with psycopg.connect(_conninfo(db), autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN SUPERUSER")
        if password is not None:
            admin.execute(
                sql.SQL("ALTER ROLE {} PASSWORD {}").format(
                    sql.Identifier(role), sql.Literal(str(password))
                )
            )
    a_url = make_url(db).set(username=role).render_as_string(hide_password=False)
    b = ServerThread(fast_settings(db, cluster=True, release_after=3600.0))
    b.start()  # first: the schema is the admin's
    a = ServerThread(fast_settings(a_url, cluster=True, release_after=3600.0))
    a.start()
    try:
        storage = a.app.state.hub.storage
        storage.retry_every = 0.05
        r = a.post("/api/rooms", {"name": "Ann"})
        code, t0 = r.json()["code"], r.json()["token"]
        t1 = a.post(f"/api/rooms/{code}/join", {"name": "Bob"}).json()["token"]
        p0, p1 = await connect(a, code, [t0, t1], "A")
        await play_once(p0)
        game = p0.game
        assert game is not None
        stored = stored_log(db, game)

        with psycopg.connect(_conninfo(db), autocommit=True) as admin:
            admin.execute(f"ALTER ROLE {role} NOLOGIN")
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s",
                (role,),
            )
            await _until(
                "the cut role's sessions ended",
                lambda: (
                    admin.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE usename = %s", (role,)
                    ).fetchone()
                    == (0,)
                ),
            )
        await _until("A0 can play", lambda: bool(p0.legal()))
        held = await p0.play(*p0.legal()[0])  # accepted by a, kept: the database is away
        await _until("a keeps its write", lambda: storage.failure is not None)
        assert stored_log(db, game) == stored

        assert b.get(f"/api/rooms/{code}").status_code == 200  # b takes the room over
        q0, q1 = await connect(b, code, [t0, t1], "B")
        assert q0.seq == len(stored)  # b plays on from the stored log, without a's write

        with psycopg.connect(_conninfo(db), autocommit=True) as admin:
            admin.execute(f"ALTER ROLE {role} LOGIN")  # the cut heals
        await _until("a writes again", lambda: storage.failure is None)
        assert held not in [cid for _, cid in stored_log(db, game)]
        said = [r.getMessage() for r in caplog.records if f"room {code}:" in r.getMessage()]
        assert any("dropped 1 writes" in s for s in said), said

        played = [await play_once(q1), await play_once(q0)]
        log = stored_log(db, game)
        assert [seq for seq, _ in log] == list(range(1, len(log) + 1))
        assert log[: len(stored)] == stored
        assert set(played) <= {cid for _, cid in log} and held not in {cid for _, cid in log}
        rebuild(b.app.state.hub.storage.load_game(game))  # the stored game replays
        for c in (p0, p1, q0, q1):
            await c.close()
    finally:
        a.stop()
        b.stop()
        with psycopg.connect(_conninfo(db), autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s",
                (role,),
            )
            admin.execute(f"DROP OWNED BY {role}")
        with psycopg.connect(_conninfo(postgres.url), autocommit=True) as admin:
            admin.execute(f"DROP ROLE {role}")
