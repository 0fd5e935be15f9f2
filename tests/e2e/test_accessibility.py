"""Every page of the browser client passes axe-core's checks (WCAG 2.2 A and AA, and axe's best
practices) with no serious or critical violation, in both languages and both colour themes
where the page has them (a finished game's study too)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from axe import describe, violations
from blinkweb import Server, finished_game
from playwright.sync_api import Browser, BrowserContext, Page, expect


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """A fresh browser profile on a desktop screen that lets the checker's script in (the
    server's Content-Security-Policy allows only its own scripts)."""
    ctx = browser.new_context(
        viewport={"width": 1200, "height": 800}, locale="en-US", bypass_csp=True
    )
    yield ctx
    ctx.close()


def check(page: Page) -> None:
    found = violations(page)
    assert not found, describe(found)


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_lobby(context: BrowserContext, server: Server, locale: str) -> None:
    page = context.new_page()
    # The page's language is the browser's, or the one chosen before (kept in localStorage).
    page.add_init_script(f"localStorage.setItem('blink.lang', '{locale[:2]}')")
    page.goto(server.url + "/")
    expect(page.locator("html")).to_have_attribute("lang", locale[:2])
    expect(page.locator("#q-play")).to_be_enabled(timeout=15000)
    check(page)


def test_how_to_play_and_replay(context: BrowserContext, server: Server) -> None:
    page = context.new_page()
    page.goto(server.url + "/#rules")
    page.wait_for_load_state("networkidle")
    check(page)
    page.goto(server.url + "/#replay")
    page.wait_for_load_state("networkidle")
    check(page)


def test_not_found_page(context: BrowserContext, server: Server) -> None:
    page = context.new_page()
    page.goto(server.url + "/no/such/page")
    check(page)


def test_classic_table_while_playing(context: BrowserContext, server: Server) -> None:
    page = context.new_page()
    page.goto(server.url + "/")
    expect(page.locator("#q-play")).to_be_enabled(timeout=15000)
    page.click("#q-play")
    page.wait_for_url("**/play/*")
    expect(page.locator(".table[data-phase]")).to_be_visible(timeout=20000)
    check(page)


def test_watching_a_game(context: BrowserContext, server: Server) -> None:
    bots = ["beginner:first", "beginner:first"]
    code = server.api("/api/rooms", {"players": 2, "seats": bots, "take_seat": None})["code"]
    page = context.new_page()
    page.goto(server.url + f"/watch/{code}")
    expect(page.locator(".table[data-phase]")).to_be_visible(timeout=20000)
    check(page)


def test_tournament_and_leaderboard_pages(context: BrowserContext, server: Server) -> None:
    made = server.api("/api/tournaments", {"name": "Club", "kind": "cards"})
    page = context.new_page()
    page.goto(server.url + f"/tournament.html?id={made['id']}")
    page.wait_for_load_state("networkidle")
    check(page)
    page.goto(server.url + "/leaderboard.html")
    page.wait_for_load_state("networkidle")
    check(page)


def test_go_blink_table(context: BrowserContext, server: Server) -> None:
    page = context.new_page()
    page.goto(server.url + "/")
    play = page.locator("#go-play")
    expect(play).to_be_enabled(timeout=15000)
    play.click()
    expect(page.locator(".go-table[data-phase]")).to_be_visible(timeout=20000)
    check(page)


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_study_of_a_finished_game(context: BrowserContext, server: Server, locale: str) -> None:
    game = finished_game(server)
    page = context.new_page()
    page.add_init_script(f"localStorage.setItem('blink.lang', '{locale[:2]}')")
    page.goto(server.url + f"/#study=/api/games/{game}/record")
    expect(page.locator("#st-moves li").first).to_be_visible(timeout=20000)
    check(page)
