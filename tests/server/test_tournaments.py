"""Tournaments on a real server: an online tournament of eight client bots over real
WebSockets from sign-up to the final standings, restart survival, real-cards entry, export and
the printable bracket."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from srvkit import Client, ServerThread, raise_failed, supervised

from blink.model.records import SeriesRecord
from blink.tournament import Tournament, TournamentError

Json = dict[str, Any]


def profile(server: ServerThread, name: str) -> Json:
    r = server.post("/api/profiles", {"name": name})
    assert r.status_code == 201, r.text
    body: Json = r.json()
    return body


async def state(server: ServerThread, tid: str) -> Json:
    r = await asyncio.to_thread(server.get, f"/api/tournaments/{tid}")
    assert r.status_code == 200, r.text
    body: Json = r.json()
    return body


Move = Callable[[Client], Awaitable[str | None]]
"""A client bot's move: sends one action if it has one to make now (its id), else ``None``."""


async def classic_move(c: Client) -> str | None:
    """Classic Blink: the first legal play of the view, or a choice when asked."""
    v = c.view
    if v is None:
        return None
    legal = c.legal()
    if legal:
        card, pile = legal[0]
        return await c.play(card, pile)
    if v["phase"] == "choosing" and v["my_choice"] is None and v["hand"]:
        return await c.choose(v["hand"][-1])
    return None


async def play_room(c: Client, move: Move = classic_move) -> None:
    """A simple client bot: ``move`` on each view it gets, one action in flight at a time;
    stops when the room's series is over (or the tournament closes the room)."""
    outstanding: str | None = None
    i = 0
    while True:
        while i < len(c.msgs):
            m = c.msgs[i]
            i += 1
            if m["type"] == "room" and m["room"]["status"] in ("finished", "closed"):
                return
            if m["type"] in ("ack", "refused") and m.get("id") == outstanding:
                outstanding = None
            if m["type"] in ("snapshot", "game_end"):
                outstanding = None
        if outstanding is None:
            outstanding = await move(c)
        if c.reader is not None and c.reader.done():
            return
        c.changed.clear()
        if i < len(c.msgs):
            continue
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(c.changed.wait(), 0.5)


async def player(
    server: ServerThread,
    tid: str,
    name: str,
    secret: str,
    log: list[str],
    move: Move = classic_move,
) -> None:
    """A player's client: watches the tournament and plays every room opened for them
    (``log`` gets ``"NAME plays MATCH in CODE"`` for each)."""
    tasks: dict[str, asyncio.Task[None]] = {}

    async def one(code: str) -> None:
        c = await Client(f"{name}@{code}").connect(server.ws, room=code, token=secret)
        try:
            await play_room(c, move)
        finally:
            await c.close()

    async with supervised(tasks):
        while True:
            s = await state(server, tid)
            if s["status"] == "finished":
                return
            for m in s["tournament"]["matches"]:
                room = s["rooms"].get(m["id"])
                if room is None or name not in m["players"] or m["status"] == "decided":
                    continue
                code = room["code"]
                if code not in tasks:
                    log.append(f"{name} plays {m['id']} in {code}")
                    tasks[code] = asyncio.create_task(one(code))
            raise_failed(tasks.values())
            await asyncio.sleep(0.1)


async def run_players(
    server: ServerThread,
    tid: str,
    players: list[Json],
    timeout: float = 150.0,
    move: Move = classic_move,
) -> list[str]:
    """Every player of ``players`` plays their rooms until the tournament is finished; the
    players' log (:func:`player`)."""
    log: list[str] = []
    await asyncio.wait_for(
        asyncio.gather(*(player(server, tid, p["name"], p["secret"], log, move) for p in players)),
        timeout,
    )
    return log


