"""The tournament pages in headless Chromium against a real `blink serve`: an organiser runs a
real-cards tournament from the browser while a second browser watches the live bracket; the
printable bracket and its PNG; online sign-up with a profile and the link to the player's room;
the leaderboard page."""

from __future__ import annotations

import re

from blinkweb import Server, collect_errors
from playwright.sync_api import APIResponse, BrowserContext, Page, Route, expect

TIMEOUT = 20_000


def status_of(page: Page, match_id: str) -> str | None:
    return page.get_attribute(f'.match[data-match="{match_id}"]', "data-status")


def test_organiser_runs_real_cards_tournament_and_watcher_sees_it_live(
    server: Server, context: BrowserContext
) -> None:
    org = context.new_page()
    errors = collect_errors(org)
    org.goto(f"{server.url}/tournament.html")
    org.fill('#create input[name="name"]', "Club night")
    org.select_option('#create select[name="kind"]', "cards")
    org.click('#create button[type="submit"]')
    org.wait_for_url("**/tournament.html?id=*", timeout=TIMEOUT)
    tid = org.url.split("id=")[1]
    for name, rank in [("Ann", "1"), ("Bob", ""), ("Cy", ""), ("Di", ""), ("Ed", "")]:
        org.fill('#add-player input[name="name"]', name)
        org.fill('#add-player input[name="rank"]', rank)
        org.click('#add-player button[type="submit"]')
        expect(org.locator("#players li", has_text=name)).to_have_count(1, timeout=TIMEOUT)
    org.fill('#draw input[name="seed"]', "5")
    org.click('#draw button[type="submit"]')
    expect(org.locator("#bracket")).to_be_visible(timeout=TIMEOUT)
    expect(org.locator("#players li", has_text="bye")).to_contain_text(["Ann (rank 1) · bye"])

    # A second browser (no organiser secret) watches the live bracket.
    watcher = context.browser.new_context(viewport={"width": 1000, "height": 700})  # type: ignore[union-attr]
    w = watcher.new_page()
    w_errors = collect_errors(w)
    w.goto(f"{server.url}/tournament.html?id={tid}")
    expect(w.locator("#bracket")).to_be_visible(timeout=TIMEOUT)
    assert w.locator("#organiser").count() == 0 and w.locator("button[data-win]").count() == 0
    first = org.locator(".match[data-status=ready]").first.get_attribute("data-match")
    assert first is not None

    # The organiser enters games until the tournament is over: the first player of the first
    # open match wins each game.
    for _ in range(60):
        state = org.get_attribute("#tstate", "data-status")
        if state == "finished":
            break
        box = org.locator(".match[data-status=ready], .match[data-status=playing]").first
        version = org.get_attribute("#tstate", "data-version")
        box.locator("button[data-win]").first.click()
        expect(org.locator("#tstate")).not_to_have_attribute(
            "data-version", version or "", timeout=TIMEOUT
        )
    expect(org.locator("#tstate")).to_have_attribute("data-status", "finished", timeout=TIMEOUT)
    expect(org.locator("#standings caption")).to_contain_text("champion", timeout=TIMEOUT)
    # The watcher's page followed without reloading.
    expect(w.locator("#tstate")).to_have_attribute("data-status", "finished", timeout=TIMEOUT)
    assert status_of(w, first) == "decided"
    champion = org.locator("#standings tbody tr").first.locator("td").nth(1).inner_text()
    expect(w.locator("#standings caption")).to_contain_text(champion)

    # The printable bracket opens from the page; the PNG is an image.
    with org.expect_popup() as pop:
        org.click("#printable")
    printable = pop.value
    printable.wait_for_load_state()
    body = printable.inner_text("body")
    for name in ("Ann", "Bob", "Cy", "Di", "Ed"):
        assert name in body
    assert printable.locator("svg").count() >= 1
    assert "Standings" in body
    png = org.request.get(f"{server.url}/api/tournaments/{tid}/bracket.png")
    assert png.ok and png.body()[:8] == b"\x89PNG\r\n\x1a\n"
    # In Spanish, the page links the printable bracket and its image in Spanish.
    org.select_option("#lang", "es")
    expect(org.locator("#bracket-png")).to_have_attribute("href", re.compile(r"\.png\?lang=es$"))
    with org.expect_popup() as pop:
        org.click("#printable")
    spanish = pop.value
    spanish.wait_for_load_state()
    assert "Posiciones" in spanish.inner_text("body") and "Standings" not in spanish.content()
    assert errors == [] and w_errors == []
    watcher.close()


