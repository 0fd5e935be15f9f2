"""A player's archive on a real server: ``GET /api/profiles/NAME/games`` lists every finished
game of the profile (rated or not, against people and bots), newest first, paged by cursor,
filtered by game, rating, opponent and dates, with each rated game's rating change as the
profile's history has it; a private room's game without its record; clear refusals."""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import time
from pathlib import Path
from typing import Any

import httpx
from srvkit import Client, ServerThread, play_series

import blink
from blink.server.archive import MAX_LIMIT

FAST = "@40"


def new_profile(server: ServerThread, name: str) -> dict[str, Any]:
    r = server.post("/api/profiles", {"name": name})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def archive(server: ServerThread, name: str, query: str = "") -> dict[str, Any]:
    r = server.get(f"/api/profiles/{name}/games{query}")
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def wait_archive(server: ServerThread, name: str, n: int, timeout: float = 30.0) -> list[Any]:
    deadline = time.monotonic() + timeout
    while True:
        got: list[Any] = archive(server, name, f"?limit={MAX_LIMIT}")["games"]
        if len(got) >= n:
            return got
        assert time.monotonic() < deadline, f"{name} has {len(got)} games archived"
        time.sleep(0.05)


async def _play(server: ServerThread, code: str, tokens: list[str]) -> list[dict[str, Any]]:
    """The room's series played to its end by client bots: every game's end (a tied game is
    followed by another)."""
    clients = [
        await Client(f"P{i}").connect(server.ws, room=code, token=t) for i, t in enumerate(tokens)
    ]
    ends = await asyncio.wait_for(play_series(clients), 120)
    for c in clients:
        await c.close()
    return ends


async def _three_games(server: ServerThread) -> tuple[dict[str, Any], list[int]]:
    """Ann plays a rated quick series against a bot (a private room), a rated public one
    against Bob, and an unrated public one against an anonymous person: a game each, or
    more when a game is tied. Ann's profile, and how many games each series had."""
    ann, bob = new_profile(server, "Ann"), new_profile(server, "Bob")
    body = {"bot": f"beginner:first{FAST}", "name": "Ann", "profile_secret": ann["secret"]}
    r = server.post("/api/quick", body)
    assert r.status_code == 201, r.text
    played = [len(await _play(server, r.json()["code"], [ann["secret"]]))]
    await asyncio.to_thread(wait_archive, server, "Ann", sum(played))
    code = server.post("/api/rooms", {"name": "Ann", "profile_secret": ann["secret"]}).json()[
        "code"
    ]
    server.post(f"/api/rooms/{code}/join", {"name": "Bob", "profile_secret": bob["secret"]})
    played.append(len(await _play(server, code, [ann["secret"], bob["secret"]])))
    await asyncio.to_thread(wait_archive, server, "Ann", sum(played))
    code = server.post("/api/rooms", {"name": "Ann", "profile_secret": ann["secret"]}).json()[
        "code"
    ]
    tok = server.post(f"/api/rooms/{code}/join", {"name": "Anon"}).json()["token"]
    played.append(len(await _play(server, code, [ann["secret"], tok])))
    await asyncio.to_thread(wait_archive, server, "Ann", sum(played))
    return ann, played


