"""Tournaments people run, on a real server: withdrawals and forfeits as walkovers, the
organiser's corrections in the audit trail, check-in before the draw, claim links for players
entered by name, and the no-show deadline of online match rooms (on a virtual wall clock the
test moves, with real WebSocket clients)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest
from srvkit import Client, ServerThread
from test_tournaments import profile

pytestmark = pytest.mark.timeout(120)

Json = dict[str, Any]


def _cards(server: ServerThread, names: list[str]) -> tuple[str, str]:
    r = server.post("/api/tournaments", {"name": "Club night", "kind": "cards"})
    assert r.status_code == 201, r.text
    tid, org = r.json()["id"], r.json()["organiser_secret"]
    for n in names:
        a = server.post(f"/api/tournaments/{tid}/players", {"organiser_secret": org, "name": n})
        assert a.status_code == 200, a.text
    return tid, org


def _ok(server: ServerThread, path: str, body: Json) -> Json:
    r = server.post(path, body)
    assert r.status_code == 200, r.text
    out: Json = r.json()
    return out


def _refused(server: ServerThread, path: str, body: Json, status: int, code: str) -> None:
    r = server.post(path, body)
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code, r.text


def _match(s: Json, mid: str) -> Json:
    return next(m for m in s["tournament"]["matches"] if m["id"] == mid)


async def _until(check: Callable[[], bool], limit: float = 30.0) -> None:
    deadline = time.monotonic() + limit
    while not check():
        assert time.monotonic() < deadline, "never happened"
        await asyncio.sleep(0.02)


def test_withdrawal_forfeit_and_correction_with_their_audit_trail(
    make_server: Callable[..., ServerThread],
) -> None:
    now = [1_800_000_000.0]
    server = make_server(wall_clock=lambda: now[0])
    tid, org = _cards(server, [f"P{i}" for i in range(1, 9)])
    base = f"/api/tournaments/{tid}"
    _refused(server, f"{base}/withdraw", {"organiser_secret": org, "name": "P1"}, 409, "not-drawn")
    s = _ok(server, f"{base}/draw", {"organiser_secret": org, "seed": 11})
    r1, r2 = _match(s, "R1-1"), _match(s, "R1-2")
    a, b = r1["players"]
    # A result, then a correction of it: the audit trail says who, when, from what, to what.
    _ok(server, f"{base}/result", {"organiser_secret": org, "match": "R1-1", "winners": [a]})
    now[0] += 60
    body = {"organiser_secret": org, "match": "R1-1", "game": 1, "winners": [b], "by": "Maria"}
    s = _ok(server, f"{base}/correct", body)
    assert _match(s, "R1-1")["score"] == {a: 0, b: 1}
    change = s["changes"][-1]
    assert change == {
        "kind": "correction",
        "by": "Maria",
        "at": 1_800_000_060.0,
        "match": "R1-1",
        "players": [],
        "game": 1,
        "before": [a],
        "after": [b],
        "note": None,
    }
    _refused(server, f"{base}/correct", {**body, "game": 5}, 409, "no-such-game")
    # A game entered and taken back is in the trail too.
    _ok(server, f"{base}/result", {"organiser_secret": org, "match": "R1-1", "winners": [a]})
    s = _ok(server, f"{base}/undo", {"organiser_secret": org, "match": "R1-1", "by": "Maria"})
    back = s["changes"][-1]
    assert (back["kind"], back["game"], back["before"], back["by"]) == (
        "take-back",
        2,
        [a],
        "Maria",
    )
    _refused(server, f"{base}/correct", {**body, "organiser_secret": "nope"}, 403, "not_organiser")
    # b withdraws: a gets R1-1 as a walkover.
    s = _ok(server, f"{base}/withdraw", {"organiser_secret": org, "name": b})
    m = _match(s, "R1-1")
    assert (m["walkover"], m["winner"], m["forfeits"]) == (True, a, [b])
    assert next(p for p in s["players"] if p["name"] == b)["withdrawn"] is True
    _refused(
        server, f"{base}/withdraw", {"organiser_secret": org, "name": b}, 409, "already-withdrawn"
    )
    # Both players of R1-2 do not come: a double forfeit; its seats in the final round are
    # vacant, and a's set against nobody is a walkover (its three games to a).
    both = {"organiser_secret": org, "match": "R1-2", "players": r2["players"]}
    s = _ok(server, f"{base}/forfeit", both)
    assert _match(s, "R1-2")["status"] == "decided" and _match(s, "R1-2")["winner"] is None
    nxt = next(x for x in s["tournament"]["matches"] if "winner:R1-1" in x["sources"])
    assert nxt["walkover"] and nxt["awarded"] == a and nxt["score"] == {a: 3}
    kinds = [c["kind"] for c in s["changes"]]
    assert kinds == ["correction", "take-back", "withdrawal", "forfeit"]
    # The tournament read back from its row is the same (audit trail included).
    server.app.state.hub.tournaments.forget(tid)  # type: ignore[attr-defined]
    again = server.get(base).json()
    assert again["changes"] == s["changes"]
    assert again["tournament"]["matches"] == s["tournament"]["matches"]
    # And it plays to the end.
    guard = 0
    while again["status"] != "finished":
        guard += 1
        assert guard < 200
        m = next(x for x in again["tournament"]["matches"] if x["status"] in ("ready", "playing"))
        again = _ok(
            server,
            f"{base}/result",
            {"organiser_secret": org, "match": m["id"], "winners": [m["players"][0]]},
        )
    assert again["tournament"]["champion"] is not None


def test_check_in_then_the_draw_over_those_who_checked_in(server: ServerThread) -> None:
    players = [profile(server, f"Chk{i}") for i in range(4)]
    r = server.post("/api/tournaments", {"name": "Check-in cup", "kind": "online"}).json()
    tid, org = r["id"], r["organiser_secret"]
    base = f"/api/tournaments/{tid}"
    for p in players:
        _ok(server, f"{base}/join", {"profile_secret": p["secret"]})
    _refused(
        server, f"{base}/check-in", {"profile_secret": players[0]["secret"]}, 409, "check-in-closed"
    )
    s = _ok(server, f"{base}/check-in/open", {"organiser_secret": org, "minutes": 30})
    assert s["check_in"]["open"] is True and s["check_in"]["closes_at"] is not None
    for p in players[:3]:
        s = _ok(server, f"{base}/check-in", {"profile_secret": p["secret"]})
    assert s["check_in"]["players"] == [p["name"] for p in players[:3]]
    stranger = profile(server, "Stranger")
    _refused(
        server, f"{base}/check-in", {"profile_secret": stranger["secret"]}, 403, "not_in_tournament"
    )
    s = _ok(server, f"{base}/draw", {"organiser_secret": org, "seed": 2})
    assert [p["name"] for p in s["players"]] == [p["name"] for p in players[:3]]
    assert s["changes"][-1]["kind"] == "check-in-missed"
    assert s["changes"][-1]["players"] == [players[3]["name"]]
    assert s["tournament"]["plan"]["players"] == 3


def test_a_player_entered_by_name_claims_the_seat_with_a_link(server: ServerThread) -> None:
    r = server.post("/api/tournaments", {"name": "Claims", "kind": "online"}).json()
    tid, org = r["id"], r["organiser_secret"]
    base = f"/api/tournaments/{tid}"
    added = _ok(server, f"{base}/players", {"organiser_secret": org, "name": "Zed"})
    link = added["claim_url"]
    assert link.startswith(f"/tournament.html?id={tid}&claim=")
    token = link.split("claim=")[1]
    # The public state says the seat can be claimed, never the token.
    public = server.get(base).json()
    assert token not in str(public)
    assert public["players"][0]["claimable"] is True
    _refused(server, f"{base}/claims", {"organiser_secret": "x"}, 403, "not_organiser")
    assert _ok(server, f"{base}/claims", {"organiser_secret": org})["claims"] == {"Zed": link}
    # The claim is kept with the tournament: it still works once read back from its row.
    server.app.state.hub.tournaments.forget(tid)  # type: ignore[attr-defined]
    zed = profile(server, "Zedd")
    _refused(
        server,
        f"{base}/claim",
        {"claim": "wrong", "profile_secret": zed["secret"]},
        404,
        "no_such_claim",
    )
    s = _ok(server, f"{base}/claim", {"claim": token, "profile_secret": zed["secret"]})
    row = s["players"][0]
    assert (row["name"], row["profile"], row["claimable"]) == ("Zed", zed["id"], False)
    _refused(
        server,
        f"{base}/claim",
        {"claim": token, "profile_secret": zed["secret"]},
        404,
        "no_such_claim",
    )


async def _no_show_tournament(
    server: ServerThread, names: list[str], after: float
) -> tuple[str, str, list[Json], Json]:
    players = [profile(server, n) for n in names]
    body = {"name": "Deadline cup", "kind": "online", "no_show_after": after}
    r = await asyncio.to_thread(server.post, "/api/tournaments", body)
    assert r.status_code == 201, r.text
    tid, org = r.json()["id"], r.json()["organiser_secret"]
    for p in players:
        await asyncio.to_thread(
            _ok, server, f"/api/tournaments/{tid}/join", {"profile_secret": p["secret"]}
        )
    s = await asyncio.to_thread(
        _ok, server, f"/api/tournaments/{tid}/start", {"organiser_secret": org, "seed": 1}
    )
    return tid, org, players, s


async def test_a_player_not_there_by_the_deadline_forfeits_the_match(
    make_server: Callable[..., ServerThread],
) -> None:
    now = [1_800_000_000.0]
    server = make_server(wall_clock=lambda: now[0], sweep_interval=0.02)
    hub = server.app.state.hub  # type: ignore[attr-defined]
    tid, _org, players, s = await _no_show_tournament(server, ["Early", "Late"], 600.0)
    room = s["rooms"]["F1-2"]
    assert room["no_show_at"] == room["opened_at"] + 600.0
    early = next(p for p in players if p["name"] == "Early")
    c = await Client("early").connect(server.ws, room=room["code"], token=early["secret"])
    try:
        await c.expect("welcome")
        # Sweeps before the deadline change nothing.
        now[0] += 599
        swept = hub.sweeps
        await _until(lambda: hub.sweeps >= swept + 3)
        assert hub.tournaments.items[tid].t.match("F1-2").status == "ready"
        now[0] += 2
        await _until(lambda: hub.tournaments.items[tid].t.finished)
    finally:
        await c.close()
    got = await asyncio.to_thread(server.get, f"/api/tournaments/{tid}")
    st = got.json()
    m = _match(st, "F1-2")
    assert (m["walkover"], m["winner"], m["forfeits"]) == (True, "Early", ["Late"])
    assert st["tournament"]["champion"] == "Early"
    assert st["changes"][-1]["kind"] == "forfeit"
    assert st["changes"][-1]["by"] == "no-show deadline"
    assert st["changes"][-1]["at"] == 1_800_000_601.0


async def test_nobody_there_by_the_deadline_is_a_double_forfeit(
    make_server: Callable[..., ServerThread],
) -> None:
    now = [1_800_000_000.0]
    server = make_server(wall_clock=lambda: now[0], sweep_interval=0.02)
    hub = server.app.state.hub  # type: ignore[attr-defined]
    tid, _org, _players, _s = await _no_show_tournament(server, ["Nod", "Off"], 60.0)
    now[0] += 61
    await _until(lambda: hub.tournaments.items[tid].t.finished)
    st = (await asyncio.to_thread(server.get, f"/api/tournaments/{tid}")).json()
    m = _match(st, "F1-2")
    assert (m["walkover"], m["winner"], sorted(m["forfeits"])) == (True, None, ["Nod", "Off"])
    assert st["status"] == "finished" and st["tournament"]["champion"] is None


def test_the_check_in_window_closes_and_a_player_withdraws_themselves(
    make_server: Callable[..., ServerThread],
) -> None:
    now = [1_800_000_000.0]
    server = make_server(wall_clock=lambda: now[0])
    players = [profile(server, f"Win{i}") for i in range(3)]
    r = server.post("/api/tournaments", {"name": "Window cup", "kind": "online"}).json()
    tid, org = r["id"], r["organiser_secret"]
    base = f"/api/tournaments/{tid}"
    for p in players:
        _ok(server, f"{base}/join", {"profile_secret": p["secret"]})
    s = _ok(server, f"{base}/check-in/open", {"organiser_secret": org, "minutes": 10})
    assert s["check_in"]["closes_at"] == 1_800_000_600.0
    _ok(server, f"{base}/check-in", {"profile_secret": players[0]["secret"]})
    now[0] += 601  # the window has closed: players can no longer check in
    _refused(
        server, f"{base}/check-in", {"profile_secret": players[1]["secret"]}, 409, "check-in-closed"
    )
    # The organiser still can (a player at the desk), then draws over the two checked in.
    _ok(server, f"{base}/check-in", {"organiser_secret": org, "name": players[1]["name"]})
    s = _ok(server, f"{base}/start", {"organiser_secret": org, "seed": 5})
    assert sorted(p["name"] for p in s["players"]) == sorted(p["name"] for p in players[:2])
    assert all(p["profile"] for p in s["players"])
    # A stranger cannot withdraw anyone; the player withdraws themselves.
    _refused(
        server, f"{base}/withdraw", {"profile_secret": players[2]["secret"]}, 403, "not_organiser"
    )
    s = _ok(server, f"{base}/withdraw", {"profile_secret": players[0]["secret"]})
    m = _match(s, "F1-2")
    assert (m["walkover"], m["winner"]) == (True, players[1]["name"])
    assert s["status"] == "finished"
    assert s["changes"][-1]["by"] == players[0]["name"]
    assert s["rooms"]["F1-2"]["code"]


async def test_the_draw_is_made_when_the_check_in_window_closes(
    make_server: Callable[..., ServerThread],
) -> None:
    now = [1_800_000_000.0]
    server = make_server(wall_clock=lambda: now[0], sweep_interval=0.02)
    hub = server.app.state.hub  # type: ignore[attr-defined]
    tid, org = await asyncio.to_thread(_cards, server, ["Ca", "Cb", "Cc", "Cd"])
    base = f"/api/tournaments/{tid}"
    body = {"organiser_secret": org, "minutes": 5, "draw_at_close": True}
    s = await asyncio.to_thread(_ok, server, f"{base}/check-in/open", body)
    assert s["check_in"]["draw_at_close"] is True
    for n in ("Ca", "Cb", "Cc"):
        await asyncio.to_thread(
            _ok, server, f"{base}/check-in", {"organiser_secret": org, "name": n}
        )
    swept = hub.sweeps
    await _until(lambda: hub.sweeps >= swept + 3)
    assert not hub.tournaments.items[tid].t.drawn  # still open
    now[0] += 301
    await _until(lambda: hub.tournaments.items[tid].t.drawn)
    st = (await asyncio.to_thread(server.get, base)).json()
    assert st["status"] == "drawn" and st["tournament"]["plan"]["players"] == 3
    missed = st["changes"][-1]
    assert (missed["kind"], missed["players"], missed["by"], missed["at"]) == (
        "check-in-missed",
        ["Cd"],
        "check-in window",
        1_800_000_301.0,
    )
    assert st["check_in"]["draw_at_close"] is False

    # The organiser drawing before the close also ends the wait for it.
    tid2, org2 = await asyncio.to_thread(_cards, server, ["Ea", "Eb", "Ec"])
    base2 = f"/api/tournaments/{tid2}"
    body2 = {"organiser_secret": org2, "minutes": 5, "draw_at_close": True}
    await asyncio.to_thread(_ok, server, f"{base2}/check-in/open", body2)
    for n in ("Ea", "Eb"):
        await asyncio.to_thread(
            _ok, server, f"{base2}/check-in", {"organiser_secret": org2, "name": n}
        )
    drawn = await asyncio.to_thread(
        _ok, server, f"{base2}/draw", {"organiser_secret": org2, "seed": 1}
    )
    assert drawn["check_in"]["draw_at_close"] is False
    assert [p["name"] for p in drawn["players"]] == ["Ea", "Eb"]


def test_a_draw_at_the_close_needs_a_closing_time(server: ServerThread) -> None:
    tid, org = _cards(server, ["Na", "Nb"])
    body = {"organiser_secret": org, "draw_at_close": True}
    _refused(server, f"/api/tournaments/{tid}/check-in/open", body, 400, "no_closing_time")
    assert server.get(f"/api/tournaments/{tid}").json()["check_in"]["open"] is False
