"""Fixtures for the browser tests: a real `blink serve` subprocess and Debian's headless Chromium.

The server runs with short delays (countdown, stall pause, time between games) so the tests stay
fast; nothing in the tests depends on machine speed beyond generous timeouts.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from blinkweb import Server
from playwright.sync_api import Browser, BrowserContext, Playwright, sync_playwright

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "docs" / "screenshots"


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the whole browser suite (each test makes its own rooms)."""
    s = Server(tmp_path_factory.mktemp("e2e"))
    yield s
    s.stop()


# Module scope, not session: the sync driver keeps an event loop running in this thread while
# it lives, which would break every asyncio test that runs after the browser tests.
@pytest.fixture(scope="module")
def playwright_instance() -> Iterator[Playwright]:
    """The Playwright driver."""
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright_instance: Playwright) -> Iterator[Browser]:
    """Debian's Chromium, headless."""
    b = playwright_instance.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield b
    b.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """A fresh browser profile in English on a desktop screen."""
    ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    yield ctx
    ctx.close()


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the tests write their screenshots: the README's folder (docs/screenshots) when
    ``BLINK_SCREENSHOTS=1``, otherwise a temporary folder, so a test run leaves the checkout
    as it was."""
    if os.environ.get("BLINK_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        return SCREENSHOTS
    return tmp_path_factory.mktemp("screenshots")
