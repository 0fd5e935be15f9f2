"""A player's page (/@/NAME) in headless Chromium against a real `blink serve`: a player who
played rated games has a rating chart (with its description and table) and the games, whose
replay links open the replay viewer, in English and Spanish, with no accessibility violation;
"More games" pages through the archive; the head-to-head form and ?vs=NAME show the counts; an
unknown name gets the not-found page (status 404) in the visitor's language; the names of
profiles on the leaderboard, a room's table and a replay lead to their pages."""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from axe import describe, violations
from blinkweb import Server, collect_errors
from playwright.sync_api import Browser, BrowserContext, Page, expect
from tests.server.srvkit import Client, play_series

from blink.server.profiles import BOT_GAMES_RATED, PAIR_GAMES_RATED

TIMEOUT = 30_000
PIA, VIC = "Pia Page", "Vic Versus"


def _play(server: Server, code: str, secrets: list[str]) -> int:
    """The seats' players, as WebSocket client bots, play room ``code``'s series to its end (a
    tied game is followed by another); how many games they played."""
    ws = server.url.replace("http://", "ws://") + "/ws"
    played: list[dict[str, Any]] = []

    async def run() -> None:
        clients = [
            await Client(f"P{i}").connect(ws, room=code, token=s) for i, s in enumerate(secrets)
        ]
        played.extend(await asyncio.wait_for(play_series(clients), 120))
        for c in clients:
            await c.close()

    failure: list[BaseException] = []

    def thread() -> None:
        try:
            asyncio.run(run())
        except BaseException as exc:  # handed to the test's thread
            failure.append(exc)

    th = threading.Thread(target=thread)
    th.start()
    th.join(300)
    assert not th.is_alive() and not failure, failure
    return len(played)


def _archived(server: Server, name: str, n: int) -> list[Any]:
    deadline = time.monotonic() + 60
    while True:
        games = server.api(f"/api/profiles/{quote(name)}/games?limit=100")["games"]
        assert isinstance(games, list)
        if len(games) >= n:
            return games
        assert time.monotonic() < deadline, f"{name} has {len(games)} games archived"
        time.sleep(0.1)


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """A fresh browser profile in English on a desktop screen; bypass_csp: the accessibility
    checker's script is let in (the server allows only its own)."""
    ctx = browser.new_context(
        viewport={"width": 1200, "height": 800}, locale="en-US", bypass_csp=True
    )
    yield ctx
    ctx.close()


@pytest.fixture
def spanish(browser: Browser) -> Iterator[BrowserContext]:
    """The same, for a visitor who reads Spanish."""
    ctx = browser.new_context(
        viewport={"width": 1200, "height": 800}, locale="es-ES", bypass_csp=True
    )
    yield ctx
    ctx.close()


@pytest.fixture(scope="module")
def played(server: Server) -> dict[str, Any]:
    """Pia plays two rated public series against Vic and a rated quick series against a bot
    (a private room: listed without a replay), a game each, or more when a game is tied:
    ``versus`` and ``quick`` count them, ``total`` is every game."""
    pia = server.api("/api/profiles", {"name": PIA})
    vic = server.api("/api/profiles", {"name": VIC})
    versus = 0
    for _ in range(2):
        code = server.api("/api/rooms", {"name": PIA, "profile_secret": pia["secret"]})["code"]
        assert isinstance(code, str)
        server.api(f"/api/rooms/{code}/join", {"name": VIC, "profile_secret": vic["secret"]})
        versus += _play(server, code, [str(pia["secret"]), str(vic["secret"])])
    quick = {"bot": "beginner:first@40", "name": PIA, "profile_secret": pia["secret"]}
    code = server.api("/api/quick", quick)["code"]
    assert isinstance(code, str)
    quick_games = _play(server, code, [str(pia["secret"])])
    total = versus + quick_games
    assert len(_archived(server, PIA, total)) == total
    # The rating job runs after the archive's: wait for every rated game (each day's cap of
    # games against one opponent leaves any more unrated).
    rated = min(versus, PAIR_GAMES_RATED) + min(quick_games, BOT_GAMES_RATED)
    deadline = time.monotonic() + 60
    while server.api(f"/api/profiles/{pia['id']}")["games"] != rated:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    return {
        "pia": pia,
        "vic": vic,
        "games": _archived(server, PIA, total),
        "versus": versus,
        "quick": quick_games,
        "total": total,
        "rated": rated,
    }


