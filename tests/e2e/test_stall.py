"""A choosing stall in the browser: the prompt with its deadline, and each player's choice.

The e2e server deals game ``n`` with the seed ``11 + n``, so the test knows the deal and finds
(with the Python engine) a sequence of plays that runs into a stall where a draw pile is empty.
"""

from __future__ import annotations

import random
import re

from blinkweb import Server, collect_errors, play_card, state
from playwright.sync_api import Browser, expect

from blink.cards import STANDARD_DECK, shuffled_deck
from blink.games.classic.engine import ClassicGame, Phase, Play
from blink.games.classic.rules import OFFICIAL

SIZES = (4, 56)  # seat 0 starts with no draw pile: every stall is a choosing stall


def path_to_choosing_stall(deck: list[object]) -> list[Play]:
    """Legal plays (mostly by seat 1; seat 0 keeps 2 cards) that end in a choosing stall
    that does not end the game."""
    rng = random.Random(0)
    for _ in range(5000):
        game = ClassicGame(deck, 2, OFFICIAL, SIZES)  # type: ignore[arg-type]
        game.reveal()
        path: list[Play] = []
        while game.phase is Phase.PLAYING:
            options = game.legal_plays(1) or game.legal_plays(0)[:1]
            if not options or (len(game.hand(0)) < 3 and not game.legal_plays(1)):
                break
            play = rng.choice(options)
            game.play(play.player, play.card, play.pile)
            path.append(play)
        # Both keep a card after placing one, so the game goes on after the stall (with some
        # deals the first stall only comes when a placement would end it).
        if game.phase is Phase.CHOOSING and min(len(game.hand(p)) for p in (0, 1)) >= 2:
            return path
    raise AssertionError("no path to a choosing stall for this deal")


def test_choosing_stall_prompt_and_choices(browser: Browser, server: Server) -> None:
    ann_ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    bob_ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    try:
        ann = ann_ctx.new_page()
        bob = bob_ctx.new_page()
        errors = collect_errors(ann) + collect_errors(bob)
        ann.goto(server.url + "/")
        ann.fill("#f-priv input[name=handicap]", "4:56")
        ann.click("#p-create")
        url = ann.locator("#share-link").input_value()
        bob.goto(url)
        for page in (ann, bob):
            expect(page.locator('.table[data-phase="playing"]')).to_be_visible(timeout=15000)
        gid = ann.evaluate("window.blinkConnection.game")
        deck = shuffled_deck(11 + gid, STANDARD_DECK)
        st = state(ann)
        assert st is not None
        assert st["hand"] == [str(c) for c in deck[1:4]], "the e2e server's deal seed changed"

        pages = {0: ann, 1: bob}
        for play in path_to_choosing_stall(deck):
            play_card(pages[play.player], str(play.card), play.pile)
        for page in (ann, bob):
            expect(page.locator('.table[data-phase="choosing"]')).to_be_visible()
            expect(page.locator(".center-msg")).to_contain_text(
                "No one can play: choose a card to place"
            )
            expect(page.locator("#stall-bar")).to_be_visible()
        # Ann chooses her second card by keyboard, Bob clicks his first card.
        ann_choice = state(ann)["hand"][1]  # type: ignore[index]
        bob_choice = state(bob)["hand"][0]  # type: ignore[index]
        ann.keyboard.press("2")
        expect(ann.locator(".center-msg")).to_contain_text("Chosen. Waiting for the others")
        expect(bob.locator(".opp .chosen-tag")).to_be_visible()
        bob.click('.hcard[data-slot="0"]')
        # Both choices go on their owners' piles at once.
        for page in (ann, bob):
            expect(page.locator('.table[data-phase="choosing"]')).to_have_count(0)
            expect(page.locator('.pile[data-pile="0"] .card-svg')).to_have_attribute(
                "data-card", ann_choice
            )
            expect(page.locator('.pile[data-pile="1"] .card-svg')).to_have_attribute(
                "data-card", bob_choice
            )
        assert not errors, errors
    finally:
        ann_ctx.close()
        bob_ctx.close()


def test_the_deadline_says_what_it_placed_for_whom(browser: Browser, server: Server) -> None:
    """Ann chooses, Bob lets the deadline pass: the server places Bob's first card, and both
    tables say so (Bob's: "for you"), in words."""
    ann_ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    bob_ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="es-ES")
    try:
        ann = ann_ctx.new_page()
        bob = bob_ctx.new_page()
        errors = collect_errors(ann) + collect_errors(bob)
        ann.goto(server.url + "/")
        ann.fill("#f-priv input[name=handicap]", "4:56")
        ann.click("#p-create")
        url = ann.locator("#share-link").input_value()
        bob.goto(url)
        for page in (ann, bob):
            expect(page.locator('.table[data-phase="playing"]')).to_be_visible(timeout=15000)
        deck = shuffled_deck(11 + ann.evaluate("window.blinkConnection.game"), STANDARD_DECK)
        pages = {0: ann, 1: bob}
        for play in path_to_choosing_stall(deck):
            play_card(pages[play.player], str(play.card), play.pile)
        for page in (ann, bob):
            expect(page.locator('.table[data-phase="choosing"]')).to_be_visible()
        bob_first = state(bob)["hand"][0]  # type: ignore[index]
        ann.keyboard.press("1")
        expect(ann.locator(".center-msg")).to_contain_text("Chosen. Waiting for the others")
        # The deadline (4 s on the test server) passes: Bob's first card goes on his pile.
        for page in (ann, bob):
            expect(page.locator('.pile[data-pile="1"] .card-svg')).to_have_attribute(
                "data-card", bob_first, timeout=15000
            )
        said = ann.locator(".center-msg .info")
        expect(said).to_have_text(re.compile(r"^Time's up: \w+ .+ placed for (?!you).+\.$"))
        mine = bob.locator(".center-msg .info")
        expect(mine).to_have_text(re.compile(r"^Se acabó el tiempo: se puso \w+ .+ por ti\.$"))
        # The card is named as the screen reader names it.
        name = bob.evaluate("(c) => import('/js/i18n.js').then((m) => m.cardName(c))", bob_first)
        assert name in mine.inner_text()
        assert not errors, errors
    finally:
        ann_ctx.close()
        bob_ctx.close()
