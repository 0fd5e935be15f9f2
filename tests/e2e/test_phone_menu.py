"""On a phone the top bar has no room for its links: a menu button shows them, by touch or keys."""

from __future__ import annotations

from blinkweb import Server, collect_errors
from playwright.sync_api import Browser, BrowserContext, expect


def test_phone_menu_by_keyboard_and_touch(browser: Browser, server: Server) -> None:
    ctx = browser.new_context(
        viewport={"width": 360, "height": 640}, is_mobile=True, has_touch=True, locale="en-US"
    )
    try:
        page = ctx.new_page()
        errors = collect_errors(page)
        page.goto(server.url + "/")
        expect(page.get_by_role("heading", name="Quick game")).to_be_visible()
        # The wide links are hidden; the menu button replaces them.
        expect(page.locator(".extra-links")).to_be_hidden()
        menu = page.get_by_role("button", name="Menu")
        expect(menu).to_be_visible()
        expect(menu).to_have_attribute("aria-expanded", "false")
        # The colour-letter button is short, but still words, and inside the screen.
        cb = page.locator("#btn-cb")
        expect(cb).to_have_accessible_name("Colour letters")
        expect(cb).to_have_text("Letters", use_inner_text=True)
        box = cb.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360, box
        panel = page.locator("#menu-panel")
        expect(panel).to_be_hidden()
        # By keyboard: Enter opens it on its first link, arrows move, Escape closes it.
        menu.focus()
        page.keyboard.press("Enter")
        expect(menu).to_have_attribute("aria-expanded", "true")
        expect(panel.get_by_role("link", name="Tournaments")).to_be_focused()
        page.keyboard.press("ArrowDown")
        expect(panel.get_by_role("link", name="Leaderboard")).to_be_focused()
        page.keyboard.press("ArrowUp")
        page.keyboard.press("ArrowUp")
        expect(panel.get_by_role("link", name="How to play")).to_be_focused()
        page.keyboard.press("Escape")
        expect(panel).to_be_hidden()
        expect(menu).to_have_attribute("aria-expanded", "false")
        expect(menu).to_be_focused()
        # A tap elsewhere closes it.
        menu.tap()
        expect(panel).to_be_visible()
        page.touchscreen.tap(20, 600)
        expect(panel).to_be_hidden()
        # Every link lies inside the screen, and leads to its page.
        menu.tap()
        for name in ("Tournaments", "Leaderboard", "How to play"):
            box = panel.get_by_role("link", name=name).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360, box
        panel.get_by_role("link", name="How to play").tap()
        expect(page.locator("article.rules")).to_be_visible()
        expect(panel).to_be_hidden()
        menu.tap()
        menu.press("Escape")  # Escape on the button closes it too
        expect(panel).to_be_hidden()
        menu.tap()
        panel.get_by_role("link", name="Leaderboard").tap()
        page.wait_for_url("**/leaderboard.html")
        # In Spanish it says so.
        page.goto(server.url + "/")
        page.select_option("#lang", "es")
        expect(page.get_by_role("button", name="Menú")).to_be_visible()
        expect(cb).to_have_accessible_name("Letras de color")
        expect(cb).to_have_text("Letras", use_inner_text=True)
        assert not errors, errors
    finally:
        ctx.close()


def test_no_menu_on_a_wide_screen(context: BrowserContext, server: Server) -> None:
    page = context.new_page()
    page.goto(server.url + "/")
    expect(page.locator(".extra-links").get_by_role("link", name="Tournaments")).to_be_visible()
    expect(page.locator("#btn-menu")).to_be_hidden()