async def test_archive_lists_filters_and_pages(server: ServerThread) -> None:
    ann, (n_quick, n_versus, n_anon) = await _three_games(server)
    total = n_quick + n_versus + n_anon
    games = archive(server, "ann")["games"]  # a name is found as names compare
    assert [len(g["players"]) for g in games] == [2] * total
    # Newest first: the anonymous series', Bob's, then the quick series' games.
    anons, versuses, quicks = games[:n_anon], games[n_anon:-n_quick], games[-n_quick:]
    assert len(versuses) == n_versus
    versus, first_quick = versuses[0], quicks[-1]  # Bob's last game, the quick series' first
    assert all(x["ended"] >= y["ended"] for x, y in itertools.pairwise(games))
    assert [g["rated"] for g in games] == [False] * n_anon + [True] * (n_versus + n_quick)
    for g in anons:
        assert g["rating"] is None and g["players"][1] == {
            "name": "Anon",
            "profile": None,
            "bot_account": False,
        }
    for g in versuses:
        assert g["players"] == [
            {"name": "Ann", "profile": "Ann", "bot_account": False},
            {"name": "Bob", "profile": "Bob", "bot_account": False},
        ]
    # The rating change is the one the profile's history has.
    history = {h["game"]: h for h in server.get(f"/api/profiles/{ann['id']}").json()["history"]}
    for g in (*versuses, *quicks):
        h = history[g["id"]]
        assert g["rating"]["before"]["mu"] == h["before"]["mu"]
        assert g["rating"]["after"]["sigma"] == h["after"]["sigma"]
        delta = g["rating"]["after"]["ordinal"] - g["rating"]["before"]["ordinal"]
        assert abs(g["rating"]["delta"] - delta) < 1e-9
        first = "tie" if len(g["winners"]) > 1 else "win"  # a shared first place is a tie
        assert g["outcome"] == (first if h["place"] == 1 else "loss")
    # A private room's game: listed, but neither its room, record nor replay.
    for g in quicks:
        assert g["room"] is None and g["record_url"] is None and g["replay_url"] is None
    assert server.get(versus["record_url"]).status_code == 200
    assert versus["replay_url"].startswith("/#replay=%2Fapi%2Fgames%2F")
    # Bob's archive holds the game from his seat.
    bobs = archive(server, "Bob")["games"]
    assert [g["id"] for g in bobs] == [g["id"] for g in versuses]
    assert all(g["seat"] == 1 for g in bobs)
    # Filters.
    ids = lambda q: [g["id"] for g in archive(server, "Ann", q)["games"]]  # noqa: E731
    assert ids("?rated=true") == [g["id"] for g in (*versuses, *quicks)]
    assert ids("?rated=false") == [g["id"] for g in anons]
    assert ids("?opponent=BOB") == [g["id"] for g in versuses]
    assert ids("?game=classic") == [g["id"] for g in games]
    assert ids("?game=goblink") == []
    today = dt.datetime.now(dt.UTC).date()
    assert len(ids(f"?since={today}&until={today}")) == total
    assert ids(f"?since={today + dt.timedelta(days=1)}") == []
    assert ids(f"?until={today - dt.timedelta(days=1)}") == []
    # Paging: one game a page, each once, newest first, then no next page.
    seen, cursor = [], ""
    while True:
        page = archive(server, "Ann", f"?limit=1{cursor}")
        seen += [g["id"] for g in page["games"]]
        if page["next"] is None:
            break
        cursor = f"&cursor={page['next']}"
    assert seen == [g["id"] for g in games]
    # The player's figures: rating history from the start, games by kind and player count.
    fig = server.get("/api/profiles/Ann/figures").json()
    assert fig["id"] == ann["id"] and fig["tournaments"] == []
    # Rated games past the threshold (1 here), a person's profile.
    assert (fig["provisional"], fig["bot"], fig["owner"]) == (False, False, None)
    points = fig["rating_history"]
    assert points[0]["ordinal"] == first_quick["rating"]["before"]["ordinal"]
    assert [p["game"] for p in points[1:]] == [g["id"] for g in reversed([*versuses, *quicks])]
    assert points[-1]["ordinal"] == fig["rating"]["ordinal"] == versus["rating"]["after"]["ordinal"]
    (row,) = fig["by_kind"]
    won = sum(1 for g in games if g["outcome"] == "win")
    tied = sum(1 for g in games if g["outcome"] == "tie")
    assert row == {"kind": "classic", "players": 2, "played": total, "won": won, "tied": tied}
    # Head-to-head, from either side.
    vs = server.get("/api/profiles/Ann/versus/bob").json()
    assert vs["games"] == n_versus and [g["id"] for g in vs["recent"]] == [
        g["id"] for g in versuses
    ]
    back = server.get("/api/profiles/Bob/versus/Ann").json()
    assert (vs["won"], vs["lost"], vs["tied"]) == (back["lost"], back["won"], back["tied"])
    assert vs["won"] + vs["lost"] + vs["tied"] == n_versus


async def test_archive_refusals(server: ServerThread) -> None:
    new_profile(server, "Ann")
    # A profile with no rated game yet is provisional on its page.
    assert server.get("/api/profiles/Ann/figures").json()["provisional"] is True

    def refusal(query: str, name: str = "Ann") -> tuple[int, str]:
        r = server.get(f"/api/profiles/{name}/games{query}")
        return r.status_code, r.json()["error"]["code"]

    assert refusal("", "Nobody") == (404, "no_such_player")
    assert refusal("?opponent=Nobody") == (404, "no_such_player")
    assert refusal("?game=chess") == (400, "unknown_game")
    assert refusal("?rated=maybe") == (400, "bad_filter")
    assert refusal("?since=yesterday") == (400, "bad_filter")
    assert refusal("?since=2026-02-02&until=2026-02-01") == (400, "bad_filter")
    assert refusal("?limit=0") == (400, "bad_filter")
    assert refusal(f"?limit={MAX_LIMIT + 1}") == (400, "bad_filter")
    assert refusal("?cursor=nonsense") == (400, "bad_filter")
    for path in ("/figures", "/versus/Ann"):
        r = server.get(f"/api/profiles/Nobody{path}")
        assert (r.status_code, r.json()["error"]["code"]) == (404, "no_such_player")
    r = server.get("/api/profiles/Ann/versus/ANN")
    assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_filter")
    assert archive(server, "Ann") == {
        "player": archive(server, "Ann")["player"],
        "games": [],
        "next": None,
    }
    doc = server.get("/openapi.json").json()
    params = {p["name"] for p in doc["paths"]["/api/profiles/{name}/games"]["get"]["parameters"]}
    assert {"game", "rated", "opponent", "since", "until", "limit", "cursor"} <= params


