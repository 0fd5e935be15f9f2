"""The tournament and leaderboard pages in the app's shell, in headless Chromium against a real
`blink serve`: the top bar's controls and every string in Spanish and English, the bracket
drawn as a bracket (a box per match and bye, connector lines from each box to the one it
feeds, the final round as a table in words), standings in words, the leaderboard's columns
and its details disclosure; and an online match played to the end by two WebSocket clients,
whose end screen links back to the bracket, where the finished match links to its replays."""

from __future__ import annotations

import asyncio
import re
import threading
from pathlib import Path
from typing import Any

from blinkweb import Server, collect_errors, end_buttons_armed
from playwright.sync_api import Browser, BrowserContext, Page, expect
from tests.server.srvkit import Client, bot_loop

TIMEOUT = 20_000
NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ida", "Jo", "Kim"]


def es_context(browser: Browser) -> BrowserContext:
    return browser.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")


def api_state(server: Server, tid: str) -> dict[str, Any]:
    return server.api(f"/api/tournaments/{tid}")


def enter(server: Server, tid: str, secret: str, rounds: int) -> dict[str, Any]:
    """Enter games (the first player of each open match wins) until round ``rounds`` is over."""
    state = api_state(server, tid)
    while True:
        open_ = [
            m
            for m in state["tournament"]["matches"]
            if m["status"] in ("ready", "playing") and m["round"] <= rounds
        ]
        if not open_:
            return state
        m = open_[0]
        state = server.api(
            f"/api/tournaments/{tid}/result",
            {"organiser_secret": secret, "match": m["id"], "winners": [m["players"][0]]},
        )


def expected_links(state: dict[str, Any]) -> int:
    """Connectors: one per source of each match after round 1 and of each finalist."""
    td = state["tournament"]
    later = [m for m in td["matches"] if m["kind"] == "elimination" and m["round"] >= 2]
    finalists = {s for m in td["matches"] if m["kind"] == "final-set" for s in m["sources"]}
    return sum(len(m["sources"]) for m in later) + len(finalists)


def connectors_fit(page: Page) -> bool:
    """Every connector starts at the right edge of its source box and ends at the left edge of
    the box it feeds (within two pixels)."""
    return bool(
        page.evaluate(
            """() => {
      const grid = document.querySelector('.bracket-grid');
      const base = grid.getBoundingClientRect();
      return [...grid.querySelectorAll('svg.connectors path')].every((p) => {
        const from = grid.querySelector(`[data-slot="${CSS.escape(p.dataset.from)}"]`);
        const to = grid.querySelector(`[data-slot="${CSS.escape(p.dataset.to)}"]`);
        const [x0, y0] = p.getAttribute('d').slice(1).split('H')[0].split(' ').map(Number);
        const x1 = Number(p.getAttribute('d').split('H').pop());
        const f = from.getBoundingClientRect(), t = to.getBoundingClientRect();
        return Math.abs(f.right - base.left - x0) < 2 && Math.abs(t.left - base.left - x1) < 2
          && y0 > f.top - base.top && y0 < f.bottom - base.top;
      });
    }"""
        )
    )


def check_top_bar(page: Page, lang: str) -> None:
    words = {
        "es": ("Torneos", "Clasificación", "Sonido", "Letras de color", "Cómo se juega"),
        "en": ("Tournaments", "Leaderboard", "Sound", "Colour letters", "How to play"),
    }[lang]
    daily = {"es": "Reto diario", "en": "Daily challenge"}[lang]
    expect(page.locator("#lang")).to_have_value(lang)
    nav = page.locator(".topbar nav.extra-links a")
    expect(nav).to_have_text([words[0], words[1], daily])
    expect(page.locator("#btn-sound")).to_have_attribute("aria-label", words[2])
    expect(page.locator("#btn-cb .cb-long")).to_have_text(words[3])
    expect(page.locator("#btn-rules")).to_have_attribute("aria-label", words[4])
    assert page.evaluate("document.documentElement.lang") == lang