async def test_online_tournament_of_eight_client_bots(server: ServerThread) -> None:
    players = [profile(server, f"Bot{i}") for i in range(8)]
    r = server.post("/api/tournaments", {"name": "Night cup", "kind": "online"})
    assert r.status_code == 201, r.text
    tid, org = r.json()["id"], r.json()["organiser_secret"]
    for p in players:
        j = server.post(f"/api/tournaments/{tid}/join", {"profile_secret": p["secret"]})
        assert j.status_code == 200, j.text
    again = server.post(f"/api/tournaments/{tid}/join", {"profile_secret": players[0]["secret"]})
    assert again.status_code == 409
    bad = server.post(f"/api/tournaments/{tid}/start", {"organiser_secret": "nope"})
    assert bad.status_code == 403
    s = server.post(f"/api/tournaments/{tid}/start", {"organiser_secret": org, "seed": 42}).json()
    assert s["status"] == "running"
    assert len(s["rooms"]) == 4  # four first-round pairings, a room each

    # A spectator watches a first-round match.
    first = s["rooms"]["R1-1"]["code"]
    spec = await Client("spectator").connect(server.ws, room=first, spectate=True)

    log = await run_players(server, tid, players)
    final = await state(server, tid)
    t = final["tournament"]
    assert final["status"] == "finished" and t["finished"] and t["champion"]
    places = sorted(p["place"] for p in t["standings"])
    assert len(t["standings"]) == 8 and places[0] == 1
    assert {p["name"] for p in t["standings"]} == {p["name"] for p in players}
    # Every game in the tournament came from a room, each entered once.
    refs = [g["ref"] for m in t["matches"] for g in m["games"]]
    assert refs and len(refs) == len(set(refs)) and all("/" in r for r in refs)
    assert any("R1-1" in line for line in log)
    assert await spec.wait(lambda m: m["type"] == "update", 5)
    undo = server.post(f"/api/tournaments/{tid}/undo", {"organiser_secret": org, "match": "R1-1"})
    assert undo.status_code == 409 and undo.json()["error"]["code"] == "played_online"
    await spec.close()

    # Every profile played and was rated.
    for p in players:
        got = server.get(f"/api/profiles/{p['id']}").json()
        assert got["games"] >= 2, got
    board = server.get("/api/leaderboard").json()["players"]
    assert len(board) == 8

    # The export loads in the engine and gives the same standings.
    ex = server.get(f"/api/tournaments/{tid}/export").json()
    again_t = Tournament.from_dict(ex)
    assert again_t.champion == t["champion"]
    png = server.get(f"/api/tournaments/{tid}/bracket.png")
    assert png.status_code == 200 and png.content[:8] == b"\x89PNG\r\n\x1a\n"
    html = server.get(f"/api/tournaments/{tid}/bracket.html")
    assert html.status_code == 200 and t["champion"] in html.text


async def test_online_tournament_survives_a_restart(
    make_server: Callable[..., ServerThread],
) -> None:
    first = make_server()
    players = [profile(first, n) for n in ("Ann", "Bob")]
    r = first.post("/api/tournaments", {"name": "Duel", "kind": "online"}).json()
    tid, org = r["id"], r["organiser_secret"]
    for p in players:
        first.post(f"/api/tournaments/{tid}/join", {"profile_secret": p["secret"]})
    s = first.post(f"/api/tournaments/{tid}/start", {"organiser_secret": org, "seed": 1}).json()
    code = next(iter(s["rooms"].values()))["code"]
    first.stop()

    second = make_server()
    s2 = await state(second, tid)
    assert s2["status"] == "running" and s2["rooms"] == s["rooms"]
    assert second.get(f"/api/rooms/{code}").status_code == 200
    await run_players(second, tid, players, timeout=90)
    done = await state(second, tid)
    assert done["status"] == "finished" and done["tournament"]["champion"] in ("Ann", "Bob")
    # The organiser secret still works after the restart.
    u = second.post(f"/api/tournaments/{tid}/draw", {"organiser_secret": org})
    assert u.status_code == 409  # already drawn: refused by the engine, not by the secret


