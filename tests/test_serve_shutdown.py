"""``blink serve`` stops gracefully on SIGTERM: new rooms are refused (503 shutting_down), the
game WebSockets are closed with 1012 (service restart), everything queued for the database is
committed, and it exits 0; every acknowledged play is then in the database, and the room comes
back with its plays when the server starts again on the same file."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from blink.server.app import begin_shutdown
from serve_process import FAST, Client, ServeProcess, ServerThread, fast_settings, seat_clients

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def started() -> Iterator[list[ServeProcess]]:
    procs: list[ServeProcess] = []
    yield procs
    for p in procs:
        p.stop()


async def play_some(c: Client, plays: int) -> list[str]:
    """Play up to ``plays`` legal plays one after the other (each answered before the next);
    the ids acknowledged."""
    acked: list[str] = []
    for _ in range(plays):
        legal = c.legal()
        view = c.view or {}
        if legal:
            mid = await c.play(*legal[0])
        elif view.get("phase") == "choosing" and view.get("my_choice") is None and view["hand"]:
            mid = await c.choose(view["hand"][-1])
        else:
            await c.wait(lambda m: m.get("type") == "update", timeout=30)
            continue
        answer = await c.wait(lambda m, mid=mid: m.get("id") == mid, timeout=30)
        if answer["type"] == "ack":
            acked.append(mid)
    return acked


def stored_ids(db: Path) -> set[str]:
    """The client ids of every action in the database's log."""
    with sqlite3.connect(db) as conn:
        return {row[0] for row in conn.execute("SELECT client_id FROM actions") if row[0]}


async def test_sigterm_mid_game(tmp_path: Path, started: list[ServeProcess]) -> None:
    db = tmp_path / "blink.db"
    server = ServeProcess(db, *FAST)
    started.append(server)
    server.start()
    code, (a, b), tokens = await seat_clients(server)
    for c in (a, b):
        await c.wait(lambda _m, c=c: (c.view or {}).get("phase") == "playing")
    acked = await play_some(a, 6) + await play_some(b, 6)
    assert len(acked) >= 4
    # Plays still in flight when the signal comes: each is either acked or not, never lost
    # once acked.
    for c in (a, b):
        for card, pile in c.legal()[:2]:
            await c.play(card, pile)
    server.terminate()
    assert server.wait(timeout=60) == 0, server.stderr()
    for c in (a, b):
        assert await c.closed(timeout=60) == 1012
    acked += [
        m["id"] for c in (a, b) for m in c.msgs if m["type"] == "ack" and m["id"] not in acked
    ]
    assert set(acked) <= stored_ids(db)
    assert "Traceback" not in server.stderr()

    again = ServeProcess(db, *FAST)
    started.append(again)
    again.start()
    info = again.get(f"/api/rooms/{code}").json()
    assert info["code"] == code
    back = await Client("A2").connect(again.ws, room=code, token=tokens[0])
    snap = await back.expect("snapshot")
    assert snap["seq"] >= len(acked)
    # An acknowledged play sent again is answered with its ack, not played twice.
    first = next(mid for mid in acked if mid.startswith("P0"))
    await back.send(a.sent[first])
    repeat = await back.wait(lambda m: m.get("id") == first)
    assert repeat["type"] == "ack"
    await back.close()


def test_a_stopping_server_refuses_new_rooms(tmp_path: Path) -> None:
    server = ServerThread(fast_settings(f"sqlite:///{tmp_path / 'b.db'}"))
    server.start()
    try:
        assert server.post("/api/quick", {}).status_code == 201
        begin_shutdown(server.app)
        for path in ("/api/quick", "/api/rooms"):
            r = server.post(path, {"players": 2, "name": "Ann"})
            assert r.status_code == 503, r.text
            error = r.json()["error"]
            assert error["code"] == "shutting_down"
            assert error["message"].endswith("try again in a few seconds")
            assert r.headers["retry-after"] == "5"
        assert server.get("/api/health").status_code == 200
    finally:
        server.stop()
