"""The Go Blink replay viewer (js/replay.js with Go Blink's /games/goblink/replay.js drawing the
frames the server's engine computes): a record file stepped through, in English and Spanish,
what the page shows checked against the Python engine, and the end screen's replay link (one
request, and one for the game's study)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from blinkweb import AppThread, collect_errors
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from playwright.sync_api import BrowserContext, Page, expect

from blink.games.goblink.engine import GoGame
from blink.games.goblink.record import GoRecord
from blink.server.settings import Settings, sqlite_url
from randomgames import random_go_game


def open_file(page: Page, name: str, content: str) -> None:
    """Choose a record file in the "#replay" page."""
    page.set_input_files(
        "#rp-file",
        files=[{"name": name, "mimeType": "application/json", "buffer": content.encode()}],
    )


def expect_state(page: Page, game: GoGame) -> None:
    """The page shows the engine's state: every hand, the draw pile, the two logs."""
    for seat in range(game.players):
        cards = page.locator(f'.rp-seat[data-seat="{seat}"] .minihand .card-svg')
        expect(cards).to_have_count(len(game.hand(seat)))
        shown = [cards.nth(i).get_attribute("data-card") for i in range(len(game.hand(seat)))]
        assert shown == [str(c) for c in game.hand(seat)]
    expect(page.locator("#rp-draw")).to_have_text(f"Draw pile: {len(game.draw_pile())}")
    expect(page.locator("#rp-asks li")).to_have_count(game.asks)
    expect(page.locator("#rp-matches .rp-match")).to_have_count(len(game.discard()))
    current = page.locator(".rp-seat.current")
    if game.current is None or game.over:
        expect(current).to_have_count(0)
    else:
        expect(current).to_have_attribute("data-seat", str(game.current))


def test_what_the_page_shows_is_the_engine_state(context: BrowserContext, server: Any) -> None:
    """Random games of 2 to 6 players, random steps: the page shows the engine's state (this
    replaces the checks of the old JavaScript engine port)."""
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/#replay")
    seen: list[int] = []

    @hsettings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(seed=st.integers(0, 100_000), data=st.data())
    def check(seed: int, data: st.DataObject) -> None:
        rec = GoRecord.from_game(random_go_game(seed))
        name = f"go{len(seen)}-{seed}.json"
        open_file(page, name, rec.to_json())
        expect(page.locator("#rp-title")).to_contain_text(name)
        n = len(rec.actions)
        k = data.draw(st.integers(0, n))
        page.locator("#rp-range").fill(str(k))
        expect(page.locator("#rp-step")).to_have_text(f"Step {k} of {n}")
        game = GoGame(rec.deck, rec.players, rec.dealer, rec.turn_limit)
        for action, t in rec.actions[:k]:
            game.apply(action, t)
        expect_state(page, game)
        seen.append(seed)

    check()
    assert seen
    assert not errors, errors


def test_record_file_replays_step_by_step(context: BrowserContext, server: Any) -> None:
    game = random_go_game(5)  # 2 + 5 % 5 = 2 players
    rec = GoRecord.from_game(game, names=["Ana", "Ben"])
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/#replay")
    open_file(page, "go.json", rec.to_json())
    n = len(rec.actions)
    expect(page.locator(".go-replay")).to_be_visible()
    expect(page.locator("#rp-title")).to_contain_text("Go Blink")
    expect(page.locator("#rp-step")).to_have_text(f"Step 0 of {n}")
    expect(page.locator("#rp-log")).to_have_text("Cards dealt.")
    expect(page.locator(".rp-seat")).to_have_count(2)
    for seat in range(2):  # a finished record shows every hand
        expect(page.locator(f'.rp-seat[data-seat="{seat}"] .card-svg')).to_have_count(4)
    page.keyboard.press("ArrowRight")
    first = rec.actions[0][0]
    expect(page.locator("#rp-log")).to_contain_text(f"{rec.names[first.player]} ends the opening.")
    first_ask = next(i for i, (a, _t) in enumerate(rec.actions) if type(a).__name__ == "Ask")
    page.locator("#rp-range").fill(str(first_ask + 1))
    ask = rec.actions[first_ask][0]
    expect(page.locator("#rp-log")).to_contain_text(
        f"{rec.names[ask.player]} asks {rec.names[ask.target]} for "  # type: ignore[union-attr]
    )
    expect(page.locator("#rp-asks li")).to_have_count(1)
    page.keyboard.press("End")
    assert game.outcome is not None
    words = " wins " if len(game.outcome.winners) == 1 else "A tie"
    expect(page.locator("#rp-log")).to_contain_text(words)
    expect_state(page, game)
    page.click("#rp-back")
    expect(page.locator("#rp-step")).to_have_text(f"Step {n - 1} of {n}")
    # Play at speed: the steps advance by themselves.
    page.keyboard.press("Home")
    page.select_option("#rp-speed", "4")
    page.click("#rp-play")
    expect(page.locator("#rp-step")).not_to_have_text(f"Step 0 of {n}", timeout=10000)
    page.click("#rp-play")
    assert not errors, errors