def test_the_bracket_in_spanish_and_english(
    server: Server, browser: Browser, screenshots: Path
) -> None:
    players = [{"name": n, "rank": 1} if n == "Ann" else {"name": n} for n in NAMES]
    made = server.api("/api/tournaments", {"name": "Copa", "kind": "cards", "players": players})
    tid, secret = str(made["id"]), str(made["organiser_secret"])
    server.api(f"/api/tournaments/{tid}/draw", {"organiser_secret": secret, "seed": 3})
    state = enter(server, tid, secret, rounds=1)
    td = state["tournament"]
    elim = [m for m in td["matches"] if m["kind"] == "elimination"]

    ctx = es_context(browser)
    page = ctx.new_page()
    errors = collect_errors(page)
    page.goto(f"{server.url}/tournament.html?id={tid}")
    expect(page.locator("#tstate")).to_have_attribute(
        "data-version", str(state["version"]), timeout=TIMEOUT
    )
    check_top_bar(page, "es")
    expect(page.locator("#tstatus")).to_have_text("en vivo", timeout=TIMEOUT)
    expect(page.locator("#tstate")).to_contain_text("Cartas reales · sorteado · 11 jugadores")
    grid = page.locator(".bracket-grid")
    expect(grid.locator(".bcol-head")).to_have_text(["Ronda 1", "Ronda 2", "Ronda final"])
    expect(grid.locator(".match[data-match]")).to_have_count(len(elim))
    expect(grid.locator(".match.bye")).to_have_count(len(td["draw"]["byes"]))
    expect(grid.locator(".match.finalist")).to_have_count(td["plan"]["finalists"])
    expect(grid.locator("svg.connectors path")).to_have_count(expected_links(state))
    assert connectors_fit(page)
    # A decided first-round match: its winner, and the score in words.
    first = elim[0]
    box = grid.locator(f'.match[data-match="{first["id"]}"]')
    expect(box).to_have_attribute("data-status", "decided")
    expect(box.locator(".who.win")).to_contain_text(first["players"][0])
    expect(box.locator(".score")).to_have_text(f"{first['players'][0]} ganó 2 partidas a 0")
    expect(box.locator(".mstate")).to_have_text("decidido")
    # A second-round match waits for a first-round winner, named in words.
    waiting = grid.locator('.match[data-status="ready"]').first
    expect(waiting.locator(".score")).to_have_text("Sin partidas jugadas")
    # Standings in words.
    winner_row = page.locator("#standings tbody tr", has_text=first["players"][0])
    expect(winner_row.locator("td.record")).to_have_text("2 victorias, 0 derrotas")
    loser_row = page.locator("#standings tbody tr", has_text=first["players"][1])
    expect(loser_row.locator("td.record")).to_have_text("0 victorias, 2 derrotas")
    expect(loser_row).to_contain_text("eliminado en la ronda 1")
    assert page.locator("#standings").inner_text().count("-") == 0  # no "1-4" left

    # The live bracket follows: round two is played, then the final round.
    state = enter(server, tid, secret, rounds=99)
    expect(page.locator("#tstate")).to_have_attribute("data-status", "finished", timeout=TIMEOUT)
    expect(grid.locator(".match.finalist.pending")).to_have_count(0)
    expect(grid.locator("svg.connectors path")).to_have_count(expected_links(state))
    assert connectors_fit(page)
    table = page.locator("#final-table")
    expect(table.locator("caption")).to_have_text("Ronda final: partidas ganadas entre sí")
    expect(table.locator("tbody tr")).to_have_count(3)
    expect(table.locator("tbody td.total").first).to_contain_text("victoria")
    champion = str(state["tournament"]["champion"])
    expect(page.locator("#standings caption")).to_have_text(
        f"Posiciones finales — campeón: {champion}"
    )

    # The language switch redraws the page in English, the same state.
    page.select_option("#lang", "en")
    check_top_bar(page, "en")
    expect(page.locator("#tstatus")).to_have_text("live")
    expect(grid.locator(".bcol-head")).to_have_text(["Round 1", "Round 2", "Final round"])
    expect(box.locator(".score")).to_have_text(f"{first['players'][0]} won 2 games to 0")
    expect(loser_row.locator("td.record")).to_have_text("0 wins, 2 losses")
    expect(page.locator("#standings caption")).to_have_text(
        f"Final standings — champion: {champion}"
    )
    expect(grid.locator("svg.connectors path")).to_have_count(expected_links(state))
    page.locator(".bracket-wrap").screenshot(path=str(screenshots / "tournament.png"))
    assert errors == []
    ctx.close()


