"""A profile kept by the browser is attached to the seats it takes, so its games are rated."""

from __future__ import annotations

import json
import math
import time

from blinkweb import Server, collect_errors, keyboard_step
from playwright.sync_api import BrowserContext, expect

# The fallback for a refused profile makes one request the server answers with 400.
REFUSED_PROFILE = "console: Failed to load resource: the server responded with a status of 400"


def _play_quick_game(context: BrowserContext, server: Server, profile: object) -> list[str]:
    """From the lobby, a quick game against the fastest bot, played by keyboard to its end."""
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/")
    page.evaluate("p => localStorage.setItem('blink.profile', p)", json.dumps(profile))
    page.reload()
    page.select_option("#q-level", "inhuman")
    page.click("#q-play")
    expect(page.locator('.table[data-phase="playing"], .end').first).to_be_visible(timeout=15000)
    deadline = time.monotonic() + 300  # generous: the loop ends at the end screen
    while time.monotonic() < deadline and not page.locator(".end").count():
        keyboard_step(page)
    expect(page.locator(".end")).to_be_visible(timeout=15000)
    return errors


def test_lobby_games_are_rated_for_the_browser_profile(
    context: BrowserContext, server: Server
) -> None:
    me = server.api("/api/profiles", {"name": "Rae"})
    errors = _play_quick_game(context, server, me)
    deadline = time.monotonic() + 120
    profile = server.api(f"/api/profiles/{me['id']}")
    while profile["games"] == 0 and time.monotonic() < deadline:
        time.sleep(0.2)
        profile = server.api(f"/api/profiles/{me['id']}")
    assert profile["games"] == 1, profile
    assert len(profile["history"]) == 1
    assert not errors, errors


def test_an_unknown_profile_still_gets_an_anonymous_seat(
    context: BrowserContext, server: Server
) -> None:
    stale = {"id": "nobody", "name": "Old", "secret": "not-a-real-secret"}
    errors = _play_quick_game(context, server, stale)
    assert all(e.startswith(REFUSED_PROFILE) for e in errors), errors


def one(x: float) -> str:
    """A rating as the page shows it: one decimal, rounded half up, never "-0.0"."""
    return f"{math.floor(x * 10 + 0.5) / 10 + 0.0:.1f}"


def test_the_end_screen_shows_the_rating_change(context: BrowserContext, server: Server) -> None:
    """A rated game's end screen shows the player's rating before and after and the change,
    as the profile's history has it, in English and in Spanish."""
    me = server.api("/api/profiles", {"name": "Rita Rated"})
    errors = _play_quick_game(context, server, me)
    page = context.pages[-1]
    line = page.locator(".end .rating-changes li")
    expect(line).to_have_count(1, timeout=30000)
    profile = server.api(f"/api/profiles/{me['id']}")
    (h,) = profile["history"]
    before = h["before"]["mu"] - 3 * h["before"]["sigma"]
    after = h["after"]["mu"] - 3 * h["after"]["sigma"]
    delta = after - before
    sign = "+" if delta >= 0 else "−"
    change = f"{one(before)} → {one(after)} ({sign}{one(abs(delta))})"
    expect(line).to_have_text(f"Rita Rated (You): {change}")
    expect(page.locator(".end .rating-changes h2")).to_have_text("Rating")
    page.select_option("#lang", "es")
    expect(page.locator(".end .rating-changes h2")).to_have_text("Puntuación")
    expect(line).to_have_text(f"Rita Rated (Tú): {change}")
    assert not errors, errors


def test_a_profile_made_on_the_leaderboard_names_the_player(
    context: BrowserContext, server: Server
) -> None:
    """After making a profile (on the leaderboard page), the lobby's name field has the
    profile's name, so the table names the player, not just "You"."""
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/leaderboard.html")
    page.fill('#me input[name="name"]', "Nora Named")
    page.click('#me button[type="submit"]')
    expect(page.locator("#me")).to_contain_text("Nora Named", timeout=15000)
    page.goto(server.url + "/")
    expect(page.locator("#q-name")).to_have_value("Nora Named", timeout=15000)
    assert not errors, errors