async def test_real_cards_tournament_entered_by_the_organiser(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server()
    names = ["Ann", "Bob", "Cy", "Di", "Ed"]
    r = server.post(
        "/api/tournaments",
        {"name": "Club night", "kind": "cards", "players": [{"name": "Ann", "rank": 1}]},
    ).json()
    tid, org = r["id"], r["organiser_secret"]
    for n in names[1:]:
        a = server.post(f"/api/tournaments/{tid}/players", {"organiser_secret": org, "name": n})
        assert a.status_code == 200, a.text
    dup = server.post(f"/api/tournaments/{tid}/players", {"organiser_secret": org, "name": "ann"})
    assert dup.status_code == 409
    assert (
        server.post(f"/api/tournaments/{tid}/start", {"organiser_secret": org}).status_code == 409
    )
    s = server.post(f"/api/tournaments/{tid}/draw", {"organiser_secret": org, "seed": 5}).json()
    assert s["status"] == "drawn" and s["tournament"]["draw"]["seed"] == 5
    assert "Ann" in s["tournament"]["draw"]["byes"]
    assert s["rooms"] == {}
    # Enter results until finished: the first listed player of each ready match wins each game;
    # one tie and one undo on the way.
    steps = 0
    tied = undone = False
    while s["status"] != "finished":
        steps += 1
        assert steps < 200
        ready = [m for m in s["tournament"]["matches"] if m["status"] in ("ready", "playing")]
        m = ready[0]
        if not tied:
            s = server.post(
                f"/api/tournaments/{tid}/result",
                {"organiser_secret": org, "match": m["id"], "tie": True},
            ).json()
            tied = True
            continue
        if not undone and m["games"]:
            s = server.post(
                f"/api/tournaments/{tid}/undo", {"organiser_secret": org, "match": m["id"]}
            ).json()
            undone = True
            continue
        res = server.post(
            f"/api/tournaments/{tid}/result",
            {"organiser_secret": org, "match": m["id"], "winners": [m["players"][0]]},
        )
        assert res.status_code == 200, res.text
        s = res.json()
    assert tied and undone
    wrong = server.post(
        f"/api/tournaments/{tid}/result",
        {"organiser_secret": org, "match": "R1-1", "winners": ["Nobody"]},
    )
    assert wrong.status_code == 409 and wrong.json()["error"]["code"]
    version = s["version"]
    server.stop()
    again = make_server()
    s2 = await state(again, tid)
    assert s2["version"] == version and s2["tournament"] == s["tournament"]
    ex = again.get(f"/api/tournaments/{tid}/export")
    assert ex.status_code == 200 and ex.json()["format"] == "blink-tournament"
    lst = again.get("/api/tournaments").json()["tournaments"]
    assert [x["id"] for x in lst] == [tid]
    # The printable bracket, in English by default or in Spanish (the web page's language).
    en = again.get(f"/api/tournaments/{tid}/bracket.html")
    assert en.status_code == 200 and "<h2>Standings</h2>" in en.text
    es = again.get(f"/api/tournaments/{tid}/bracket.html?lang=es")
    assert es.status_code == 200 and '<html lang="es">' in es.text
    assert "<h2>Posiciones</h2>" in es.text and "Standings" not in es.text
    png = again.get(f"/api/tournaments/{tid}/bracket.png?lang=es")
    assert png.status_code == 200 and png.content[:8] == b"\x89PNG\r\n\x1a\n"
    other = again.get(f"/api/tournaments/{tid}/bracket.html?lang=fr")
    assert other.status_code == 400 and other.json()["error"]["code"] == "bad_options"


async def test_handicap_set_by_the_organiser_deals_the_room(server: ServerThread) -> None:
    ann, bob = profile(server, "Ann"), profile(server, "Bob")
    r = server.post("/api/tournaments", {"name": "Balanced", "kind": "online"}).json()
    tid, org = r["id"], r["organiser_secret"]
    for p in (ann, bob):
        server.post(f"/api/tournaments/{tid}/join", {"profile_secret": p["secret"]})
    s = server.post(f"/api/tournaments/{tid}/draw", {"organiser_secret": org, "seed": 2}).json()
    (m,) = s["tournament"]["matches"]
    # Equal ratings: the suggestion is an equal deal.
    eq = server.post(
        f"/api/tournaments/{tid}/handicap",
        {"organiser_secret": org, "match": m["id"], "suggest": True},
    ).json()
    assert eq["tournament"]["matches"][0]["handicap"] is None
    sizes = {m["players"][0]: 34, m["players"][1]: 26}
    h = server.post(
        f"/api/tournaments/{tid}/handicap",
        {"organiser_secret": org, "match": m["id"], "sizes": sizes},
    ).json()
    assert h["tournament"]["matches"][0]["handicap"] == sizes
    bad = server.post(
        f"/api/tournaments/{tid}/handicap",
        {"organiser_secret": org, "match": m["id"], "sizes": {"Ann": 70, "Bob": 1}},
    )
    assert bad.status_code == 409
    s = server.post(f"/api/tournaments/{tid}/start", {"organiser_secret": org}).json()
    code = s["rooms"][m["id"]]["code"]
    room = server.get(f"/api/rooms/{code}").json()
    assert room["sizes"] == [34, 26] and room["best_of"] == 3 and room["public"] is False
    assert [x["name"] for x in room["seats"]] == m["players"]
    # The room knows its tournament: its end screen links back to the bracket.
    assert room["tournament_url"] == f"/tournament.html?id={tid}"
    plain = server.post("/api/rooms", {"name": "Cy"}).json()["code"]
    assert server.get(f"/api/rooms/{plain}").json()["tournament_url"] is None


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    n=st.integers(2, 12),
    seed=st.integers(0, 10_000),
    steps=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 3)), max_size=30),
)
def test_organiser_api_agrees_with_the_engine(
    server: ServerThread, n: int, seed: int, steps: list[tuple[int, int]]
) -> None:
    """Any sequence of results, ties and take-backs entered through the API leaves the same
    tournament as entering it in the pure engine; refusals match the engine's."""
    names = [f"P{i}" for i in range(n)]
    r = server.post(
        "/api/tournaments", {"kind": "cards", "players": [{"name": x} for x in names]}
    ).json()
    tid, org = r["id"], r["organiser_secret"]
    server.post(f"/api/tournaments/{tid}/draw", {"organiser_secret": org, "seed": seed})
    local = Tournament.create(names)
    local.draw(seed)
    for pick, what in steps:
        ms = [m for m in local.matches() if m.known]
        m = ms[pick % len(ms)]
        players = [p for p in m.players if p is not None]
        if what == 3:
            path, body = "undo", {"match": m.id}
            call: Callable[[], Any] = lambda m=m: local.undo_game(m.id, "organiser")  # noqa: E731
        elif what == 2:
            path, body = "result", {"match": m.id, "tie": True}
            call = lambda m=m: local.record_tie(m.id, "organiser")  # noqa: E731
        else:
            w = players[what % len(players)]
            path, body = "result", {"match": m.id, "winners": [w]}
            call = lambda m=m, w=w: local.record_game(m.id, [w], "organiser")  # noqa: E731
        try:
            call()
            ok = True
        except TournamentError:
            ok = False
        res = server.post(f"/api/tournaments/{tid}/{path}", {"organiser_secret": org, **body})
        assert (res.status_code == 200) == ok, res.text
    got = server.get(f"/api/tournaments/{tid}/export").json()
    for change in got["changes"]:  # the take-backs in the audit trail, at the server's time
        assert isinstance(change.pop("at"), float)
        change["at"] = None
    assert got == local.to_dict()


