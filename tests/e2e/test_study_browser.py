"""A game to study, in Chromium: a quick game against the fastest bot, then the end screen's own
line ("You missed 7 plays, median reaction 640 ms") and its "Study this game" button, which
opens the replay on its study (GET /api/games/{id}/study): each seat's summary, the hands'
timeline, and a move list whose moves jump the replay to their step. In English and Spanish;
the figures are checked against the server's study."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx
import pytest
from blinkweb import Server, collect_errors, keyboard_step
from playwright.sync_api import BrowserContext, Page, expect

WORDS = {
    "en": {
        "you": r"You missed (\d+) plays?, median reaction (.+)",
        "study": "Study this game",
        "title": "Study",
        "step": "Step {k} of {n}",
        "ms": "{n} ms",
    },
    "es": {
        "you": r"Perdiste (\d+) jugadas?, reacción mediana (.+)",
        "study": "Estudiar esta partida",
        "title": "Estudio",
        "step": "Paso {k} de {n}",
        "ms": "{n} ms",
    },
}


def _ms(lang: str, ms: int | None) -> str:
    """A duration as the page writes it (thousands grouped as the language does)."""
    if ms is None:
        return "—"
    sep = "," if lang == "en" else "."
    # Spanish groups only five digits and more (Intl.NumberFormat("es")).
    digits = f"{ms:,}".replace(",", sep) if lang == "en" or ms >= 10_000 else str(ms)
    return WORDS[lang]["ms"].format(n=digits)


def _play_to_the_end(page: Page) -> None:
    expect(page.locator("#q-level option").first).to_be_attached()
    page.select_option("#q-level", "inhuman")
    page.click("#q-play")
    # The fastest bot may end the race before the page is seen playing.
    expect(page.locator('.table[data-phase="playing"], .end').first).to_be_visible(timeout=20000)
    deadline = time.monotonic() + 300  # generous: the loop ends at the end screen
    while time.monotonic() < deadline and not page.locator(".end").count():
        keyboard_step(page)
    expect(page.locator(".end")).to_be_visible()


@pytest.mark.parametrize("lang", ["en", "es"])
def test_study_from_the_end_screen(
    context: BrowserContext, server: Server, screenshots: Path, lang: str
) -> None:
    words = WORDS[lang]
    page = context.new_page()
    errors = collect_errors(page)
    page.add_init_script(f"localStorage.setItem('blink.lang', '{lang}')")
    page.goto(server.url + "/")
    _play_to_the_end(page)

    # The end screen's own line, the server's figures for the player's seat (seat 0: the
    # quick game seats the player first).
    line = page.locator("#study-line")
    expect(line).to_be_visible(timeout=15000)
    found = re.fullmatch(words["you"], line.inner_text().strip())
    assert found, line.inner_text()
    button = page.get_by_role("button", name=words["study"])
    expect(button).to_be_visible()
    record_url = button.get_attribute("data-url")
    assert record_url
    study: dict[str, Any] = httpx.get(
        server.url + record_url.replace("/record", "/study"), timeout=10
    ).json()
    (g,) = study["games"]
    # The player's seat, as the page remembered the game (net.js's "blink.recent").
    recent = page.evaluate("JSON.parse(localStorage.getItem('blink.recent') || '[]')")
    (me,) = [e["me"] for e in recent if e.get("record_url") == record_url]
    mine = g["summary"][me]
    assert int(found[1]) == mine["missed"]
    assert found[2] == _ms(lang, mine["median_reaction_ms"])

    # The button opens the replay on its study.
    expect(page.locator("#end-actions")).not_to_have_attribute("data-arming", "")
    button.click()
    expect(page).to_have_url(re.compile(r"#study="))
    assert unquote(page.url.split("#study=", 1)[1]) == record_url
    panel = page.locator("#rp-study")
    expect(panel.get_by_role("heading", name=words["title"], exact=True)).to_be_visible()
    summary = page.locator("#st-summary li")
    expect(summary).to_have_count(len(g["summary"]))
    for s, item in zip(g["summary"], summary.all(), strict=True):
        assert f"{s['missed']}" in item.inner_text()
        assert _ms(lang, s["median_reaction_ms"]) in item.inner_text()
    expect(page.locator(".st-timeline svg path")).to_have_count(g["players"])

    # Every play is a move with its reaction; clicking one moves the replay to its step.
    last = len(g["timeline"]) - 1
    plays = page.locator("#st-moves li.st-play")
    expect(plays).to_have_count(len(g["plays"]))
    pick = g["plays"][len(g["plays"]) // 2]
    move = page.locator(f'#st-moves li.st-play button[data-step="{pick["step"]}"]')
    expect(move).to_contain_text(_ms(lang, pick["reaction_ms"]))
    move.click()
    expect(page.locator("#rp-step")).to_have_text(words["step"].format(k=pick["step"], n=last))
    expect(page.locator("#rp-range")).to_have_value(str(pick["step"]))
    expect(move).to_have_attribute("aria-current", "step")
    # A missed play is marked, and jumps to the moment the card began to fit.
    missed = page.locator("#st-moves li.st-missed")
    expect(missed).to_have_count(len(g["missed"]))
    if g["missed"]:
        m = g["missed"][0]
        missed.first.locator("button").click()
        expect(page.locator("#rp-step")).to_have_text(words["step"].format(k=m["start"], n=last))
    if lang == "en":
        panel.screenshot(path=str(screenshots / "study.png"))
    # A study just finished may be asked for before the game is stored: the page asks again.
    assert [e for e in errors if "status of 409" not in e] == [], errors


def test_a_file_record_has_no_study_and_a_bad_study_says_so(
    context: BrowserContext, server: Server
) -> None:
    page = context.new_page()
    page.goto(server.url + "/#study=/api/games/987654/record")
    # The replay itself is refused (no such game): one sentence, no panel.
    expect(page.locator(".error-msg")).to_be_visible()
    expect(page.locator("#rp-study")).to_have_count(0)
