"""GET /api/games (finished games, from storage) and game_end re-sent after an ended game's
resume/resync, with real servers, databases and WebSocket clients playing games to the end."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from srvkit import Client, ServerThread, bot_loop, play_series, seat_clients

import blink.games.classic.record

FAST = "@40"  # server bots forty times faster than people


async def _play_room(server: ServerThread, **room: Any) -> tuple[str, list[dict[str, Any]]]:
    """A room's series played to its end by client bots: its code and every game's end (a
    tied game is followed by another)."""
    code, clients, _ = await seat_clients(server, **room)
    ends = await play_series(clients)
    for c in clients:
        await c.close()
    return code, ends


async def _play_vs_bot(server: ServerThread) -> tuple[str, list[dict[str, Any]]]:
    r = server.post("/api/rooms", {"players": 2, "seats": [None, f"casual:first{FAST}"]})
    assert r.status_code == 201, r.text
    body = r.json()
    a = await Client("A").connect(server.ws, room=body["code"], token=body["token"])
    ends = await asyncio.wait_for(play_series([a]), 120)
    await a.close()
    return body["code"], ends


async def test_finished_games_listing(server: ServerThread) -> None:
    assert server.get("/api/games?status=finished").json() == {"games": []}
    pub, pub_ends = await _play_room(server)
    priv, priv_ends = await _play_room(server, public=False)
    bot_room, bot_ends = await _play_vs_bot(server)
    end_pub, end_bot = pub_ends[-1], bot_ends[-1]

    listed = server.get("/api/games?status=finished&limit=10").json()["games"]
    # Newest first (every game of each series: a tied game is followed by another); the
    # private room's games are not listed.
    newest_first = [*reversed(bot_ends), *reversed(pub_ends)]
    assert [g["id"] for g in listed] == [e["game"] for e in newest_first]
    assert all(x["ended"] >= y["ended"] for x, y in itertools.pairwise(listed))
    g_bot, g_pub = listed[0], listed[len(bot_ends)]
    assert g_pub["room"] == pub and g_bot["room"] == bot_room
    assert [p["name"] for p in g_pub["players"]] == ["P0", "P1"]
    assert [p["bot"] for p in g_pub["players"]] == [None, None]
    assert g_bot["players"][1]["bot"] == f"casual:first{FAST}"
    assert g_pub["winners"] == end_pub["outcome"]["winners"]
    assert g_pub["result"]["winners"] == end_pub["outcome"]["winners"]
    assert g_pub["plays"] == end_pub["figures"]["plays"]
    assert g_bot["plays"] == end_bot["figures"]["plays"]
    assert g_pub["kind"] == "classic" and g_pub["number"] == len(pub_ends)
    assert g_pub["series"] == 1
    assert g_pub["record_url"] == end_pub["record_url"]

    # limit
    (only,) = server.get("/api/games?status=finished&limit=1").json()["games"]
    assert only["id"] == end_bot["game"]
    # A room's own games, private ones too (the code is the key), any letter case.
    mine = server.get(f"/api/games?status=finished&room={priv.lower()}").json()["games"]
    assert [g["id"] for g in mine] == [e["game"] for e in reversed(priv_ends)]
    assert server.get("/api/games?room=NOSUCH").json() == {"games": []}

    # Every record URL downloads and verifies.
    for g in [*listed, *mine]:
        r = server.get(g["record_url"])
        assert r.status_code == 200
        rec = blink.games.classic.record.loads(r.text)
        assert isinstance(rec, blink.games.classic.record.GameRecord)
        game = rec.verify()
        assert game.outcome is not None and list(game.outcome.winners) == g["winners"]

    # Bad queries are errors with a code.
    for q in ("status=playing", "limit=0", "limit=201", "limit=x"):
        r = server.get(f"/api/games?{q}")
        assert r.status_code == 400, q
        assert r.json()["error"]["code"] == "bad_options"


async def test_listing_survives_a_restart(make_server: Any) -> None:
    s1 = make_server()
    _code, ends = await _play_room(s1)
    before = s1.get("/api/games?status=finished").json()["games"]
    s1.stop()
    s2 = make_server()
    after = s2.get("/api/games?status=finished").json()["games"]
    assert after == before and after[0]["id"] == ends[-1]["game"]


async def test_reconnect_after_the_end_gets_the_figures_again(server: ServerThread) -> None:
    code, (a, b), tokens = await seat_clients(server)
    ends = await asyncio.gather(bot_loop(a), bot_loop(b))
    while ends[0][0]["next_in_ms"] is not None:  # a tied game: best of 1 plays another
        ends = await asyncio.gather(bot_loop(a), bot_loop(b))
    end = ends[0][0]
    assert "again" not in end
    game, seq = end["game"], end["seq"]
    await b.close()

    # Resume with the last seq (nothing missed): only game_end comes again.
    b2 = await Client("B2").connect(server.ws, room=code, token=tokens[1], game=game, last_seq=seq)
    again = await b2.expect("game_end")
    assert again["again"] is True
    assert {k: v for k, v in again.items() if k != "again"} == end
    assert not [m for m in b2.msgs if m["type"] in ("snapshot", "update")]

    # A fresh connection (a reload): snapshot of the ended game, then game_end again.
    b3 = await Client("B3").connect(server.ws, room=code, token=tokens[1])
    snap = await b3.expect("snapshot")
    assert snap["game"] == game and snap["view"]["phase"] == "over"
    again = await b3.expect("game_end")
    assert again["figures"] == end["figures"] and again["again"] is True
    assert again["next_in_ms"] is None  # best of 1: the series is over

    # A resync too; and a spectator gets it as well.
    await b3.send({"type": "resync"})
    await b3.expect("snapshot")
    assert (await b3.expect("game_end"))["figures"] == end["figures"]
    w = await Client("W").connect(server.ws, room=code, spectate=True)
    await w.expect("snapshot")
    assert (await w.expect("game_end"))["outcome"] == end["outcome"]
    for c in (a, b2, b3, w):
        await c.close()


async def test_reconnect_between_games_counts_down(make_server: Any) -> None:
    server = make_server(between_games=60.0)
    code, (a, b), tokens = await seat_clients(server, best_of=3)
    ends = await asyncio.gather(bot_loop(a), bot_loop(b))
    end = ends[0][0]
    assert end["next_in_ms"] == 60000
    await b.close()
    b2 = await Client("B2").connect(server.ws, room=code, token=tokens[1])
    again = await b2.expect("game_end")
    assert again["game"] == end["game"] and again["figures"] == end["figures"]
    assert 0 <= again["next_in_ms"] <= 60000
    for c in (a, b2):
        await c.close()