async def test_a_match_seat_cannot_be_hijacked(server: ServerThread) -> None:
    players = [profile(server, n) for n in ("Hana", "Ivo")]
    r = server.post("/api/tournaments", {"name": "Guarded", "kind": "online"}).json()
    tid, org = r["id"], r["organiser_secret"]
    for p in players:
        server.post(f"/api/tournaments/{tid}/join", {"profile_secret": p["secret"]})
    s = server.post(f"/api/tournaments/{tid}/start", {"organiser_secret": org, "seed": 1}).json()
    code = next(iter(s["rooms"].values()))["code"]
    info = server.get(f"/api/rooms/{code}").json()
    seat_of = {seat["name"]: seat["seat"] for seat in info["seats"]}
    # The first player leaves before the opponent connects: the seat stays theirs.
    first = players[0] if seat_of[players[0]["name"]] == 0 else players[1]
    c = await Client("leaver").connect(server.ws, room=code, token=first["secret"])
    await c.expect("welcome")
    await c.send({"type": "leave"})
    await c.expect("left")
    await c.close()
    info = server.get(f"/api/rooms/{code}").json()
    assert all(seat["taken"] for seat in info["seats"])
    # An outsider under the same name cannot take it; the real player still can.
    outsider = server.post(f"/api/rooms/{code}/join", {"name": first["name"]})
    assert outsider.status_code == 409
    back = await Client("back").connect(server.ws, room=code, token=first["secret"])
    assert (await back.expect("welcome"))["seat"] == 0
    await back.close()


