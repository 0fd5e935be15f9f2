"""Every page runs under the server's security headers: the policy is sent, and a page that
the policy blocked would log a console error (every browser test collects and checks them)."""

from __future__ import annotations

import httpx
from blinkweb import Server, collect_errors
from playwright.sync_api import BrowserContext, expect

from blink.server.headers import CSP


def test_pages_send_the_headers_and_work_under_them(
    context: BrowserContext, server: Server
) -> None:
    pages = ("/", "/tournament.html", "/leaderboard.html", "/daily.html")
    for path in (*pages, "/api/options", "/js/app.js"):
        r = httpx.get(server.url + path, timeout=30)
        assert r.status_code == 200, path
        assert r.headers["content-security-policy"] == CSP, path
        assert r.headers["x-content-type-options"] == "nosniff", path
        assert r.headers["x-frame-options"] == "DENY", path
    docs = httpx.get(server.url + "/docs", timeout=30)
    assert docs.status_code == 200  # its own policy: tests/e2e/test_api_docs_offline.py
    assert docs.headers["content-security-policy"].startswith(CSP.split("; ")[0])
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/")
    expect(page.get_by_role("heading", name="Quick game")).to_be_visible()
    page.get_by_role("button", name="Colour letters").click()
    page.wait_for_timeout(300)
    assert errors == [], errors
