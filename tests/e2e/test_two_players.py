"""Two browser contexts play each other through a shared link, by keyboard and by mouse."""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import Browser, Page, expect
from webkit import collect_errors, keyboard_step, matches, state

from conftest import Server


def test_two_players_through_a_shared_link(
    browser: Browser, server: Server, screenshots: Path
) -> None:
    ann_ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    bob_ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    try:
        ann = ann_ctx.new_page()
        bob = bob_ctx.new_page()
        errors = collect_errors(ann) + collect_errors(bob)
        ann.goto(server.url + "/")
        ann.fill("#q-name", "Ann")
        ann.click("#p-create")
        link = ann.locator("#share-link")
        expect(link).to_be_visible()
        url = link.input_value()
        code = ann.locator(".share .code").inner_text().strip()
        assert url.endswith(f"/play/{code}")

        bob.goto(url)
        # Both tables appear, the countdown runs, the cards are revealed.
        for page in (ann, bob):
            expect(page.locator('.table[data-phase="playing"]')).to_be_visible(timeout=15000)

        # Ann plays by keyboard, Bob with the mouse (click a card, then a pile).
        deadline = time.monotonic() + 90
        shot = False
        ann_plays = 0
        while time.monotonic() < deadline:
            if ann.locator(".end").count() and bob.locator(".end").count():
                break
            played = keyboard_step(ann)
            if played:
                ann_plays += 1
            if ann_plays == 8 and not shot:
                ann.wait_for_timeout(400)  # let the landing animation finish
                ann.screenshot(path=str(screenshots / "table.png"))
                shot = True
            if not played or ann_plays % 4 == 0:
                mouse_step(bob)
        expect(ann.locator(".end")).to_be_visible()
        expect(bob.locator(".end")).to_be_visible()
        ann_title = ann.locator(".end h1").inner_text()
        bob_title = bob.locator(".end h1").inner_text()
        assert ann_title in ("You won!", "A tie") or ann_title.endswith("won")
        if ann_title == "You won!":
            assert "Ann" in bob_title
            ann.wait_for_timeout(700)  # the BLINK! animation
            ann.screenshot(path=str(screenshots / "end.png"))
        assert not errors, errors
    finally:
        ann_ctx.close()
        bob_ctx.close()


def mouse_step(page: Page) -> None:
    """Play one legal card with the mouse: click the card, then the pile."""
    st = state(page)
    if not st or st["phase"] != "playing":
        return
    for slot, card in enumerate(st["hand"]):
        for p in st["piles"]:
            if p["top"] and matches(card, p["top"]):
                page.click(f'.hcard[data-slot="{slot}"]')
                page.click(f'button.pile[data-pile="{p["pile"]}"]')
                return
