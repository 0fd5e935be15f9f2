"""The Go Blink replay viewer (js/goreplay.js): its small JS engine checked step by step against
the Python engine, a record file loaded into the page, and the end screen's replay link."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from blinkweb import AppThread, collect_errors
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from playwright.sync_api import BrowserContext, Page, expect

from blink.goblink import GoGame, Phase, value_to_wire
from blink.goblink_record import GoRecord
from blink.server.go_rooms import GoSettings
from blink.server.settings import sqlite_url


def random_go_game(seed: int) -> GoGame:
    """A finished Go Blink game of random legal actions (2 to 6 players, a turn limit)."""
    rng = random.Random(seed)
    players = 2 + seed % 5
    game = GoGame.new(players, seed=seed, dealer=rng.randrange(players), turn_limit=40)
    t = 0
    while not game.over:
        t += rng.randint(50, 2000)
        actions = game.legal_actions()
        # End turns less often than laying down, so blunks happen too.
        lays = [a for a in actions if type(a).__name__ == "LayDown"]
        if lays and rng.random() < 0.7:
            game.apply(rng.choice(lays), t)
        else:
            game.apply(rng.choice(actions), t)
    return game


def python_states(rec: GoRecord) -> list[dict[str, Any]]:
    """The state after each prefix of the record's actions, in the JS viewer's terms."""
    game = GoGame(rec.deck, rec.players, rec.dealer, rec.turn_limit)
    out = []
    for k in range(len(rec.actions) + 1):
        if k:
            action, t = rec.actions[k - 1]
            game.apply(action, t)
        view = game.view(None)
        out.append(
            {
                "hands": [[str(c) for c in game.hand(p)] for p in range(game.players)],
                "draw": len(game.draw_pile()),
                "discard": [[p, [str(c) for c in cards]] for p, cards in game.discard()],
                "asks": [
                    [
                        a.player,
                        a.target,
                        *value_to_wire(a.value),
                        a.passed,
                        a.drew,
                        a.target_drew,
                        a.matches_before,
                    ]
                    for a in view.asks
                ],
                "over": game.phase is Phase.OVER,
                "current": game.current,
                "turns": game.turns,
                "outcome": None
                if game.outcome is None
                else [list(game.outcome.winners), game.outcome.reason],
            }
        )
    return out


def js_states(page: Page, record: dict[str, Any]) -> Any:
    """The same states computed by js/goreplay.js in the page."""
    return page.evaluate(
        """async (d) => {
          const { readGoRecord, GoReplayGame } = await import('/js/goreplay.js');
          try {
            const r = readGoRecord(d);
            const g = new GoReplayGame(r.deck, r.players, r.dealer, r.turnLimit);
            const snap = () => ({
              hands: g.hands.map((h) => [...h]), draw: g.draw.length,
              discard: g.discard.map(([p, cs]) => [p, [...cs]]),
              asks: g.asks.map((a) => [a.player, a.target, a.attribute, a.value, a.passed,
                                       a.drew, a.targetDrew, a.matchesBefore]),
              over: g.phase === 'over', current: g.current, turns: g.turns,
              outcome: g.outcome ? [g.outcome.winners, g.outcome.reason] : null,
            });
            const out = [snap()];
            for (const a of r.actions) { g.apply(a); out.push(snap()); }
            return out;
          } catch (e) { return String(e); }
        }""",
        record,
    )


def test_js_go_engine_replays_like_the_python_engine(context: BrowserContext, server: Any) -> None:
    page = context.new_page()
    page.goto(server.url + "/#replay")
    seen: list[int] = []

    @hsettings(max_examples=12, deadline=None)
    @given(seed=st.integers(0, 100_000))
    def check(seed: int) -> None:
        game = random_go_game(seed)
        rec = GoRecord.from_game(game)
        got = js_states(page, json.loads(rec.to_json()))
        want = python_states(rec)
        assert isinstance(got, list), got
        assert len(got) == len(want)
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            assert g == w, (seed, k)
        seen.append(seed)

    check()
    assert seen


def test_record_file_replays_step_by_step(
    context: BrowserContext, server: Any, tmp_path: Path
) -> None:
    game = random_go_game(5)  # 2 + 5 % 5 = 2 players
    rec = GoRecord.from_game(game, names=["Ana", "Ben"])
    path = tmp_path / "go.json"
    path.write_text(rec.to_json())
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/#replay")
    page.set_input_files("#rp-file", str(path))
    n = len(rec.actions)
    expect(page.locator(".go-replay")).to_be_visible()
    expect(page.locator("#rp-step")).to_have_text(f"Step 0 of {n}")
    expect(page.locator("#rp-log")).to_have_text("Cards dealt.")
    expect(page.locator(".rp-seat")).to_have_count(2)
    for seat in range(2):  # a finished record shows every hand
        expect(page.locator(f'.rp-seat[data-seat="{seat}"] .card-svg')).to_have_count(4)
    first_ask = next(i for i, (a, _t) in enumerate(rec.actions) if type(a).__name__ == "Ask")
    page.locator("#rp-range").fill(str(first_ask + 1))
    expect(page.locator("#rp-log")).to_contain_text(" asks ")
    expect(page.locator("#rp-asks li")).to_have_count(1)
    page.keyboard.press("End")
    assert game.outcome is not None
    words = " wins " if len(game.outcome.winners) == 1 else "A tie"
    expect(page.locator("#rp-log")).to_contain_text(words)
    expect(page.locator("#rp-matches .rp-match")).to_have_count(len(game.discard()))
    expect(page.locator("#rp-asks li")).to_have_count(game.asks)
    for seat in range(2):
        hand = page.locator(f'.rp-seat[data-seat="{seat}"] .card-svg')
        expect(hand).to_have_count(len(game.hand(seat)))
    page.click("#rp-back")
    expect(page.locator("#rp-step")).to_have_text(f"Step {n - 1} of {n}")
    assert not errors, errors


class _FastGoServer(AppThread):
    """The real app in a thread: a short Go turn timer, bots that act at once."""

    def __init__(self, tmp: Path) -> None:
        super().__init__(
            GoSettings(
                database_url=sqlite_url(tmp / "go.db"),
                deal_seed=33,
                between_games=1.0,
                go_turn_time=0.15,
                go_bot_delay=0.0,
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
    link = end.locator("#go-replay")
    href = link.get_attribute("href")
    assert href and href.startswith("/#replay=")
    link.click()
    expect(page.locator(".go-replay")).to_be_visible(timeout=15_000)
    expect(page.locator("#rp-step")).to_contain_text("Step 0 of ")
    page.keyboard.press("End")
    expect(page.locator("#rp-log")).to_contain_text(" (")
    assert not errors, errors
