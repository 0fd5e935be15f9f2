"""The leaderboard's Bots ladder in headless Chromium against a real `blink serve`: the
people's ladder (the default) leaves bot accounts out, the Bots button shows them alone, each
with a "bot" mark read out as a bot account and its owner's name, the choice kept in the
address, in English and Spanish."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from blinkweb import Server, collect_errors
from playwright.sync_api import BrowserContext, expect

TIMEOUT = 20_000


def test_the_bots_ladder_lists_the_bot_accounts_apart(
    tmp_path: Path, context: BrowserContext
) -> None:
    server = Server(tmp_path, "--provisional-games", "1")
    try:
        person = server.api("/api/profiles", {"name": "Paula"})
        bot = server.api("/api/profiles", {"name": "Clank"})
        server.api("/api/accounts", {"name": "Ada", "password": "correct horse battery"})
        db = sqlite3.connect(tmp_path / "blink.db")
        with db:  # Clank's profile is a bot account's, Ada's (as POST /api/bots makes it)
            (account,) = db.execute("select id from accounts").fetchone()
            db.execute(
                "insert into bots (profile_id, account_id, created_at) values (?, ?, ?)",
                (bot["id"], account, time.time()),
            )
            db.execute("update profiles set games = 3, wins = 2 where name != 'Ada'")
        db.close()
        page = context.new_page()
        errors = collect_errors(page)
        page.goto(f"{server.url}/leaderboard.html")
        expect(page.locator("#lstatus")).to_have_text("live", timeout=TIMEOUT)
        rows = page.locator("#board tbody.ranked tr[data-id]")
        expect(rows).to_have_count(1, timeout=TIMEOUT)
        expect(rows.first).to_contain_text("Paula")
        expect(page.locator("#board .pl-mark.bot")).to_have_count(0)
        expect(page.locator("#ladder-people")).to_have_attribute("aria-pressed", "true")

        page.click("#ladder-bots")
        expect(page.locator("#ladder-bots")).to_have_attribute("aria-pressed", "true")
        expect(rows.first).to_contain_text("Clank", timeout=TIMEOUT)
        expect(rows).to_have_count(1)
        assert rows.first.get_attribute("data-id") == bot["id"]
        mark = rows.first.locator(".pl-mark.bot")
        expect(mark).to_have_text("bot")
        expect(mark).to_have_attribute("aria-label", "A bot account")
        expect(rows.first.locator(".owner")).to_have_text("by Ada")  # the bot's owner
        expect(page.locator("#board caption")).to_have_text("Bot accounts by rating")
        expect(page.locator("#bots-note")).to_be_visible()
        assert "ladder=bots" in page.url

        page.select_option("#lang", "es")
        expect(page.locator("#board caption")).to_have_text("Cuentas de bot por puntuación")
        expect(mark).to_have_attribute("aria-label", "Una cuenta de bot")
        expect(rows.first.locator(".owner")).to_have_text("de Ada")
        expect(page.locator("#ladder-people")).to_have_text("Personas")

        page.click("#ladder-people")
        expect(rows.first).to_contain_text("Paula", timeout=TIMEOUT)
        expect(page.locator("#bots-note")).to_be_hidden()
        assert person["id"] == rows.first.get_attribute("data-id")

        # The bot's own page (/@/Clank): its "Bot" mark, its owner and its rated games.
        page.goto(f"{server.url}/@/Clank")
        expect(page.locator("#pl-name .pl-mark.bot")).to_have_text("Bot", timeout=TIMEOUT)
        summary = page.locator("#pl-summary")
        expect(summary).to_contain_text("cuenta de bot de Ada")
        expect(summary).to_contain_text("3 partidas")
        page.select_option("#lang", "en")
        expect(summary).to_contain_text("bot account of Ada")
        expect(summary).to_contain_text("3 games")
        assert errors == []
    finally:
        server.stop()
