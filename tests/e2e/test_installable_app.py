"""The installable app: the web manifest and its icons, the service worker that controls the
pages and caches the app shell, and the offline page (both languages) once the server cannot
be reached."""

from __future__ import annotations

import io

import httpx
from blinkweb import Server, collect_errors
from PIL import Image
from playwright.sync_api import BrowserContext, expect

from blink.server.headers import CSP


def test_the_manifest_is_served_with_icons_that_load(
    context: BrowserContext, server: Server
) -> None:
    page = context.new_page()
    page.goto(server.url + "/")
    href = page.locator('link[rel="manifest"]').get_attribute("href")
    assert href == "/manifest.webmanifest"
    r = httpx.get(server.url + href, timeout=10)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/manifest+json")
    m = r.json()
    assert m["name"] and m["short_name"] == "Blink"
    assert m["start_url"] == "/" and m["display"] == "standalone"
    assert m["theme_color"].startswith("#") and m["background_color"].startswith("#")
    seen = set()
    for icon in m["icons"]:
        got = httpx.get(server.url + icon["src"], timeout=10)
        assert got.status_code == 200 and got.headers["content-type"] == "image/png", icon
        size = Image.open(io.BytesIO(got.content)).size
        assert f"{size[0]}x{size[1]}" == icon["sizes"], icon
        seen.add((icon["sizes"], icon["purpose"]))
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= seen
    assert "manifest-src 'self'" in CSP and "worker-src 'self'" in CSP


def test_the_service_worker_controls_the_page_and_offline_shows_the_offline_page(
    context: BrowserContext, server: Server
) -> None:
    sw = httpx.get(server.url + "/sw.js", timeout=10)
    assert sw.status_code == 200
    assert sw.headers["content-type"].startswith("text/javascript")
    assert sw.headers["service-worker-allowed"] == "/"
    assert "__VERSION__" not in sw.text and "/offline.html" in sw.text
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/")
    expect(page.get_by_role("heading", name="Quick game")).to_be_visible()
    scope = page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)")
    assert scope == server.url + "/"
    page.reload()
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=20_000)
    context.set_offline(True)
    try:
        page.reload()
        expect(page.locator("#offline-title")).to_have_text("You are offline")
        expect(page.locator("#offline-text")).to_contain_text("server cannot be reached")
        page.evaluate("localStorage.setItem('blink.lang', 'es')")
        page.reload()
        expect(page.locator("#offline-title")).to_have_text("Sin conexión")
        expect(page.locator("#offline-text")).to_contain_text("No se puede contactar")
        expect(page.locator("#offline-retry")).to_be_visible()
        page.evaluate("localStorage.setItem('blink.lang', 'en')")
    finally:
        context.set_offline(False)
    # Back online, the offline page tries again by itself and reaches the lobby; if its own
    # try came before the network was back in the service worker too, "Try again" does.
    lobby = page.get_by_role("heading", name="Quick game")
    for _ in range(10):
        try:
            expect(lobby).to_be_visible(timeout=5_000)
            break
        except AssertionError:
            page.get_by_role("button", name="Try again").click()
    expect(lobby).to_be_visible()
    # A request under way when the network went fails (net::ERR_INTERNET_DISCONNECTED, or
    # net::ERR_FAILED through the service worker): the only console errors allowed.
    unexpected = [e for e in errors if "Failed to load resource: net::ERR_" not in e]
    assert unexpected == [], unexpected