def test_the_list_and_a_small_field_in_spanish(server: Server, browser: Browser) -> None:
    """The list page and its form in Spanish; a field of three goes straight to the final round
    (no bracket columns: its table), and two players play one match."""
    three = [{"name": n} for n in ("Uno", "Dos", "Tres")]
    made = server.api("/api/tournaments", {"name": "Trío", "kind": "cards", "players": three})
    tid, secret = str(made["id"]), str(made["organiser_secret"])
    server.api(f"/api/tournaments/{tid}/draw", {"organiser_secret": secret, "seed": 1})
    ctx = es_context(browser)
    page = ctx.new_page()
    errors = collect_errors(page)
    page.goto(f"{server.url}/tournament.html")
    expect(page.locator("h1")).to_have_text("Torneos", timeout=TIMEOUT)
    check_top_bar(page, "es")
    expect(page.locator('#create input[name="name"]')).to_have_value("Torneo de Blink")
    expect(page.locator('#create select[name="kind"] option')).to_have_text(
        ["En línea (salas en este servidor)", "Cartas reales (anota los resultados)"]
    )
    expect(page.locator("#tlist li", has_text="Trío")).to_contain_text("Cartas reales")
    # The controls work here as on the game pages: sound, colour letters, the phone's menu.
    page.click("#btn-sound")
    expect(page.locator("#btn-sound")).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#btn-sound")).to_have_attribute("title", "Sonido desactivado")
    page.click("#btn-sound")
    page.click("#btn-cb")
    expect(page.locator("body")).to_have_class(re.compile(r"\bcb\b"))
    page.click("#btn-cb")
    page.set_viewport_size({"width": 390, "height": 844})
    expect(page.locator(".topbar nav.extra-links")).to_be_hidden()
    page.click("#btn-menu")
    expect(page.locator("#menu-panel a")).to_have_text(
        ["Torneos", "Clasificación", "Reto diario", "Cómo se juega"]
    )
    expect(page.locator("#menu-panel a").first).to_have_attribute("aria-current", "page")
    page.keyboard.press("Escape")
    expect(page.locator("#menu-panel")).to_be_hidden()
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{server.url}/tournament.html?id={tid}")
    expect(page.locator("#final-table tbody tr")).to_have_count(3, timeout=TIMEOUT)
    assert page.locator(".bracket-grid").count() == 0
    expect(page.locator(".final-matches .match")).to_have_count(3)
    # Each finalist beats one and loses to the other, 2 games to 1: three tie-breaks follow.
    sets = {m["id"]: m["players"] for m in api_state(server, tid)["tournament"]["matches"]}
    for mid, (a, b) in sets.items():
        order = [a, a, b] if mid in ("F1-2", "F2-3") else [b, b, a]
        for w in order:
            server.api(
                f"/api/tournaments/{tid}/result",
                {"organiser_secret": secret, "match": mid, "winners": [w]},
            )
    expect(page.locator(".final-matches .match")).to_have_count(6, timeout=TIMEOUT)
    expect(
        page.locator(".final-matches .mlabel", has_text="Desempate por los lugares 1 a 3")
    ).to_have_count(3)
    first = sets["F1-2"]
    row = page.locator("#final-table tbody tr", has_text=first[0])
    expect(row.locator("td").nth(1)).to_have_text("2 victorias, 1 derrota")
    expect(row.locator("td.total")).to_have_text("3 victorias, 3 derrotas")

    pair = [{"name": "Sol"}, {"name": "Luna"}]
    made = server.api("/api/tournaments", {"name": "Dúo", "kind": "cards", "players": pair})
    tid, secret = str(made["id"]), str(made["organiser_secret"])
    server.api(f"/api/tournaments/{tid}/draw", {"organiser_secret": secret, "seed": 1})
    page.goto(f"{server.url}/tournament.html?id={tid}")
    expect(page.locator(".bracket-grid .bcol-head")).to_have_text(["Final"], timeout=TIMEOUT)
    expect(page.locator(".bracket-grid .match[data-match]")).to_have_count(1)
    assert errors == []
    ctx.close()


def play_match(server: Server, tid: str, code: str, secrets: list[str]) -> None:
    """Two WebSocket clients, the match's players, play game after game in their room until
    the tournament is over."""
    ws = server.url.replace("http://", "ws://") + "/ws"

    async def run() -> None:
        clients = [
            await Client(f"P{i}").connect(ws, room=code, token=s) for i, s in enumerate(secrets)
        ]
        for _ in range(8):
            await asyncio.wait_for(asyncio.gather(*(bot_loop(c, games=1) for c in clients)), 120)
            state = await asyncio.to_thread(api_state, server, tid)
            if state["status"] == "finished":
                break
        for c in clients:
            await c.close()

    failure: list[BaseException] = []

    def thread() -> None:
        try:
            asyncio.run(run())
        except BaseException as exc:  # handed to the test's thread
            failure.append(exc)

    th = threading.Thread(target=thread)
    th.start()
    th.join(600)
    assert not th.is_alive() and not failure, failure


