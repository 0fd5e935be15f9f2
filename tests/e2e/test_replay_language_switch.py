"""The replay viewer after a language switch: its title (who played, the page's own title), a
refusal and the file picker's page are in the new language; bots' seats are named in the
reader's language from the record's `meta.bots`, not with the English names stored."""

from __future__ import annotations

import re
from typing import Any

from blinkweb import collect_errors
from playwright.sync_api import BrowserContext, Page, expect

from blink.games.classic.record import GameRecord
from blink.games.goblink.record import GoRecord
from randomgames import random_game, random_go_game


def open_file(page: Page, name: str, content: str) -> None:
    """Choose a record file in the "#replay" page."""
    page.set_input_files(
        "#rp-file",
        files=[{"name": name, "mimeType": "application/json", "buffer": content.encode()}],
    )


def test_the_title_follows_the_language(context: BrowserContext, server: Any) -> None:
    record = GameRecord.from_game(random_game(5, players=2), names=["", "Ben"])
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/#replay")
    open_file(page, "g.json", record.to_json())
    title = page.locator("#rp-title")
    expect(title).to_have_text("Blink · Replay · g.json · Player 1 vs Ben")
    expect(page).to_have_title("Blink · Replay · g.json · Player 1 vs Ben")
    page.select_option("#lang", "es")
    expect(title).to_have_text("Blink · Repetición · g.json · Jugador 1 contra Ben")
    expect(page).to_have_title("Blink · Repetición · g.json · Jugador 1 contra Ben")
    page.select_option("#lang", "en")
    expect(title).to_have_text("Blink · Replay · g.json · Player 1 vs Ben")
    assert not errors, errors


def test_a_refusal_and_the_picker_follow_the_language(context: BrowserContext, server: Any) -> None:
    page = context.new_page()
    page.goto(server.url + "/#replay")
    expect(page).to_have_title("Blink · The world's fastest game")
    page.select_option("#lang", "es")
    expect(page).to_have_title("Blink · El juego más rápido del mundo")
    expect(page.locator("#rp-file-title")).to_have_text("Repetición")
    open_file(page, "bad.json", "{not json")
    error = page.locator("#rp-mount .error-msg")
    expect(error).to_have_text("Este archivo no es una partida de Blink: no es JSON legible.")
    page.select_option("#lang", "en")
    expect(error).to_have_text("This file is not a Blink record: it is not readable JSON.")
    # A record URL the server refuses: the sentence and the way back, in the new language.
    page.goto(server.url + "/#replay=/api/games/987654/record")
    expect(page.locator(".error-msg")).to_be_visible()
    page.select_option("#lang", "es")
    expect(page.get_by_role("link", name="Volver al inicio")).to_be_visible()


def test_bots_are_named_in_the_readers_language(context: BrowserContext, server: Any) -> None:
    """A stored game's record names each seat's bot (`meta.bots`): the viewer names them in
    the page's language; a person's name is the one recorded."""
    classic = GameRecord.from_game(
        random_game(7, players=3),
        names=["Ann", "Casual bot ×40 2", "Expert blocking bot 3"],
        meta={"bots": [None, "casual:first@40", "expert:blocker"]},
    )
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/")
    page.select_option("#lang", "es")
    page.goto(server.url + "/#replay")
    open_file(page, "bots.json", classic.to_json())
    title = page.locator("#rp-title")
    expect(title).to_have_text(
        "Blink · Repetición · bots.json · Ann contra Bot (Aficionado) contra Bot (Experto)"
    )
    names = page.locator(".rp-seat .name")
    expect(names).to_have_text(["Ann", "Bot (Aficionado)", "Bot (Experto)"])
    page.select_option("#lang", "en")
    expect(names).to_have_text(["Ann", "Bot (Casual)", "Bot (Expert)"])
    expect(title).to_contain_text("Ann vs Bot (Casual) vs Bot (Expert)")
    # Go Blink's bots, by Go Blink's words; two of one kind are told apart by their seat.
    go = GoRecord.from_game(
        random_go_game(3, players=2),
        names=["Greedy bot 1", "Greedy bot 2"],
        meta={"bots": ["greedy", "greedy"]},
    )
    page.goto(server.url + "/#replay")
    page.select_option("#lang", "es")
    open_file(page, "go.json", go.to_json())
    expect(page.locator("#rp-title")).to_contain_text("Bot 1 (Codicioso) contra Bot 2 (Codicioso)")
    expect(page.locator(".rp-seat .name").first).to_have_text(re.compile(r"^Bot 1 \(Codicioso\)"))
    assert not errors, errors
