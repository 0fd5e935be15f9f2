"""Finished games in a fresh browser's lobby (GET /api/games) with their replays, and the end
screen's figures after a reload (the server sends game_end again)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from blinkweb import Server, collect_errors, keyboard_step
from playwright.sync_api import BrowserContext, expect

FAST = "@40"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server of this module's own: its games do not shift the shared server's game ids (and
    so the seeded deals) that other browser tests were written against."""
    s = Server(tmp_path_factory.mktemp("e2e-finished"))
    yield s
    s.stop()


def test_finished_public_game_in_a_fresh_lobby(context: BrowserContext, server: Server) -> None:
    # A public room of two server bots plays by itself to the end.
    room = server.api(
        "/api/rooms",
        {
            "players": 2,
            "seats": [f"inhuman:first{FAST}", f"expert:blocker{FAST}"],
            "take_seat": None,
            "public": True,
        },
    )
    code = str(room["code"])
    deadline = time.monotonic() + 90
    games: list[dict[str, object]] = []
    while not games:
        assert time.monotonic() < deadline, "the bots' game did not finish"
        time.sleep(0.2)
        got = server.api(f"/api/games?status=finished&room={code}")["games"]
        assert isinstance(got, list)
        games = got
    game = games[0]
    listed = server.api("/api/games?status=finished&limit=200")["games"]
    assert isinstance(listed, list) and any(g["id"] == game["id"] for g in listed)

    page = context.new_page()  # a fresh profile: no games of its own
    errors = collect_errors(page)
    page.goto(server.url + "/")
    entry = page.locator(f'#l-pub li[data-game="{game["id"]}"]')
    expect(entry).to_be_visible(timeout=10000)
    expect(entry).to_contain_text(code)
    expect(entry).to_contain_text("Bot")
    expect(page.locator("#l-done li[data-game]")).to_have_count(0)
    entry.get_by_role("link", name="Replay").click()
    expect(page.locator("#rp-step")).to_contain_text("Step 0 of", timeout=10000)
    record = server.api(str(game["record_url"]))
    total = len(record["actions"])  # type: ignore[arg-type]
    expect(page.locator("#rp-step")).to_have_text(f"Step 0 of {total}")
    page.locator("#rp-range").fill(str(total))
    expect(page.locator("#rp-log")).to_contain_text(re.compile(r"wins|tie"))
    assert not errors, errors


def test_reload_after_the_end_keeps_the_figures(context: BrowserContext, server: Server) -> None:
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/")
    page.fill("#q-name", "Rhea")
    page.select_option("#q-level", "inhuman")
    page.click("#q-play")
    expect(page).to_have_url(re.compile(r"/play/[A-Z0-9]{6}$"))
    expect(page.locator('.table[data-phase="playing"], .end').first).to_be_visible(timeout=15000)
    deadline = time.monotonic() + 300  # generous: the loop ends at the end screen
    # The series' end: an end screen with no next game to count down to (a tied game's has
    # one, and a reload would find the next game playing).
    over = ".end:not(:has(#next-in))"
    while time.monotonic() < deadline and not page.locator(over).count():
        keyboard_step(page)
    expect(page.locator(over)).to_be_visible()
    figures = page.locator(".end .figures")
    expect(figures).to_contain_text("Your average per play")
    before = figures.inner_text()
    title = page.locator(".end h1").inner_text()

    page.reload()
    expect(page.locator(".end")).to_be_visible(timeout=15000)
    expect(figures).to_contain_text("Time")
    expect(figures).to_contain_text("Your average per play")
    assert figures.inner_text() == before
    assert page.locator(".end h1").inner_text() == title
    expect(page.get_by_role("button", name="Replay")).to_be_visible()

    # The game is this browser's own: it heads the lobby's finished games.
    page.goto(server.url + "/")
    code_game = page.locator("#l-done li[data-game]").first
    expect(code_game).to_be_visible(timeout=10000)
    # Who played, named in the page's language (the bot from its level, not a kept sentence).
    expect(code_game).to_contain_text("Rhea (You) · Bot (Inhuman)")
    page.select_option("#lang", "es")
    expect(page.locator("#l-done li[data-game]").first).to_contain_text(
        "Rhea (Tú) · Bot (Inhumano)"
    )
    assert not errors, errors