def one(x: float) -> str:
    """A rating as the page shows it: one decimal, rounded half up, never "-0.0", a true minus."""
    return f"{math.floor(x * 10 + 0.5) / 10 + 0.0:.1f}".replace("-", "−")


def signed(x: float) -> str:
    """A rating change as the page shows it: "+1.2", "−0.8", "0.0"."""
    text = one(x)
    return "+" + text if math.floor(x * 10 + 0.5) > 0 else text


def _open(context: BrowserContext, url: str) -> tuple[Page, list[str]]:
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(url)
    return page, errors


def test_the_page_of_a_rated_player(
    server: Server, context: BrowserContext, played: dict[str, Any], screenshots: Path
) -> None:
    page, errors = _open(context, f"{server.url}/@/{quote(PIA)}")
    expect(page.locator("#pl-name")).to_contain_text(PIA, timeout=TIMEOUT)
    expect(page).to_have_title(f"{PIA} · Blink")
    figures = server.api(f"/api/profiles/{quote(PIA)}/figures")
    total, versus, quick = played["total"], played["versus"], played["quick"]
    points = figures["rating_history"]
    assert isinstance(points, list) and len(points) == played["rated"] + 1
    # The chart: a line through the points (the start, then each rated game), named and
    # described for screen readers.
    chart = page.locator("svg.pl-chart")
    expect(chart).to_be_visible()
    expect(chart).to_have_attribute("role", "img")
    expect(chart.locator("title#pl-chart-title")).to_have_text(
        f"{PIA}'s rating after each rated game"
    )
    expect(chart.locator("circle.dot")).to_have_count(played["rated"] + 1)
    expect(chart.locator("desc")).to_contain_text(f"to {one(points[-1]['ordinal'])} over")
    expect(page.locator("#pl-games-table a.replay")).to_have_count(versus)
    page.screenshot(path=str(screenshots / "player.png"))
    # The same figures as a table.
    page.click(".pl-chart-table summary")
    expect(page.locator(".pl-chart-table tbody tr")).to_have_count(played["rated"] + 1)
    expect(page.locator(".pl-chart-table tbody tr").first.locator("th")).to_have_text("Start")
    # Games by kind: every game classic, of two players, as the figures say.
    (kind,) = figures["by_kind"]
    row = page.locator('#pl-kinds-table tr[data-kind="classic"][data-players="2"]')
    expect(row.locator(".played")).to_have_text(str(total))
    expect(row.locator(".won")).to_have_text(str(kind["won"]))
    # The games, newest first: the quick game's private room has no replay; the others do,
    # and their opponent's name links to Vic's page.
    rows = page.locator("#pl-games-table tbody tr")
    expect(rows).to_have_count(total)
    for i in range(quick):
        expect(rows.nth(i)).to_contain_text("Private room")
    expect(rows.nth(quick).locator(f'a.player-link[href="/@/{quote(VIC)}"]')).to_have_text(VIC)
    replays = page.locator("#pl-games-table a.replay")
    expect(replays).to_have_count(versus)
    for g, r in zip(played["games"], [rows.nth(i) for i in range(total)], strict=True):
        assert r.get_attribute("data-game") == str(g["id"])
        change = signed(g["rating"]["delta"]) if g["rating"] else "Unrated"
        expect(r.locator(".change")).to_have_text(change)
    found = violations(page)
    assert not found, describe(found)
    # Spanish: the same page in the other language.
    page.select_option("#lang", "es")
    expect(page.locator("#pl-rating-title")).to_have_text("Historial de puntuación")
    expect(chart.locator("title#pl-chart-title")).to_have_text(
        f"Puntuación de {PIA} tras cada partida puntuada"
    )
    expect(rows.nth(0)).to_contain_text("Sala privada")
    expect(replays.first).to_have_text("Repetición")
    found = violations(page)
    assert not found, describe(found)
    assert errors == [], errors


