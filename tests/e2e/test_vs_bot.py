"""A full game against the fastest bot played by keyboard, the lobby, and its replay."""

from __future__ import annotations

import re
import time
from pathlib import Path

from blinkweb import Server, collect_errors, end_buttons_armed, keyboard_step, state
from playwright.sync_api import BrowserContext, expect

from blink.cards import Color
from blink.games.classic.bots import DEFAULT_LEVEL, LEVELS
from blink.games.goblink.bots import DEFAULT_GOBOT, GOBOTS
from blink.model.registry import get_game

KNOWN_REFUSALS = {
    "Too slow: the pile changed first",
    "No match: no shared colour, shape or count",
    "That card is no longer in your hand",
    "Stalled: wait for the flip",
    "Stalled: choose a card",
    "The game is over",
    "Wait for the reveal",
}


def test_lobby_lists_live_games(context: BrowserContext, server: Server, screenshots: Path) -> None:
    room = server.api("/api/rooms", {"players": 2, "name": "Lena", "public": True})
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/")
    expect(page.get_by_role("heading", name="Quick game")).to_be_visible()
    # The levels, the players and the Go Blink bots are the server's (GET /api/options).
    expect(page.locator("#q-level option")).to_have_count(len(LEVELS))
    assert page.locator("#q-level option").evaluate_all("os => os.map(o => o.value)") == list(
        LEVELS
    )
    expect(page.locator("#q-level")).to_have_value(DEFAULT_LEVEL)
    # The trained policy shipped in the package is offered by its name for people.
    expect(page.locator('#q-level option[value="trained"]')).to_have_text("Trained")
    assert context.browser is not None
    spanish = context.browser.new_context(locale="es-ES").new_page()
    spanish.goto(server.url + "/")
    expect(spanish.locator('#q-level option[value="trained"]')).to_have_text("Entrenado")
    spanish.context.close()
    go_bots = page.locator("#go-bot option").evaluate_all("os => os.map(o => o.value)")
    assert go_bots == [*GOBOTS, ""]  # the bots, then a room for people
    expect(page.locator("#go-bot")).to_have_value(DEFAULT_GOBOT)
    for form, game in (("#f-quick", "classic"), ("#f-priv", "classic"), ("#f-go", "goblink")):
        info = get_game(game).info
        counts = page.locator(f"{form} .seg").first.locator("input")
        values = counts.evaluate_all("os => os.map(o => Number(o.value))")
        assert values == list(range(info.min_players, info.max_players + 1))
        expect(counts.first).to_be_checked()
    live = page.locator("#l-live")
    expect(live).to_contain_text(str(room["code"]))
    entry = live.locator("li", has_text=str(room["code"]))
    expect(entry.get_by_role("link", name="Join")).to_be_visible()
    expect(entry.get_by_role("link", name="Watch")).to_be_visible()
    page.wait_for_timeout(300)
    page.screenshot(path=str(screenshots / "lobby.png"))
    # Colour-blind mode adds a colour letter to every card, and is remembered.
    letters = page.locator(".fan .cb-letter")
    expect(letters.first).to_be_hidden()
    # Its button says so in words (not "RGB"), and its tooltip says what it does.
    cb = page.locator("#btn-cb")
    expect(cb).to_have_accessible_name("Colour letters")
    expect(cb).to_have_text("Colour letters", use_inner_text=True)
    expect(cb).to_have_attribute("title", "Show each card's colour as a letter too")
    # The cards are drawn in cards.py's palette, which style.css mirrors.
    fills = (
        page.locator(".fan .card-svg")
        .first.locator("[fill]")
        .evaluate_all("els => els.map((e) => e.getAttribute('fill'))")
    )
    assert Color.YELLOW.hex in fills, fills
    page.get_by_role("button", name="Colour letters").click()
    expect(page.get_by_role("button", name="Colour letters")).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(letters.first).to_be_visible()
    expect(letters.first).to_contain_text("Y")  # four yellow stars
    page.reload()
    expect(page.locator(".fan .cb-letter").first).to_be_visible()
    page.get_by_role("button", name="Colour letters").click()
    # Sound can be muted (and stays muted).
    sound = page.get_by_role("button", name="Sound")
    expect(sound).to_have_attribute("aria-pressed", "true")
    sound.click()
    expect(sound).to_have_attribute("aria-pressed", "false")
    assert page.evaluate("localStorage.getItem('blink.muted')") == "1"
    sound.click()
    # Keyboard focus is always visible.
    page.focus("#q-name")
    for _ in range(4):
        page.keyboard.press("Tab")
        outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert outline not in ("none", ""), page.evaluate("document.activeElement.outerHTML")
    # Joining by code from the lobby takes the free seat.
    page.fill("#j-code", str(room["code"]).lower())
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(f"/play/{room['code']}$"))
    expect(page.locator(".table")).to_be_visible()
    assert not errors, errors


