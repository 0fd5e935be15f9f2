"""The daily challenge page: today's bot and board in both languages, and its Play button,
which goes to the table of a room of today's deal as the quick game does."""

from __future__ import annotations

import re

from blinkweb import Server, collect_errors
from playwright.sync_api import BrowserContext, expect


def test_the_daily_page_opens_today_and_plays_it(context: BrowserContext, server: Server) -> None:
    today = server.api("/api/daily")
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/")
    page.locator(".extra-links").get_by_role("link", name="Daily challenge").click()
    page.wait_for_url("**/daily.html")
    expect(page.get_by_role("heading", name="Daily challenge", level=1)).to_be_visible()
    line = page.locator("#today-line")
    expect(line).to_contain_text(str(today["date"]))
    expect(line).to_contain_text("bot")
    expect(page.locator("#yesterday-line")).to_have_text("Nobody played yesterday's challenge.")
    expect(page.locator("#daily-replay")).to_be_hidden()
    page.select_option("#lang", "es")
    expect(page.get_by_role("heading", name="Reto diario", level=1)).to_be_visible()
    expect(page.get_by_role("button", name="Jugar el reparto de hoy")).to_be_visible()
    expect(line).to_contain_text("el rival de hoy es el bot de nivel")
    page.select_option("#lang", "en")
    page.get_by_role("button", name="Play today's deal").click()
    expect(page).to_have_url(re.compile(r"/play/[A-Z0-9]{6}$"))
    expect(page.locator(".table[data-phase]")).to_be_visible(timeout=20000)
    code = page.url.rsplit("/", 1)[1]
    room = server.api(f"/api/rooms/{code}")
    assert room["options"]["daily"] == today["date"] and "deal_seed" not in room["options"]  # type: ignore[index,operator]
    assert not errors, errors