def test_a_replay_link_plays_the_game_back(
    server: Server, context: BrowserContext, played: dict[str, Any]
) -> None:
    page, errors = _open(context, f"{server.url}/@/{quote(PIA)}")
    link = page.locator("#pl-games-table a.replay").first
    expect(link).to_be_visible(timeout=TIMEOUT)
    href = link.get_attribute("href")
    assert href is not None and href.startswith("/#replay=")
    g = played["games"][played["quick"]]  # the newest game against Vic
    assert href == g["replay_url"]
    r = httpx.get(server.url + str(g["record_url"]), timeout=10)
    assert r.status_code == 200
    link.click()
    expect(page.locator("#rp-title")).to_contain_text(f"#{g['id']}", timeout=TIMEOUT)
    expect(page.locator("#rp-step")).to_contain_text("Step 0 of ")
    # The replay's seats: both are profiles', so both names lead to their pages.
    seats = page.locator(".rp-seat .name a.player-link")
    expect(seats).to_have_count(2)
    expect(seats.nth(1)).to_have_attribute("href", f"/@/{quote(VIC)}")
    assert errors == [], errors


def test_more_games_pages_through_the_archive(
    server: Server, context: BrowserContext, played: dict[str, Any]
) -> None:
    page, errors = _open(context, f"{server.url}/@/{quote(PIA)}?per=2")
    rows = page.locator("#pl-games-table tbody tr")
    expect(rows).to_have_count(2, timeout=TIMEOUT)
    more = page.locator("#pl-more")
    shown = 2
    while shown < played["total"]:
        expect(more).to_be_visible()
        more.click()
        shown = min(shown + 2, played["total"])
        expect(rows).to_have_count(shown)
    expect(more).to_be_hidden()
    ids = [r.get_attribute("data-game") for r in rows.all()]
    assert ids == [str(g["id"]) for g in played["games"]]
    assert errors == [], errors


def test_head_to_head_shows_the_counts(
    server: Server, context: BrowserContext, spanish: BrowserContext, played: dict[str, Any]
) -> None:
    v = server.api(f"/api/profiles/{quote(PIA)}/versus/{quote(VIC)}")
    games = str(played["versus"])
    assert v["games"] == played["versus"]
    page, errors = _open(context, f"{server.url}/@/{quote(PIA)}")
    expect(page.locator("#pl-name")).to_contain_text(PIA, timeout=TIMEOUT)
    page.fill("#pl-vs", "vic versus")  # names compare as names do
    page.click("#pl-versus-form button[type=submit]")
    box = page.locator("#pl-versus-result")
    expect(box.locator("dd.games")).to_have_text(games, timeout=TIMEOUT)
    expect(box.locator("dd.won")).to_have_text(str(v["won"]))
    expect(box.locator("dd.lost")).to_have_text(str(v["lost"]))
    expect(box.locator("dd.tied")).to_have_text(str(v["tied"]))
    expect(box.locator("tbody tr")).to_have_count(len(v["recent"]))
    assert len(v["recent"]) == min(played["versus"], 10)
    assert "vs=vic+versus" in page.url
    # An unknown opponent: the refusal in words.
    page.fill("#pl-vs", "Nobody Here")
    page.click("#pl-versus-form button[type=submit]")
    expect(page.locator("#pl-versus-error")).to_have_text("There is no player by that name.")
    # ?vs=NAME opens the page with the comparison made, in Spanish too.
    p2, errors2 = _open(spanish, f"{server.url}/@/{quote(VIC)}?vs={quote(PIA)}")
    box = p2.locator("#pl-versus-result")
    expect(box.locator("dd.games")).to_have_text(games, timeout=TIMEOUT)
    expect(box.locator("dd.won")).to_have_text(str(v["lost"]))
    expect(p2.locator("#pl-versus-title")).to_have_text("Cara a cara")
    expect(box.locator("dt").first).to_have_text("Partidas")
    assert errors2 == [], errors2
    # The refused comparison's 404 is the one console line the first page may have.
    assert all("404" in e for e in errors), errors


