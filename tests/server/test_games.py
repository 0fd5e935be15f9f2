"""Full games between client bots over real WebSockets: 2 and 3 players, series, rematch."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from srvkit import Client, ServerThread, bot_loop, seat_clients

from blink.cards import parse_card
from blink.games.classic.record import GameRecord, SeriesRecord


async def test_health_options_and_openapi(server: ServerThread) -> None:
    h = server.get("/api/health").json()
    assert h["status"] == "ok" and h["protocol"] == 1
    assert h["database"] in ("sqlite", "postgresql")
    assert server.get("/openapi.json").json()["info"]["title"] == "Blink server"
    assert server.get("/docs").status_code == 200
    assert len(server.get("/api/cards").json()["cards"]) == 60
    assert server.get("/api/options").json()["rulesets"] == ["official", "dead-end"]


async def test_two_player_game_to_the_end(server: ServerThread) -> None:
    code, (a, b), _ = await seat_clients(server)
    ends = await asyncio.gather(bot_loop(a), bot_loop(b))
    end_a, end_b = ends[0][0], ends[1][0]
    assert end_a == end_b
    game_id = end_a["game"]
    rec = server.get(end_a["record_url"]).json()
    record = GameRecord.from_dict(rec)
    game = record.verify()
    assert list(game.outcome.winners) == end_a["outcome"]["winners"]
    assert len(record.actions) == end_a["seq"]
    assert rec["meta"]["game"] == game_id
    assert "bots" not in rec["meta"]  # people only: no seat's bot to name
    # The update stream had no gaps (Client checks) and ends with the ended event.
    last = [m for m in a.msgs if m["type"] == "update"][-1]
    assert last["events"][-1]["type"] == "ended"
    while ends[0][-1]["next_in_ms"] is not None:  # a tied game: best of 1 plays another
        ends = await asyncio.gather(bot_loop(a), bot_loop(b))
    info = server.get(f"/api/rooms/{code}").json()
    assert info["status"] == "finished"
    assert info["games"][0]["record_url"] == f"/api/games/{game_id}/record"
    await a.close()
    await b.close()


async def test_views_say_which_piles_each_hand_card_fits(server: ServerThread) -> None:
    _code, clients, _ = await seat_clients(server, players=3)
    await asyncio.gather(*(bot_loop(c) for c in clients))
    checked = 0
    for c in clients:
        for m in c.msgs:
            view = m.get("view")
            if not view or "fits" not in view:
                continue
            assert len(view["fits"]) == len(view["hand"])
            for card, fits in zip(view["hand"], view["fits"], strict=True):
                want = []
                if view["phase"] == "playing":
                    want = [
                        p
                        for p in view["reach"]
                        if view["tops"][p] and parse_card(card).matches(parse_card(view["tops"][p]))
                    ]
                assert sorted(fits) == sorted(want), (card, view)
                checked += 1
    assert checked > 50


async def test_three_players_and_spectators(server: ServerThread) -> None:
    _code, clients, _ = await seat_clients(server, players=3, spectators=2)
    players, watchers = clients[:3], clients[3:]
    ends = await asyncio.gather(*(bot_loop(c) for c in players))
    for w in watchers:
        end = await w.expect("game_end")
        assert end == ends[0][0]
        snap = next(m for m in w.msgs if m["type"] == "snapshot")
        assert snap["view"]["seat"] is None and snap["view"]["hand"] == []
        for m in w.msgs:
            if m["type"] == "update":
                assert m["view"]["hand"] == []
                for e in m["events"]:
                    if e["type"] in ("refilled", "chose"):
                        assert e["card"] is None
    # A spectator cannot act.
    w = watchers[0]
    await w.send({"type": "play", "id": "x1", "card": "1RM", "pile": 0})
    r = await w.expect("refused", id="x1")
    assert r["code"] == "not_a_player"
    rec = GameRecord.from_dict(server.get(ends[0][0]["record_url"]).json())
    assert rec.players == 3
    rec.verify()
    for c in clients:
        await c.close()


async def test_best_of_three_then_rematch(server: ServerThread) -> None:
    code, (a, b), _ = await seat_clients(server, best_of=3)
    ends = await asyncio.gather(bot_loop(a, games=2), bot_loop(b, games=2))
    series = ends[0][-1]["series"]
    while series["winner"] is None:
        more = await asyncio.gather(bot_loop(a, games=1), bot_loop(b, games=1))
        series = more[0][-1]["series"]
    assert max(series["score"]) == 2
    info = server.get(f"/api/rooms/{code}").json()
    assert info["status"] == "finished"
    srec = SeriesRecord.from_dict(server.get(f"/api/rooms/{code}/record").json())
    assert len(srec.games) == series["results"].__len__()
    for g in srec.games:
        g.verify()
    # Rematch: both vote, a new series starts with a new game.
    last_game = a.game
    await a.send({"type": "rematch"})
    votes = await b.expect("rematch", votes=[True, False])
    assert votes["available"] is True
    await b.send({"type": "rematch"})
    snap = await a.wait(lambda m: m["type"] == "snapshot" and m["game"] != last_game)
    assert snap["seq"] == 0 and snap["series"]["results"] == []
    info = server.get(f"/api/rooms/{code}").json()
    assert info["series_number"] == 2
    await a.close()
    await b.close()


async def test_leave_before_the_game_frees_the_seat(server: ServerThread) -> None:
    r = server.post("/api/rooms", {"name": "Ann"}).json()
    code = r["code"]
    a = await Client("A").connect(server.ws, room=code, token=r["token"])
    await a.expect("welcome")
    await a.send({"type": "leave"})
    await a.expect("left")
    assert await a.closed() == 1000
    info = server.get(f"/api/rooms/{code}").json()
    assert info["seats"][0]["taken"] is False
    # The old token no longer works.
    c = await Client("C").connect(server.ws, room=code, token=r["token"])
    err = await c.expect("error")
    assert err["code"] == "bad_token"
    assert await c.closed() == 4003


async def test_full_game_with_the_writer_thread(make_server: Any) -> None:
    server = make_server(db_writer="thread")
    _code, (a, b), _ = await seat_clients(server)
    ends = await asyncio.gather(bot_loop(a), bot_loop(b))
    GameRecord.from_dict(server.get(ends[0][0]["record_url"]).json()).verify()
    await a.close()
    await b.close()


async def test_static_client_and_links(make_server: Any, tmp_path: Path) -> None:
    web = tmp_path / "web"
    web.mkdir()
    (web / "index.html").write_text("<!doctype html><title>Blink client</title>")
    (web / "app.js").write_text("export const x = 1;")
    server = make_server(web_dir=web)
    assert "Blink client" in server.get("/").text
    assert server.get("/app.js").text.startswith("export")
    assert "Blink client" in server.get("/play/ABCDEF").text
    assert "Blink client" in server.get("/watch/ABCDEF").text
    assert server.get("/api/health").json()["status"] == "ok"
    bare = make_server(web_dir=tmp_path / "missing")
    assert "Blink server" in bare.get("/").text
