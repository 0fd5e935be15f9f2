"""The load-related paths of the server: idle rooms dropped from memory and brought back, the
database writer choice, the batched action log, and the garbage-collector tuning."""

from __future__ import annotations

import asyncio
import gc
import time
from pathlib import Path
from typing import Any

import pytest
from srvkit import Client, bot_loop, seat_clients

from blink.games.classic.record import GameRecord
from blink.server import storage as st


async def _wait_for(cond: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


async def test_finished_idle_rooms_leave_memory_and_come_back(make_server: Any) -> None:
    server = make_server(evict_after=0.0, sweep_interval=0.02)
    waiting = server.post("/api/rooms", {"name": "W"}).json()["code"]
    code, (a, b), tokens = await seat_clients(server)
    ends = await asyncio.gather(bot_loop(a), bot_loop(b))
    while ends[0][0]["next_in_ms"] is not None:  # a tied game: best of 1 plays another
        ends = await asyncio.gather(bot_loop(a), bot_loop(b))
    record_url = ends[0][0]["record_url"]

    def rooms() -> int:
        n: int = server.get("/api/health").json()["rooms"]
        return n

    # While someone is connected, the finished room stays.
    await asyncio.sleep(0.2)
    assert rooms() == 2
    await a.close()
    await b.close()
    # Nobody connected and the series over: dropped; the waiting room stays.
    await _wait_for(lambda: rooms() == 1)
    assert server.get(f"/api/rooms/{waiting}").json()["status"] == "waiting"
    # Records are read from the database.
    GameRecord.from_dict(server.get(record_url).json()).verify()
    assert server.get(f"/api/rooms/{code}/record").status_code == 200
    # Asking for the room brings it back as it was.
    info = server.get(f"/api/rooms/{code}").json()
    assert info["status"] == "finished"
    assert info["games"] and all(g["status"] == "finished" for g in info["games"])
    # A player reconnecting with the seat token is welcomed and offered the rematch.
    c = await Client("A2").connect(server.ws, room=code, token=tokens[0])
    welcome = await c.expect("welcome")
    assert welcome["seat"] == 0
    rematch = await c.expect("rematch")
    assert rematch["available"] is True
    await c.close()
    # Unknown codes are still unknown.
    assert server.get("/api/rooms/NOSUCH").status_code == 404


async def test_rooms_in_play_are_never_dropped(make_server: Any) -> None:
    server = make_server(evict_after=0.0, sweep_interval=0.02)
    _code, (a, b), _ = await seat_clients(server, best_of=3)
    await asyncio.gather(bot_loop(a), bot_loop(b))
    await a.close()
    await b.close()
    await asyncio.sleep(0.3)
    # The series is not over: the room stays, and so do rooms nobody has joined yet.
    assert server.get("/api/health").json()["rooms"] == 1


def test_writer_choice() -> None:
    assert st.resolve_writer("auto", "sqlite:///x.db") == "inline"
    assert st.resolve_writer("auto", "postgresql+psycopg://u@h/db") == "async"
    assert st.resolve_writer("auto", "postgresql+psycopg2://u@h/db") == "thread"
    assert st.resolve_writer("async", "postgresql+psycopg://u@h/db") == "async"
    assert st.resolve_writer("thread", "sqlite:///x.db") == "thread"
    with pytest.raises(st.StorageError):
        st.resolve_writer("fast", "sqlite:///x.db")
    with pytest.raises(st.StorageError):
        st.resolve_writer("async", "sqlite:///x.db")  # PostgreSQL with psycopg only
    with pytest.raises(st.StorageError):
        st.resolve_writer("async", "postgresql+psycopg2://u@h/db")


_GAME_ROW = {
    "id": 1,
    "room_code": "ABCDEF",
    "series_number": 1,
    "number": 1,
    "players": 2,
    "deal_options": "{}",
    "deck": "1RC 2GS",
    "names": "[]",
    "started_at": 1.0,
}


@pytest.mark.parametrize("writer", ["inline", "thread", "fastest"])
async def test_batched_appends_are_stored_in_order(db_url: str, writer: str) -> None:
    # "fastest": the async writer on PostgreSQL (inline on SQLite, which has no async writer)
    if writer == "fastest":
        writer = "inline" if db_url.startswith("sqlite") else "async"
    storage = st.Storage(db_url, writer=writer)
    storage.start(asyncio.get_running_loop())
    try:
        await storage.run(st.job_insert_game(_GAME_ROW))
        done: list[int] = []
        for seq in range(1, 201):
            action = {"t": seq, "type": "play", "seat": seq % 2, "card": "1RC", "pile": 0}
            storage.submit(
                st.job_append_action(1, seq, action, seq % 2, f"id{seq}"),
                lambda result, seq=seq: done.append(seq),
            )
            if seq % 37 == 0:
                await asyncio.sleep(0)  # several loop turns, several batches
        await storage.run(st.job_finish_game(1, 2.0, {"winners": [0]}))
        assert done == list(range(1, 201))
        g = storage.load_game(1)
        assert g is not None
        assert [a[0] for a in g.actions] == list(range(1, 201))
        assert g.actions[5] == (
            6,
            {"t": 6, "type": "play", "seat": 0, "card": "1RC", "pile": 0},
            0,
            "id6",
        )
        assert g.ended_at == 2.0 and g.result == {"winners": [0]}
    finally:
        storage.stop()


async def test_gc_tuning_is_undone_when_the_server_stops(make_server: Any) -> None:
    before = gc.get_threshold()
    server = make_server(gc_full_interval=0.05)
    assert gc.get_threshold()[2] > 1_000_000
    _code, (a, b), _ = await seat_clients(server)
    await asyncio.gather(bot_loop(a), bot_loop(b))
    await a.close()
    await b.close()
    server.stop()
    assert gc.get_threshold() == before


async def test_abandoned_waiting_rooms_leave_memory_and_can_still_be_joined(
    make_server: Any,
) -> None:
    server = make_server(abandon_after=0.0, sweep_interval=0.02)
    r = server.post("/api/rooms", {"name": "Ann"}).json()
    code = r["code"]
    await _wait_for(lambda: server.get("/api/health").json()["rooms"] == 0)
    # Joining brings the room back; the creator's token still holds seat 0.
    j = server.post(f"/api/rooms/{code}/join", {"name": "Bob"})
    assert j.status_code == 200, j.text
    a = await Client("A").connect(server.ws, room=code, token=r["token"])
    b = await Client("B").connect(server.ws, room=code, token=j.json()["token"])
    assert (await a.expect("welcome"))["seat"] == 0
    ends = await asyncio.gather(bot_loop(a), bot_loop(b))
    GameRecord.from_dict(server.get(ends[0][0]["record_url"]).json()).verify()
    await a.close()
    await b.close()


async def test_the_sqlite_log_starts_over_under_constant_writes(tmp_path: Path) -> None:
    """A writer that never pauses still lets the write-ahead log start over (it grew without
    end when only passive checkpoints ran)."""
    db = tmp_path / "wal.db"
    storage = st.Storage(f"sqlite:///{db}", writer="inline")
    storage.checkpoints.every = 0.02
    storage.checkpoints.restart_bytes = 256 * 1024
    storage.checkpoints.restart_every = 0.0
    storage.start(asyncio.get_running_loop())
    wal = Path(f"{db}-wal")
    try:
        await storage.run(st.job_insert_game(_GAME_ROW))
        largest = 0
        commits = 0
        seq = 0
        while commits < 6000:
            for _ in range(3):
                seq += 1
                action = {"t": seq, "type": "play", "seat": seq % 2, "card": "1RC", "pile": 0}
                storage.submit(st.job_append_action(1, seq, action, seq % 2, f"id{seq}"))
            await storage.run(st.job_append_action(1, seq + 1, action, None, None))
            seq += 1
            commits += 1
            largest = max(largest, wal.stat().st_size)
        # Every commit writes at least one 4 KiB page to the log: 24 MB in all without a
        # restart (30 MB measured for 3,000 commits before the fix); a few MB with it.
        assert largest < 12 * 1024 * 1024, largest
        assert storage.load_game(1) is not None
        assert len(storage.load_game(1).actions) == seq  # type: ignore[union-attr]
    finally:
        storage.stop()
