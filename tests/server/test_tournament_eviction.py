"""Idle tournaments leave memory and come back from the database on demand, with every answer
as before; a tournament whose match room outlived its stay in memory gets its results.

The server's clock is a virtual one (the real monotonic clock plus an offset the test moves
forward), so what is idle depends only on the jumps, never on how fast the machine is."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest
from srvkit import Client, ServerThread
from test_tournaments import play_room, profile

pytestmark = pytest.mark.timeout(180)

IDLE = 1000.0


class Clock:
    """Monotonic time that the test can move forward."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.offset


def _hub(server: ServerThread) -> Any:
    return server.app.state.hub  # type: ignore[attr-defined]


async def _sweeps(server: ServerThread, n: int = 2) -> None:
    """Wait until ``n`` more sweeps have run (each after the clock was last moved)."""
    hub = _hub(server)
    target = hub.sweeps + n
    deadline = time.monotonic() + 30
    while hub.sweeps < target:
        assert time.monotonic() < deadline, "the sweeps stopped"
        await asyncio.sleep(0.01)


def _answers(server: ServerThread, tid: str) -> list[Any]:
    """What the endpoints answer about the tournament (the listing first: it reads nothing
    back into memory)."""
    out: list[Any] = [server.get("/api/tournaments").json()]
    for path in ("", "/export", "/bracket.html"):
        r = server.get(f"/api/tournaments/{tid}{path}")
        assert r.status_code == 200, r.text
        out.append(r.json() if path != "/bracket.html" else r.text)
    return out


async def test_an_idle_tournament_leaves_memory_and_answers_the_same(
    make_server: Callable[..., ServerThread],
) -> None:
    clock = Clock()
    server = make_server(clock=clock, tournament_idle_after=IDLE, sweep_interval=0.01)
    mgr = _hub(server).tournaments
    r = server.post("/api/tournaments", {"name": "Club", "kind": "cards"}).json()
    tid, org = r["id"], r["organiser_secret"]
    other = server.post("/api/tournaments", {"name": "Other", "kind": "cards"}).json()["id"]
    for n in ("Ann", "Bob", "Cy", "Di"):
        server.post(f"/api/tournaments/{tid}/players", {"organiser_secret": org, "name": n})
    s = server.post(f"/api/tournaments/{tid}/draw", {"organiser_secret": org, "seed": 3}).json()
    m = next(x for x in s["tournament"]["matches"] if x["status"] == "ready")
    win = {"organiser_secret": org, "match": m["id"], "winners": [m["players"][0]]}
    assert server.post(f"/api/tournaments/{tid}/result", win).status_code == 200
    before = _answers(server, tid)

    # Not idle long enough: both stay.
    clock.offset += IDLE - 5
    await _sweeps(server)
    assert tid in mgr.items and other in mgr.items
    # Idle past the limit: both leave memory (the listing does not bring them back).
    clock.offset += 10
    await _sweeps(server)
    assert tid not in mgr.items and other not in mgr.items
    assert server.get("/api/tournaments").json() == before[0]
    assert tid not in mgr.items
    # Asking for one brings it back, exactly as it was.
    assert _answers(server, tid) == before
    assert tid in mgr.items and other not in mgr.items
    # And it goes on: the organiser enters the next result on the tournament read back.
    v = before[1]["version"]
    nxt = next(x for x in before[1]["tournament"]["matches"] if x["status"] in ("ready", "playing"))
    win["match"] = nxt["id"]
    win["winners"] = [nxt["players"][0]]
    got = server.post(f"/api/tournaments/{tid}/result", win)
    assert got.status_code == 200, got.text
    assert got.json()["version"] == v + 1
    # Unknown ids are still unknown.
    assert server.get("/api/tournaments/nosuch").status_code == 404


async def test_a_field_of_fewer_than_two_comes_back_from_its_row(
    make_server: Callable[..., ServerThread],
) -> None:
    clock = Clock()
    server = make_server(clock=clock, tournament_idle_after=IDLE, sweep_interval=0.01)
    mgr = _hub(server).tournaments
    ids = []
    for players in ([], ["Ann"]):
        r = server.post("/api/tournaments", {"name": "Club", "kind": "cards"}).json()
        for n in players:
            body = {"organiser_secret": r["organiser_secret"], "name": n}
            assert server.post(f"/api/tournaments/{r['id']}/players", body).status_code == 200
        ids.append((r["id"], r["organiser_secret"]))
    before = [server.get(f"/api/tournaments/{tid}").json() for tid, _ in ids]
    clock.offset += IDLE + 10
    await _sweeps(server)
    assert not any(tid in mgr.items for tid, _ in ids)
    # Read back from their rows, they answer as before and go on signing up.
    assert [server.get(f"/api/tournaments/{tid}").json() for tid, _ in ids] == before
    tid, org = ids[1]
    body = {"organiser_secret": org, "name": "Bob"}
    assert server.post(f"/api/tournaments/{tid}/players", body).status_code == 200
    assert len(server.get(f"/api/tournaments/{tid}").json()["players"]) == 2


async def test_a_match_room_brings_its_tournament_back(
    make_server: Callable[..., ServerThread],
) -> None:
    clock = Clock()
    # The match room, waiting for players who never came, outlasts the tournament's idle time.
    server = make_server(
        clock=clock, tournament_idle_after=IDLE, sweep_interval=0.01, abandon_after=2 * IDLE
    )
    hub = _hub(server)
    players = [profile(server, n) for n in ("Ann", "Bob")]
    r = server.post("/api/tournaments", {"name": "Duel", "kind": "online"}).json()
    tid, org = r["id"], r["organiser_secret"]
    for p in players:
        server.post(f"/api/tournaments/{tid}/join", {"profile_secret": p["secret"]})
    s = server.post(f"/api/tournaments/{tid}/start", {"organiser_secret": org, "seed": 1}).json()
    code = next(iter(s["rooms"].values()))["code"]

    # Idle, but its match room is in memory: it stays.
    clock.offset += IDLE + 10
    await _sweeps(server)
    assert tid in hub.tournaments.items and code in hub.rooms
    # Once the room (nobody ever came) leaves memory too, so does the tournament.
    clock.offset += hub.settings.abandon_after
    await _sweeps(server)
    assert code not in hub.rooms and tid not in hub.tournaments.items

    # The players come to their room (read back) and play the match: its results reach the
    # tournament, read back for them, without anyone asking for it.
    clients = [
        await Client(p["name"]).connect(server.ws, room=code, token=p["secret"]) for p in players
    ]
    await asyncio.wait_for(asyncio.gather(*(play_room(c) for c in clients)), 120)
    for c in clients:
        await c.close()
    assert tid in hub.tournaments.items
    done = server.get(f"/api/tournaments/{tid}").json()
    assert done["status"] == "finished" and done["tournament"]["champion"] in ("Ann", "Bob")
    refs = [g["ref"] for m in done["tournament"]["matches"] for g in m["games"]]
    assert refs and all(ref.startswith(f"{code}/") for ref in refs)
