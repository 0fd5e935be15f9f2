"""GET /api/games/{id}/study on a real server (uvicorn on a free port, a real database): a
stored game studied in one request, the study of its record; a private room's game only with
its room's code; the record route's errors."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import msgspec
import pytest
from srvkit import ServerThread, fast_settings

from blink.model.study import study_document

pytestmark = pytest.mark.timeout(120)


async def _finished_game(server: ServerThread, body: dict[str, Any]) -> tuple[int, str]:
    """Create a room of bots and wait for its first game to finish; its id and the room."""
    r = server.post("/api/rooms", {"take_seat": None, **body})
    assert r.status_code == 201, r.text
    code = r.json()["code"]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 90
    while loop.time() < deadline:
        info = server.get(f"/api/rooms/{code}").json()
        done = [g for g in info["games"] if g["status"] == "finished"]
        if done:
            return int(done[0]["id"]), code
        await asyncio.sleep(0.1)
    raise AssertionError(f"room {code} did not finish a game")


async def test_a_stored_game_is_studied_in_one_request(server: ServerThread) -> None:
    game_id, _ = await _finished_game(server, {"players": 2, "seats": ["casual:first@40"] * 2})
    r = server.get(f"/api/games/{game_id}/study")
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    doc = r.json()
    record = server.get(f"/api/games/{game_id}/record").json()
    assert doc == msgspec.to_builtins(study_document(record))
    assert (doc["format"], doc["version"], doc["game"]) == ("blink-study", 1, "classic")
    assert doc["meta"]["game"] == game_id
    (g,) = doc["games"]
    plays = [a for a in record["actions"] if a["type"] == "play"]
    assert sum(s["plays"] for s in g["summary"]) == len(plays) > 0
    assert len(g["timeline"]) == len(record["actions"]) + 1
    assert all(p["reaction_ms"] is not None and p["reaction_ms"] >= 0 for p in g["plays"])
    assert all(s["median_reaction_ms"] is not None for s in g["summary"])

    r = server.get("/api/games/987654/study")
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_such_game"
    assert server.get("/api/games/x/study").status_code == 400


async def test_a_private_game_is_studied_only_with_its_room(server: ServerThread) -> None:
    body = {"players": 2, "seats": ["casual:first@40"] * 2, "public": False}
    game_id, code = await _finished_game(server, body)
    r = server.get(f"/api/games/{game_id}/study")
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_such_game"
    assert server.get(f"/api/games/{game_id}/study?room=ZZZZZZ").status_code == 404
    r = server.get(f"/api/games/{game_id}/study?room={code.lower()}")
    assert r.status_code == 200 and r.json()["meta"]["game"] == game_id


async def test_a_stored_go_game_is_studied(db_url: str) -> None:
    settings = replace(fast_settings(db_url), turn_time=60.0, bot_delay=0.0)
    server = ServerThread(settings)
    server.start()
    try:
        game_id, _ = await _finished_game(
            server, {"game": "goblink", "players": 3, "seats": ["random", "greedy", "memory"]}
        )
        doc = server.get(f"/api/games/{game_id}/study").json()
        assert doc["game"] == "goblink" and len(doc["games"][0]["summary"]) == 3
        record = server.get(f"/api/games/{game_id}/record").json()
        assert doc == msgspec.to_builtins(study_document(record))
    finally:
        server.stop()
