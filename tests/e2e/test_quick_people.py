"""Quick play against people in the browser: two contexts press "Play someone" and land at the
same table; a lone player (in Spanish) is offered a bot and takes it; the lobby counts who is
waiting, a change of language keeps the wait, and "Cancel" leaves the queue."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from axe import describe, violations
from blinkweb import Server, collect_errors
from playwright.sync_api import Browser, expect


def test_two_browsers_are_paired_at_one_table(browser: Browser, server: Server) -> None:
    ann_ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    bob_ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    try:
        ann = ann_ctx.new_page()
        bob = bob_ctx.new_page()
        errors = collect_errors(ann) + collect_errors(bob)
        for page, name in ((ann, "Ann"), (bob, "Bob")):
            page.goto(server.url + "/")
            page.fill("#q-name", name)
            # Other tests' tables on this server may still be online; nobody waits.
            expect(page.locator("#q-counts")).to_have_text(re.compile(r"^\d+ online · 0 waiting$"))
        ann.get_by_role("button", name="Play someone").click()
        expect(ann.locator("#q-waited")).to_contain_text("Looking for an opponent")
        # Bob's lobby hears that someone waits (the lobby's event stream).
        expect(bob.locator("#q-counts")).to_have_text(re.compile(r"^\d+ online · 1 waiting$"))
        bob.get_by_role("button", name="Play someone").click()
        for page in (ann, bob):
            expect(page).to_have_url(re.compile(r"/play/[A-Z0-9]+$"), timeout=15000)
            expect(page.locator('.table[data-phase="playing"]')).to_be_visible(timeout=15000)
        assert ann.url == bob.url
        expect(ann.locator(".opp .name")).to_have_text("Bob")
        expect(bob.locator(".opp .name")).to_have_text("Ann")
        assert not errors, errors
    finally:
        ann_ctx.close()
        bob_ctx.close()


@pytest.fixture(scope="module")
def offering(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server that offers a bot after one second in the queue."""
    s = Server(tmp_path_factory.mktemp("offer"), "--queue-bot-after", "1")
    yield s
    s.stop()


def test_a_lone_browser_is_offered_a_bot_in_spanish(browser: Browser, offering: Server) -> None:
    # bypass_csp: the accessibility checker's script is let in (the server allows only its own).
    ctx = browser.new_context(
        viewport={"width": 1200, "height": 800}, locale="es-ES", bypass_csp=True
    )
    try:
        page = ctx.new_page()
        errors = collect_errors(page)
        page.goto(offering.url + "/")
        page.get_by_role("button", name="Jugar contra alguien").click()
        expect(page.locator("#q-waited")).to_contain_text("Buscando rival")
        expect(page.locator("#q-counts")).to_have_text("1 conectado · 1 esperando")
        # A change of language rebuilds the lobby: the wait goes on in the other language.
        page.select_option("#lang", "en")
        expect(page.locator("#q-waited")).to_contain_text("Looking for an opponent")
        expect(page.locator("#q-counts")).to_have_text("1 online · 1 waiting")
        page.select_option("#lang", "es")
        expect(page.locator("#q-waited")).to_contain_text("Buscando rival")
        expect(page.get_by_role("button", name="Jugar contra alguien")).to_be_disabled()
        # Cancel leaves the queue; waiting again brings the offer after the server's wait.
        page.get_by_role("button", name="Cancelar").click()
        expect(page.locator("#q-wait")).to_be_hidden()
        expect(page.locator("#q-counts")).to_have_text("0 conectados · 0 esperando")
        page.get_by_role("button", name="Jugar contra alguien").click()
        expect(page.locator("#q-offer")).to_have_text(
            "Nadie todavía. Juega contra un bot, o sigue esperando.", timeout=10000
        )
        # The wait with its offer is as accessible as the rest of the lobby.
        found = violations(page)
        assert not found, describe(found)
        page.get_by_role("button", name="Jugar contra un bot").click()
        expect(page).to_have_url(re.compile(r"/play/[A-Z0-9]+$"), timeout=15000)
        expect(page.locator('.table[data-phase="playing"]')).to_be_visible(timeout=15000)
        assert not errors, errors
    finally:
        ctx.close()
