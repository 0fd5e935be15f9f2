"""The database stops taking writes under a running server: nothing acknowledged is lost.

Real failures, on a real server with real WebSocket clients: SQLite's own "database or disk is
full" (its page limit, ``PRAGMA max_page_count``, set on every connection of the server's
engine, so the real commit fails as on a full disk), a database file deleted under the server,
one replaced by another file, and the PostgreSQL cluster stopped and started. While nothing
can be written no frame of an unstored action is sent, the games wait and their players are
told (``storage_unavailable``), new rooms are refused with 503 and ``/api/health`` says why,
once in the log; when writes succeed again the games go on from what was stored, and after a
restart every acknowledged action is there.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from srvkit import ServerThread, fast_settings, pg_create_db, pg_drop_db
from websockets.sync.client import ClientConnection, connect

from blink.server.storage import Storage

pytestmark = pytest.mark.timeout(180)
WAIT = 30.0


class Seat:
    """One seated client: its frames, its last view, the actions acknowledged to it."""

    def __init__(self, server: ServerThread, code: str, token: str) -> None:
        # Entered by hand: the seat outlives one block, and the test closes it (ws.close).
        self.ws: ClientConnection = connect(server.ws).__enter__()
        self.ws.send(json.dumps({"type": "hello", "protocol": 1, "room": code, "token": token}))
        self.view: dict[str, Any] = {}
        self.seq = 0
        self.acked: dict[str, int] = {}
        self.frames: list[dict[str, Any]] = []
        self.n = 0

    def read(
        self, until: Callable[[dict[str, Any]], bool], timeout: float = WAIT
    ) -> dict[str, Any]:
        """Read frames until one matches ``until``."""
        end = time.monotonic() + timeout
        while True:
            m: dict[str, Any] = json.loads(self.ws.recv(timeout=max(0.01, end - time.monotonic())))
            self.frames.append(m)
            if m["type"] in ("snapshot", "update"):
                self.view = m["view"]
                self.seq = m["seq"]
            if m["type"] == "ack":
                self.acked[m["id"]] = m["seq"]
            if until(m):
                return m

    def quiet(self, seconds: float) -> list[dict[str, Any]]:
        """Every frame that arrives within ``seconds``."""
        got: list[dict[str, Any]] = []
        end = time.monotonic() + seconds
        try:
            while time.monotonic() < end:
                got.append(self.read(lambda _m: True, end - time.monotonic()))
        except TimeoutError:
            pass
        return got

    def play(self) -> str | None:
        """Send a legal play of the last view; its id (``None``: none is legal)."""
        for card, piles in zip(self.view.get("hand", []), self.view.get("fits", []), strict=True):
            if piles:
                self.n += 1
                mid = f"m{self.n}"
                self.ws.send(
                    json.dumps({"type": "play", "id": mid, "card": card, "pile": piles[0]})
                )
                return mid
        return None


def _game(server: ServerThread) -> tuple[str, list[str], list[Seat]]:
    r = server.post("/api/rooms", {"name": "Ann"}).json()
    other = server.post(f"/api/rooms/{r['code']}/join", {"name": "Bob"}).json()
    tokens = [r["token"], other["token"]]
    seats = [Seat(server, r["code"], t) for t in tokens]
    for s in seats:
        s.read(lambda m: m["type"] == "update" and m["seq"] >= 1)  # the reveal
    return r["code"], tokens, seats


def _play_acked(seats: list[Seat], plays: int) -> None:
    """Make ``plays`` acknowledged plays (refusals of a raced play are fine)."""
    done = 0
    while done < plays:
        for s in seats:
            mid = s.play()
            if mid is None:
                continue
            m = s.read(lambda m, mid=mid: m.get("id") == mid)
            done += m["type"] == "ack"


def _storage(server: ServerThread) -> Storage:
    storage: Storage = server.app.state.hub.storage  # type: ignore[attr-defined]
    storage.retry_every = 0.05
    return storage


@pytest.fixture
def errors() -> Iterator[list[logging.LogRecord]]:
    """The storage's error log lines."""
    got: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.ERROR:
                got.append(record)

    handler = Keep()
    logger = logging.getLogger("blink.server.storage")
    logger.addHandler(handler)
    yield got
    logger.removeHandler(handler)


