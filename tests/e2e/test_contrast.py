"""Every page and state of the browser client has text that can be read: axe-core's
colour-contrast rule (WCAG 2.2 AA, 4.5:1; 3:1 for large text) finds nothing, in English and
Spanish, with colour letters off and on.

One server and one browser serve every state; each state is drawn once and its four variants
(two languages, colour letters off and on) are switched in the page through its top bar, so
the checks add little time to the suite. Failures are gathered, then reported together.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from axe import contrast_failures
from blinkweb import Server, keyboard_step
from playwright.sync_api import Browser, BrowserContext, Page, expect

from blink.games.goblink.record import GoRecord
from randomgames import random_go_game

pytestmark = pytest.mark.timeout(600)

TIMEOUT = 20_000
VARIANTS = [("en", False), ("es", False), ("es", True), ("en", True)]


@pytest.fixture
def ctx(browser: Browser) -> Iterator[BrowserContext]:
    """A desktop profile that lets the checker's script in (the server's Content-Security-Policy
    allows only its own scripts)."""
    c = browser.new_context(
        viewport={"width": 1280, "height": 800}, locale="en-US", bypass_csp=True
    )
    yield c
    c.close()


def set_variant(page: Page, lang: str, cb: bool) -> None:
    """The page's language and colour letters, through its top bar."""
    if not page.locator("#lang").count():  # a page without the top bar
        return
    if page.input_value("#lang") != lang:
        page.select_option("#lang", lang)
        expect(page.locator("html")).to_have_attribute("lang", lang)
    button = page.locator("#btn-cb")
    if (button.get_attribute("aria-pressed") == "true") != cb:
        button.click()
        expect(button).to_have_attribute("aria-pressed", "true" if cb else "false")


def check_all(page: Page, state: str, failures: dict[str, str]) -> None:
    """Run the rule on ``page`` in each variant; note what it finds under ``state``."""
    for lang, cb in VARIANTS:
        set_variant(page, lang, cb)
        found = contrast_failures(page)
        if found:
            failures[f"{state} [{lang}{', colour letters' if cb else ''}]"] = found


def report(failures: dict[str, str]) -> str:
    return "\n".join(f"{k}:\n{v}" for k, v in failures.items())


def seated(ctx: BrowserContext, server: Server, body: dict[str, object]) -> tuple[Page, str]:
    """A room made through the API with seat 0 taken, and a page in that seat."""
    made = server.api("/api/rooms", {"players": 2, "public": False, **body})
    code, token = str(made["code"]), str(made["token"])
    page = ctx.new_page()
    page.add_init_script(
        f"sessionStorage.setItem('blink.seat.{code}', "
        f"JSON.stringify({{token: '{token}', seat: 0}}))"
    )
    page.goto(f"{server.url}/play/{code}")
    return page, code


def test_pages(ctx: BrowserContext, server: Server) -> None:
    """The lobby, "How to play", the empty replay viewer, the leaderboard, the daily challenge,
    the tournaments' list and a tournament open for sign-up, and the page for a wrong address."""
    failures: dict[str, str] = {}
    page = ctx.new_page()
    page.goto(server.url + "/")
    expect(page.locator("#q-play")).to_be_enabled(timeout=TIMEOUT)
    check_all(page, "lobby", failures)
    page.goto(server.url + "/#rules")
    page.wait_for_load_state("networkidle")
    check_all(page, "how to play", failures)
    page.goto(server.url + "/#replay")
    page.wait_for_load_state("networkidle")
    check_all(page, "replay viewer", failures)
    for path, name in (
        ("/leaderboard.html", "leaderboard"),
        ("/daily.html", "daily challenge"),
        ("/tournament.html", "tournaments"),
    ):
        page.goto(server.url + path)
        page.wait_for_load_state("networkidle")
        check_all(page, name, failures)
    made = server.api("/api/tournaments", {"name": "Sign-up", "kind": "online"})
    page.goto(f"{server.url}/tournament.html?id={made['id']}")
    expect(page.locator("#join")).to_be_visible(timeout=TIMEOUT)
    check_all(page, "tournament sign-up", failures)
    page.goto(server.url + "/no/such/page")
    check_all(page, "not found", failures)
    assert not failures, report(failures)


