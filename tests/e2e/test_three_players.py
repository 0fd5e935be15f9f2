"""Three players: the triangle of piles, with the viewer's two reachable piles in front."""

from __future__ import annotations

import time

from blinkweb import Server, collect_errors, keyboard_step, state
from playwright.sync_api import Browser, expect

from blink.games.classic.engine import reach


def test_triangle_against_two_bots_on_a_phone(browser: Browser, server: Server) -> None:
    ctx = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="en-US"
    )
    try:
        page = ctx.new_page()
        errors = collect_errors(page)
        page.goto(server.url + "/")
        page.select_option("#q-level", "beginner")
        page.locator("#f-quick").get_by_text("3", exact=True).click()
        page.click("#q-play")
        expect(page.locator('.table[data-phase="playing"]')).to_be_visible(timeout=15000)
        seat = 0  # the quick game gives its creator seat 0
        expect(page.locator(".board.p3")).to_be_visible()
        expect(page.locator(".opp")).to_have_count(2)
        # The pile between the two opponents is shown but cannot be played on.
        far = page.locator(".pile.far")
        expect(far).to_have_count(1)
        assert far.evaluate("e => e.tagName") == "DIV"
        piles = sorted(p["pile"] for p in state(page)["piles"])  # type: ignore[index]
        assert piles == sorted(reach(3, seat))
        assert int(far.get_attribute("data-pile") or "-1") not in reach(3, seat)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        # A keyboard play lands on a reachable pile.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not keyboard_step(page):
            page.wait_for_timeout(200)
        assert not errors, errors
    finally:
        ctx.close()