def test_a_finished_match_links_both_ways(
    server: Server, context: BrowserContext, screenshots: Path
) -> None:
    """An online final played to the end: the spectator's end screen links back to the
    bracket, where the decided match links to the replay of each of its games; the
    leaderboard then shows both players with their rating, games and recent form, and the
    rating model's figures only in the details disclosure."""
    # Names no other test of the shared server gives (a profile's name is unique).
    profiles = [server.api("/api/profiles", {"name": n}) for n in ("Quin", "Tova")]
    made = server.api("/api/tournaments", {"name": "Online final", "kind": "online"})
    tid, secret = str(made["id"]), str(made["organiser_secret"])
    for p in profiles:
        server.api(f"/api/tournaments/{tid}/join", {"profile_secret": p["secret"]})
    state = server.api(f"/api/tournaments/{tid}/start", {"organiser_secret": secret, "seed": 2})
    (m,) = state["tournament"]["matches"]
    code = str(state["rooms"][m["id"]]["code"])
    seat_secret = {str(p["name"]): str(p["secret"]) for p in profiles}
    watcher = context.new_page()
    errors = collect_errors(watcher)
    watcher.goto(f"{server.url}/watch/{code}")
    expect(watcher.locator("#net")).not_to_be_empty(timeout=TIMEOUT)

    # The players play until the match is decided (two games won; a tie is replayed).
    play_match(server, tid, code, [seat_secret[str(n)] for n in m["players"]])
    state = api_state(server, tid)
    assert state["status"] == "finished"
    (m,) = state["tournament"]["matches"]
    link = watcher.locator("section.end a#to-tournament")
    expect(link).to_have_text("Back to the tournament bracket", timeout=TIMEOUT)
    end_buttons_armed(watcher)
    link.click()
    watcher.wait_for_url(f"**/tournament.html?id={tid}", timeout=TIMEOUT)
    box = watcher.locator(f'.match[data-match="{m["id"]}"]')
    expect(box).to_have_attribute("data-status", "decided", timeout=TIMEOUT)
    expect(box.locator(".score")).to_contain_text(f"{m['winner']} won 2 games to")
    replays = box.locator("a.replay")
    expect(replays).to_have_count(len(m["games"]))
    assert box.locator("a.watch").count() == 0  # decided: nothing left to watch
    replays.first.click()
    expect(watcher.locator("#rp-step")).to_contain_text("Step 0 of", timeout=TIMEOUT)

    # The leaderboard: rank, name, rating as one number, games, recent form; details on demand.
    lb = context.new_page()
    lb_errors = collect_errors(lb)
    lb.goto(f"{server.url}/leaderboard.html")
    expect(lb.locator("#lstatus")).to_have_text("live", timeout=TIMEOUT)
    check_top_bar(lb, "en")
    expect(lb.locator("#board thead th")).to_have_text(
        ["Rank", "Player", "Rating", "Games", "Recent form", "Details"]
    )
    winner = lb.locator("#board tbody tr", has_text=str(m["winner"]))
    expect(winner).to_have_count(1, timeout=TIMEOUT)
    by_name = {str(p["name"]): p for p in profiles}
    profile = server.api(f"/api/profiles/{by_name[str(m['winner'])]['id']}")
    rated = int(profile["games"])
    expect(winner.locator("td").nth(2)).to_have_text(str(rated))
    marks = winner.locator(".form .mark")
    expect(marks).to_have_count(min(rated, 5))
    expect(winner.locator(".form")).to_have_attribute(
        "aria-label",
        "Latest games, newest first: "
        + ", ".join("win" if h["place"] == 1 else "loss" for h in profile["history"][:5]),
    )
    assert "μ" not in lb.locator("#board thead").inner_text()
    details = winner.locator("details.rating-details")
    expect(details.locator("dl")).not_to_be_visible()
    details.locator("summary").click()
    expect(details.locator("dl")).to_be_visible()
    expect(details.locator("dl")).to_contain_text("Skill (μ)")
    expect(lb.locator("#model")).not_to_have_attribute("open", "")
    lb.locator("#model summary").click()
    levels = server.api("/api/leaderboard")["bots"]
    assert isinstance(levels, dict) and "trained" in levels
    expect(lb.locator("#bots tbody tr")).to_have_count(len(levels))
    lb.screenshot(path=str(screenshots / "leaderboard.png"))

    # In Spanish, the same board.
    lb.select_option("#lang", "es")
    check_top_bar(lb, "es")
    expect(lb.locator("#board thead th")).to_have_text(
        ["Posición", "Jugador", "Puntuación", "Partidas", "Últimos resultados", "Detalles"]
    )
    expect(lb.locator("#lstatus")).to_have_text("en vivo")
    expect(winner.locator(".form .mark").first).to_have_text(re.compile("^[VD]$"))
    assert errors == [] and lb_errors == []
    # A refusal in Spanish: the name is taken (the browser logs the 409 it answered).
    lb.fill('#me input[name="name"]', "Quin")
    lb.click('#me button[type="submit"]')
    expect(lb.locator("#me-error")).to_have_text(
        "Ya hay un perfil con este nombre (o uno parecido): elige otro."
    )
