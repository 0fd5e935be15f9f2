"""The end screen takes the keyboard: its primary action has the focus when it appears, so
Enter plays again (Enter did nothing: the focus was on a hand card that was gone)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from blinkweb import Server, collect_errors, keyboard_step
from playwright.sync_api import BrowserContext, expect


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server of this module's own (its games shift no other test's seeded deals)."""
    s = Server(tmp_path_factory.mktemp("e2e-end-enter"))
    yield s
    s.stop()


def test_enter_on_the_end_screen_asks_for_a_rematch(
    context: BrowserContext, server: Server
) -> None:
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/")
    page.fill("#q-name", "Ines")
    page.select_option("#q-level", "inhuman")
    page.click("#q-play")
    expect(page).to_have_url(re.compile(r"/play/[A-Z0-9]{6}$"))
    expect(page.locator('.table[data-phase="playing"], .end').first).to_be_visible(timeout=15000)
    deadline = time.monotonic() + 300  # generous: the loop ends at the end screen
    while time.monotonic() < deadline and not page.locator(".end").count():
        keyboard_step(page)  # plays with the keys: the focus is on the hand
    rematch = page.locator('.end [data-act="rematch"]')
    expect(rematch).to_be_visible(timeout=15000)
    expect(rematch).to_be_focused()
    page.keyboard.press("Enter")
    # Voted: the bot votes too, which starts the next game (so soon that the voted button's
    # disabled state may never be seen); without a vote the end screen would stay.
    expect(page.locator(".end")).to_have_count(0, timeout=30000)
    expect(page.locator('.table[data-phase="playing"], .end').first).to_be_visible(timeout=15000)
    assert not errors, errors