def test_an_unknown_player_gets_the_not_found_page(
    server: Server, context: BrowserContext, spanish: BrowserContext
) -> None:
    for ctx, heading, words in (
        (context, "Page not found", "There is no player called “Nobody Here”."),
        (spanish, "Página no encontrada", "No hay ningún jugador llamado «Nobody Here»."),
    ):
        page = ctx.new_page()
        errors = collect_errors(page)
        r = page.goto(f"{server.url}/@/{quote('Nobody Here')}")
        assert r is not None and r.status == 404
        assert r.headers["content-type"].startswith("text/html")
        expect(page.get_by_role("heading", name=heading)).to_be_visible()
        expect(page.locator("main")).to_contain_text(words)
        found = violations(page)
        assert not found, describe(found)
        # The document's own 404 is the one console line.
        assert all("404" in e for e in errors), errors


def test_a_leaderboard_name_leads_to_the_page(
    server: Server, context: BrowserContext, played: dict[str, Any]
) -> None:
    page, errors = _open(context, f"{server.url}/leaderboard.html")
    link = page.locator(f'#board a.player-link[href="/@/{quote(PIA)}"]')
    expect(link).to_have_text(PIA, timeout=TIMEOUT)
    link.click()
    expect(page.locator("#pl-name")).to_contain_text(PIA, timeout=TIMEOUT)
    expect(page.locator("svg.pl-chart")).to_be_visible()
    assert errors == [], errors


def test_a_room_names_its_profiles_with_links(
    server: Server, context: BrowserContext, played: dict[str, Any]
) -> None:
    """The room's table names a profile's seat with a link to its page (a new tab: the game
    goes on), a guest's as text."""
    pia = played["pia"]
    code = server.api("/api/rooms", {"name": PIA, "profile_secret": pia["secret"]})["code"]
    server.api(f"/api/rooms/{code}/join", {"name": "Guest Gus"})
    page, errors = _open(context, f"{server.url}/watch/{code}")
    link = page.locator(f'.waiting a.player-link[href="/@/{quote(PIA)}"]')
    expect(link).to_have_text(PIA, timeout=TIMEOUT)
    expect(link).to_have_attribute("target", "_blank")
    expect(page.locator(".waiting li", has_text="Guest Gus").locator("a")).to_have_count(0)
    assert errors == [], errors


def test_a_tournaments_profiles_lead_to_their_pages(
    server: Server, context: BrowserContext, played: dict[str, Any]
) -> None:
    """A tournament's players entered with a profile link to their pages, in its list of
    players and in its bracket (by the profile's id, which leads to the name's page); a
    player entered by name does not; the player's page lists the tournament."""
    made = server.api("/api/tournaments", {"name": "Link cup", "kind": "online"})
    tid, secret = str(made["id"]), str(made["organiser_secret"])
    for who in (played["pia"], played["vic"]):
        server.api(f"/api/tournaments/{tid}/join", {"profile_secret": who["secret"]})
    server.api(f"/api/tournaments/{tid}/players", {"organiser_secret": secret, "name": "Wes"})
    server.api(f"/api/tournaments/{tid}/start", {"organiser_secret": secret, "seed": 3})
    page, errors = _open(context, f"{server.url}/tournament.html?id={tid}")
    pia = f"/@/{played['pia']['id']}"
    expect(page.locator(f'#players li[data-player="{PIA}"] a.player-link')).to_have_attribute(
        "href", pia, timeout=TIMEOUT
    )
    expect(page.locator('#players li[data-player="Wes"] a')).to_have_count(0)
    bracket = page.locator(f'#bracket .pname a.player-link[href="{pia}"]')
    expect(bracket.first).to_have_text(PIA)
    expect(page.locator("#bracket .pname a", has_text="Wes")).to_have_count(0)
    bracket.first.click()
    page.wait_for_url(f"**/@/{quote(PIA)}", timeout=TIMEOUT)
    expect(page.locator("#pl-tours-list a", has_text="Link cup")).to_have_attribute(
        "href", f"/tournament.html?id={tid}", timeout=TIMEOUT
    )
    assert errors == [], errors