async def test_a_final_set_room_plays_the_tournaments_three_games(server: ServerThread) -> None:
    """A final-round set is three decided games, every one played (docs/rules.md): its room
    says so (best of 3, every game counts), announces a next game after the first two and
    none after the third, and is over with the set's winner as the tournament has it."""
    players = [profile(server, n) for n in ("Ann", "Bo", "Cy")]
    r = server.post("/api/tournaments", {"name": "Finals", "kind": "online"}).json()
    tid, org = r["id"], r["organiser_secret"]
    for p in players:
        server.post(f"/api/tournaments/{tid}/join", {"profile_secret": p["secret"]})
    s = server.post(f"/api/tournaments/{tid}/start", {"organiser_secret": org, "seed": 3}).json()
    m = next(x for x in s["tournament"]["matches"] if x["id"] == "F1-2")
    assert m["kind"] == "final-set"
    code = s["rooms"]["F1-2"]["code"]
    room = server.get(f"/api/rooms/{code}").json()
    assert room["best_of"] == 3
    assert room["series"]["play_all"] is True and room["series"]["first_to"] is None
    secrets = {p["name"]: p["secret"] for p in players}
    clients = [
        await Client(n).connect(server.ws, room=code, token=secrets[n]) for n in m["players"]
    ]
    try:
        await asyncio.wait_for(asyncio.gather(*(play_room(c) for c in clients)), 120)
        ends = [x for x in clients[0].msgs if x["type"] == "game_end"]
        # The match is played: no new series in its room (the tournament goes on elsewhere).
        await clients[0].send({"type": "rematch", "id": "r1"})
        refused = await clients[0].expect("error", id="r1")
        assert refused["code"] == "rematch_unavailable"
    finally:
        for c in clients:
            await c.close()
    decided = 0
    for end in ends:
        decided += 0 if end["outcome"]["tie"] else 1
        assert end["series"]["best_of"] == 3
        assert (end["next_in_ms"] is None) == (decided == 3), end
        assert end["series"]["over"] == (decided == 3)
    assert decided == 3
    room = server.get(f"/api/rooms/{code}").json()
    score = room["series"]["score"]
    assert room["status"] == "finished" and sum(score) == 3
    assert room["series"]["winner"] == score.index(max(score))
    # Its series record reads back as the set it was (a third game after 2-0 is no error).
    doc = server.get(f"/api/rooms/{code}/record").json()
    assert doc["play_all"] is True and len(SeriesRecord.from_dict(doc).verify()) == len(ends)
    after = await state(server, tid)
    f12 = next(x for x in after["tournament"]["matches"] if x["id"] == "F1-2")
    assert (
        f12["status"] == "decided" and len([g for g in f12["games"] if len(g["winners"]) == 1]) == 3
    )
