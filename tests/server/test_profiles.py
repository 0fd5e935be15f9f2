"""Player profiles and ratings on a real server: profiles attached to seats, games rated after
they end (against people and against bots' fixed ratings), the leaderboard."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from srvkit import Client, ServerThread, bot_loop, play_series, seat_clients

from blink.ratings import bot_rating
from blink.server.profiles import BOT_GAMES_RATED, FORM_GAMES, PAIR_GAMES_RATED

FAST = "@40"


def new_profile(server: ServerThread, name: str) -> dict[str, Any]:
    r = server.post("/api/profiles", {"name": name})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    assert set(body) == {"id", "name", "secret"}
    return body


def wait_games(server: ServerThread, pid: str, games: int, timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        p: dict[str, Any] = server.get(f"/api/profiles/{pid}").json()
        if p["games"] >= games:
            return p
        assert time.monotonic() < deadline, f"profile {pid} still at {p['games']} games"
        time.sleep(0.05)


async def test_profile_secret_is_kept_hashed_and_shown_once(server: ServerThread) -> None:
    ann = new_profile(server, "Ann")
    got = server.get(f"/api/profiles/{ann['id']}").json()
    assert got["name"] == "Ann" and got["games"] == 0 and "secret" not in got
    assert got["rating"]["mu"] == 25.0
    eng = create_engine(server.settings.database_url)
    with eng.connect() as conn:
        rows = conn.execute(text("select * from profiles")).all()
    eng.dispose()
    assert rows and all(ann["secret"] not in str(tuple(r)) for r in rows)
    assert server.get("/api/profiles/nobody").status_code == 404
    r = server.post("/api/rooms", {"profile_secret": "not-a-secret"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "no_such_profile"
    assert server.post("/api/profiles", {"name": ""}).status_code == 400


async def test_game_against_a_bot_is_rated_against_its_fixed_rating(server: ServerThread) -> None:
    ann = new_profile(server, "Ann")
    r = server.post(
        "/api/quick",
        {"bot": f"beginner:first{FAST}", "name": "Ann", "profile_secret": ann["secret"]},
    )
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["token"] == ann["secret"]  # the seat token is the profile secret
    a = await Client("A").connect(server.ws, room=body["code"], token=body["token"])
    # The series to its end: a tied game is rated too, and the series goes on with another.
    ends = await asyncio.wait_for(play_series([a]), 120)
    await a.close()
    p = await asyncio.to_thread(wait_games, server, ann["id"], len(ends))
    assert [h["game"] for h in p["history"]] == [e["game"] for e in reversed(ends)]
    for h in p["history"]:
        assert h["opponents"] == [f"bot:beginner:first{FAST}"]
        assert h["room"] is None  # a quick game's room is private: its code is never published
    # The deciding game (the last, never a tie): a win lifts the rating, a loss lowers it.
    h, won = p["history"][0], 0 in ends[-1]["outcome"]["winners"]
    assert h["before"]["mu"] == (25.0 if len(ends) == 1 else p["history"][1]["after"]["mu"])
    assert (h["after"]["mu"] > h["before"]["mu"]) == won
    assert p["rating"]["mu"] == h["after"]["mu"]
    assert p["rating"]["sigma"] < 25.0 / 3.0
    board = server.get("/api/leaderboard").json()
    assert board["players"][0]["id"] == ann["id"]
    assert board["bots"]["beginner"]["mu"] == bot_rating("beginner").mu


async def test_two_profiles_rated_and_anonymous_games_not(server: ServerThread) -> None:
    ann, bob = new_profile(server, "Ann"), new_profile(server, "Bob")
    r = server.post("/api/rooms", {"name": "Ann", "profile_secret": ann["secret"]})
    code = r.json()["code"]
    again = server.post(f"/api/rooms/{code}/join", {"name": "X", "profile_secret": ann["secret"]})
    assert again.status_code == 409 and again.json()["error"]["code"] == "profile_seated"
    j = server.post(f"/api/rooms/{code}/join", {"name": "Bob", "profile_secret": bob["secret"]})
    assert j.status_code == 200, j.text
    a = await Client("A").connect(server.ws, room=code, token=ann["secret"])
    b = await Client("B").connect(server.ws, room=code, token=bob["secret"])
    (end,), _ = await asyncio.wait_for(
        asyncio.gather(bot_loop(a, games=1), bot_loop(b, games=1)), 120
    )
    await a.close()
    await b.close()
    pa = await asyncio.to_thread(wait_games, server, ann["id"], 1)
    pb = await asyncio.to_thread(wait_games, server, bob["id"], 1)
    winners = end["outcome"]["winners"]
    if len(winners) == 1:
        win, lose = (pa, pb) if winners == [0] else (pb, pa)
        # The loser was provisional (no rated game yet): the win gains nothing, the loss is
        # the loser's whole.
        assert win["rating"] == {"mu": 25.0, "sigma": 25.0 / 3.0, "ordinal": 0.0}
        assert lose["rating"]["mu"] < 25.0
        assert win["wins"] == 1 and lose["wins"] == 0
        board = [p["id"] for p in server.get("/api/leaderboard").json()["players"]]
        assert board == [win["id"], lose["id"]]

    # Ann against an anonymous person: not rated.
    r = server.post("/api/rooms", {"name": "Ann", "profile_secret": ann["secret"]})
    code = r.json()["code"]
    tok = server.post(f"/api/rooms/{code}/join", {"name": "Anon"}).json()["token"]
    a = await Client("A2").connect(server.ws, room=code, token=ann["secret"])
    c = await Client("C").connect(server.ws, room=code, token=tok)
    await asyncio.wait_for(asyncio.gather(bot_loop(a, games=1), bot_loop(c, games=1)), 120)
    await a.close()
    await c.close()
    await asyncio.sleep(0.3)
    assert server.get(f"/api/profiles/{ann['id']}").json()["games"] == 1


async def test_ratings_cannot_be_farmed(server: ServerThread) -> None:
    ann = new_profile(server, "Farmer")
    spec = f"beginner:first{FAST}"

    async def play(**room: Any) -> int:
        body = {"bot": spec, "name": "Farmer", "profile_secret": ann["secret"], **room}
        r = server.post("/api/quick", body)
        assert r.status_code == 201, r.text
        c = await Client("F").connect(server.ws, room=r.json()["code"], token=ann["secret"])
        # The series to its end: a tied game counts as a game played, and another follows.
        played = len(await asyncio.wait_for(play_series([c]), 120))
        await c.close()
        return played

    # A handicapped game is not rated.
    await play(handicap="35:25")
    # Against one bot, three games a day are rated; the fourth is played, not rated.
    n = 0
    while n <= BOT_GAMES_RATED:
        n += await play()
        if n <= BOT_GAMES_RATED:
            assert (await asyncio.to_thread(wait_games, server, ann["id"], n))["games"] == n
    # Every game so far has ended and been handled (the next profile game is rated at once).
    bob = new_profile(server, "Bob")
    r = server.post("/api/quick", {"bot": spec, "name": "Bob", "profile_secret": bob["secret"]})
    c = await Client("B").connect(server.ws, room=r.json()["code"], token=bob["secret"])
    await asyncio.wait_for(bot_loop(c, games=1), 120)
    await c.close()
    await asyncio.to_thread(wait_games, server, bob["id"], 1)
    p = server.get(f"/api/profiles/{ann['id']}").json()
    assert p["games"] == BOT_GAMES_RATED
    # The leaderboard's recent form is the rated games, newest first.
    (line,) = [q for q in server.get("/api/leaderboard").json()["players"] if q["id"] == ann["id"]]
    assert line["form"] == ["win" if h["place"] == 1 else "loss" for h in p["history"]]


async def test_the_leaderboard_shows_the_latest_five_results(server: ServerThread) -> None:
    """Each line's form is its latest FORM_GAMES rated games, newest first, with a shared first
    place counted as a win; a profile with no rated game has an empty form."""
    ann, bob = new_profile(server, "Formy"), new_profile(server, "Fresh")
    places = [1, 2, 2, 1, 1, 3, 2]  # oldest first
    eng = create_engine(server.settings.database_url)
    with eng.begin() as conn:
        for i, place in enumerate(places):
            conn.execute(
                text(
                    "insert into profile_games (profile_id, game_id, room_code, at, place,"
                    " players, opponents, mu_before, sigma_before, mu_after, sigma_after)"
                    " values (:p, :g, 'ROOM', :at, :place, 2, '[]', 25, 8, 25, 8)"
                ),
                {"p": ann["id"], "g": 9000 + i, "at": 1.0 + i, "place": place},
            )
    eng.dispose()
    board = server.get("/api/leaderboard").json()
    lines = {q["id"]: q for q in board["players"] + board["provisional"]}
    newest = ["win" if p == 1 else "loss" for p in reversed(places)][:FORM_GAMES]
    assert lines[ann["id"]]["form"] == newest == ["loss", "loss", "win", "win", "loss"]
    assert lines[bob["id"]]["form"] == []


async def _until(cond: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.005)


async def lose_on_purpose(a: Client, b: Client) -> dict[str, Any]:
    """One game where ``b`` (a second profile of ``a``'s player) plays only when ``a`` cannot,
    one action at a time on views both have seen; returns ``a``'s ``game_end``."""
    first = len(a.msgs)

    def ended() -> dict[str, Any] | None:
        return next((m for m in a.msgs[first:] if m["type"] == "game_end"), None)

    while (end := ended()) is None:
        await _until(lambda: ended() is not None or (a.seq == b.seq and a.game == b.game))
        if ended() is not None:
            break
        # Where both are: the next step waits until the game (or the next game) moves on.
        at = (a.game, a.seq)
        actor = a if a.legal() else b if b.legal() else None
        if actor is not None:
            card, pile = actor.legal()[0]
            mid = await actor.play(card, pile)
            answered = (actor, mid)
            await _until(lambda c=answered: any(m.get("id") == c[1] for m in c[0].msgs))
            answer = next(m for m in actor.msgs if m.get("id") == mid)
            if answer["type"] == "ack":
                await _until(
                    lambda p=at: ended() is not None or p not in ((a.game, a.seq), (b.game, b.seq))
                )
            continue
        for c in (a, b):
            v = c.view
            if v is not None and v["phase"] == "choosing" and v["my_choice"] is None and v["hand"]:
                await c.choose(v["hand"][-1])
        await _until(lambda p=at: ended() is not None or (a.game, a.seq) != p)
    return end


async def test_a_second_profile_cannot_lift_the_first(make_server: Any) -> None:
    # Bob is Ann's second profile: he plays only when she cannot, so she wins each game.
    server = make_server()
    ann, bob = new_profile(server, "Ann"), new_profile(server, "Bob")
    r = server.post("/api/rooms", {"name": "Ann", "profile_secret": ann["secret"], "best_of": 7})
    code = r.json()["code"]
    j = server.post(f"/api/rooms/{code}/join", {"name": "Bob", "profile_secret": bob["secret"]})
    assert j.status_code == 200, j.text
    a = await Client("A").connect(server.ws, room=code, token=ann["secret"])
    b = await Client("B").connect(server.ws, room=code, token=bob["secret"])
    mus = []
    for n in range(1, PAIR_GAMES_RATED + 2):
        end = await asyncio.wait_for(lose_on_purpose(a, b), 120)
        assert end["outcome"]["winners"] == [0]
        if n <= PAIR_GAMES_RATED:
            p = await asyncio.to_thread(wait_games, server, ann["id"], n)
            assert p["games"] == n and p["wins"] == n
            mus.append(p["rating"]["mu"])
    await a.close()
    await b.close()
    # The first win, over Bob still provisional, gained nothing; the next two gained a half
    # and a third of a win.
    assert mus[0] == 25.0 < mus[1] < mus[2]
    assert mus[2] - mus[1] < mus[1] - mus[0]
    # Every game so far has been handled: a later rated game of another pair is rated.
    cy = new_profile(server, "Cy")
    r = server.post("/api/quick", {"bot": f"beginner:first{FAST}", "profile_secret": cy["secret"]})
    c = await Client("C").connect(server.ws, room=r.json()["code"], token=cy["secret"])
    await asyncio.wait_for(bot_loop(c, games=1), 120)
    await c.close()
    await asyncio.to_thread(wait_games, server, cy["id"], 1)
    # The fourth win is recorded (its record is there) but not rated: Ann's rating is as after
    # the third, and Bob's too.
    pa = server.get(f"/api/profiles/{ann['id']}").json()
    pb = server.get(f"/api/profiles/{bob['id']}").json()
    assert pa["games"] == PAIR_GAMES_RATED and pa["rating"]["mu"] == mus[-1]
    assert pb["games"] == PAIR_GAMES_RATED
    assert server.get(f"/api/games?room={code}").json()["games"][0]["id"] == end["game"]


async def test_profiles_without_rated_games_are_listed_apart(server: ServerThread) -> None:
    """A new profile's rating (0.0) is above a player's who lost some rated games: it is not
    ranked among them but listed apart, provisional, until it has a rated game."""
    fresh, loser = new_profile(server, "Newcomer"), new_profile(server, "Veteran")
    eng = create_engine(server.settings.database_url)
    with eng.begin() as conn:
        conn.execute(
            text("update profiles set mu = 20, sigma = 7, games = 4, wins = 1 where id = :p"),
            {"p": loser["id"]},
        )
    eng.dispose()
    board = server.get("/api/leaderboard").json()
    ranked = [(q["rank"], q["id"]) for q in board["players"]]
    assert ranked == [(1, loser["id"])]
    (line,) = board["provisional"]
    assert line["id"] == fresh["id"] and line["rank"] is None and line["games"] == 0
    assert line["rating"]["ordinal"] > board["players"][0]["rating"]["ordinal"]


async def test_a_rated_game_end_tells_each_rated_players_rating(server: ServerThread) -> None:
    """Once a rated game's ratings are stored, every connection gets a ``ratings`` frame: each
    rated seat's rating before and after (a bot's fixed rating is not there), as the profile's
    history has it; a game end sent again carries them."""
    ann = new_profile(server, "Rated Ann")
    body = server.post(
        "/api/quick",
        {"bot": f"beginner:first{FAST}", "name": "Rated Ann", "profile_secret": ann["secret"]},
    ).json()
    a = await Client("A").connect(server.ws, room=body["code"], token=body["token"])
    # The series to its end (a tied game is followed by another): the room's last game is the
    # one a reconnecting player is sent again.
    ends = await asyncio.wait_for(play_series([a]), 120)
    end = ends[-1]
    frame = await a.expect("ratings", game=end["game"])
    await a.close()
    p = await asyncio.to_thread(wait_games, server, ann["id"], len(ends))
    h = p["history"][0]
    assert frame["game"] == end["game"] == h["game"]
    (change,) = frame["ratings"]
    assert change["seat"] == body["seat"] and change["profile"] == ann["id"]
    for when in ("before", "after"):
        assert change[when]["mu"] == pytest.approx(h[when]["mu"])
        assert change[when]["sigma"] == pytest.approx(h[when]["sigma"])
        ordinal = h[when]["mu"] - 3 * h[when]["sigma"]
        assert change[when]["ordinal"] == pytest.approx(ordinal)
    assert change["delta"] == pytest.approx(
        change["after"]["ordinal"] - change["before"]["ordinal"]
    )
    # A reconnecting player is sent the game's end again, with the ratings in it.
    b = await Client("A again").connect(server.ws, room=body["code"], token=body["token"])
    again = await b.expect("game_end")
    await b.close()
    assert again["again"] is True and again["ratings"] == frame["ratings"]


async def test_an_unrated_game_end_has_no_ratings(server: ServerThread) -> None:
    """A game with an anonymous person is not rated: no ``ratings`` frame, none in its end."""
    _code, clients, _ = await seat_clients(server)
    ends = await asyncio.wait_for(asyncio.gather(*(bot_loop(c, games=1) for c in clients)), 120)
    assert all("ratings" not in e[0] for e in ends)
    await clients[0].send({"type": "ping", "t": 1})  # a frame answered after the game's end
    await clients[0].expect("pong")
    assert not [m for c in clients for m in c.msgs if m["type"] == "ratings"]
    for c in clients:
        await c.close()
