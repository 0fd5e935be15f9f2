"""The tournament pages name each tournament's game, in headless Chromium against the real app
(in a thread, with the tests' own High Card registered in-process as
tests/server/test_generic_room.py does): the new-tournament form offers a choice of game when
the server has more than one, a tournament made with it is of that game, and the list and the
tournament's page show the game by its title in the reader's language."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from axe import describe, violations
from blinkweb import AppThread, collect_errors
from highcard import HIGH_CARD, HIGH_CARD_GAME
from playwright.sync_api import Browser, expect

from blink.model.registry import register, unregister
from blink.server.settings import Settings, sqlite_url

pytestmark = pytest.mark.timeout(170)
TIMEOUT = 20_000


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppThread]:
    """The real app in a thread, with High Card registered (a game it never heard of)."""
    register(HIGH_CARD_GAME)
    try:
        tmp = tmp_path_factory.mktemp("e2e-tgames")
        settings = Settings(database_url=sqlite_url(tmp / "t.db"), countdown=0.05, warm_bots=False)
        s = AppThread(settings)
        try:
            yield s
        finally:
            s.stop()
    finally:
        unregister(HIGH_CARD.info.name)


def test_the_form_offers_the_games_and_the_pages_name_them(
    app: AppThread, browser: Browser
) -> None:
    # bypass_csp: axe-core's script is let in (the server allows only its own scripts).
    ctx = browser.new_context(
        viewport={"width": 1200, "height": 800}, locale="en-US", bypass_csp=True
    )
    page = ctx.new_page()
    errors = collect_errors(page)
    page.goto(f"{app.url}/tournament.html")
    choice = page.get_by_label("Game")
    expect(choice).to_be_visible(timeout=TIMEOUT)
    found = violations(page)  # the form with its choice of game passes axe-core's checks
    assert not found, describe(found)
    options = choice.locator("option")
    expect(options).to_have_text(["Classic Blink", "Go Blink", "High Card"])
    page.locator('#create input[name="name"]').fill("Card night")
    choice.select_option("highcard")
    page.locator('#create button[type="submit"]').click()
    state = page.locator("#tstate")
    expect(state).to_have_attribute("data-game", "highcard", timeout=TIMEOUT)
    expect(state).to_contain_text("High Card · Online")
    tid = page.url.split("id=")[1]
    made = httpx.get(f"{app.url}/api/tournaments/{tid}", timeout=10).json()
    assert made["game"] == "highcard" and made["handicaps"] is False
    assert errors == []
    ctx.close()

    # In Spanish: a classic tournament is named by classic's Spanish title, in the list too.
    classic = httpx.post(
        f"{app.url}/api/tournaments", json={"name": "Copa clásica"}, timeout=10
    ).json()
    ctx = browser.new_context(viewport={"width": 390, "height": 800}, locale="es-ES")
    page = ctx.new_page()
    page.goto(f"{app.url}/tournament.html?id={classic['id']}")
    expect(page.locator("#tstate")).to_contain_text("Blink clásico · En línea", timeout=TIMEOUT)
    page.goto(f"{app.url}/tournament.html")
    expect(page.get_by_label("Juego")).to_be_visible(timeout=TIMEOUT)
    listed = page.locator("#tlist li", has_text="Copa clásica").locator(".meta")
    expect(listed).to_contain_text("Blink clásico")
    expect(page.locator("#tlist li", has_text="Card night").locator(".meta")).to_contain_text(
        "Carta alta"  # the game's own Spanish title
    )
    ctx.close()
