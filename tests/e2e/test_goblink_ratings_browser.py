"""Go Blink's end screen shows each rated player's rating change, as classic's does (the
`ratings` frame; the same module, `web/js/ratings.js`, draws it for both tables)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from blinkweb import collect_errors
from playwright.sync_api import BrowserContext, expect
from test_goblink_browser import GoServer, Player, play_out, start_game

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def go_server(tmp_path: Path) -> Iterator[GoServer]:
    s = GoServer(tmp_path)
    yield s
    s.stop()


def one(x: float) -> str:
    """A rating as the page shows it: one decimal, rounded half up, never "-0.0"."""
    return f"{math.floor(x * 10 + 0.5) / 10 + 0.0:.1f}"


def test_the_go_blink_end_screen_shows_the_rating_change(
    context: BrowserContext, go_server: GoServer
) -> None:
    me = httpx.post(go_server.url + "/api/profiles", json={"name": "Gina Go"}, timeout=10).json()
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(go_server.url + "/")
    page.evaluate("p => localStorage.setItem('blink.profile', p)", json.dumps(me))
    start_game(page, go_server, 2, "memory")
    play_out(page, Player(page).click_step, seconds=200)
    line = page.locator("#go-end-panel .rating-changes li")
    expect(line).to_have_count(1, timeout=30000)
    profile = httpx.get(f"{go_server.url}/api/profiles/{me['id']}", timeout=10).json()
    (h,) = profile["history"]
    before = h["before"]["mu"] - 3 * h["before"]["sigma"]
    after = h["after"]["mu"] - 3 * h["after"]["sigma"]
    delta = after - before
    sign = "+" if delta >= 0 else "−"
    change = f"{one(before)} → {one(after)} ({sign}{one(abs(delta))})"
    expect(line).to_have_text(f"You: {change}")
    expect(line).to_have_class("up mine" if delta >= 0 else "down mine")
    expect(page.locator("#go-end-panel .rating-changes h2")).to_have_text("Rating")
    page.select_option("#lang", "es")
    expect(page.locator("#go-end-panel .rating-changes h2")).to_have_text("Puntuación")
    expect(line).to_have_text(f"Tú: {change}")
    assert not errors, errors
