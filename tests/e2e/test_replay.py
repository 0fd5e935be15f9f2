"""The replay viewer in Chromium: the server's engine verifies records and answers their frames
(POST /api/replays for a file, GET /api/games/{id}/replay for a stored game); the page shows
them. Record files (a game, a series, bad ones), a stored game from the lobby in one request, a
stored series, play at speed, and what the page shows checked against the Python engine."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from blinkweb import AppThread, collect_errors
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from playwright.sync_api import BrowserContext, Page, Request, expect

from blink.games.classic.engine import ClassicGame, Phase
from blink.games.classic.record import GameRecord, SeriesRecord
from blink.match import Series
from blink.server.settings import Settings, sqlite_url
from randomgames import random_game


class _BotServer(AppThread):
    """The real app in a thread, with short delays, for games of server bots."""

    def __init__(self, tmp: Path) -> None:
        super().__init__(
            Settings(
                database_url=sqlite_url(tmp / "replays.db"),
                countdown=0.05,
                stall_pause=0.05,
                between_games=0.05,
                deal_seed=21,
            )
        )
        self.code = ""
        """The room of the finished series."""
        self.database_url = sqlite_url(tmp / "replays.db")

    def api(self, path: str, body: dict[str, Any] | None = None) -> Any:
        """Call the REST API (POST when a body is given); the JSON answer."""
        import httpx

        if body is None:
            r = httpx.get(self.url + path, timeout=10)
        else:
            r = httpx.post(self.url + path, json=body, timeout=10)
        r.raise_for_status()
        return r.json()


@pytest.fixture(scope="module")
def bot_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_BotServer]:
    """This module's own server with a finished best-of-3 series of server bots (its games do
    not shift the shared server's game ids and seeded deals)."""
    s = _BotServer(tmp_path_factory.mktemp("e2e-replays"))
    room = s.api(
        "/api/rooms",
        {
            "players": 2,
            "seats": ["expert:blocker@40", "casual:first@40"],
            "best_of": 3,
            "take_seat": None,
        },
    )
    s.code = room["code"]
    deadline = time.monotonic() + 90
    while s.api(f"/api/rooms/{s.code}")["status"] != "finished":
        assert time.monotonic() < deadline, "the bots' series did not finish"
        time.sleep(0.2)
    yield s
    s.stop()


def open_file(page: Page, name: str, content: str | bytes) -> None:
    """Choose a record file in the "#replay" page."""
    data = content.encode() if isinstance(content, str) else content
    page.set_input_files(
        "#rp-file", files=[{"name": name, "mimeType": "application/json", "buffer": data}]
    )


def expect_table(page: Page, game: ClassicGame) -> None:
    """The page shows the engine's table: every hand, and each pile's top card."""
    for seat in range(game.players):
        cards = page.locator(f'.rp-seat[data-seat="{seat}"] .card-svg')
        expect(cards).to_have_count(len(game.hand(seat)))
        shown = [cards.nth(i).get_attribute("data-card") for i in range(len(game.hand(seat)))]
        assert shown == [str(c) for c in game.hand(seat)]
    if game.phase is not Phase.DEALT:
        for pile in range(game.players):
            top = page.locator(f'.rp-board .pile[data-pile="{pile}"] .card-svg')
            expect(top).to_have_attribute("data-card", str(game.top(pile)))


