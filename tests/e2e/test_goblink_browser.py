"""Go Blink in headless Chromium: from the lobby to the end of a game against three bots.

The server runs in this process (uvicorn in a thread) with Go Blink delays short enough to be
fast and a turn timer long enough that the person never times out on a slow machine. Each game
counts down first, as a classic game does before its reveal.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from blinkweb import AppThread, collect_errors
from playwright.sync_api import BrowserContext, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from blink.cards import parse_card
from blink.games.goblink.engine import GoGame, matches_in, value_to_wire, values_of
from blink.games.goblink.record import GoRecord
from blink.server.settings import Settings, sqlite_url

pytestmark = pytest.mark.timeout(170)


class GoServer(AppThread):
    """The real app in a thread: a long Go turn timer, bots that act quickly."""

    def __init__(self, tmp: Path) -> None:
        super().__init__(
            Settings(
                database_url=sqlite_url(tmp / "go.db"),
                deal_seed=21,
                between_games=1.0,
                countdown=3.0,
                turn_time=45.0,
                bot_delay=0.05,
            )
        )


@pytest.fixture(scope="module")
def go_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GoServer]:
    """One Go Blink-ready server for this module."""
    s = GoServer(tmp_path_factory.mktemp("go-e2e"))
    yield s
    s.stop()


READ_JS = """() => {
  const t = document.querySelector('.go-table[data-phase]');
  if (!t) return null;
  const en = (id) => { const b = document.getElementById(id); return !!b && !b.disabled; };
  return {
    phase: t.dataset.phase,
    hand: [...document.querySelectorAll('#go-hand button[data-card]')].map((b) => b.dataset.card),
    canAsk: en('go-ask'), canEnd: en('go-end'),
    over: !!document.getElementById('go-end-panel'),
    seq: window.blinkConnection ? window.blinkConnection.seq : -1,
  };
}"""


def read(page: Page) -> dict[str, Any] | None:
    """What the table shows."""
    got: dict[str, Any] | None = page.evaluate(READ_JS)
    return got


def wait_change(page: Page, seq: int) -> None:
    """Wait until the table has moved past ``seq`` (or a refusal is shown)."""
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(
            "(s) => (window.blinkConnection && window.blinkConnection.seq > s)"
            " || (document.getElementById('go-msg') || {}).textContent",
            arg=seq,
            timeout=15000,
        )


def take_turn_step(page: Page, st: dict[str, Any]) -> None:
    """One action through the controls: lay a match if there is one, else ask, else end."""
    seq = st["seq"]
    hand = [parse_card(c) for c in st["hand"]]
    if st["canEnd"]:
        for m in matches_in(hand):
            if st["phase"] == "opening" and len(m) >= len(hand):
                continue
            for c in m:
                page.locator(f'#go-hand button[data-card="{c}"]').click()
            expect(page.locator("#go-lay")).to_be_enabled()
            page.locator("#go-lay").click()
            wait_change(page, seq)
            return
        page.locator("#go-end").click()
        wait_change(page, seq)
        return
    if st["canAsk"]:
        options = page.locator("#go-ask-value option")
        # The page offers exactly the values of the engine's legal asks for this hand.
        offered = options.evaluate_all("os => os.map(o => o.value)")
        allowed = {":".join(map(str, value_to_wire(v))) for c in hand for v in values_of(c)}
        assert sorted(offered) == sorted(allowed), (offered, allowed)
        n = options.count()
        pick = options.nth((seq * 7) % n).get_attribute("value")
        assert pick is not None
        page.select_option("#go-ask-value", pick)
        targets = page.locator("#go-ask-target option")
        page.select_option(
            "#go-ask-target", targets.nth(seq % targets.count()).get_attribute("value")
        )
        page.locator("#go-ask").click()
        wait_change(page, seq)


def assert_browser_saw_no_secret(frames: list[str], record: GoRecord, seat: int) -> None:
    """Every frame the page received holds only cards ``seat`` held or saw laid down."""
    game = GoGame(record.deck, record.players, record.dealer)
    known = set(game.hand(seat))
    for action, t in record.actions:
        game.apply(action, t)
        known |= set(game.hand(seat)) | {c for _p, m in game.discard() for c in m}
    assert frames
    codes = set()
    for f in frames:
        codes |= set(re.findall(r'"([1-5][ROYGBP][MPSWFL])"', f))
    assert codes, "the scan found no card at all"
    leaked = {c for c in codes if parse_card(c) not in known}
    assert not leaked, f"the browser was sent {sorted(leaked)}"


def test_go_blink_game_against_three_bots(
    context: BrowserContext, go_server: GoServer, screenshots: Path
) -> None:
    page = context.new_page()
    errors = collect_errors(page)
    frames: list[str] = []
    page.on(
        "websocket",
        lambda ws: ws.on(
            "framereceived", lambda f: frames.append(f if isinstance(f, str) else f.decode())
        ),
    )
    page.goto(go_server.url + "/")
    panel = page.locator("#go-panel")
    expect(panel.get_by_role("heading", name="Go Blink")).to_be_visible()
    page.fill("#q-name", "Ann")
    panel.locator("label", has_text="4").click()
    page.select_option("#go-bot", "memory")
    page.locator("#go-play").click()
    expect(page.locator(".go-table[data-phase]")).to_be_visible(timeout=15000)
    assert "?go=" in page.url
    # Three opponents with four cards each at the deal; my hand drawn as SVG cards.
    expect(page.locator(".go-opp")).to_have_count(3)
    expect(page.locator("#go-hand .card-svg")).to_have_count(4)
    expect(page.locator("#go-draw")).to_contain_text("Draw pile")
    shot = False
    deadline = time.monotonic() + 140
    while time.monotonic() < deadline:
        st = read(page)
        assert st is not None
        if st["over"]:
            break
        if st["canAsk"] or st["canEnd"]:
            take_turn_step(page, st)
            if not shot and page.locator("#go-log li").count() >= 3:
                page.screenshot(path=str(screenshots / "goblink.png"))
                shot = True
        else:
            page.wait_for_timeout(50)
    end = page.locator("#go-end-panel")
    expect(end).to_be_visible()
    expect(end).to_contain_text(re.compile(r"won|Tie"))
    log = page.locator("#go-log")
    expect(log).to_contain_text(" asked ")
    assert page.locator("#go-log li").count() > 3
    # The record of the finished game is served, and refusals never happened by accident.
    href = end.get_by_role("link", name="Download record").get_attribute("href")
    assert href and href.startswith("/api/games/")
    rec = page.request.get(go_server.url + href).json()
    assert len(rec["players"]) == 4 and rec["result"] is not None
    assert_browser_saw_no_secret(frames, GoRecord.from_dict(rec), seat=0)
    mine = [a for a in rec["actions"] if a["seat"] == 0]
    assert any(a["type"] == "ask" for a in mine), "the person asked through the controls"
    assert any(a["type"] == "end" for a in mine)
    # Spanish: the whole table switches in place.
    page.select_option("#lang", "es")
    expect(page.locator(".go-log h2")).to_have_text("Historial")
    expect(page.locator("#go-log")).to_contain_text(" pidió ")
    expect(page.get_by_role("link", name="Volver al inicio")).to_be_visible()
    assert not errors, errors


def test_two_people_by_link_and_a_watcher(context: BrowserContext, go_server: GoServer) -> None:
    import httpx

    r = httpx.post(
        go_server.url + "/api/rooms",
        json={"game": "goblink", "players": 2, "seats": [None, None], "take_seat": None},
        timeout=10,
    )
    assert r.status_code == 201, r.text
    code = r.json()["code"]
    first = context.new_page()
    errors = collect_errors(first)
    # /play/CODE of a Go Blink room is redirected to the Go Blink table, which waits.
    first.goto(f"{go_server.url}/play/{code}")
    expect(first.locator("#go-waiting")).to_be_visible(timeout=15000)
    assert f"?go={code}" in first.url
    second = context.new_page()
    errors += collect_errors(second)
    second.goto(f"{go_server.url}/?go={code}")
    for page in (first, second):
        expect(page.locator(".go-table[data-phase]")).to_be_visible(timeout=15000)
        expect(page.locator(".go-opp")).to_have_count(1)
        expect(page.locator("#go-hand .card-svg")).to_have_count(4)
    # The game counts down first: nobody can act, and a move sent anyway is refused.
    countdown = second.locator("#go-countdown")
    if countdown.count():  # the page may have come up after the countdown on a slow machine
        expect(countdown).to_have_attribute("aria-label", re.compile(r"^The game starts in \d s$"))
        expect(second.locator("#go-count")).to_have_text(re.compile(r"^[0-3]$"))
        expect(second.locator("#go-end")).to_be_disabled()
        second.evaluate("window.blinkConnection.send({type: 'end', id: 'early-1'})")
        expect(second.locator("#go-msg")).to_contain_text("The game has not started yet")
    for page in (first, second):
        expect(page.locator("#go-countdown")).to_have_count(0, timeout=15000)
    # Then the player to act may (the opening can be ended), the other may not.
    deadline = time.monotonic() + 15
    while not any(page.locator("#go-end").is_enabled() for page in (first, second)):
        assert time.monotonic() < deadline, "nobody may act after the countdown"
        first.wait_for_timeout(50)
    watcher = context.new_page()
    watcher.goto(f"{go_server.url}/watch/{code}")
    expect(watcher.locator(".go-table[data-phase]")).to_be_visible(timeout=15000)
    expect(watcher.locator("#go-hand")).to_have_count(0)
    expect(watcher.locator(".go-opp")).to_have_count(2)
    # Whoever is not to act is refused with a readable reason when trying to end a turn (the
    # button is disabled, so send the message through the page's connection).
    idle = first if first.locator("#go-end").is_disabled() else second
    idle.evaluate("window.blinkConnection.send({type: 'end', id: 'x-1'})")
    expect(idle.locator("#go-msg")).to_contain_text("It is not your turn.")
    # Quick chat works the same in a Go Blink room: a phrase by the speaker's name elsewhere.
    expect(watcher.locator(".quickchat")).to_have_count(0)
    first.get_by_role("button", name="Good game").click()
    expect(second.locator(".go-opp .chat-bubble")).to_have_text("Good game", timeout=10000)
    expect(watcher.locator(".go-opp .chat-bubble")).to_have_text("Good game")
    expect(first.locator(".go-me .chat-bubble")).to_have_text("Good game")
    assert not errors, errors
