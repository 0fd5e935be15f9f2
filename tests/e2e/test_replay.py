"""The replay viewer: a record file loaded into the page, and its JS engine checked against ours."""

from __future__ import annotations

import json
import random
from pathlib import Path

from blinkweb import Server, collect_errors
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from playwright.sync_api import BrowserContext, Page, expect

from blink.cards import STANDARD_DECK
from blink.classic import ClassicGame, Phase
from blink.record import GameRecord
from blink.rules import DEAD_END, OFFICIAL


def random_game(seed: int, small: bool) -> ClassicGame:
    """A finished game with random legal actions (small decks run into choosing stalls)."""
    rng = random.Random(seed)
    players = 2 + seed % 2
    ruleset = DEAD_END if seed % 5 == 0 else OFFICIAL
    if small:
        deck = rng.sample(STANDARD_DECK, rng.randint(4 * players, 16))
        game = ClassicGame(deck, players, ruleset)
    else:
        game = ClassicGame.new(players, seed=seed, ruleset=ruleset)
    t = 0
    game.reveal(t)
    while not game.over:
        t += rng.randint(40, 900)
        if game.phase is Phase.PLAYING:
            play = rng.choice(game.all_legal_plays())
            game.play(play.player, play.card, play.pile, t)
        elif game.phase is Phase.STALLED:
            game.flip(t)
        else:
            seat = next(p for p in range(players) if p not in game.choices)
            game.choose(seat, rng.choice(game.hand(seat)), t)
    return game


def test_record_file_replays_step_by_step(
    context: BrowserContext, server: Server, tmp_path: Path
) -> None:
    game = random_game(3, small=False)
    record = GameRecord.from_game(game, names=["Ana", "Ben", "Cy"])
    path = tmp_path / "game.json"
    path.write_text(record.to_json())
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/#replay")
    page.set_input_files("#rp-file", str(path))
    n = len(record.actions)
    expect(page.locator("#rp-step")).to_have_text(f"Step 0 of {n}")
    expect(page.locator("#rp-log")).to_have_text("Cards dealt.")
    # Three players: a triangle of three piles, every hand shown.
    expect(page.locator(".rp-board .pile")).to_have_count(3)
    expect(page.locator(".rp-seat")).to_have_count(3)
    page.click("#rp-fwd")
    expect(page.locator("#rp-log")).to_have_text("The center cards are turned face up.")
    page.click("#rp-fwd")
    first = record.actions[1][0]
    expect(page.locator("#rp-log")).to_contain_text(
        f"{record.names[first.player]} plays {first.card.long_name} on pile {first.pile + 1}."
    )
    # The timeline jumps to the end: the result is the engine's.
    page.locator("#rp-range").fill(str(n))
    winner = record.names[game.outcome.winners[0]] if game.outcome else ""
    expect(page.locator("#rp-log")).to_contain_text(f"{winner} wins")
    for seat in range(3):
        seat_row = page.locator(f'.rp-seat[data-seat="{seat}"]')
        expect(seat_row.locator(".card-svg")).to_have_count(len(game.hand(seat)))
    for pile in range(3):
        top = page.locator(f'.rp-board .pile[data-pile="{pile}"] .card-svg')
        expect(top).to_have_attribute("data-card", str(game.top(pile)))
    assert not errors, errors


def replay_in_browser(page: Page, records: list[dict[str, object]]) -> list[object]:
    """Replay records with the page's JS engine; return each result (or the error)."""
    result: list[object] = page.evaluate(
        """async (recs) => {
          const { Game, readRecord } = await import('/js/engine.js');
          return recs.map((d) => {
            try {
              const r = readRecord(d);
              const g = new Game(r.deck, r.players, r.ruleset, r.sizes);
              for (const a of r.actions) g.apply(a);
              return { result: g.outcome.winners.length > 1 ? 'tie' : 'win',
                       winners: g.outcome.winners, reason: g.outcome.reason, plays: g.plays };
            } catch (e) { return String(e); }
          });
        }""",
        records,
    )
    return result


def test_js_engine_replays_like_the_python_engine(context: BrowserContext, server: Server) -> None:
    page = context.new_page()
    page.goto(server.url + "/#replay")
    seen: list[tuple[dict[str, object], object]] = []

    @hsettings(max_examples=40)
    @given(seed=st.integers(0, 10_000), small=st.booleans())
    def check(seed: int, small: bool) -> None:
        record = GameRecord.from_game(random_game(seed, small)).to_dict()
        [got] = replay_in_browser(page, [json.loads(json.dumps(record))])
        seen.append((record, got))
        assert got == record["result"], (seed, small, got, record["result"])

    check()
    assert seen