def test_record_file_replays_step_by_step(context: BrowserContext, server: Any) -> None:
    game = random_game(3)
    record = GameRecord.from_game(game, names=["Ana", "Ben", "Cy"])
    page = context.new_page()
    errors = collect_errors(page)
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.goto(server.url + "/#replay")
    open_file(page, "game.json", record.to_json())
    n = len(record.actions)
    expect(page.locator("#rp-step")).to_have_text(f"Step 0 of {n}")
    assert [u for u in posts if u.endswith("/api/replays")]
    expect(page.locator("#rp-log")).to_have_text("Cards dealt.")
    expect(page.locator("#rp-title")).to_contain_text("game.json")
    # Three players: a triangle of three piles, every hand shown.
    expect(page.locator(".rp-board .pile")).to_have_count(3)
    expect(page.locator(".rp-seat")).to_have_count(3)
    page.click("#rp-fwd")
    expect(page.locator("#rp-log")).to_contain_text("The centre cards are turned face up.")
    page.keyboard.press("ArrowRight")
    first = record.actions[1][0]
    expect(page.locator("#rp-log")).to_contain_text(
        f"{record.names[first.player]} plays {first.card.long_name} on pile {first.pile + 1}."  # type: ignore[union-attr]
    )
    expect(page.locator("#rp-step")).to_have_text(f"Step 2 of {n}")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#rp-step")).to_have_text(f"Step 1 of {n}")
    # The timeline jumps to the end: the result is the engine's.
    page.locator("#rp-range").fill(str(n))
    assert game.outcome is not None
    winner = record.names[game.outcome.winners[0]]
    expect(page.locator("#rp-log")).to_contain_text(f"{winner} wins")
    expect(page.locator(f'.rp-seat.won[data-seat="{game.outcome.winners[0]}"]')).to_be_visible()
    expect_table(page, game)
    # Home, then play at ×4: the steps advance by themselves; pause stops them.
    page.keyboard.press("Home")
    expect(page.locator("#rp-step")).to_have_text(f"Step 0 of {n}")
    page.select_option("#rp-speed", "4")
    page.click("#rp-play")
    expect(page.locator("#rp-step")).to_have_text(
        re.compile(r"Step ([3-9]|\d\d+) of"), timeout=15000
    )
    page.click("#rp-play")
    paused = page.locator("#rp-step").inner_text()
    page.wait_for_timeout(400)
    assert page.locator("#rp-step").inner_text() == paused
    # Controls have accessible names; the log is a live region.
    for sel in ("#rp-back", "#rp-play", "#rp-fwd", "#rp-range"):
        assert page.locator(sel).get_attribute("aria-label")
    expect(page.locator("#rp-log")).to_have_attribute("aria-live", "polite")
    # Switching the language re-draws the viewer in place, at the same step.
    page.locator("#rp-range").fill("1")
    page.select_option("#lang", "es")
    expect(page.locator("#rp-step")).to_have_text(f"Paso 1 de {n}")
    expect(page.locator("#rp-log")).to_contain_text("Se dan vuelta las cartas del centro.")
    expect(page.locator("#rp-title")).to_contain_text("Repetición · game.json")
    assert not errors, errors


def test_series_file_has_a_game_picker(context: BrowserContext, server: Any) -> None:
    series = Series(3, 2)
    games = []
    seed = 40
    while not series.over:
        g = random_game(seed)
        seed += 2
        assert g.outcome is not None
        series.record(g.outcome.winners)
        games.append(g)
    record = SeriesRecord(3, [GameRecord.from_game(g, names=["Ana", "Ben"]) for g in games])
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/#replay")
    open_file(page, "series.json", record.to_json())
    picker = page.locator("#rp-game")
    expect(picker.locator("option")).to_have_count(len(games))
    expect(page.locator("#rp-step")).to_have_text(f"Step 0 of {len(record.games[0].actions)}")
    picker.select_option(index=1)
    second = record.games[1]
    expect(page.locator("#rp-step")).to_have_text(f"Step 0 of {len(second.actions)}")
    page.locator("#rp-range").fill(str(len(second.actions)))
    expect_table(page, games[1])
    assert not errors, errors