def test_full_game_against_inhuman_bot_by_keyboard(context: BrowserContext, server: Server) -> None:
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/")
    # The lobby, by keyboard: type a name, choose the level, press Play.
    page.focus("#q-name")
    page.keyboard.type("Kim")
    expect(page.locator("#q-level")).to_have_value(DEFAULT_LEVEL)  # the server's levels are in
    page.focus("#q-level")
    page.keyboard.press("End")  # the last level is the fastest: inhuman
    expect(page.locator("#q-level")).to_have_value("inhuman")
    page.focus("#q-play")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/play/[A-Z0-9]{6}$"))
    expect(page.locator(".hcard")).to_have_count(3, timeout=15000)
    # After the countdown the race is on (the inhuman bot may already have finished it by
    # the time a busy machine looks: then the end screen is up).
    expect(page.locator('.table[data-phase="playing"], .end').first).to_be_visible(timeout=15000)
    deadline = time.monotonic() + 60
    keys_used = []
    refusals = set()
    # Until the series' end screen: a tied game's end screen counts down to another game of
    # the series (its buttons come at the series' end).
    over = ".end:not(:has(#next-in))"
    while time.monotonic() < deadline and not page.locator(over).count():
        pressed = keyboard_step(page, keys="jkl" if len(keys_used) % 2 else "123")
        if pressed:
            keys_used.append(pressed)
        st = state(page)
        if st and st["refused"]:
            refusals.add(st["refused"])
    # A refused play is explained in words, never as a raw code.
    too_slow = {r for r in refusals if r.startswith("Too slow: the pile now has ")}
    assert refusals - too_slow <= KNOWN_REFUSALS, refusals
    expect(page.locator(over)).to_be_visible()
    expect(page.locator(".blink")).to_have_text("BLINK!")
    title = page.locator(".end h1").inner_text()
    assert title == "You won!" or title.endswith("won") or title == "A tie"
    figures = page.locator(".figures")
    expect(figures).to_contain_text("Time")
    expect(figures).to_contain_text("Your average per play")
    # The end screen is keyboard-usable: rematch, replay and back to the lobby are buttons.
    for name in ("Rematch", "Replay", "Back to lobby"):
        expect(page.get_by_role("button", name=name, exact=True)).to_be_visible()

    # Rematch: a new series starts in the same room (the bot always agrees).
    code = page.url.rsplit("/", 1)[1]
    end_buttons_armed(page)
    page.get_by_role("button", name="Rematch", exact=True).click()
    deadline = time.monotonic() + 30
    while server.api(f"/api/rooms/{code}")["series_number"] != 2:
        assert time.monotonic() < deadline, "no rematch"
        page.wait_for_timeout(100)
    while time.monotonic() < deadline and not page.locator(over).count():
        keyboard_step(page)
    expect(page.locator(over)).to_be_visible()

    # Replay the game just played, from the end screen, by keyboard.
    page.get_by_role("button", name="Replay").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#rp-range")).to_be_visible(timeout=10000)
    expect(page.locator("#rp-step")).to_contain_text("Step 0 of")
    page.locator("#rp-board").click(position={"x": 5, "y": 5})
    page.keyboard.press("End")
    expect(page.locator("#rp-log")).to_contain_text(re.compile(r"wins|tie"))
    total = int(page.locator("#rp-range").get_attribute("max") or "0")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#rp-step")).to_contain_text(f"Step {total - 1} of {total}")
    page.keyboard.press("Home")
    page.click("#rp-play")  # play at speed
    expect(page.locator("#rp-step")).not_to_contain_text("Step 0 of", timeout=5000)

    # Every game of both series is listed in the lobby as a finished game to replay (a game
    # at least each, more when a game was tied: its series went on with another).
    played = server.api(f"/api/games?status=finished&room={code}")["games"]
    assert len(played) >= 2
    page.goto(server.url + "/")
    expect(page.locator("#l-done").get_by_role("link", name="Replay")).to_have_count(len(played))
    page.locator("#l-done").get_by_role("link", name="Replay").first.click()
    expect(page.locator("#rp-step")).to_contain_text("Step 0 of")
    assert not errors, errors
