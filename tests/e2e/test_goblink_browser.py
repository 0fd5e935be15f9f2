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
from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from blink.cards import STANDARD_DECK, parse_card, shuffled_deck
from blink.games.goblink.definition import GOBLINK
from blink.games.goblink.engine import GoGame, matches_in, value_to_wire, values_of
from blink.games.goblink.record import GoRecord
from blink.games.goblink.table import TABLE
from blink.server.settings import Settings, sqlite_url

pytestmark = pytest.mark.timeout(170)


class GoServer(AppThread):
    """The real app in a thread: a long Go turn timer, bots that act quickly."""

    def __init__(self, tmp: Path, deal_seed: int = 21) -> None:
        super().__init__(
            Settings(
                database_url=sqlite_url(tmp / "go.db"),
                deal_seed=deal_seed,
                between_games=1.0,
                countdown=3.0,
                turn_time=45.0,
                bot_delay=0.05,
                # The browser is driven faster than a person reacts; its games are rated as
                # a person's are (on a quick machine they were judged too fast, not rated).
                reaction_floor_ms=0,
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
  const f = document.activeElement;
  return {
    phase: t.dataset.phase,
    hand: [...document.querySelectorAll('#go-hand button[data-card]')].map((b) => b.dataset.card),
    opps: [...document.querySelectorAll('.go-opp-btn')].map((b) => Number(b.dataset.seat)),
    canAsk: !!document.querySelector('.go-opp-btn:not(:disabled)'),
    canEnd: en('go-end'), canLay: en('go-lay'),
    chips: [...document.querySelectorAll('.go-chip')].map((b) => b.dataset.value),
    focus: f && f.dataset ? (f.dataset.focus || null) : null,
    chosen: (document.querySelector('.go-opp.chosen') || {dataset: {}}).dataset.seat ?? null,
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


def answered(page: Page) -> bool:
    """Wait until the person's ask is answered (the turn has moved on from asking)."""
    try:
        page.wait_for_function(
            "() => { const t = document.querySelector('.go-table[data-phase]');"
            " return !t || t.dataset.phase !== 'asking'"
            " || !document.querySelector('.go-opp-btn:not(:disabled)'); }",
            timeout=15000,
        )
    except PlaywrightTimeoutError:
        return False
    return True


def a_match(st: dict[str, Any]) -> list[str] | None:
    """A legal lay-down of the hand shown (in the opening, one that keeps a card), or None."""
    hand = [parse_card(c) for c in st["hand"]]
    for m in matches_in(hand):
        if st["phase"] != "opening" or len(m) < len(hand):
            return [str(c) for c in m]
    return None


def held(st: dict[str, Any]) -> list[str]:
    """The values the hand shown holds, as the chips name them, each once."""
    return sorted(
        {":".join(map(str, value_to_wire(v))) for c in st["hand"] for v in values_of(parse_card(c))}
    )


class Player:
    """Plays the person's turns through the page, counting the moves it sent."""

    def __init__(self, page: Page, shot: Path | None = None) -> None:
        self.page = page
        self.shot = shot  # where to take a screenshot while choosing a value, once
        self.asks = 0
        self.lays = 0

    def click_step(self, st: dict[str, Any]) -> None:
        """One action by mouse: click the cards of a match then "Lay down", or "End", or an
        opponent then a value."""
        page, seq = self.page, st["seq"]
        if st["canEnd"]:
            match = a_match(st)
            if match is None:
                page.locator("#go-end").click()
            else:
                lay = page.locator("#go-lay")
                for i, c in enumerate(match):
                    page.locator(f'#go-hand button[data-card="{c}"]').click()
                    if i < len(match) - 1 and len(match) == 3:
                        expect(lay).to_be_disabled()  # two cards are not a match yet
                expect(lay).to_be_enabled()
                lay.click()
                self.lays += 1
            wait_change(page, seq)
        elif st["canAsk"]:
            # The chips are exactly the values of the engine's legal asks for this hand.
            assert sorted(st["chips"]) == held(st), (st["chips"], st["hand"])
            opp = st["opps"][self.asks % len(st["opps"])]
            if st["chosen"] is None:  # not yet chosen (nor kept from a step the page ignored)
                expect(page.locator(".go-chip").first).to_be_disabled()  # an opponent first
                page.locator(f'.go-opp-btn[data-seat="{opp}"]').click()
                expect(page.locator(f'.go-opp[data-seat="{opp}"]')).to_have_class(
                    re.compile("chosen")
                )
            if self.shot and page.locator("#go-log li").count() >= 3:
                page.screenshot(path=str(self.shot))
                self.shot = None
            page.locator(".go-chip").nth((self.asks * 7) % len(st["chips"])).click()
            self.asks += answered(page)

    def key_step(self, st: dict[str, Any]) -> None:
        """One action by keyboard only: Space on the cards of a match then L, or E, or a digit
        for an opponent, arrows to a value and Enter."""
        page, seq = self.page, st["seq"]
        kb = page.keyboard
        if st["canEnd"]:
            match = a_match(st)
            if match is None:
                kb.press("e")
            else:
                for c in match:
                    for _ in range(len(st["hand"]) + 1):
                        if (read(page) or {}).get("focus") == f"c:{c}":
                            break
                        kb.press("ArrowRight")
                    assert (read(page) or {}).get("focus") == f"c:{c}"
                    kb.press("Space")
                    expect(page.locator(f'#go-hand button[data-card="{c}"]')).to_have_attribute(
                        "aria-pressed", "true"
                    )
                expect(page.locator("#go-lay")).to_be_enabled()
                kb.press("l")
                self.lays += 1
            wait_change(page, seq)
        elif st["canAsk"]:
            n = self.asks % len(st["opps"])
            kb.press(str(n + 1))
            expect(page.locator(".go-opp").nth(n)).to_have_class(re.compile("chosen"))
            chip = page.locator(".go-chip").first
            expect(chip).to_be_focused()
            if not self.asks:  # the focus is visible
                assert chip.evaluate("(e) => getComputedStyle(e).outlineStyle") != "none"
            for _ in range(self.asks % len(st["chips"])):
                kb.press("ArrowRight")
            kb.press("Enter")
            self.asks += answered(page)


def play_out(page: Page, step: Any, seconds: float = 140) -> None:
    """Take the person's turns with ``step`` until the game is over."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        st = read(page)
        assert st is not None
        if st["over"]:
            return
        if (st["canAsk"] or st["canEnd"]) and st["seq"] >= 0:
            step(st)
        else:
            page.wait_for_timeout(50)
    raise AssertionError("the game did not end in time")


def start_game(page: Page, server: AppThread, players: int, bot: str) -> None:
    """From the lobby, a Go Blink game against bots; wait until its countdown is over."""
    page.goto(server.url + "/")
    panel = page.locator("#go-panel")
    expect(panel.get_by_role("heading", name="Go Blink")).to_be_visible()
    page.fill("#q-name", "Ann")
    panel.locator("label", has_text=str(players)).click()
    page.select_option("#go-bot", bot)
    page.locator("#go-play").click()
    expect(page.locator(".go-table[data-phase]")).to_be_visible(timeout=15000)
    assert "?go=" in page.url
    expect(page.locator(".go-opp")).to_have_count(players - 1)
    expect(page.locator("#go-hand .card-svg")).to_have_count(4)
    expect(page.locator("#go-countdown")).to_have_count(0, timeout=15000)


def finished_record(page: Page, server: AppThread) -> dict[str, Any]:
    """The record of the game the page shows finished."""
    end = page.locator("#go-end-panel")
    expect(end).to_be_visible()
    expect(end).to_contain_text(re.compile(r"won|Tie"))
    href = end.get_by_role("link", name="Download record").get_attribute("href")
    assert href and href.startswith("/api/games/")
    rec: dict[str, Any] = page.request.get(server.url + href).json()
    assert rec["result"] is not None
    return rec


def check_person_moves(rec: dict[str, Any], player: Player) -> None:
    """The record holds the person's moves: at least those the page sent (the turn timer may
    have added its own on a slow machine)."""
    assert player.asks, "the game ended before the person's first ask"
    mine = [a for a in rec["actions"] if a["seat"] == 0]
    assert sum(a["type"] == "ask" for a in mine) >= player.asks, (player.asks, mine)
    assert sum(a["type"] == "lay" for a in mine) >= player.lays, (player.lays, mine)
    assert any(a["type"] == "end" for a in mine)


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


LOG_NUMBER_JS = """(n) => {
  const log = document.getElementById('go-log');
  const item = [...log.querySelectorAll('.go-log-n')].find((e) => e.textContent === n + '.');
  if (!item) return null;
  const a = item.getBoundingClientRect(), b = log.getBoundingClientRect();
  return {inside: a.left >= b.left - 0.5 && a.right <= b.right + 0.5,
          clipped: item.scrollWidth > item.clientWidth + 0.5, width: a.width};
}"""


def test_go_blink_game_by_clicks(
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
    start_game(page, go_server, 3, "memory")
    expect(page.locator("#go-draw")).to_contain_text("Draw pile")
    expect(page.locator("#go-keys")).to_contain_text("Keys:")
    player = Player(page, screenshots / "goblink.png")
    play_out(page, player.click_step)
    rec = finished_record(page, go_server)
    assert len(rec["players"]) == 3
    assert_browser_saw_no_secret(frames, GoRecord.from_dict(rec), seat=0)
    expect(page.locator("#go-log")).to_contain_text(" asked ")
    # A bot may win before the person's first ask, and a short game logs fewer than ten
    # lines: rematches follow until a game has both.
    for _ in range(5):
        if player.asks and page.locator("#go-log li").count() >= 10:
            break
        page.locator("#go-rematch").click()
        expect(page.locator("#go-end-panel")).to_have_count(0, timeout=15000)
        player = Player(page)
        play_out(page, player.click_step)
        rec = finished_record(page, go_server)
    check_person_moves(rec, player)
    # The log numbers its lines in full: "10." is not clipped to "0." (nor is "1.").
    # The log shows its last 40 lines: check the first one shown and a two-digit one.
    assert page.locator("#go-log li").count() >= 10
    shown = [int(t.rstrip(".")) for t in page.locator("#go-log .go-log-n").all_text_contents()]
    for n in (shown[0], next(k for k in shown if k >= 10)):
        box = page.evaluate(LOG_NUMBER_JS, n)
        assert box is not None, f"no line {n}"
        assert box["inside"] and not box["clipped"], box
    # Spanish: the whole table switches in place.
    page.select_option("#lang", "es")
    expect(page.locator(".go-log h2")).to_have_text("Historial")
    expect(page.locator("#go-log")).to_contain_text(" pidió ")
    expect(page.locator("#go-keys")).to_contain_text("Teclas:")
    expect(page.get_by_role("link", name="Volver al inicio")).to_be_visible()
    assert not errors, errors


def test_go_blink_game_by_keyboard(context: BrowserContext, go_server: GoServer) -> None:
    page = context.new_page()
    errors = collect_errors(page)
    start_game(page, go_server, 2, "greedy")
    page.locator("body").focus()
    player = Player(page)
    play_out(page, player.key_step)
    rec = finished_record(page, go_server)
    for _ in range(5):  # the bot may win before the person's first ask
        if player.asks:
            break
        page.locator("#go-rematch").focus()
        page.keyboard.press("Enter")
        expect(page.locator("#go-end-panel")).to_have_count(0, timeout=15000)
        player = Player(page)
        play_out(page, player.key_step)
        rec = finished_record(page, go_server)
    check_person_moves(rec, player)
    assert not errors, errors


def test_lay_down_by_selection(browser: Browser, tmp_path: Path) -> None:
    """An opening with a match in the deal: only a legal selection enables "Lay down", Esc
    clears it, and the match laid down by clicks goes to the discard pile."""
    seed = next(s for s in range(1000) if _opening_match(s + 1))
    server = GoServer(tmp_path, deal_seed=seed)
    ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    try:
        page = ctx.new_page()
        errors = collect_errors(page)
        start_game(page, server, 2, "random")
        expect(page.locator("#go-end")).to_be_enabled(timeout=15000)  # the bot's opening is over
        st = read(page)
        assert st is not None and st["phase"] == "opening"
        match = a_match(st)
        assert match is not None, st["hand"]
        lay = page.locator("#go-lay")
        other = next(c for c in st["hand"] if c not in match)
        for c in match[:2]:
            page.locator(f'#go-hand button[data-card="{c}"]').click()
        expect(lay).to_be_disabled()
        page.locator(f'#go-hand button[data-card="{other}"]').click()
        expect(lay).to_be_disabled()  # three cards, but not one match
        page.keyboard.press("Escape")
        expect(page.locator('#go-hand button[aria-pressed="true"]')).to_have_count(0)
        for c in match:
            page.locator(f'#go-hand button[data-card="{c}"]').click()
        expect(lay).to_be_enabled()
        page.locator(f'#go-hand button[data-card="{other}"]').click()
        expect(lay).to_be_disabled()  # the whole deal: an opening keeps a card
        page.locator(f'#go-hand button[data-card="{other}"]').click()
        lay.click()
        expect(page.locator("#go-discard .go-match")).to_have_count(1)
        expect(page.locator("#go-hand button")).to_have_count(1)
        expect(page.locator("#go-log")).to_contain_text("laid down a match")
        assert not errors, errors
    finally:
        ctx.close()
        server.stop()


def _opening_match(seed: int) -> bool:
    """Whether the first game dealt with ``seed`` gives seat 0 one match of three cards, and
    no other (the server shuffles game ``n`` with its deal seed plus ``n``)."""
    game = GOBLINK.new(2, deck=shuffled_deck(seed, STANDARD_DECK), options={"dealer": 0})
    return [len(m) for m in matches_in(game.hand(0))] == [3]


def test_how_to_play_go_blink_in_spanish(context: BrowserContext, go_server: GoServer) -> None:
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(go_server.url + "/#rules")
    page.locator(".rules-games").get_by_role("link", name="Go Blink").click()
    expect(page.locator("#rules-title")).to_have_text("How to play Go Blink")
    # The lobby's Go Blink panel links to it too, in the bots' own words.
    page.goto(go_server.url + "/")
    expect(page.locator('#go-bot option[value="memory"]')).to_have_text("Bot: Remembering")
    expect(page.locator('#go-bot option[value="master"]')).to_have_text("Bot: Master")
    page.locator("#go-rules-link").click()
    expect(page.locator("#rules-title")).to_have_text("How to play Go Blink")
    page.select_option("#lang", "es")
    expect(page.locator("#rules-title")).to_have_text("Cómo se juega a Go Blink")
    expect(page.locator(".go-rules")).to_contain_text("¡Go Blink!")
    expect(page.locator("#go-bots-title")).to_have_text("Los bots")
    # Every bot of the game's bot_info, described in Spanish.
    bots = TABLE.bot_info()["bots"]
    items = page.locator("#go-bots li")
    expect(items).to_have_count(len(bots))
    for b in bots:
        expect(page.locator(f'#go-bots li[data-bot="{b["name"]}"]')).not_to_contain_text(
            b["description"]
        )
    expect(page.locator('#go-bots li[data-bot="memory"]')).to_contain_text("Una partida difícil")
    expect(page.locator('#go-bots li[data-bot="master"]')).to_contain_text("Maestro")
    expect(page.locator('#go-bots li[data-bot="master"]')).to_contain_text("El más fuerte con tres")
    # Classic's page is one link away.
    page.locator(".rules-games").get_by_role("link", name="Blink", exact=True).click()
    expect(page.locator(".rules h1")).to_have_text("Cómo se juega")
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
    first.locator(".quickchat summary").click()
    first.get_by_role("button", name="Good game").click()
    expect(second.locator(".go-opp .chat-bubble")).to_have_text("Good game", timeout=10000)
    expect(watcher.locator(".go-opp .chat-bubble")).to_have_text("Good game")
    expect(first.locator(".go-me .chat-bubble")).to_have_text("Good game")
    assert not errors, errors
