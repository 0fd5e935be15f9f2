"""Two browser contexts play each other through a shared link, by keyboard and by mouse."""

from __future__ import annotations

import time
from pathlib import Path

from blinkweb import (
    RECORD_JS,
    SIG_JS,
    Server,
    anims,
    collect_errors,
    end_buttons_armed,
    keyboard_step,
    matches,
    state,
)
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError


def test_two_players_through_a_shared_link(
    browser: Browser, server: Server, screenshots: Path
) -> None:
    ann_ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    bob_ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    watch_ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    try:
        ann = ann_ctx.new_page()
        bob = bob_ctx.new_page()
        errors = collect_errors(ann) + collect_errors(bob)
        ann.goto(server.url + "/")
        ann.fill("#q-name", "Ann")
        ann.check("#p-public")  # listed in live games, so a spectator can find it
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
        expect(bob.locator(".opp .name")).to_have_text("Ann")

        # A third browser watches the game live: both players' counts, no hand to play.
        watch_ctx.add_init_script(RECORD_JS)
        watch = watch_ctx.new_page()
        errors += collect_errors(watch)
        watch.goto(server.url + "/")
        entry = watch.locator("#l-live li", has_text=code)
        entry.get_by_role("link", name="Watch").click()
        expect(watch.locator('.table[data-phase="playing"]')).to_be_visible(timeout=15000)
        expect(watch.locator(".tablebar")).to_contain_text("Watching")
        expect(watch.locator(".hcard")).to_have_count(0)
        expect(watch.locator(".pile")).to_have_count(2)

        # Ann plays by keyboard, Bob with the mouse (click a card, then a pile).
        deadline = time.monotonic() + 90
        shot = False
        ann_plays = 0
        bob_plays = 0
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
                bob_plays += mouse_step(bob, drag=bob_plays % 2 == 1)
        expect(ann.locator(".end")).to_be_visible()
        expect(bob.locator(".end")).to_be_visible()
        ann_title = ann.locator(".end h1").inner_text()
        bob_title = bob.locator(".end h1").inner_text()
        assert ann_title in ("You won!", "A tie") or ann_title.endswith("won")
        if ann_title == "You won!":
            assert "Ann" in bob_title
            ann.wait_for_timeout(700)  # the BLINK! animation
            ann.screenshot(path=str(screenshots / "end.png"))
        # The spectator saw the same end.
        expect(watch.locator(".end")).to_be_visible()
        assert ann_plays > 0 and bob_plays > 0
        # The spectator saw both players' cards fly from their seats, each lit in turn.
        flights = {a["from"] for a in anims(watch) if a["from"]}
        assert flights == {"seat-0", "seat-1"}, flights
        assert sorted(watch.evaluate("window.__lit")) == ["0", "1"]
        # A rematch: no one is said to be waiting before anyone asks; then each is told who has.
        for page in (ann, bob):
            expect(page.locator(".rematch-votes")).to_have_count(0)
        end_buttons_armed(bob)
        bob.get_by_role("button", name="Rematch", exact=True).click()
        expect(ann.locator(".rematch-votes")).to_have_text("Player 2 asked for a rematch")
        expect(bob.locator(".rematch-votes")).to_have_text(
            "Waiting for the others to accept… Ann … · You ✓"
        )
        end_buttons_armed(ann)
        ann.get_by_role("button", name="Rematch", exact=True).click()
        for page in (ann, bob):
            expect(page.locator(".table[data-phase]")).to_be_visible(timeout=15000)
        assert not errors, errors
    finally:
        ann_ctx.close()
        bob_ctx.close()
        watch_ctx.close()


def mouse_step(page: Page, drag: bool = False) -> int:
    """Play one legal card with the mouse: click the card then the pile, or drag it there.

    Returns 1 when the play was accepted (the hand or the pile changed), else 0.
    """
    st = state(page)
    if not st or st["phase"] != "playing":
        return 0
    for slot, card in enumerate(st["hand"]):
        for p in st["piles"]:
            if p["top"] and matches(card, p["top"]):
                before = page.evaluate(SIG_JS)
                source = f'.hcard[data-slot="{slot}"]'
                target = f'button.pile[data-pile="{p["pile"]}"]'
                if drag:
                    page.drag_and_drop(source, target)
                else:
                    page.click(source)
                    page.click(target)
                try:
                    page.wait_for_function(f"(b) => ({SIG_JS})() !== b", arg=before, timeout=3000)
                except PlaywrightTimeoutError:
                    return 0
                return 1
    return 0
