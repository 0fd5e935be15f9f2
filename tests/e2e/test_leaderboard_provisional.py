"""The leaderboard page in headless Chromium against a real `blink serve`: making a profile
there shows the profile and nothing else ("null" was printed after it), and profiles without
ten rated games (the server's --provisional-games) are listed apart, unranked, below the ranked
players, in English and Spanish."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from blinkweb import Server, collect_errors
from playwright.sync_api import BrowserContext, expect

TIMEOUT = 20_000


def test_a_new_profile_is_provisional_and_nothing_says_null(
    tmp_path: Path, context: BrowserContext
) -> None:
    # A server of its own: the ranks below are of these profiles only.
    server = Server(tmp_path, "--provisional-games", "10")
    try:
        rated = server.api("/api/profiles", {"name": "Ranked Rita"})
        db = sqlite3.connect(tmp_path / "blink.db")
        with db:  # twelve rated games, many lost: a rating below a new profile's 0.0
            db.execute(
                "update profiles set mu = 20, sigma = 7, games = 12, wins = 1 where id = ?",
                (rated["id"],),
            )
        db.close()
        page = context.new_page()
        errors = collect_errors(page)
        page.goto(f"{server.url}/leaderboard.html")
        expect(page.locator("#lstatus")).to_have_text("live", timeout=TIMEOUT)
        page.fill('#me input[name="name"]', "Fresh Fay")
        page.click('#me button[type="submit"]')
        expect(page.locator("#me")).to_contain_text("Fresh Fay", timeout=TIMEOUT)
        assert "null" not in page.locator("#me").inner_text()

        # The ranked player first, ranked 1; the new profile apart, with no rank.
        ranked = page.locator("#board tbody.ranked tr")
        expect(ranked).to_have_count(1, timeout=TIMEOUT)
        expect(ranked.first.locator("td").first).to_have_text("1")
        expect(ranked.first).to_contain_text("Ranked Rita")
        fresh = page.locator("#board tbody.provisional")
        expect(fresh.locator("tr.group")).to_have_text(
            "Provisional: fewer than 10 rated games, not ranked yet"
        )
        line = fresh.locator("tr[data-id]")
        expect(line).to_have_count(1)
        expect(line).to_contain_text("Fresh Fay")
        expect(line.locator("td").first).to_have_text("–")
        # Provisional players come after every ranked one, whatever their rating.
        rows = page.locator("#board tbody tr[data-id]").all_inner_texts()
        assert "Ranked Rita" in rows[0] and "Fresh Fay" in rows[1]

        page.select_option("#lang", "es")
        expect(fresh.locator("tr.group")).to_have_text(
            "Provisionales: menos de 10 partidas puntuadas, aún sin puesto"
        )
        assert "null" not in page.locator("#me").inner_text()
        assert errors == []
    finally:
        server.stop()