def test_a_players_page_is_html(make_server: Any) -> None:
    """``/@/NAME`` answers the player's page (HTML, 200) for a profile's name, as names
    compare, and the not-found page (HTML, 404, in the Accept-Language's language, naming the
    player) for an unknown or malformed name, whatever the client accepts; without the
    client's folder, a profile's page is the JSON refusal."""
    web = Path(blink.__file__).parent / "web"
    server = make_server(web_dir=web)
    new_profile(server, "Page Owner")
    for path in ("/@/Page%20Owner", "/@/page%20owner"):
        r = server.get(path)
        assert r.status_code == 200, path
        assert r.headers["content-type"].startswith("text/html")
        assert 'src="/js/player.js"' in r.text
    for path in ("/@/Nobody%3Cb%3E", "/@/" + "x" * 300, "/@/%00"):
        r = server.get(path)
        assert r.status_code == 404, path
        assert r.headers["content-type"].startswith("text/html"), path
        assert "<h1>Page not found</h1>" in r.text, path
    assert "There is no player called “Nobody&lt;b&gt;”." in server.get("/@/Nobody%3Cb%3E").text
    r = httpx.get(server.http + "/@/Nobody", headers={"accept-language": "es-AR,es;q=0.9"})
    assert r.status_code == 404 and '<html lang="es">' in r.text
    assert "No hay ningún jugador llamado «Nobody»." in r.text
    # A browser's other addresses under /@/ lead nowhere either.
    for path in ("/@/", "/@/a/b"):
        r = httpx.get(server.http + path, headers={"accept": "text/html"})
        assert r.status_code == 404 and "<h1>Page not found</h1>" in r.text, path
    # A name no profile can have is nobody's in the API too (PostgreSQL's text holds no NUL).
    assert server.get("/api/profiles/%00/figures").status_code == 404
    bare = make_server()
    r = bare.get("/@/Page%20Owner")
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_client"


async def test_whose_profiles_sit_in_a_room_and_a_game(make_server: Any) -> None:
    """``GET /api/rooms/CODE/profiles`` names the profile holding each seat (a guest's, a
    bot's and an open seat are ``null``), ``GET /api/games/ID/profiles`` each seat's of a
    stored game; a profile's id at ``/@/ID`` leads to its name's page."""
    server = make_server(web_dir=Path(blink.__file__).parent / "web")
    ann = new_profile(server, "Ann")
    code = server.post("/api/rooms", {"name": "Ann", "profile_secret": ann["secret"]}).json()[
        "code"
    ]
    assert server.get(f"/api/rooms/{code}/profiles").json()["profiles"] == ["Ann", None]
    tok = server.post(f"/api/rooms/{code}/join", {"name": "Ann"}).json()["token"]
    assert server.get(f"/api/rooms/{code.lower()}/profiles").json() == {
        "room": code,
        "profiles": ["Ann", None],
    }
    played = await _play(server, code, [ann["secret"], tok])
    game = (await asyncio.to_thread(wait_archive, server, "Ann", len(played)))[0]
    assert server.get(f"/api/games/{game['id']}/profiles").json() == {
        "game": game["id"],
        "profiles": ["Ann", None],
        "bot_accounts": [False, False],
    }
    body = {"bot": f"beginner:first{FAST}", "name": "A", "profile_secret": ann["secret"]}
    quick = server.post("/api/quick", body).json()["code"]
    assert server.get(f"/api/rooms/{quick}/profiles").json()["profiles"] == ["Ann", None]
    r = server.get("/api/rooms/ZZZZZZ/profiles")
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_such_room"
    r = server.get("/api/games/999999/profiles")
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_such_game"
    r = httpx.get(f"{server.http}/@/{ann['id']}?vs=Bob", follow_redirects=False)
    assert r.status_code == 302 and r.headers["location"] == "/@/Ann?vs=Bob"
