"""The daily challenge page: today's bot and board in both languages, its Play button, which
goes to the table of a room of today's deal as the quick game does, and (on a server whose
wall clock the test moves) yesterday's deal played again and the profile's streak."""

from __future__ import annotations

import re
import time
from pathlib import Path

import httpx
from blinkweb import AppThread, Server, collect_errors, end_buttons_armed, keyboard_step
from playwright.sync_api import Browser, BrowserContext, expect

from blink.server.settings import Settings, sqlite_url


def test_the_daily_page_opens_today_and_plays_it(context: BrowserContext, server: Server) -> None:
    today = server.api("/api/daily")
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/")
    page.locator(".extra-links").get_by_role("link", name="Daily challenge").click()
    page.wait_for_url("**/daily.html")
    expect(page.get_by_role("heading", name="Daily challenge", level=1)).to_be_visible()
    line = page.locator("#today-line")
    expect(line).to_contain_text(str(today["date"]))
    expect(line).to_contain_text("bot")
    expect(page.locator("#yesterday-line")).to_have_text("Nobody played yesterday's challenge.")
    expect(page.locator("#daily-replay")).to_be_hidden()
    page.select_option("#lang", "es")
    expect(page.get_by_role("heading", name="Reto diario", level=1)).to_be_visible()
    expect(page.get_by_role("button", name="Jugar el reparto de hoy")).to_be_visible()
    expect(line).to_contain_text("el rival de hoy es el bot de nivel")
    page.select_option("#lang", "en")
    page.get_by_role("button", name="Play today's deal").click()
    expect(page).to_have_url(re.compile(r"/play/[A-Z0-9]{6}$"))
    expect(page.locator(".table[data-phase]")).to_be_visible(timeout=20000)
    code = page.url.rsplit("/", 1)[1]
    room = server.api(f"/api/rooms/{code}")
    assert room["options"]["daily"] == today["date"] and "deal_seed" not in room["options"]  # type: ignore[index,operator]
    assert not errors, errors


class WallClock:
    """The server's wall clock, moved by the test."""

    def __init__(self, at: float) -> None:
        self.now = at

    def __call__(self) -> float:
        return self.now


def test_yesterday_s_deal_and_the_streak(context: BrowserContext, tmp_path: Path) -> None:
    clock = WallClock(1_796_040_000.0)  # noon, UTC
    settings = Settings(
        database_url=sqlite_url(tmp_path / "daily.db"), countdown=0.3, wall_clock=clock
    )
    server = AppThread(settings)
    try:
        day = httpx.get(f"{server.url}/api/daily", timeout=10).json()["date"]  # drawn
        # Daily ranks need an account: its profile, kept by the browser as a profile is.
        body = {"name": "Ann", "password": "Ann plays blink daily"}
        ann = httpx.post(f"{server.url}/api/accounts", json=body, timeout=10).json()["profile"]
        clock.now += 86_400.0
        page = context.new_page()
        errors = collect_errors(page)
        page.goto(server.url + "/")
        page.evaluate("(p) => localStorage.setItem('blink.profile', JSON.stringify(p))", ann)
        page.goto(server.url + "/daily.html")
        expect(page.locator("#streak")).to_contain_text("Your streak: days won in a row 0, best 0.")
        expect(page.locator("#yesterday-line")).to_contain_text(day)
        expect(page.locator("#yesterday-line")).to_contain_text("The deal's seed")
        expect(page.locator("#yesterday-board tbody")).to_have_text("No finished games yet.")
        page.select_option("#lang", "es")
        expect(page.locator("#streak")).to_contain_text("Tu racha: días ganados seguidos 0")
        page.get_by_role("button", name="Jugar el reparto de ayer").click()
        expect(page).to_have_url(re.compile(r"/play/[A-Z0-9]{6}$"))
        expect(page.locator(".table[data-phase]")).to_be_visible(timeout=20000)
        code = page.url.rsplit("/", 1)[1]
        room = httpx.get(f"{server.url}/api/rooms/{code}", timeout=10).json()
        assert room["options"]["daily"] == day and "daily_profile" not in room["options"]
        assert not errors, errors
    finally:
        server.stop()


def test_a_ranked_game_ends_on_the_board(context: BrowserContext, tmp_path: Path) -> None:
    settings = Settings(
        database_url=sqlite_url(tmp_path / "ranked.db"),
        countdown=0.3,
        stall_pause=0.1,
        daily_bots=("inhuman",),  # a quick game
        reaction_floor_ms=0,  # the browser is driven faster than a person: still ranked
    )
    server = AppThread(settings)
    try:
        # Daily ranks need an account: its profile, kept by the browser as a profile is.
        body = {"name": "Ann", "password": "Ann plays blink daily"}
        ann = httpx.post(f"{server.url}/api/accounts", json=body, timeout=10).json()["profile"]
        page = context.new_page()
        errors = collect_errors(page)
        page.goto(server.url + "/daily.html")
        page.evaluate("(p) => localStorage.setItem('blink.profile', JSON.stringify(p))", ann)
        page.reload()
        expect(page.locator("#streak")).to_contain_text("You play as Ann")
        page.get_by_role("button", name="Play today's deal").click()
        race = page.locator('.table[data-phase="playing"], .end').first
        expect(race).to_be_visible(timeout=15000)
        deadline = time.monotonic() + 300  # generous: the loop ends at the end screen
        while time.monotonic() < deadline and not page.locator(".end").count():
            keyboard_step(page)
        end_buttons_armed(page)
        page.locator("#to-daily").click()
        page.wait_for_url("**/daily.html")
        row = page.locator("#today-board tbody tr", has_text="Ann")
        expect(row).to_have_count(1, timeout=10000)
        expect(row.locator("td").nth(1)).to_have_text(re.compile("Won|Lost"))
        expect(row).to_have_class("me")
        # The attempt is spent (the profile is on the board): Play offers a guest game.
        guest = page.get_by_role("button", name="Play as a guest (unranked)")
        expect(guest).to_be_visible()
        guest.click()
        expect(page).to_have_url(re.compile(r"/play/[A-Z0-9]{6}$"))
        code = page.url.rsplit("/", 1)[1]
        room = httpx.get(f"{server.url}/api/rooms/{code}", timeout=10).json()
        assert "daily_profile" not in room["options"]  # unranked
        assert not errors, errors
    finally:
        server.stop()


def test_between_phone_and_wide_screen_the_links_are_in_the_menu(
    browser: Browser, server: Server
) -> None:
    """With three links the top bar would wrap on a tablet's width: they go in the menu."""
    for width in (600, 850):
        ctx = browser.new_context(viewport={"width": width, "height": 700}, locale="es-ES")
        try:
            page = ctx.new_page()
            page.goto(server.url + "/daily.html")
            expect(page.locator(".topbar nav.extra-links")).to_be_hidden()
            box = page.locator(".topbar").bounding_box()
            assert box is not None and box["height"] < 60, (width, box)
            page.get_by_role("button", name="Menú").click()
            link = page.locator("#menu-panel").get_by_role("link", name="Reto diario")
            expect(link).to_have_attribute("aria-current", "page")
        finally:
            ctx.close()
    ctx = browser.new_context(viewport={"width": 900, "height": 700}, locale="es-ES")
    try:
        page = ctx.new_page()
        page.goto(server.url + "/daily.html")
        expect(page.locator(".topbar nav.extra-links a")).to_have_text(
            ["Torneos", "Clasificación", "Reto diario"]
        )
        box = page.locator(".topbar").bounding_box()
        assert box is not None and box["height"] < 60, box
    finally:
        ctx.close()