def test_online_sign_up_and_play_link(server: Server, context: BrowserContext) -> None:
    made = server.api("/api/tournaments", {"name": "Online cup", "kind": "online"})
    tid, secret = str(made["id"]), str(made["organiser_secret"])
    pages = []
    for name in ("Zoe", "Yan"):
        ctx = context.browser.new_context(viewport={"width": 1000, "height": 700})  # type: ignore[union-attr]
        p = ctx.new_page()
        p.goto(f"{server.url}/tournament.html?id={tid}")
        p.fill('#join input[name="name"]', name)
        p.click('#join button[type="submit"]')
        expect(p.locator("#join")).to_contain_text(f"as {name}", timeout=TIMEOUT)
        pages.append((ctx, p))
    server.api(f"/api/tournaments/{tid}/start", {"organiser_secret": secret, "seed": 3})
    for _, p in pages:
        play = p.locator("a.play")
        expect(play).to_have_count(1, timeout=TIMEOUT)
        expect(p.locator("a.watch")).to_have_count(1)
        play.click()
        p.wait_for_url("**/play/*", timeout=TIMEOUT)
    # The game client takes the seat with the profile secret: once both are in, the game
    # starts and the table appears for both.
    for _, p in pages:
        expect(p.locator(".table[data-phase]")).to_have_count(1, timeout=TIMEOUT)
    ctx = pages[0][0]

    lb = ctx.new_page()
    lb.goto(f"{server.url}/leaderboard.html")
    expect(lb.locator("#me")).to_contain_text("Your profile: Zoe", timeout=TIMEOUT)
    expect(lb.locator("#board tbody tr", has_text="Zoe")).to_have_count(1, timeout=TIMEOUT)
    levels = server.api("/api/leaderboard")["bots"]
    assert isinstance(levels, dict) and "trained" in levels
    expect(lb.locator("#bots tbody tr")).to_have_count(len(levels))
    for c, _ in pages:
        c.close()


def organised(
    server: Server, context: BrowserContext, name: str
) -> tuple[Page, list[str], str, str]:
    """A real-cards tournament ``name`` made on the page: the organiser's page (its panel
    shown), the page's errors as they come, the tournament's id and its organiser secret."""
    org = context.new_page()
    errors = collect_errors(org)
    org.goto(f"{server.url}/tournament.html")
    org.fill('#create input[name="name"]', name)
    org.select_option('#create select[name="kind"]', "cards")
    org.click('#create button[type="submit"]')
    org.wait_for_url("**/tournament.html?id=*", timeout=TIMEOUT)
    tid = org.url.split("id=")[1]
    secret = org.evaluate(f"localStorage.getItem('blink.tournament.org.{tid}')")
    expect(org.locator("#add-player")).to_be_visible(timeout=TIMEOUT)
    return org, errors, tid, str(secret)


def test_a_live_update_keeps_what_the_organiser_is_typing(
    server: Server, context: BrowserContext
) -> None:
    """Another device adds a player while the organiser is typing a name: the page shows the
    new player (live) and the half-typed name is still there, in focus; once sent, the form is
    empty again."""
    org, errors, tid, secret = organised(server, context, "Typing")
    org.fill('#add-player input[name="name"]', "Half typ")
    org.fill('#add-player input[name="rank"]', "2")
    res = org.request.post(
        f"{server.url}/api/tournaments/{tid}/players",
        data={"organiser_secret": secret, "name": "From elsewhere", "rank": None},
    )
    assert res.ok, res.text()
    expect(org.locator("#players li", has_text="From elsewhere")).to_have_count(1, timeout=TIMEOUT)
    assert org.input_value('#add-player input[name="name"]') == "Half typ"
    assert org.input_value('#add-player input[name="rank"]') == "2"
    org.click('#add-player button[type="submit"]')
    expect(org.locator("#players li", has_text="Half typ")).to_have_count(1, timeout=TIMEOUT)
    # The pushed version may draw the list before the request's own answer empties the form.
    expect(org.locator('#add-player input[name="name"]')).to_have_value("", timeout=TIMEOUT)
    expect(org.locator('#add-player input[name="rank"]')).to_have_value("")
    assert not errors


def test_a_form_sent_while_a_newer_version_arrives_starts_empty(
    server: Server, context: BrowserContext
) -> None:
    """The organiser adds a player; before the answer reaches the page, another device adds one
    more, so the page already holds a newer version than the answer and draws nothing from it.
    The sent name must still leave the form (it stayed, looking unsent, before the fix)."""
    org, errors, tid, secret = organised(server, context, "Crossing")

    held: list[tuple[Route, APIResponse]] = []

    def hold(route: Route) -> None:
        # The server handles the request now; its answer waits until the test lets it go.
        held.append((route, route.fetch()))

    org.route(re.compile(r".*/api/tournaments/[^/]+/players$"), hold)
    org.fill('#add-player input[name="name"]', "Sent first")
    org.click('#add-player button[type="submit"]')
    # The pushed version with the new player arrives while the answer is held.
    expect(org.locator("#players li", has_text="Sent first")).to_have_count(1, timeout=TIMEOUT)
    assert len(held) == 1
    res = org.request.post(
        f"{server.url}/api/tournaments/{tid}/players",
        data={"organiser_secret": secret, "name": "Sent later", "rank": None},
    )
    assert res.ok, res.text()
    expect(org.locator("#players li", has_text="Sent later")).to_have_count(1, timeout=TIMEOUT)
    route, answer = held[0]
    route.fulfill(response=answer)
    expect(org.locator('#add-player input[name="name"]')).to_have_value("", timeout=TIMEOUT)
    expect(org.locator("#players li")).to_have_count(2)
    assert not errors
