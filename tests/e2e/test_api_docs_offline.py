"""The API documentation pages work on a server without internet: Chromium opens ``/docs`` and
``/redoc`` with every request to another host aborted and sees the API rendered (they loaded
Swagger UI and ReDoc from a CDN, and were blank), under a Content-Security-Policy that allows
only their own inline script, with no console error."""

from __future__ import annotations

import httpx
from blinkweb import Server, collect_errors
from playwright.sync_api import BrowserContext, Route, expect


def _offline(context: BrowserContext, server: Server) -> list[str]:
    """Abort every request that leaves the server; the list of those aborted."""
    outside: list[str] = []

    def handle(route: Route) -> None:
        url = route.request.url
        if url.startswith(server.url) or url.startswith("data:") or url.startswith("blob:"):
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    context.route("**/*", handle)
    return outside


def test_swagger_ui_renders_without_internet(context: BrowserContext, server: Server) -> None:
    outside = _offline(context, server)
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/docs")
    expect(page.get_by_role("heading", name="Blink server")).to_be_visible(timeout=30_000)
    operation = page.locator(".opblock-summary-path", has_text="/api/rooms").first
    expect(operation).to_be_visible()
    assert outside == [] and errors == [], (outside, errors)


REDOCLY_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
"""The one thing ReDoc's bundle would fetch from another host: the logo of its "API docs by
Redocly" link (an image that hides itself when it cannot load); the page's policy blocks it,
which Chromium reports on the console."""


def test_redoc_renders_without_internet(context: BrowserContext, server: Server) -> None:
    outside = _offline(context, server)
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/redoc")
    expect(page.get_by_role("heading", name="Create Room").first).to_be_visible(timeout=30_000)
    expect(page.get_by_role("link", name="API docs by Redocly")).to_be_visible()
    others = [e for e in errors if REDOCLY_LOGO not in e or "Content Security Policy" not in e]
    assert outside == [] and others == [], (outside, errors)


def test_the_docs_pages_send_their_policy(server: Server) -> None:
    for path in ("/docs", "/redoc"):
        r = httpx.get(server.url + path, timeout=30)
        assert r.status_code == 200, path
        policy = r.headers["content-security-policy"]
        script = next(p for p in policy.split("; ") if p.startswith("script-src"))
        assert "unsafe-inline" not in script and "http" not in script, script
        assert r.headers["x-frame-options"] == "DENY"
    assert (
        "sha256-" in httpx.get(server.url + "/docs", timeout=30).headers["content-security-policy"]
    )
