"""The whole table fits the screen, without scrolling, at every common size.

For each screen size (one browser context each, one server for all), a live table against bots
is opened from the lobby: classic Blink for 2 and 3 players, Go Blink for 2 to 6. Every hand
card, pile, opponent and count must lie inside the viewport, and the page must not scroll. A
screenshot of each table goes to tests/artifacts/layout/ (the test never compares them); with
``BLINK_SCREENSHOTS=1`` the README's few are copied to docs/screenshots/ as well.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from blinkweb import Server, collect_errors, finished_game
from playwright.sync_api import Browser, Page, expect

from blink.model.registry import get_game

pytestmark = pytest.mark.timeout(600)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts" / "layout"
README_SHOTS = ROOT / "docs" / "screenshots"
# The screenshots the README shows: artifact name -> name in docs/screenshots.
CHOSEN = {
    "classic-3p-1366x768": "layout-classic-3p-1366x768.png",
    "classic-2p-390x844": "layout-classic-2p-390x844.png",
    "goblink-6p-1280x720": "layout-goblink-6p-1280x720.png",
    "goblink-4p-360x640": "layout-goblink-4p-360x640.png",
}

SIZES = [
    (360, 640), (390, 844), (768, 1024), (1280, 720), (1280, 800), (1366, 768), (1440, 900),
    (1920, 1080),
]  # fmt: skip
TOUCH = {(360, 640), (390, 844), (768, 1024)}

CLASSIC_INFO = get_game("classic").info
GO_INFO = get_game("goblink").info
CASES: list[tuple[str, int]] = [
    *(("classic", n) for n in range(CLASSIC_INFO.min_players, CLASSIC_INFO.max_players + 1)),
    *(("goblink", n) for n in range(GO_INFO.min_players, GO_INFO.max_players + 1)),
]

# Every element that must be on screen, per game; and whether the page scrolls.
MEASURE_JS = """(sel) => {
  const W = window.innerWidth, H = window.innerHeight, out = [];
  for (const el of document.querySelectorAll(sel)) {
    const s = getComputedStyle(el);
    if (s.display === 'none' || s.visibility === 'hidden') continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.left < -0.5 || r.top < -0.5 || r.right > W + 0.5 || r.bottom > H + 0.5) {
      const at = [r.left, r.top, r.right, r.bottom].map(Math.round);
      out.push(`${el.className || el.id || el.tagName} at ${at} outside ${W}x${H}`);
    }
  }
  const d = document.scrollingElement;
  if (d.scrollHeight > H + 0.5) out.push(`the page scrolls: ${d.scrollHeight} > ${H}`);
  if (d.scrollWidth > W + 0.5) out.push(`the page scrolls sideways: ${d.scrollWidth} > ${W}`);
  return out;
}"""
SELECTORS = {
    "classic": ".hcard, .hcard .hkey, .pile, .pile .pkey, .opp, .opp .counts, .opp .minihand,"
    " .me .mine, .keyhint, .tablebar, .center-msg",
    "goblink": "#go-hand button, .go-opp, .go-count, #go-draw, #go-turn, .go-discard, .go-log,"
    " .go-controls button, .go-opp-btn, #go-prompt, #go-keys",
}
COUNTED = {"classic": (".hcard", ".pile"), "goblink": ("#go-hand button", ".go-opp")}


# Text cut by its box must end in an ellipsis (which a flex or grid box does not draw); the
# latency badge keeps one line; nothing makes the page wider than the screen.
TEXT_JS = """(sel) => {
  const out = [];
  for (const el of document.querySelectorAll(sel)) {
    if (el.closest('.sr-only')) continue;  // a screen reader's words, hidden by design
    const s = getComputedStyle(el);
    if (s.display === 'none' || s.visibility === 'hidden' || !el.clientWidth) continue;
    if (el.scrollWidth <= el.clientWidth + 1) continue;
    if (s.textOverflow !== 'ellipsis' || /flex|grid/.test(s.display)) {
      out.push(`"${el.textContent.trim()}" (${el.className}) is cut without an ellipsis`);
    }
  }
  const net = document.querySelector('#net');
  const line = net ? parseFloat(getComputedStyle(net).fontSize) * 1.8 : 0;
  if (net && net.textContent && net.getBoundingClientRect().height > line) {
    out.push(`the latency badge "${net.textContent}" takes several lines`);
  }
  const W = window.innerWidth;
  const wide = document.scrollingElement.scrollWidth;
  if (wide > W + 0.5) out.push(`the page is ${wide} px wide`);
  return out;
}"""
NAMES = {
    "classic": ".opp .name, .opp .name .nm, .by-tag, .mine, .tablebar span",
    "goblink": ".go-opp-name, .go-match-who, .go-turn",
}
WIDE_GO = 1280
"""From this width Go Blink's opponents' names are never cut (there is room for them)."""

# Every pile's name tag at once (as when each was just played on), drawn by the board's own
# code over the live table: a tag stays within its pile, over no other pile.
TAGS_JS = """async () => {
  const { boardHTML } = await import('/js/board.js');
  const board = document.querySelector('.board');
  const piles = [...board.querySelectorAll('.pile[data-pile]')];
  const names = ['Annabelle Longname', 'Bartholomew Longname', 'Cornelius Longname'];
  const players = piles.length;
  const opp = (pile) => (pile === 0 ? 1 : pile);
  const html = boardHTML({
    players, seat: 0, names, tops: piles.map(() => '1RM'), depth: piles.map(() => 1),
    hands: null, handCounts: piles.map(() => 3), drawCounts: piles.map(() => 9), connected: null,
    playedBy: new Map(piles.map((_, i) => [i, opp(i)])), showKeys: true, interactive: true,
  });
  board.outerHTML = html;
  const out = [];
  const stacks = [...document.querySelectorAll('.board .pile[data-pile]')]
    .map((p) => [p.dataset.pile, p.getBoundingClientRect()]);
  for (const tag of document.querySelectorAll('.board .by-tag')) {
    const own = tag.closest('.pile').dataset.pile;
    const r = tag.getBoundingClientRect();
    for (const [pile, b] of stacks) {
      if (pile === own) {
        if (r.left < b.left - 1 || r.right > b.right + 1) {
          out.push(`the tag of pile ${own} is wider than its pile`);
        }
      } else if (r.left < b.right && b.left < r.right && r.top < b.bottom && b.top < r.bottom) {
        out.push(`the tag of pile ${own} covers pile ${pile}`);
      }
    }
  }
  return out;
}"""

# A long log scrolled to its newest line: no line is drawn cut in half by its top edge.
LOG_JS = """async () => {
  const { showNewest } = await import('/games/goblink/table.js');
  if (!showNewest) return ['the Go Blink table has no showNewest for its log'];
  const list = document.querySelector('#go-log');
  for (let i = 0; i < 60; i++) {
    const li = document.createElement('li');
    li.innerHTML = `<span class="go-log-n">${i + 2}.</span>`
      + ` <span>Bot ${i % 5} asked for greens: 1 card</span>`;
    list.appendChild(li);
  }
  showNewest(list);
  const top = list.getBoundingClientRect().top;
  const cut = [...list.children].filter((li) => {
    const r = li.getBoundingClientRect();
    const drawn = getComputedStyle(li).visibility !== 'hidden';
    return r.top < top - 0.5 && r.bottom > top + 0.5 && drawn;
  });
  return cut.map((li) => li.textContent);
}"""


def open_table(page: Page, server: Server, game: str, players: int) -> None:
    """From the lobby, a game against bots; wait until the table is live."""
    page.goto(server.url + "/")
    if game == "classic":
        expect(page.locator("#q-level option").first).to_be_attached()
        page.select_option("#q-level", "beginner")
        page.locator("#f-quick").get_by_text(str(players), exact=True).click()
        page.click("#q-play")
        expect(page.locator('.table[data-phase="playing"]')).to_be_visible(timeout=20000)
        expect(page.locator("#overlay")).to_be_hidden()  # the countdown is over
        expect(page.locator("#go-flash")).to_have_count(0)  # and so is the start's flash
    else:
        expect(page.locator("#go-bot option").first).to_be_attached()
        page.locator("#f-go").get_by_text(str(players), exact=True).click()
        page.click("#go-play")
        expect(page.locator("#go-hand button").first).to_be_visible(timeout=20000)
        expect(page.locator("#go-countdown")).to_have_count(0, timeout=20000)


def check(page: Page, game: str, players: int) -> list[str]:
    """What lies outside the viewport or is cut (an empty list when the table fits)."""
    problems: list[str] = page.evaluate(MEASURE_JS, SELECTORS[game])
    problems += page.evaluate(TEXT_JS, NAMES[game])
    if game == "goblink" and page.viewport_size and page.viewport_size["width"] >= WIDE_GO:
        cut = page.evaluate(
            "() => [...document.querySelectorAll('.go-opp-name')]"
            ".filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent)"
        )
        problems += [f"the name {n!r} is cut on a wide screen" for n in cut]
    hand, others = COUNTED[game]
    if page.locator(hand).count() == 0:
        problems.append("no hand shown")
    want = players if game == "classic" else players - 1
    got = page.locator(others).count()
    if got != want:
        problems.append(f"{got} {others} shown, {want} expected")
    return problems


def test_every_table_fits_every_screen(browser: Browser, server: Server) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    failures: dict[str, list[str]] = {}
    for w, h in SIZES:
        touch = (w, h) in TOUCH
        opts: dict[str, Any] = {"viewport": {"width": w, "height": h}, "locale": "en-US"}
        if touch:
            opts.update(has_touch=True, is_mobile=w < 700)
        ctx = browser.new_context(**opts)
        try:
            page = ctx.new_page()
            errors = collect_errors(page)
            for game, players in CASES:
                name = f"{game}-{players}p-{w}x{h}"
                open_table(page, server, game, players)
                problems = check(page, game, players)
                page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
                # The same table in Spanish (its words are longer), switched in place.
                page.select_option("#lang", "es")
                expect(page.locator("html")).to_have_attribute("lang", "es")
                problems += [f"(es) {p}" for p in check(page, game, players)]
                page.select_option("#lang", "en")
                if game == "classic":
                    problems += page.evaluate(TAGS_JS)
                elif players == GO_INFO.max_players:
                    problems += page.evaluate(LOG_JS)
                if problems:
                    failures[name] = problems
            assert not errors, errors
        finally:
            ctx.close()
    if os.environ.get("BLINK_SCREENSHOTS") == "1":
        for src, dst in CHOSEN.items():
            shutil.copyfile(ARTIFACTS / f"{src}.png", README_SHOTS / dst)
    assert not failures, "\n".join(f"{k}: {v}" for k, v in failures.items())


PAGES = ["/", "/#rules", "/#replay", "/tournament.html", "/leaderboard.html", "/daily.html"]


def test_every_page_fits_every_screen(browser: Browser, server: Server) -> None:
    """Every page besides the tables (the lobby, "How to play", the replay viewer, the
    tournaments, one open for sign-up, the leaderboard, the daily challenge, a game's study),
    at every size, in English and Spanish: no text cut without an ellipsis, nothing wider than
    the screen."""
    made = server.api("/api/tournaments", {"name": "Layout cup", "kind": "online"})
    study = f"/#study=/api/games/{finished_game(server)}/record"  # a finished game's study
    pages = [*PAGES, f"/tournament.html?id={made['id']}", study]
    failures: dict[str, list[str]] = {}
    for w, h in SIZES:
        touch = (w, h) in TOUCH
        opts: dict[str, Any] = {"viewport": {"width": w, "height": h}, "locale": "en-US"}
        if touch:
            opts.update(has_touch=True, is_mobile=w < 700)
        ctx = browser.new_context(**opts)
        try:
            page = ctx.new_page()
            errors = collect_errors(page)
            for lang in ("en", "es"):
                page.add_init_script(f"localStorage.setItem('blink.lang', '{lang}')")
                for path in pages:
                    page.goto(server.url + path)
                    page.wait_for_load_state("networkidle")
                    expect(page.locator("html")).to_have_attribute("lang", lang)
                    problems = page.evaluate(TEXT_JS, "h1, h2, .brand, .net, .tlinks a, .btn")
                    if problems:
                        failures[f"{path} {w}x{h} {lang}"] = problems
            assert not errors, errors
        finally:
            ctx.close()
    assert not failures, "\n".join(f"{k}: {v}" for k, v in failures.items())
