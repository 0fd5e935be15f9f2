"""What the browser says when something is not there: an unknown address gets a page (the API
keeps its JSON), the site has an icon, a replay's title names its players, and a spectator who
never touches the page gets no sound and no warning about one."""

from __future__ import annotations

import httpx
from blinkweb import Server, collect_errors
from playwright.sync_api import Browser, BrowserContext, expect

from blink.games.classic.record import GameRecord
from randomgames import random_game

# Counts every AudioContext the page makes, before any of its scripts run.
COUNT_AUDIO = """(() => {
  window.audioContexts = 0;
  for (const name of ['AudioContext', 'webkitAudioContext']) {
    const AC = window[name];
    if (!AC) continue;
    window[name] = class extends AC { constructor(...a) { super(...a); window.audioContexts++; } };
  }
})();"""


def test_unknown_address_shows_a_page(browser: Browser, server: Server) -> None:
    for locale, heading, sentence in (
        ("en-US", "Page not found", "Check the link, or start from the lobby."),
        ("es-ES", "Página no encontrada", "Revisa el enlace o empieza desde la sala."),
    ):
        ctx = browser.new_context(locale=locale)
        try:
            page = ctx.new_page()
            errors = collect_errors(page)
            answer = page.goto(server.url + "/no/such/page")
            assert answer is not None and answer.status == 404
            assert answer.headers["content-type"].startswith("text/html")
            expect(page.get_by_role("heading", name=heading)).to_be_visible()
            expect(page.locator("main")).to_contain_text(sentence)
            page.locator("main a").click()
            page.wait_for_url(server.url + "/")
            expect(page.locator("#f-quick")).to_be_visible()
            assert not [e for e in errors if "404" not in e], errors
        finally:
            ctx.close()
    # The API's unknown paths keep answering JSON, even to a browser.
    r = httpx.get(server.url + "/api/no-such-thing", headers={"accept": "text/html,*/*"})
    assert r.status_code == 404
    assert r.json()["error"]["code"] == "not_found"
    r = httpx.get(server.url + "/no/such/page", headers={"accept": "application/json"})
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"


def test_the_site_has_an_icon(context: BrowserContext, server: Server) -> None:
    page = context.new_page()
    missing: list[str] = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    for path in ("/", "/tournament.html", "/leaderboard.html", "/daily.html"):
        page.goto(server.url + path)
        href = page.locator("link[rel=icon]").get_attribute("href")
        assert href == "/favicon.svg", (path, href)
    got = page.evaluate(
        "async () => { const r = await fetch('/favicon.ico');"
        " return [r.status, r.headers.get('content-type'), (await r.text()).slice(0, 4)]; }"
    )
    assert got[0] == 200 and got[1].startswith("image/svg+xml") and got[2] == "<svg", got
    assert not missing, missing


def test_a_spectator_who_never_clicks_makes_no_sound(browser: Browser, server: Server) -> None:
    # Two bots play each other (a person who never plays could hold a choosing stall, and the
    # plays with it, for as long as the deal makes them wait), in a series of three games, so
    # that plays still come after the watcher's click.
    made = server.api(
        "/api/rooms",
        {
            "players": 2,
            "seats": ["skilled:first", "skilled:first"],
            "best_of": 3,
            "public": False,
            "take_seat": None,
        },
    )
    code = str(made["code"])
    watcher = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    try:
        watcher.add_init_script(COUNT_AUDIO)
        spy = watcher.new_page()
        warnings: list[str] = []
        spy.on("console", lambda m: warnings.append(m.text) if "AudioContext" in m.text else None)
        errors = collect_errors(spy)
        spy.goto(f"{server.url}/watch/{code}")
        expect(spy.locator(".tablebar")).to_contain_text("Watching", timeout=10000)
        # The bots' plays (each a sound) come to a watcher who has not clicked.
        spy.wait_for_function(
            "() => window.blinkConnection && window.blinkConnection.seq >= 6", timeout=60000
        )
        assert spy.evaluate("window.audioContexts") == 0
        assert not warnings, warnings
        # After a click the page may sound: the next play makes the context.
        spy.locator(".tablebar").click()
        spy.wait_for_function("() => window.audioContexts > 0", timeout=30000)
        assert not errors, errors
    finally:
        watcher.close()


def test_replay_title_names_players_and_game(context: BrowserContext, server: Server) -> None:
    game = random_game(5)
    names = ["Ana", "Ben", "Cy"][: game.players]
    record = GameRecord.from_game(game, names=names)
    page = context.new_page()
    page.goto(server.url + "/#replay")
    page.set_input_files(
        "#rp-file",
        files=[
            {"name": "ab.json", "mimeType": "application/json", "buffer": record.to_json().encode()}
        ],
    )
    title = f"Blink · Replay · ab.json · {' vs '.join(names)}"
    expect(page.locator("#rp-title")).to_have_text(title)
    expect(page).to_have_title(title)
    page.select_option("#lang", "es")
    page.set_input_files(
        "#rp-file",
        files=[
            {"name": "ab.json", "mimeType": "application/json", "buffer": record.to_json().encode()}
        ],
    )
    expect(page.locator("#rp-title")).to_have_text(
        f"Blink · Repetición · ab.json · {' contra '.join(names)}"
    )
