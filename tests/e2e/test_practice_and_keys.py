"""A practice game against a bot (the playable cards highlighted, the pause) and the table's
remappable keys (a rebound key plays a card; a key already used is refused), in English and
Spanish."""

from __future__ import annotations

import re

import httpx
from blinkweb import SIG_JS, Server, collect_errors, matches, state
from playwright.sync_api import BrowserContext, Page, expect


def _start_quick_game(page: Page, server: Server, practice: bool) -> str:
    page.goto(server.url + "/")
    expect(page.locator("#q-play")).to_be_enabled(timeout=15000)
    if practice:
        page.check("#q-practice")
    page.click("#q-play")
    page.wait_for_url(re.compile(r"/play/[A-Z0-9]+$"))
    code = page.url.rsplit("/", 1)[1]
    page.wait_for_function(
        "() => (document.querySelector('.table[data-phase]') || {dataset: {}}).dataset.phase"
        " === 'playing'",
        timeout=20000,
    )
    return code


def _room(server: Server, code: str) -> dict[str, object]:
    r = httpx.get(f"{server.url}/api/rooms/{code}", timeout=10)
    r.raise_for_status()
    room: dict[str, object] = r.json()
    return room


def test_practice_highlights_playable_cards_and_pauses(
    context: BrowserContext, server: Server
) -> None:
    page = context.new_page()
    errors = collect_errors(page)
    code = _start_quick_game(page, server, practice=True)
    options = _room(server, code)["options"]
    assert isinstance(options, dict) and options["practice"] is True
    expect(page.locator(".practice-bar .tag")).to_have_text("Practice")
    page.click("#btn-pause")
    expect(page.locator("#paused")).to_have_text("Paused. The bots wait too.")
    expect(page.locator("#btn-pause")).to_have_text("Resume")
    assert _room(server, code)["paused"] is True
    # While paused the table stands still: the highlight is the server's fits for this hand.
    st = state(page)
    assert st is not None and st["phase"] == "playing"
    lit = page.locator(".hcard").evaluate_all("hs => hs.map(h => h.classList.contains('playable'))")
    fits = [any(p["top"] and matches(c, p["top"]) for p in st["piles"]) for c in st["hand"]]
    assert lit == fits, (lit, st)
    before = page.evaluate(SIG_JS)
    page.keyboard.press("1")  # refused while paused
    expect(page.locator(".center-msg .refused")).to_have_text(
        "The game is paused: resume it to play."
    )
    assert page.evaluate(SIG_JS) == before
    # The hints can be turned off.
    page.click("#btn-hints")
    expect(page.locator(".hcard.playable")).to_have_count(0)
    page.click("#btn-hints")
    # In Spanish.
    page.select_option("#lang", "es")
    expect(page.locator(".practice-bar .tag")).to_have_text("Práctica")
    expect(page.locator("#btn-pause")).to_have_text("Seguir")
    expect(page.locator("#paused")).to_have_text("En pausa. Los bots también esperan.")
    page.click("#btn-pause")
    expect(page.locator("#paused")).to_have_count(0)
    expect(page.locator("#btn-pause")).to_have_text("Pausa")
    page.select_option("#lang", "en")
    assert _room(server, code)["paused"] is False
    assert errors == [], errors


def test_a_rebound_key_plays_a_card_against_a_bot(context: BrowserContext, server: Server) -> None:
    page = context.new_page()
    errors = collect_errors(page)
    _start_quick_game(page, server, practice=False)
    expect(page.locator(".practice-bar")).to_have_count(0)  # not a practice game
    page.click("#btn-keys")
    dialog = page.locator("#keys-dialog")
    expect(dialog.get_by_role("heading")).to_have_text("Keys for the table")
    page.click('.key-bind[data-action="slot0"]')
    expect(page.locator('.key-bind[data-action="slot0"]')).to_have_text("Press a key…")
    page.keyboard.press("q")
    expect(page.locator('.key-bind[data-action="slot0"]')).to_have_text("Q")
    page.click('.key-bind[data-action="slot1"]')
    page.keyboard.press("q")  # taken by the first card
    expect(page.locator("#keys-note")).to_have_text(
        "“Q” is already used for “Play card 1”: choose another key."
    )
    page.keyboard.press("Escape")
    page.click("#keys-close")
    expect(dialog).not_to_be_visible()
    assert page.evaluate("JSON.parse(localStorage.getItem('blink.keys')).slot0") == ["q"]
    expect(page.locator(".hcard").first.locator(".hkey")).to_have_text("Q")
    # "q" plays the first card once it fits a pile; "1" no longer does.
    played = None
    for _ in range(200):
        st = state(page)
        if st is None or st["phase"] == "over":
            break
        card = st["hand"][0] if st["hand"] else None
        fits = [p for p in st["piles"] if card and p["top"] and matches(card, p["top"])]
        if st["phase"] != "playing" or not fits:
            page.wait_for_timeout(100)
            continue
        before = page.evaluate(SIG_JS)
        page.keyboard.press("q")
        if len({p["pile"] for p in fits}) > 1:
            page.keyboard.press("ArrowLeft" if fits[0]["side"] == "left" else "ArrowRight")
        page.wait_for_function(f"(b) => ({SIG_JS})() !== b", arg=before, timeout=5000)
        after = state(page)
        if after is not None and any(p["top"] == card for p in after["piles"]):
            played = card
            break
    assert played is not None, "the rebound key never played the first card"
    # The settings in Spanish, and the reset.
    page.select_option("#lang", "es")
    page.click("#btn-keys")
    expect(dialog.get_by_role("heading")).to_have_text("Teclas de la mesa")
    page.click("#keys-reset")
    expect(page.locator('.key-bind[data-action="slot0"]')).to_have_text("1 · J")
    page.click("#keys-close")
    page.select_option("#lang", "en")
    assert errors == [], errors
