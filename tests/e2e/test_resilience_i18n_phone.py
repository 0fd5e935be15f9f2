"""Reconnecting in the middle of a game, the Spanish interface and the phone layout."""

from __future__ import annotations

import re
import time
from pathlib import Path

from blinkweb import Server, collect_errors, keyboard_step, matches, state
from playwright.sync_api import Browser, BrowserContext, Page, expect


def start_quick_game(page: Page, server: Server, level: str = "beginner") -> None:
    """From the lobby: a quick game against a slow bot, up to the reveal."""
    page.goto(server.url + "/")
    page.select_option("#q-level", level)
    page.click("#q-play")
    expect(page).to_have_url(re.compile(r"/play/[A-Z0-9]{6}$"))
    expect(page.locator('.table[data-phase="playing"]')).to_be_visible(timeout=15000)


def my_cards(page: Page) -> tuple[list[str], str]:
    """My hand and my draw-pile line, as shown."""
    st = state(page)
    assert st is not None
    return st["hand"], page.locator(".me .mine").inner_text()


def play_until_changed(page: Page, seconds: float = 20) -> None:
    """Make keyboard plays until my hand or draw pile changes."""
    before = my_cards(page)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        keyboard_step(page)
        if page.locator(".end").count() or my_cards(page) != before:
            return
        page.wait_for_timeout(100)
    raise AssertionError("no play was accepted")


def test_reconnect_in_the_middle_of_a_game(context: BrowserContext, server: Server) -> None:
    page = context.new_page()
    errors = collect_errors(page)
    start_quick_game(page, server)
    play_until_changed(page)
    url = page.url
    hand, mine = my_cards(page)

    # Reload the page: the seat token kept by the tab takes the same seat back.
    page.reload()
    expect(page.locator('.table[data-phase="playing"]')).to_be_visible(timeout=15000)
    assert page.url == url
    assert my_cards(page) == (hand, mine)
    play_until_changed(page)

    # Drop the connection under the page: it reconnects by itself and resumes.
    page.evaluate("window.blinkConnection.drop()")
    page.wait_for_function(
        "() => { const c = window.blinkConnection;"
        " return c && c.ws && c.ws.readyState === 1 && c.attempt === 0; }",
        timeout=10000,
    )
    expect(page.locator("#net")).to_contain_text(" ms", timeout=10000)
    expect(page.locator(".banner")).to_have_count(0)
    play_until_changed(page)
    assert not errors, errors


def test_spanish_interface(browser: Browser, server: Server) -> None:
    ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="es-ES")
    try:
        page = ctx.new_page()
        errors = collect_errors(page)
        page.goto(server.url + "/")
        expect(page.locator("html")).to_have_attribute("lang", "es")
        expect(page.get_by_role("heading", name="Partida rápida")).to_be_visible()
        expect(page.get_by_role("heading", name="Partida privada")).to_be_visible()
        expect(page.get_by_role("button", name="Crear partida")).to_be_visible()
        page.get_by_role("button", name="Cómo se juega").click()
        expect(page.get_by_role("img", name="cuatro estrellas amarillas")).to_be_visible()
        expect(page.locator(".rules")).to_contain_text("color, forma o cantidad de símbolos")
        # Switch to English and back; the choice is kept.
        page.select_option("#lang", "en")
        expect(page.get_by_role("img", name="four yellow stars")).to_be_visible()
        page.select_option("#lang", "es")
        expect(page.get_by_role("heading", name="Cómo se juega")).to_be_visible()
        names = page.evaluate(
            """async () => {
              const { cardName } = await import('/js/i18n.js');
              return ['1RL', '1OM', '1BW', '5PF', '2GP', '3YS'].map(cardName);
            }"""
        )
        assert names == [
            "un rayo rojo",
            "una luna naranja",
            "un agua azul",
            "cinco flores moradas",
            "dos pirámides verdes",
            "tres estrellas amarillas",
        ]
        start_quick_game(page, server)
        expect(page.locator(".keyhint")).to_contain_text("Teclas")
        # The glossary's words (docs/i18n.md): a draw pile is a "mazo", a centre pile a "montón".
        expect(page.locator(".keyhint")).to_contain_text("eligen el montón")
        expect(page.locator(".mine")).to_contain_text(re.compile(r"· \d+ en el mazo"))
        expect(page.locator(".counts").first).to_contain_text(re.compile(r"^mano \d+ · mazo \d+"))
        label = page.locator(".hcard .sr-only").first.inner_text()
        assert re.fullmatch(
            r"(una?|dos|tres|cuatro|cinco) (luna|pirámide|estrella|agua|flor|rayo)s?(es)? \w+",
            label,
        ), label
        assert not errors, errors
    finally:
        ctx.close()


def test_phone_layout_by_touch(browser: Browser, server: Server, screenshots: Path) -> None:
    ctx = browser.new_context(
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        locale="en-US",
        reduced_motion="reduce",
    )
    try:
        page = ctx.new_page()
        errors = collect_errors(page)
        page.goto(server.url + "/")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        start_quick_game(page, server)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        # Reduced motion: no transitions or animations.
        motion = page.evaluate(
            "(() => { const s = getComputedStyle(document.querySelector('.hcard'));"
            " return [s.transitionDuration, s.animationName]; })()"
        )
        assert motion == ["0s", "none"], motion
        for sel in (".hcard", "button.pile"):
            for box in (el.bounding_box() for el in page.locator(sel).all()):
                assert box is not None
                assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (sel, box)
                assert box["y"] + box["height"] <= 844, (sel, box)
        # Tap a card, then tap a pile it fits.
        deadline = time.monotonic() + 20
        before = my_cards(page)
        while time.monotonic() < deadline and my_cards(page) == before:
            st = state(page)
            assert st is not None
            fit = next(
                (
                    (slot, p["pile"])
                    for slot, card in enumerate(st["hand"])
                    for p in st["piles"]
                    if st["phase"] == "playing" and p["top"] and matches(card, p["top"])
                ),
                None,
            )
            if fit:
                page.tap(f'.hcard[data-slot="{fit[0]}"]')
                page.tap(f'button.pile[data-pile="{fit[1]}"]')
            page.wait_for_timeout(300)
        assert my_cards(page) != before
        page.screenshot(path=str(screenshots / "phone.png"))
        assert not errors, errors
    finally:
        ctx.close()
