"""The end screen of a game against the fastest bot: its buttons take no tap for a moment after
it appears (a tap meant for a card must not leave the game), and the average beside "Your
plays" is the player's own.

The page's clock is Playwright's: it is paused before the game starts, so the end screen appears
at a frozen moment and the test moves time past the guard itself (``page.clock.run_for``).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from blinkweb import Server, collect_errors, keyboard_step
from playwright.sync_api import BrowserContext, expect

TABLE_JS = Path(__file__).resolve().parents[2] / "src" / "blink" / "web" / "js" / "table.js"
_GUARD = re.search(r"END_GUARD_MS = (\d+);", TABLE_JS.read_text())
GUARD_MS = int(_GUARD[1]) if _GUARD else 800
"""How long the end screen's buttons take no tap (table.js's ``END_GUARD_MS``)."""


def test_back_to_lobby_takes_no_tap_at_first(context: BrowserContext, server: Server) -> None:
    page = context.new_page()
    errors = collect_errors(page)
    page.clock.install()
    page.goto(server.url + "/")
    expect(page.locator("#q-level option").first).to_be_attached()
    page.select_option("#q-level", "inhuman")
    # Paused before the game starts (the countdown is the server's): the fastest bot may end
    # the race before the page is seen playing, and however busy the machine, the end
    # screen still appears at a frozen moment.
    page.clock.pause_at(page.evaluate("Date.now()") + 50)
    page.click("#q-play")
    expect(page.locator('.table[data-phase="playing"], .end').first).to_be_visible(timeout=20000)
    deadline = time.monotonic() + 300  # generous: the loop ends at the end screen
    while time.monotonic() < deadline and not page.locator(".end").count():
        keyboard_step(page)
    back = page.get_by_role("button", name="Back to lobby")
    expect(back).to_be_visible()
    # A tap carried over from the race lands on the button, which takes none yet.
    box = back.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_timeout(300)  # real time: a navigation would have begun
    assert re.search(r"/play/[A-Z0-9]{6}$", page.url), page.url
    expect(page.locator(".end")).to_be_visible()
    expect(page.locator("#end-actions")).to_have_attribute("data-arming", "")

    # The average beside "Your plays" is over the player's own plays.
    figures = page.locator(".figures")
    expect(figures).to_contain_text("Your plays")
    expect(figures).to_contain_text("Your average per play")
    secs = float(figures.locator("dd").nth(0).inner_text().removesuffix(" s"))
    mine_text = figures.locator("dd").nth(1).inner_text()
    mine, _, everyone = mine_text.partition("/")
    avg = figures.locator("#avg-play").inner_text()
    if int(mine) > 0:
        assert abs(float(avg.removesuffix(" s")) - secs / int(mine)) < 0.06, (secs, mine_text, avg)
    assert int(everyone) >= int(mine)

    page.clock.run_for(GUARD_MS + 200)
    expect(page.locator("#end-actions")).not_to_have_attribute("data-arming", "")
    back.click()
    expect(page).to_have_url(server.url + "/")
    assert not errors, errors