def test_bad_record_files_say_why_in_one_sentence(context: BrowserContext, server: Any) -> None:
    record = GameRecord.from_game(random_game(4)).to_dict()
    record["actions"][2]["pile"] = 7
    page = context.new_page()
    page.goto(server.url + "/#replay")
    open_file(page, "bad.json", json.dumps(record))
    alert = page.locator("#rp-mount [role=alert]")
    expect(alert).to_have_text("This record does not replay: move 3 is not possible in the game.")
    expect(alert).to_have_attribute("data-code", "no_such_pile")
    expect(alert).to_have_attribute("title", re.compile("action 2: "))  # the engine's words
    open_file(page, "text.json", '{"format": "blink-record", bad}')
    expect(alert).to_have_attribute("data-code", "bad_json")
    expect(alert).to_have_text("This file is not a Blink record: it is not readable JSON.")
    open_file(page, "chess.json", '{"format": "chess"}')
    expect(alert).to_have_text("This file is not a Blink record.")
    # In the interface's language, without the parser's English.
    page.select_option("#lang", "es")
    open_file(page, "text2.json", "{'a': 1}")
    expect(alert).to_have_text("Este archivo no es una partida de Blink: no es JSON legible.")
    assert "Expecting" not in alert.inner_text()
    page.select_option("#lang", "en")
    # A good file after a bad one replaces the error with the viewer.
    open_file(page, "good.json", GameRecord.from_game(random_game(4)).to_json())
    expect(page.locator("#rp-step")).to_contain_text("Step 0 of")
    expect(alert).to_have_count(0)


def test_stored_game_from_the_lobby_in_one_request(
    context: BrowserContext, bot_server: _BotServer
) -> None:
    code = bot_server.code
    games = bot_server.api(f"/api/games?status=finished&room={code}")["games"]
    game = games[-1]  # the series' first game
    record = GameRecord.from_dict(bot_server.api(game["record_url"]))
    final = record.verify()
    page = context.new_page()
    errors = collect_errors(page)
    api_calls: list[str] = []

    def on_request(r: Request) -> None:
        if "/api/games/" in r.url:
            api_calls.append(r.url.split(bot_server.url, 1)[-1])

    page.on("request", on_request)
    page.goto(bot_server.url + "/")
    entry = page.locator(f'#l-pub li[data-game="{game["id"]}"]')
    expect(entry).to_be_visible(timeout=10000)
    entry.get_by_role("link", name="Replay").click()
    n = len(record.actions)
    expect(page.locator("#rp-step")).to_have_text(f"Step 0 of {n}", timeout=10000)
    # The frames in one request; the game's study beside them (js/study.js), in another; whose
    # profiles sat in its seats (their names link to their pages), in a third.
    assert sorted(api_calls) == [
        f"/api/games/{game['id']}/{w}" for w in ("profiles", "replay", "study")
    ]
    expect(page.locator("#st-summary li")).to_have_count(record.players)
    expect(page.locator("#rp-title")).to_contain_text(f"#{game['id']}")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#rp-log")).to_have_text("The centre cards are turned face up.")
    page.keyboard.press("End")
    expect(page.locator("#rp-log")).to_contain_text(re.compile(r"wins|tie"))
    expect_table(page, final)
    assert not errors, errors


def test_stored_series_by_its_record_url(context: BrowserContext, bot_server: _BotServer) -> None:
    code = bot_server.code
    series = SeriesRecord.from_dict(bot_server.api(f"/api/rooms/{code}/record"))
    finals = series.verify()
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(bot_server.url + f"/#replay=/api/rooms/{code}/record")
    picker = page.locator("#rp-game")
    expect(picker.locator("option")).to_have_count(len(series.games), timeout=10000)
    last = len(series.games) - 1
    picker.select_option(index=last)
    page.keyboard.press("End")
    expect(page.locator("#rp-step")).to_have_text(
        f"Step {len(series.games[last].actions)} of {len(series.games[last].actions)}"
    )
    expect_table(page, finals[last])
    assert not errors, errors


def test_spanish_replay(browser: Any, server: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="es-ES")
    try:
        page = ctx.new_page()
        page.goto(server.url + "/#replay")
        open_file(page, "g.json", GameRecord.from_game(random_game(6)).to_json())
        expect(page.locator("#rp-log")).to_have_text("Cartas repartidas.")
        page.keyboard.press("End")
        expect(page.locator("#rp-log")).to_contain_text(re.compile(r"Gana|Empate"))
        expect(page.locator("#rp-step")).to_contain_text("Paso ")
        expect(page.locator(".counts").first).to_contain_text(re.compile(r"^mazo \d+ · "))
    finally:
        ctx.close()


