"""The printable bracket page in a real browser (Debian's headless Chromium via Playwright)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

from blink.tournament import Tournament
from blink.tournament.bracket import render_html

from .helpers import oracle, ranked

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@pytest.mark.parametrize(("n", "played"), [(13, 10_000), (64, 60), (3, 4)])
def test_printable_page_renders_and_prints(
    browser: Browser, tmp_path: Path, n: int, played: int
) -> None:
    t = Tournament.create(ranked(n), name=f"Club cup {n}")
    t.draw(seed=n)
    for _ in range(played):
        if t.finished:
            break
        m = t.ready_matches()[0]
        t.record_game(m.id, oracle(m))
    page_file = tmp_path / "bracket.html"
    page_file.write_text(render_html(t), encoding="utf-8")
    page = browser.new_page(viewport={"width": 900, "height": 1200})
    try:
        page.goto(page_file.as_uri())
        assert page.title() == f"Club cup {n}"
        text = page.inner_text("body")
        for e in t.entrants:
            assert e.name in text
        if t.plan.rounds:
            svg = page.locator("svg.bracket")
            box = svg.bounding_box()
            assert box is not None and box["width"] > 300 and box["height"] > 100
            # the bracket scales to the page: nothing sticks out sideways
            assert page.evaluate("document.documentElement.scrollWidth") <= 900
            names = page.locator("svg.bracket text").all_text_contents()
            assert sum(1 for x in names if x.startswith("P")) >= n
        if t.finished:
            assert f"champion: {t.champion}" in text
        pdf = page.pdf(format="A4", print_background=True)
        assert pdf[:5] == b"%PDF-"
        page.screenshot(path=str(tmp_path / "shot.png"), full_page=True)
    finally:
        page.close()
