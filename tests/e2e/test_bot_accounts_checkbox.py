"""The new room form's "Bot accounts may join" box: off by default (the room refuses bot
accounts), and a room made with it ticked admits them; its words in both languages."""

from __future__ import annotations

import re

import httpx
from blinkweb import Server, collect_errors
from playwright.sync_api import BrowserContext, Page, expect


def _create(page: Page, server: Server) -> dict[str, object]:
    expect(page.locator("#p-create")).to_be_enabled(timeout=10000)
    page.click("#p-create")
    page.wait_for_url(re.compile(r"/play/[A-Z0-9]+$"))
    code = page.url.rsplit("/", 1)[1]
    room: dict[str, object] = httpx.get(f"{server.url}/api/rooms/{code}", timeout=10).json()
    return room


def test_the_bot_accounts_box(context: BrowserContext, server: Server) -> None:
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/")
    box = page.locator("#p-bots")
    expect(box).not_to_be_checked()
    expect(page.locator("label:has(#p-bots)")).to_have_text("Bot accounts may join")
    assert _create(page, server)["bot_accounts"] is False
    page.goto(server.url + "/")
    page.evaluate("localStorage.setItem('blink.lang', 'es')")
    page.goto(server.url + "/")
    expect(page.locator("label:has(#p-bots)")).to_have_text("Las cuentas de bot pueden unirse")
    page.check("#p-bots")
    room = _create(page, server)
    assert room["bot_accounts"] is True
    assert room["options"] == {**room["options"], "bot_accounts": True}  # type: ignore[dict-item]
    assert not errors, errors