def _limit_pages(storage: Storage, limit: list[int | None]) -> None:
    """Every connection of the server's engine, and its open writer connection, gets SQLite's
    page limit ``limit[0]`` (``None``: none); a commit that needs more pages fails for real."""

    def apply(dbapi: Any) -> None:
        pages = dbapi.execute("PRAGMA page_count").fetchone()[0]
        cap = 1_073_741_823 if limit[0] is None else max(limit[0], 1)
        dbapi.execute(f"PRAGMA max_page_count = {cap if limit[0] is None else max(cap, pages)}")

    event.listen(storage.engine, "connect", lambda dbapi, _rec: apply(dbapi))
    # Idle pooled connections opened before now (reads, the game id blocks taken at start)
    # are closed: the ones opened instead get the limit too.
    storage.engine.dispose()
    with storage._wlock:
        apply(storage._writer_conn().connection.dbapi_connection)


def _fill(storage: Storage) -> None:
    """Fill every free byte the page limit leaves (filler rows of no game, committed one by
    one until SQLite says the database is full)."""
    with storage._wlock:
        dbapi = storage._writer_conn().connection.dbapi_connection
        for size in (4000, 1000, 200, 50, 10):
            for i in range(100_000):
                try:
                    dbapi.execute(
                        "INSERT INTO actions (game_id, seq, action) VALUES (-1, ?, ?)",
                        (size * 1_000_000 + i, "x" * size),
                    )
                    dbapi.commit()
                except sqlite3.OperationalError as exc:
                    assert "full" in str(exc)
                    dbapi.rollback()
                    break


def _restored_seq(tmp: Path, db: Path, code: str, token: str) -> int:
    server = ServerThread(fast_settings(f"sqlite:///{db}"))
    server.start()
    try:
        s = Seat(server, code, token)
        return s.read(lambda m: m["type"] == "snapshot")["seq"]
    finally:
        server.stop()


def test_a_full_disk_loses_nothing_acknowledged(
    tmp_path: Path, errors: list[logging.LogRecord]
) -> None:
    db = tmp_path / "full.db"
    server = ServerThread(fast_settings(f"sqlite:///{db}", choice_deadline=600.0))
    server.start()
    try:
        storage = _storage(server)
        code, tokens, seats = _game(server)
        _play_acked(seats, 4)
        # The disk is full: no more pages, and the free space in them filled.
        limit: list[int | None] = [None]
        with storage._wlock:
            pages = (
                storage._writer_conn()
                .connection.dbapi_connection.execute("PRAGMA page_count")
                .fetchone()[0]
            )
        limit[0] = pages
        _limit_pages(storage, limit)
        _fill(storage)
        for i in range(400):  # the next play that needs room fails
            mid = seats[i % 2].play()
            if mid is None:
                continue
            m = seats[i % 2].read(lambda m, mid=mid: m.get("id") == mid or m["type"] == "error")
            if m["type"] == "error":
                break
        else:
            pytest.fail("the database never filled")
        assert m["code"] == "storage_unavailable" and m["message"]
        stuck = mid
        assert stuck not in seats[i % 2].acked
        health = server.get("/api/health")
        assert health.status_code == 503
        assert health.json()["status"] == "unhealthy" and "full" in health.json()["reason"]
        refused = server.post("/api/rooms", {"name": "Cy"})
        assert refused.status_code == 503
        assert refused.json()["error"]["code"] == "storage_unavailable"
        # Nothing more is accepted, and the stuck play's frames are never sent meanwhile.
        mover = seats[i % 2]
        mid = mover.play()
        if mid is not None:
            r = mover.read(lambda m, mid=mid: m.get("id") == mid)
            assert r["type"] == "refused" and r["code"] == "storage_unavailable"
        meanwhile = [f for s in seats for f in s.quiet(0.3)]
        assert len([e for e in errors if "cannot be written" in e.getMessage()]) == 1
        # Space again: the stuck play is stored, then acknowledged and sent; play goes on.
        limit[0] = None
        ack = mover.read(lambda m: m["type"] == "ack" and m["id"] == stuck)
        # Nothing of the stuck play (nor after it) was sent while it was not stored.
        assert not [f for f in meanwhile if f["type"] == "ack"]
        assert all(f["seq"] < ack["seq"] for f in meanwhile if f["type"] == "update")
        end = time.monotonic() + WAIT
        while server.get("/api/health").status_code != 200:
            assert time.monotonic() < end, "the server never became healthy again"
            time.sleep(0.05)
        _play_acked(seats, 3)
        last = max(max(s.acked.values()) for s in seats)
        for s in seats:
            s.ws.close()
    finally:
        server.stop()
    assert _restored_seq(tmp_path, db, code, tokens[0]) >= last