def test_tournament_states(ctx: BrowserContext, server: Server) -> None:
    """An online tournament under way, seen by one of its players ("Play your match"); and a
    real-cards tournament played to its end (the bracket and the final standings)."""
    failures: dict[str, str] = {}
    made = server.api("/api/tournaments", {"name": "Contrast cup", "kind": "online"})
    tid, secret = str(made["id"]), str(made["organiser_secret"])
    profiles = [server.api("/api/profiles", {"name": n}) for n in ("Ivo", "Uma")]
    for p in profiles:
        server.api(f"/api/tournaments/{tid}/join", {"profile_secret": p["secret"]})
    server.api(f"/api/tournaments/{tid}/start", {"organiser_secret": secret, "seed": 3})
    page = ctx.new_page()
    page.add_init_script(
        "localStorage.setItem('blink.profile', JSON.stringify("
        f"{{id: '{profiles[0]['id']}', name: 'Ivo', secret: '{profiles[0]['secret']}'}}))"
    )
    page.goto(f"{server.url}/tournament.html?id={tid}")
    expect(page.locator("a.play")).to_have_count(1, timeout=TIMEOUT)
    check_all(page, "tournament: play your match", failures)

    names = ["Ann", "Bob", "Cy"]
    cards = server.api(
        "/api/tournaments",
        {"name": "Cards night", "kind": "cards", "players": [{"name": n} for n in names]},
    )
    ctid, csecret = str(cards["id"]), str(cards["organiser_secret"])
    view = server.api(f"/api/tournaments/{ctid}/draw", {"organiser_secret": csecret, "seed": 5})
    for _ in range(40):
        if view["status"] == "finished":
            break
        open_match = next(
            m
            for m in view["tournament"]["matches"]  # type: ignore[index]
            if m["status"] in ("ready", "playing")
        )
        view = server.api(
            f"/api/tournaments/{ctid}/result",
            {"organiser_secret": csecret, "match": open_match["id"],
             "winners": [open_match["players"][0]]},
        )  # fmt: skip
    assert view["status"] == "finished", view["status"]
    page.goto(f"{server.url}/tournament.html?id={ctid}")
    expect(page.locator("#standings")).to_be_visible(timeout=TIMEOUT)
    check_all(page, "tournament: finished", failures)
    assert not failures, report(failures)


def test_tables_end_screens_and_replays(ctx: BrowserContext, server: Server) -> None:
    """Classic Blink: a table in play (a player's and a spectator's), the end screen, the
    game's replay with its study, the lobby listing it; Go Blink: a table in play, a replay at
    its end."""
    failures: dict[str, str] = {}
    # Two people at a table, neither playing: it stays as it is while the checker runs.
    ann, code = seated(ctx, server, {"seats": [None, None]})
    bob = ctx.browser.new_page()  # type: ignore[union-attr]
    bob.goto(f"{server.url}/play/{code}")
    expect(ann.locator('.table[data-phase="playing"]')).to_be_visible(timeout=TIMEOUT)
    check_all(ann, "classic table", failures)
    watch = ctx.new_page()
    watch.goto(f"{server.url}/watch/{code}")
    expect(watch.locator('.table[data-phase="playing"]')).to_be_visible(timeout=TIMEOUT)
    check_all(watch, "classic table, watching", failures)
    bob.close()

    # Against the fastest bot, which holds only four cards: the game ends soon.
    page, _ = seated(ctx, server, {"seats": [None, "inhuman:first"], "handicap": "56:4"})
    deadline = time.monotonic() + 300  # generous: the loop ends at the end screen
    while time.monotonic() < deadline and not page.locator(".end").count():
        keyboard_step(page)
    expect(page.locator(".end #end-actions")).not_to_have_attribute("data-arming", "")
    expect(page.locator("#study-line")).to_be_visible(timeout=TIMEOUT)
    check_all(page, "classic end screen", failures)
    page.get_by_role("button", name="Replay").click()
    expect(page.locator("#rp-range")).to_be_visible(timeout=TIMEOUT)
    # A stored game's replay has its study beside it (reaction times, missed plays).
    expect(page.locator("#st-moves li").first).to_be_visible(timeout=TIMEOUT)
    check_all(page, "classic replay and its study", failures)

    page.goto(server.url + "/")
    expect(page.locator("#l-done li[data-game]").first).to_be_visible(timeout=TIMEOUT)
    check_all(page, "lobby with a finished game", failures)
    play = page.locator("#go-play")
    expect(play).to_be_enabled(timeout=TIMEOUT)
    play.click()
    expect(page.locator(".go-table[data-phase]")).to_be_visible(timeout=TIMEOUT)
    check_all(page, "Go Blink table", failures)

    record = GoRecord.from_game(random_go_game(5), names=["Ana", "Ben"])
    page.goto(server.url + "/#replay")
    page.set_input_files(
        "#rp-file",
        files=[
            {"name": "go.json", "mimeType": "application/json", "buffer": record.to_json().encode()}
        ],
    )
    expect(page.locator(".go-replay")).to_be_visible(timeout=TIMEOUT)
    page.locator("#rp-range").fill(str(len(record.actions)))
    check_all(page, "Go Blink replay", failures)
    assert not failures, report(failures)
