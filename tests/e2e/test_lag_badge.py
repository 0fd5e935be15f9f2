"""The table's latency badge: the page's own round trip and its seat's lag as the server
measured it (the page answers the server's probes), and the page's estimate of the server's
clock."""

from __future__ import annotations

import re

import httpx
from blinkweb import Server, collect_errors
from playwright.sync_api import BrowserContext, expect
from test_resilience_i18n_phone import start_quick_game


def test_badge_shows_the_lag_the_server_measured(context: BrowserContext, server: Server) -> None:
    page = context.new_page()
    errors = collect_errors(page)
    start_quick_game(page, server)
    net = page.locator("#net")
    expect(net).to_contain_text(" ms", timeout=10000)
    expect(net).to_have_attribute("title", re.compile("measured by the server"), timeout=15000)
    title = net.get_attribute("title") or ""
    assert title.startswith("Latency ") and ": round trip " in title, title
    # The page's clock offset: the server's monotonic clock minus performance.now().
    offset = page.evaluate("window.blinkConnection.clock.offset")
    assert isinstance(offset, (int, float))
    lag = page.evaluate("window.blinkConnection.lag")
    assert lag[0]["rtt_ms"] >= 0 and lag[1] is None  # the bot's seat is not measured
    assert not errors, errors


def test_private_game_with_the_lag_allowance(context: BrowserContext, server: Server) -> None:
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/")
    page.evaluate("localStorage.setItem('blink.lang', 'es')")
    page.goto(server.url + "/")
    advanced = page.locator("#f-priv details.advanced")
    advanced.locator("summary").click()
    expect(page.locator("#p-lag option[value='0']")).to_have_text("Desactivada")
    expect(advanced).to_contain_text("Compensación de retardo")
    page.select_option("#p-lag", "100")
    expect(page.locator("#p-create")).to_be_enabled(timeout=10000)
    page.click("#p-create")
    page.wait_for_url(re.compile(r"/play/[A-Z0-9]+$"))
    code = page.url.rsplit("/", 1)[1]
    room = httpx.get(f"{server.url}/api/rooms/{code}", timeout=10).json()
    assert room["options"]["lag_allowance_ms"] == 100
    assert not errors, errors
