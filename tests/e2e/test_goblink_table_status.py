"""The Go Blink table's status, as the classic table's: the latency badge in the top bar (the
page's round trip and its seat's lag as the server measured it), bots named in the reader's
language, and a spectator told when the players have left."""

from __future__ import annotations

import json
import re

from blinkweb import Server, collect_errors
from playwright.sync_api import BrowserContext, Page, expect


def go_against_bots(page: Page, server: Server, players: int, bot: str) -> None:
    """From the lobby, a Go Blink game against `players - 1` bots, up to its table."""
    page.goto(server.url + "/")
    panel = page.locator("#go-panel")
    expect(panel.get_by_role("heading", name="Go Blink")).to_be_visible()
    panel.locator("label", has_text=str(players)).click()
    page.select_option("#go-bot", bot)
    page.locator("#go-play").click()
    expect(page.locator(".go-table[data-phase]")).to_be_visible(timeout=15000)


def test_badge_and_bot_names(context: BrowserContext, server: Server) -> None:
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/")
    page.select_option("#lang", "es")
    go_against_bots(page, server, 3, "greedy")
    # Two bots of one kind: told apart by their seat, named by Go Blink's Spanish words.
    names = page.locator(".go-opp-name")
    expect(names).to_have_text(
        [re.compile(r"Bot 2 \(Codicioso\)$"), re.compile(r"Bot 3 \(Codicioso\)$")]
    )
    net = page.locator("#net")
    expect(net).to_contain_text(" ms", timeout=10000)
    expect(net).to_have_attribute("title", re.compile("medido por el servidor"), timeout=15000)
    title = net.get_attribute("title") or ""
    assert title.startswith("Latencia ") and "Tú: ida y vuelta " in title, title
    page.select_option("#lang", "en")
    expect(names).to_have_text([re.compile(r"Bot 2 \(Greedy\)$"), re.compile(r"Bot 3 \(Greedy\)$")])
    # The seat names the server keeps stay as they were.
    room = server.api(f"/api/rooms/{page.url.rsplit('=', 1)[1]}")
    assert [s["name"] for s in room["seats"]][1:] == ["Greedy bot 2", "Greedy bot 3"]  # type: ignore[index]
    assert not errors, errors


def test_a_spectator_is_told_when_the_players_have_gone(
    context: BrowserContext, server: Server
) -> None:
    made = server.api(
        "/api/rooms",
        {"game": "goblink", "players": 2, "take_seat": 0, "public": True, "name": "Ann"},
    )
    code = str(made["code"])
    seat0 = json.dumps({"token": made["token"], "seat": 0})
    players = [context.new_page(), context.new_page()]
    players[0].goto(server.url + "/")
    players[0].evaluate(f"sessionStorage.setItem('blink.seat.{code}', {json.dumps(seat0)})")
    for p in players:
        p.goto(server.url + f"/?go={code}")
    for p in players:
        expect(p.locator(".go-table[data-phase]")).to_be_visible(timeout=20000)
    watcher = context.new_page()
    errors = collect_errors(watcher)
    watcher.goto(server.url + f"/watch/{code}")
    expect(watcher.locator(".go-table[data-phase]")).to_be_visible(timeout=20000)
    away = watcher.locator("#players-away")
    expect(away).to_have_count(0)
    for p in players:
        p.close()
    expect(away).to_have_text(
        "The players have left: the turn timer plays for them until they come back.",
        timeout=20000,
    )
    watcher.select_option("#lang", "es")
    expect(away).to_have_text(
        "Los jugadores se han ido: el reloj de turno juega por ellos hasta que vuelvan."
    )
    back = context.new_page()
    back.goto(server.url + "/")
    back.evaluate(f"sessionStorage.setItem('blink.seat.{code}', {json.dumps(seat0)})")
    back.goto(server.url + f"/?go={code}")
    expect(away).to_have_count(0, timeout=20000)
    assert not errors, errors


def test_the_lobby_names_go_bots_in_the_readers_language(
    context: BrowserContext, server: Server
) -> None:
    made = server.api(
        "/api/rooms",
        {"game": "goblink", "players": 2, "seats": ["memory", "greedy"], "take_seat": None},
    )
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/")
    page.select_option("#lang", "es")
    room = page.locator(f'#l-live li[data-room="{made["code"]}"]')
    expect(room).to_contain_text("Bot (Memorión) · Bot (Codicioso)", timeout=15000)
    page.select_option("#lang", "en")
    room = page.locator(f'#l-live li[data-room="{made["code"]}"]')
    expect(room).to_contain_text("Bot (Remembering) · Bot (Greedy)")
    assert not errors, errors
