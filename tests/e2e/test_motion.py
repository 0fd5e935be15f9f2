"""The table's motion, the start and a series' end, in a real browser against real bots.

Every animation the page starts is written down as it starts (``blinkweb.RECORD_JS``), so a
flight of 180 ms is seen however busy the machine is; the start's flash is looked at the moment
it is drawn, not by polling.
"""

from __future__ import annotations

import re
import time

from blinkweb import (
    RECORD_JS,
    Server,
    anims,
    collect_errors,
    end_buttons_armed,
    keyboard_step,
    matches,
    state,
)
from playwright.sync_api import Browser, BrowserContext, Page, expect

# Every running animation (Web Animations and CSS) whose keyframes move something.
MOVING_JS = """() => document.getAnimations()
  .filter((a) => a.effect && a.effect.getKeyframes()
    .some((k) => ['transform', 'translate', 'scale', 'rotate'].some((p) => p in k)))
  .map((a) => a.animationName || (a.effect.target && a.effect.target.className.baseVal)
              || (a.effect.target && a.effect.target.className) || '?')"""

# A lit seat (one that has just played), its name, and the name tags at the piles.
LIT_JS = """() => {
  const o = document.querySelector('.opp.played');
  if (!o) return null;
  const tags = [...document.querySelectorAll('.pile .by-tag')].map((t) => t.textContent);
  return {seat: o.dataset.seat, name: o.querySelector('.name').textContent.trim(), tags};
}"""


def open_bot_game(page: Page, server: Server, players: int = 2) -> None:
    """A quick game against beginner bots, from the lobby; wait until the race is on."""
    page.goto(server.url + "/")
    page.select_option("#q-level", "beginner")
    page.locator("#f-quick").get_by_text(str(players), exact=True).click()
    page.click("#q-play")
    expect(page.locator('.table[data-phase="playing"]')).to_be_visible(timeout=20000)


def play_until(page: Page, done: str, seconds: float = 40) -> None:
    """Make plays by keyboard until the page's ``done`` expression is true."""
    deadline = time.monotonic() + seconds
    while not page.evaluate(done):
        assert time.monotonic() < deadline, f"never: {done}"
        if not page.locator('.table[data-phase="playing"], .table[data-phase="choosing"]').count():
            page.wait_for_timeout(100)
            continue
        if not keyboard_step(page):
            page.wait_for_timeout(100)


def refuse_one(page: Page) -> None:
    """Click a card, then a pile it does not fit: the page refuses it without asking."""
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        st = state(page)
        if st and st["phase"] == "playing":
            for slot, card in enumerate(st["hand"]):
                for p in st["piles"]:
                    if p["top"] and not matches(card, p["top"]):
                        page.click(f'.hcard[data-slot="{slot}"]')
                        page.click(f'button.pile[data-pile="{p["pile"]}"]')
                        if any(a["hand"] for a in anims(page)):
                            return
                        break
                else:
                    continue
                break
            else:
                keyboard_step(page)
        page.wait_for_timeout(100)
    raise AssertionError("no refused play")


def test_plays_fly_to_their_pile_and_the_start_leaves_the_piles_clear(
    context: BrowserContext, server: Server
) -> None:
    context.add_init_script(RECORD_JS)
    page = context.new_page()
    errors = collect_errors(page)
    open_bot_game(page, server, players=3)
    # The start's flash is a word beside the piles: nothing covers or dims them.
    page.wait_for_function("window.__go !== null", timeout=10000)
    go = page.evaluate("window.__go")
    assert not go["overlay"], go
    assert len(go["piles"]) == 3 and all(p["hit"] for p in go["piles"]), go
    assert all(p["flash"] for p in go["piles"]), go  # drawn below every pile
    # A card played from the hand flies from it onto its pile, and the pile shows it at once.
    play_until(page, "window.__anims.some((a) => a.from === 'hand')")
    flight = next(a for a in anims(page) if a["from"] == "hand")
    assert "flying-card" in flight["cls"] and "transform" in flight["props"], flight
    # A bot's play flies from its seat, which lights up with its name at the pile (read in one
    # look: the other bot may play meanwhile).
    lit = page.wait_for_function(LIT_JS, timeout=30000).json_value()
    assert any(a["from"] == f"seat-{lit['seat']}" for a in anims(page)), anims(page)
    assert lit["name"] in lit["tags"], lit
    # The light goes out after a moment.
    expect(page.locator(f'.opp.played[data-seat="{lit["seat"]}"]')).to_have_count(0, timeout=10000)
    # A refused play springs back into the hand.
    refuse_one(page)
    spring = next(a for a in anims(page) if a["hand"])
    assert "transform" in spring["props"], spring
    expect(page.locator(".center-msg .refused")).to_have_text(
        "No match: no shared colour, shape or count"
    )
    assert not errors, errors