def test_spanish_series_says_partida(browser: Any, server: Any) -> None:
    """A game of a series is a "partida" (docs/i18n.md), never a "partido"."""
    games = [random_game(40), random_game(42)]
    record = SeriesRecord(3, [GameRecord.from_game(g, names=["Ana", "Ben"]) for g in games])
    ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="es-ES")
    try:
        page = ctx.new_page()
        page.goto(server.url + "/#replay")
        open_file(page, "series.json", record.to_json())
        label = page.locator("label", has=page.locator("#rp-game"))
        expect(label).to_contain_text("Partida")
        expect(page.locator("body")).not_to_contain_text(re.compile("partido|grupo", re.I))
    finally:
        ctx.close()


def test_what_the_page_shows_is_the_engine_state(context: BrowserContext, server: Any) -> None:
    """Random games (stalls, choices, dead ends), random steps: the page shows the engine's
    hands and pile tops (this replaces the checks of the old JavaScript engine port)."""
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/#replay")
    seen: list[int] = []

    @hsettings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(seed=st.integers(0, 10_000), small=st.booleans(), data=st.data())
    def check(seed: int, small: bool, data: st.DataObject) -> None:
        record = GameRecord.from_game(random_game(seed, small))
        name = f"g{len(seen)}-{seed}.json"
        open_file(page, name, record.to_json())
        expect(page.locator("#rp-title")).to_contain_text(name)
        n = len(record.actions)
        expect(page.locator("#rp-step")).to_have_text(f"Step 0 of {n}")
        k = data.draw(st.integers(0, n))
        page.locator("#rp-range").fill(str(k))
        expect(page.locator("#rp-step")).to_have_text(f"Step {k} of {n}")
        game = ClassicGame.replay(
            record.deck, record.players, record.ruleset, record.sizes, record.actions[:k]
        )
        expect_table(page, game)
        seen.append(seed)

    check()
    assert seen
    assert not errors, errors


def test_a_stored_game_that_does_not_replay_says_so(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # A game whose stored log was damaged (an action stored after its end): the server
    # answers 409 game_unreadable, and the viewer says so in one sentence of its language.
    from sqlalchemy import create_engine, insert, select

    from blink.server.schema import actions

    s = _BotServer(tmp_path_factory.mktemp("e2e-unreadable"))
    try:
        room = s.api(
            "/api/rooms",
            {"players": 2, "seats": ["casual:first@40", "casual:first@40"], "take_seat": None},
        )
        deadline = time.monotonic() + 90
        while s.api(f"/api/rooms/{room['code']}")["status"] != "finished":
            assert time.monotonic() < deadline, "the bots' game did not finish"
            time.sleep(0.2)
        # A tied game is replayed (match.py), so a finished room may hold more than one game:
        # any of them serves.
        games = s.api(f"/api/games?status=finished&room={room['code']}")["games"]
        assert games, "the finished room lists no game"
        game = games[0]
        engine = create_engine(s.database_url)
        with engine.begin() as conn:
            q = select(actions).where(actions.c.game_id == game["id"])
            last = conn.execute(q.order_by(actions.c.seq.desc()).limit(1)).one()
            conn.execute(insert(actions).values(**{**last._asdict(), "seq": last.seq + 1}))
        engine.dispose()
        for locale, text in (
            ("en-GB", "This game was stored damaged on the server: it cannot be replayed."),
            ("es-ES", "Esta partida se guardó dañada en el servidor: no se puede repetir."),
        ):
            ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale=locale)
            try:
                page = ctx.new_page()
                page.goto(s.url + f"/#replay={game['record_url']}")
                alert = page.locator("main [role=alert]")
                expect(alert).to_have_text(text, timeout=10000)
                expect(alert).to_have_attribute("data-code", "game_unreadable")
                expect(alert).to_have_attribute("title", re.compile("does not replay: action "))
            finally:
                ctx.close()
    finally:
        s.stop()
