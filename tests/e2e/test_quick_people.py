"""Quick play against people in the browser: two contexts press "Play someone" and land at the
same table; a lone player (in Spanish) is offered a bot and takes it; the lobby counts who is
waiting, a change of language keeps the wait, and "Cancel" leaves the queue."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from axe import describe, violations
from blinkweb import Server, collect_errors
from playwright.sync_api import Browser, Page, WebSocketRoute, expect


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


def _queue_sockets(page: Page, silent: set[int]) -> list[list[str]]:
    """Route the page's queue sockets through the test: the ``silent`` ones (counting from 0)
    pass nothing either way and are never closed (a network that dropped every packet); the
    others pass everything. Per socket, in order, the frames the server sent on it."""
    heard: list[list[str]] = []

    def handle(ws: WebSocketRoute) -> None:
        frames: list[str] = []
        heard.append(frames)
        if len(heard) - 1 in silent:
            ws.on_message(lambda m: None)
            return
        server_ws = ws.connect_to_server()
        ws.on_message(server_ws.send)

        def down(m: str | bytes) -> None:
            frames.append(str(m))
            ws.send(m)

        server_ws.on_message(down)

    page.route_web_socket("**/api/queue", handle)
    return heard


def _sockets_made(page: Page, heard: list[list[str]], n: int) -> None:
    """Wait until the page has made ``n`` queue sockets (their routes reach the test as the
    page's events are read), then check it made no more."""
    for _ in range(200):
        if len(heard) >= n:
            break
        page.wait_for_timeout(50)
    assert len(heard) == n


def test_a_silent_queue_socket_is_joined_again(browser: Browser, server: Server) -> None:
    """The server speaks every second to a waiting player: a queue socket silent for 8 s is
    dropped and the wait joined again on a new one, and the wait goes on. The page's clock is
    driven."""
    ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    try:
        page = ctx.new_page()
        errors = collect_errors(page)
        heard = _queue_sockets(page, silent={0})
        page.clock.install()
        page.goto(server.url + "/")
        page.get_by_role("button", name="Play someone").click()
        expect(page.locator("#q-waited")).to_contain_text("Looking for an opponent")
        page.clock.run_for(7000)  # silent a little less than 8 s: the same socket
        _sockets_made(page, heard, 1)
        page.clock.run_for(1500)
        _sockets_made(page, heard, 2)
        # The new socket joins for real: the server answers it, and the wait goes on.
        for _ in range(200):
            if any('"queued"' in f for f in heard[1]):
                break
            page.wait_for_timeout(50)
        assert any('"queued"' in f for f in heard[1]), heard[1]
        expect(page.locator("#q-wait")).to_be_visible()
        expect(page.locator("#q-err")).to_be_empty()
        page.get_by_role("button", name="Cancel").click()
        expect(page.locator("#q-wait")).to_be_hidden()
        assert not errors, errors
    finally:
        ctx.close()


def test_a_queue_that_stays_silent_fails_the_wait(browser: Browser, server: Server) -> None:
    """Three silent queue sockets in a row: the server cannot be reached, and the lobby says
    so, in the page's language."""
    ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="es-ES")
    try:
        page = ctx.new_page()
        heard = _queue_sockets(page, silent={0, 1, 2})
        page.clock.install()
        page.goto(server.url + "/")
        page.get_by_role("button", name="Jugar contra alguien").click()
        expect(page.locator("#q-waited")).to_contain_text("Buscando rival")
        for n in (2, 3):
            page.clock.run_for(8100)
            _sockets_made(page, heard, n)
            expect(page.locator("#q-err")).to_be_empty()
        page.clock.run_for(8100)
        expect(page.locator("#q-err")).to_have_text(
            "No se pudo buscar rival: se perdió la conexión con el servidor."
        )
        _sockets_made(page, heard, 3)
    finally:
        ctx.close()