def test_a_deleted_database_file_is_put_back(tmp_path: Path) -> None:
    db = tmp_path / "gone.db"
    server = ServerThread(fast_settings(f"sqlite:///{db}", choice_deadline=600.0))
    server.start()
    try:
        _storage(server)
        code, tokens, seats = _game(server)
        _play_acked(seats, 3)
        db.unlink()
        # Longer than the checkpoints' interval: none of them may open (and so create) a new
        # file at the path meanwhile, which would look like someone else's file.
        time.sleep(_storage(server).checkpoints.every * 1.5)
        assert not db.exists()
        _play_acked(seats, 3)  # committed into the deleted file, which is then put back
        assert db.is_file()
        assert server.get("/api/health").json()["status"] == "ok"
        last = max(max(s.acked.values()) for s in seats)
        for s in seats:
            s.ws.close()
    finally:
        server.stop()
    assert _restored_seq(tmp_path, db, code, tokens[0]) >= last


def test_a_replaced_database_file_stops_writes(tmp_path: Path) -> None:
    db = tmp_path / "mine.db"
    server = ServerThread(fast_settings(f"sqlite:///{db}", choice_deadline=600.0))
    server.start()
    try:
        _storage(server)
        _code, _tokens, seats = _game(server)
        _play_acked(seats, 2)
        other = tmp_path / "other.db"
        sqlite3.connect(other).close()
        shutil.move(other, db)  # someone else's file at the path
        for s in seats:
            s.quiet(0.2)  # every view up to date: the next play is legal
        mover, mid = next((s, m) for s in seats if (m := s.play()) is not None)
        m = mover.read(lambda m: m["type"] == "error")
        assert m["code"] == "storage_unavailable"
        # The play went into the replaced file only: it was never acknowledged, nor shown.
        assert mid not in mover.acked
        assert not [f for s in seats for f in s.quiet(0.3) if f["type"] in ("ack", "update")]
        health = server.get("/api/health")
        assert health.status_code == 503 and "replaced" in health.json()["reason"]
        assert db.stat().st_size == 0, "the other file was written to"
        for s in seats:
            s.ws.close()
    finally:
        server.stop()


PG_URL = os.environ.get("BLINK_TEST_DATABASE_URL")
PG_CTL = os.environ.get("BLINK_TEST_PG_CTL")
"""How to stop and start the tests' throwaway PostgreSQL cluster (scripts/postgres.sh)."""


def _pg(command: str) -> None:
    assert PG_CTL is not None
    subprocess.run(f"{PG_CTL} {command}", shell=True, check=True, capture_output=True)


if PG_URL and PG_CTL:

    def test_postgresql_going_away_loses_nothing_acknowledged() -> None:
        assert PG_URL is not None
        name = "blink_t_" + secrets.token_hex(6)
        url = pg_create_db(PG_URL, name)
        server = ServerThread(fast_settings(url, choice_deadline=600.0))
        server.start()
        stopped = False
        try:
            _storage(server)
            code, tokens, seats = _game(server)
            _play_acked(seats, 3)
            for s in seats:
                s.quiet(0.2)  # every view up to date: the next play is legal
            _pg("stop")
            stopped = True
            mover, mid = next((s, m) for s in seats if (m := s.play()) is not None)
            try:
                m = mover.read(lambda m: m["type"] == "error", timeout=10)
            except TimeoutError:
                raise AssertionError(str(mover.frames[-5:])) from None
            assert m["code"] == "storage_unavailable"
            health = server.get("/api/health")
            assert health.status_code == 503 and health.json()["reason"]
            assert server.post("/api/rooms", {"name": "Cy"}).status_code == 503
            assert mid not in mover.acked
            _pg("start")
            stopped = False
            ack = mover.read(lambda m: m["type"] == "ack" and m["id"] == mid, timeout=60)
            assert ack["seq"] >= 1
            end = time.monotonic() + WAIT
            while server.get("/api/health").status_code != 200:
                assert time.monotonic() < end, "the server never became healthy again"
                time.sleep(0.05)
            _play_acked(seats, 2)
            last = max(max(s.acked.values()) for s in seats)
            for s in seats:
                s.ws.close()
            server.stop()
            server = ServerThread(fast_settings(url))
            server.start()
            back = Seat(server, code, tokens[0])
            assert back.read(lambda m: m["type"] == "snapshot")["seq"] >= last
            back.ws.close()
        finally:
            if stopped:
                _pg("start")
            server.stop()
            pg_drop_db(PG_URL, name)