def test_reduced_motion_only_fades(browser: Browser, server: Server) -> None:
    ctx = browser.new_context(
        viewport={"width": 1200, "height": 800}, locale="en-US", reduced_motion="reduce"
    )
    try:
        ctx.add_init_script(RECORD_JS)
        page = ctx.new_page()
        errors = collect_errors(page)
        open_bot_game(page, server)
        moving: list[str] = []
        deadline = time.monotonic() + 40
        # Plays of both sides, with a look at everything running after each.
        while not (
            any(a["pile"] for a in anims(page))
            and page.evaluate("window.__anims.filter((a) => a.pile).length") >= 3
        ):
            assert time.monotonic() < deadline, anims(page)
            if not keyboard_step(page):
                page.wait_for_timeout(50)
            moving += page.evaluate(MOVING_JS)
        refuse_one(page)
        moving += page.evaluate(MOVING_JS)
        recorded = anims(page)
        assert recorded, "no fades"
        assert all(a["props"] == ["opacity"] for a in recorded), recorded
        assert not page.locator(".flying-card").count()
        assert not moving, moving
        assert not errors, errors
    finally:
        ctx.close()


def test_a_series_win_has_its_own_moment(context: BrowserContext, server: Server) -> None:
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/")
    expect(page.locator("#p-create")).to_be_enabled()
    page.fill("#q-name", "Kim")
    page.select_option("#seat-1", "inhuman")
    page.locator("#f-priv .seg label", has=page.locator('input[name="best_of"][value="3"]')).click()
    page.click("#p-create")
    expect(page).to_have_url(re.compile(r"/play/[A-Z0-9]{6}$"))
    code = page.url.rsplit("/", 1)[1]
    deadline = time.monotonic() + 150
    panel = page.locator("#series-win")
    while not panel.count():
        assert time.monotonic() < deadline, "the series did not end"
        if not keyboard_step(page):
            page.wait_for_timeout(100)
    expect(panel).to_be_visible()
    title = panel.locator("h1").inner_text()
    assert title in ("You won the series!", "Bot (Inhuman) wins the series"), title
    expect(panel).to_contain_text("Best of 3")
    # The final score, once: two seats, one of them with two wins; the bar does not repeat it.
    scores = panel.locator(".series-final li b").all_inner_texts()
    assert sorted(scores)[-1] == "2" and len(scores) == 2, scores
    expect(page.locator(".score")).to_have_count(0)
    expect(page.locator(".series-final li.won")).to_have_count(1)
    # No word of others waiting before you have asked for a rematch (the bot always agrees).
    expect(page.locator(".rematch-votes")).to_have_count(0)
    expect(page.get_by_text("Waiting for the others")).to_have_count(0)
    end_buttons_armed(page)
    page.get_by_role("button", name="Rematch", exact=True).click()
    deadline = time.monotonic() + 30
    while server.api(f"/api/rooms/{code}")["series_number"] != 2:
        assert time.monotonic() < deadline, "no rematch"
        page.wait_for_timeout(100)
    expect(page.locator(".table[data-phase]")).to_be_visible(timeout=20000)
    assert not errors, errors
