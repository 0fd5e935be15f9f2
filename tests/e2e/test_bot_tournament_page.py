"""A bot tournament on the tournament pages in headless Chromium against a real `blink serve`:
the list and the tournament's own page mark it a bot tournament, its bot entrants carry the
"bot" mark, a person is told bots enter it with their tokens (no sign-up form), and a people's
tournament has none of it, in English and Spanish."""

from __future__ import annotations

from pathlib import Path

import httpx
from blinkweb import Server, collect_errors
from playwright.sync_api import BrowserContext, expect

TIMEOUT = 20_000


def test_a_bot_tournament_and_its_bots_are_marked(tmp_path: Path, context: BrowserContext) -> None:
    server = Server(tmp_path)
    try:
        with httpx.Client(base_url=server.url, timeout=10) as c:
            made = c.post(
                "/api/accounts", json={"name": "Ada", "password": "correct horse battery"}
            )
            assert made.status_code == 201, made.text
            bot = c.post("/api/bots", json={"name": "Clank"}).json()
        bots = server.api("/api/tournaments", {"name": "Bot cup", "entrants": "bots"})
        people = server.api("/api/tournaments", {"name": "People cup"})
        joined = httpx.post(
            f"{server.url}/api/tournaments/{bots['id']}/join",
            json={},
            headers={"Authorization": f"Bearer {bot['token']}"},
            timeout=10,
        )
        assert joined.status_code == 200, joined.text
        page = context.new_page()
        errors = collect_errors(page)
        page.goto(f"{server.url}/tournament.html")
        listed = page.locator(f"#tlist li[data-entrants=bots]:has(a[href$='{bots['id']}'])")
        expect(listed.locator(".bot-mark")).to_have_text("bot", timeout=TIMEOUT)
        expect(listed).to_contain_text("Bot tournament")
        other = page.locator(f"#tlist li:has(a[href$='{people['id']}'])")
        expect(other.locator(".bot-mark")).to_have_count(0)

        page.goto(f"{server.url}/tournament.html?id={bots['id']}")
        state = page.locator("#tstate")
        expect(state).to_contain_text("Bot tournament", timeout=TIMEOUT)
        mark = page.locator("#players li[data-player=Clank] .bot-mark")
        expect(mark).to_have_text("bot")
        expect(mark).to_have_attribute("aria-label", "A bot account")
        expect(page.locator("#bots-enter")).to_contain_text("blink bot play --tournament")
        expect(page.locator("#join-form")).to_have_count(0)
        page.select_option("#lang", "es")
        expect(state).to_contain_text("Torneo de bots")
        expect(mark).to_have_attribute("aria-label", "Una cuenta de bot")
        expect(page.locator("#bots-enter")).to_contain_text("con su clave")

        page.goto(f"{server.url}/tournament.html?id={people['id']}")
        expect(page.locator("#join-form")).to_be_visible(timeout=TIMEOUT)
        expect(page.locator("#tstate .bot-mark")).to_have_count(0)
        expect(page.locator("#bots-enter")).to_have_count(0)
        assert errors == []
    finally:
        server.stop()
