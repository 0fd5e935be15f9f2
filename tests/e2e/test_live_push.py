"""The live pages are pushed, not polled: the live bracket, the lobby's list of live games and
the leaderboard follow the server's event streams (EventSource), make no polling requests,
and say when their stream is down."""

from __future__ import annotations

import re

from blinkweb import Server, collect_errors
from playwright.sync_api import BrowserContext, Request, expect

TIMEOUT = 20_000


def test_the_live_bracket_updates_without_polling(server: Server, context: BrowserContext) -> None:
    two = [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}]
    made = server.api("/api/tournaments", {"name": "Pushed", "kind": "cards", "players": two})
    tid, secret = str(made["id"]), str(made["organiser_secret"])
    page = context.new_page()
    errors = collect_errors(page)
    requests: list[str] = []

    def seen(r: Request) -> None:
        if "/api/" in r.url:
            requests.append(r.url)

    page.on("request", seen)
    page.goto(f"{server.url}/tournament.html?id={tid}")
    expect(page.locator("#tstate")).to_have_attribute("data-status", "signup", timeout=TIMEOUT)
    expect(page.locator("#tstatus")).to_have_text("live", timeout=TIMEOUT)
    server.api(f"/api/tournaments/{tid}/draw", {"organiser_secret": secret, "seed": 4})
    expect(page.locator("#bracket")).to_be_visible(timeout=TIMEOUT)
    state = server.api(f"/api/tournaments/{tid}")
    for _ in range(20):
        if state["status"] == "finished":
            break
        open_ = [
            m
            for m in state["tournament"]["matches"]  # type: ignore[index]
            if m["status"] in ("ready", "playing")
        ]
        m = open_[0]
        state = server.api(
            f"/api/tournaments/{tid}/result",
            {"organiser_secret": secret, "match": m["id"], "winners": [m["players"][0]]},
        )
        version = str(state["version"])
        expect(page.locator("#tstate")).to_have_attribute("data-version", version, timeout=TIMEOUT)
    expect(page.locator("#tstate")).to_have_attribute("data-status", "finished", timeout=TIMEOUT)
    # One event stream, and not a single request for the state (the long polling is gone).
    state_url = re.compile(rf"/api/tournaments/{tid}(\?.*)?$")
    assert [u for u in requests if state_url.search(u)] == []
    assert [u for u in requests if u.endswith(f"/api/tournaments/{tid}/events")]
    assert errors == []


def test_the_lobby_shows_a_new_room_without_polling(
    server: Server, context: BrowserContext
) -> None:
    page = context.new_page()
    errors = collect_errors(page)
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if "/api/rooms" in r.url else None)
    with page.expect_request("**/api/rooms/events", timeout=TIMEOUT):
        page.goto(server.url + "/")
    expect(page.locator("#l-live")).to_be_visible(timeout=TIMEOUT)
    made = server.api("/api/rooms", {"players": 2, "public": True, "name": "Host"})
    code = str(made["code"])
    row = page.locator(f'#l-live li[data-room="{code}"]')
    expect(row).to_be_visible(timeout=TIMEOUT)
    expect(row.locator("a.primary")).to_have_count(1)  # a seat is open: "Join"
    server.api(f"/api/rooms/{code}/join", {"name": "Guest"})
    expect(row).to_contain_text("Guest", timeout=TIMEOUT)
    expect(row.locator("a.primary")).to_have_count(0)
    assert [u for u in requests if u.endswith("/api/rooms")] == []  # no polling
    assert errors == []


def test_the_leaderboard_follows_and_says_when_it_is_disconnected(
    server: Server, context: BrowserContext
) -> None:
    page = context.new_page()
    page.goto(f"{server.url}/leaderboard.html")
    expect(page.locator("#lstatus")).to_have_text("live", timeout=TIMEOUT)
    server.api("/api/profiles", {"name": "Pushy"})
    expect(page.locator("#board tbody tr", has_text="Pushy")).to_have_count(1, timeout=TIMEOUT)

    # A page whose stream cannot connect says so (and keeps trying).
    down = context.browser.new_context()  # type: ignore[union-attr]
    try:
        # Any ladder's stream (the page asks for /api/leaderboard/events?ladder=...).
        down.route(re.compile(r"/api/leaderboard/events\b"), lambda route: route.abort())
        p = down.new_page()
        p.goto(f"{server.url}/leaderboard.html")
        expect(p.locator("#lstatus")).to_contain_text("disconnected", timeout=TIMEOUT)
    finally:
        down.close()