def test_spanish_go_replay(browser: Any, server: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="es-ES")
    try:
        page = ctx.new_page()
        errors = collect_errors(page)
        game = random_go_game(7)
        rec = GoRecord.from_game(game, names=["Ana", "Ben", "Cy", "Dan"])
        page.goto(server.url + "/#replay")
        open_file(page, "go.json", rec.to_json())
        expect(page.locator("#rp-log")).to_have_text("Cartas repartidas.")
        expect(page.locator(".go-replay h2").first).to_have_text("Pedidos")
        expect(page.locator("#rp-draw")).to_contain_text("Mazo: ")
        first_ask = next(i for i, (a, _t) in enumerate(rec.actions) if type(a).__name__ == "Ask")
        page.locator("#rp-range").fill(str(first_ask + 1))
        expect(page.locator("#rp-log")).to_contain_text(" pide ")
        page.keyboard.press("End")
        expect(page.locator("#rp-log")).to_contain_text(re.compile(r"Gana|Empate"))
        expect(page.locator("#rp-step")).to_contain_text("Paso ")
        assert not errors, errors
    finally:
        ctx.close()


class _FastGoServer(AppThread):
    """The real app in a thread: a short Go turn timer, bots that act at once."""

    def __init__(self, tmp: Path) -> None:
        super().__init__(
            Settings(
                database_url=sqlite_url(tmp / "go.db"),
                deal_seed=33,
                between_games=1.0,
                turn_time=0.15,
                bot_delay=0.0,
            )
        )


@pytest.fixture
def fast_go(tmp_path: Path) -> Iterator[_FastGoServer]:
    """A fast Go Blink server for one test."""
    s = _FastGoServer(tmp_path)
    yield s
    s.stop()


def test_end_screen_replay_link_opens_the_go_viewer(
    context: BrowserContext, fast_go: _FastGoServer
) -> None:
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(fast_go.url + "/")
    page.fill("#q-name", "Ann")
    page.locator("#go-play").click()
    # Ann never acts: the turn timer plays for her, so the game ends on its own.
    end = page.locator("#go-end-panel")
    expect(end).to_be_visible(timeout=60_000)
    # The player's own line of the game's study, and a link to it.
    expect(end.locator("#study-line")).to_have_text(
        re.compile(r"You missed \d+ plays?, median reaction (\d[\d,]* ms|—)"), timeout=15_000
    )
    study = end.locator("#go-study")
    expect(study).to_have_text("Study this game")
    assert (study.get_attribute("href") or "").startswith("/#study=")
    link = end.locator("#go-replay")
    href = link.get_attribute("href")
    assert href and href.startswith("/#replay=")
    calls: list[str] = []
    page.on("request", lambda r: calls.append(r.url) if "/api/games/" in r.url else None)
    link.click()
    expect(page.locator(".go-replay")).to_be_visible(timeout=15_000)
    expect(page.locator("#rp-step")).to_contain_text("Step 0 of ")
    # One request for the frames, one for the game's study (js/study.js); a quick game's room
    # is private, so both name it. One more asks whose profiles sat in it (public, as the
    # players' archives are).
    asked = sorted(u.rsplit("/", 1)[-1].split("?room=")[0] for u in calls)
    assert asked == ["profiles", "replay", "study"]
    assert all("?room=" in u for u in calls if not u.endswith("/profiles"))
    # Go Blink's study: each seat's summary, its asks and lay-downs as moves.
    expect(page.locator("#st-summary li")).to_have_count(2)
    expect(page.locator("#st-moves li").first).to_be_visible()
    page.keyboard.press("End")
    expect(page.locator("#rp-log")).to_contain_text(" (")
    assert not errors, errors
