"""Taking a seat by a room's link at both games' tables: an unknown room, a saved seat token the
server no longer knows (forgotten, and a seat taken again), a room with no free seat (watched)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator

import pytest
from blinkweb import Server, collect_errors
from playwright.sync_api import BrowserContext, Page, Route, expect

# Each game's link to a seat; what a table says of a room that does not exist.
LINKS = {"classic": "/play/{code}", "goblink": "/?go={code}"}
NOT_FOUND = "There is no game with the code {code}. Check the code, or ask for a new link."


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server of its own: the rooms made here do not shift the shared server's seeded deals."""
    s = Server(tmp_path_factory.mktemp("e2e-join"))
    yield s
    s.stop()


def new_room(server: Server, game: str) -> str:
    """A room of two seats for people whose seat 0 is taken through the API (by nobody in the
    browser)."""
    body: dict[str, object] = {"players": 2, "seats": [None, None], "take_seat": 0}
    if game == "goblink":
        body["game"] = "goblink"
    return str(server.api("/api/rooms", {**body, "public": False})["code"])


def saved_token(page: Page, code: str) -> str | None:
    raw = page.evaluate(f"sessionStorage.getItem('blink.seat.{code}')")
    return json.loads(raw)["token"] if raw else None


def not_a_missing_room(errors: list[str]) -> list[str]:
    """Page errors, without the console line Chromium writes for a REST answer 404."""
    return [e for e in errors if "404" not in e]


@pytest.mark.parametrize("game", ["classic", "goblink"])
def test_unknown_room(context: BrowserContext, server: Server, game: str) -> None:
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + LINKS[game].format(code="ZZZZ99"))
    expect(page.locator(".error-msg[role=alert]")).to_have_text(
        NOT_FOUND.format(code="ZZZZ99"), timeout=10000
    )
    assert saved_token(page, "ZZZZ99") is None
    assert not not_a_missing_room(errors), errors


def test_lobby_join_says_what_to_do(context: BrowserContext, server: Server) -> None:
    page = context.new_page()
    page.goto(server.url + "/")
    page.fill("#j-code", "??")
    page.locator("#f-join").get_by_role("button").click()
    expect(page.locator("#j-err")).to_have_text(
        "That is not a game code or link. Check it, or ask for a new link."
    )
    page.fill("#j-code", "zzzz98")
    page.locator("#f-join").get_by_role("button").click()
    page.wait_for_url("**/play/ZZZZ98")
    expect(page.locator(".error-msg[role=alert]").filter(has_text="ZZZZ98")).to_have_text(
        NOT_FOUND.format(code="ZZZZ98"), timeout=10000
    )


def test_lobby_forms_wait_for_the_options(context: BrowserContext, server: Server) -> None:
    """A click before the lobby knows the games' player counts would send none: the buttons stay
    disabled until the options have come, and then a private game opens as usual."""
    held: list[Route] = []
    page = context.new_page()
    page.route("**/api/options", lambda route: held.append(route))
    page.goto(server.url + "/")
    deadline = time.monotonic() + 10
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert held, "the lobby never asked for the options"
    expect(page.locator("#p-create")).to_be_disabled()
    expect(page.locator("#q-play")).to_be_disabled()
    held[0].continue_()
    page.click("#p-create")
    page.wait_for_url("**/play/*")
    expect(page.locator("#share-link")).to_have_value(re.compile(r"/play/[A-Z0-9]+$"))


@pytest.mark.parametrize("game", ["classic", "goblink"])
def test_saved_token_the_server_refuses(context: BrowserContext, server: Server, game: str) -> None:
    code = new_room(server, game)
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/")
    stale = json.dumps({"token": "stale", "seat": 1})
    page.evaluate(f"sessionStorage.setItem('blink.seat.{code}', {json.dumps(stale)})")
    page.goto(server.url + LINKS[game].format(code=code))
    # Refused (bad_token, closed 4003): the token is forgotten and seat 1 taken by the code.
    page.wait_for_function(
        "(t) => { const c = window.blinkConnection;"
        " return c && c.token && c.token !== t && c.ws && c.ws.readyState === 1; }",
        arg="stale",
        timeout=10000,
    )
    token = saved_token(page, code)
    assert token not in (None, "stale")
    assert page.evaluate("window.blinkConnection.token") == token
    seat = server.api(f"/api/rooms/{code}")["seats"][1]  # type: ignore[index]
    assert seat["taken"], seat  # type: ignore[index]
    expect(page.get_by_text(NOT_FOUND.format(code=code))).to_have_count(0)
    assert not errors, errors


@pytest.mark.parametrize("game", ["classic", "goblink"])
def test_full_room_is_watched(context: BrowserContext, server: Server, game: str) -> None:
    # A quick game: seat 0 is the API caller's, the others bots.
    body = {"game": "goblink", "players": 2} if game == "goblink" else {}
    code = str(server.api("/api/quick", body)["code"])
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + LINKS[game].format(code=code))
    # No free seat (room_full): the table says why and watches (the game waits for seat 0).
    if game == "classic":
        expect(page.locator(".tablebar")).to_contain_text("Watching", timeout=10000)
        expect(page.locator(".table p.muted").first).to_contain_text("Error:")
    else:
        expect(page.locator("#go-waiting .error-msg")).to_contain_text("Error:", timeout=10000)
    assert saved_token(page, code) is None
    assert page.evaluate("window.blinkConnection.token") is None
    assert not [e for e in errors if "409" not in e], errors


@pytest.mark.parametrize("game", ["classic", "goblink"])
def test_one_name_for_every_form(context: BrowserContext, server: Server, game: str) -> None:
    """The lobby's one name field is kept as it is typed: a seat taken with a room's code (with
    no form submitted) carries it, at both games' tables, and the next visit shows it."""
    code = new_room(server, game)
    page = context.new_page()
    page.goto(server.url + "/")
    expect(page.locator("#q-play")).to_be_enabled()
    page.fill("#q-name", "Quinn")
    page.fill("#j-code", code)
    page.locator("#f-join").get_by_role("button").click()
    page.wait_for_function(
        "() => { const c = window.blinkConnection; return c && c.ws && c.ws.readyState === 1; }",
        timeout=10000,
    )
    seat = server.api(f"/api/rooms/{code}")["seats"][1]  # type: ignore[index]
    assert seat["name"] == "Quinn", seat  # type: ignore[index]
    page.goto(server.url + "/")
    expect(page.locator("#q-name")).to_have_value("Quinn")


def test_a_spectator_is_told_when_the_players_have_gone(
    context: BrowserContext, server: Server
) -> None:
    """A game whose players all left waits for them: its spectators are told so (and the room
    leaves the lobby's live list), and the notice goes when a player comes back."""
    made = server.api("/api/rooms", {"players": 2, "take_seat": 0, "public": True, "name": "A"})
    code = str(made["code"])
    seat0 = json.dumps({"token": made["token"], "seat": 0})
    players = [context.new_page(), context.new_page()]
    players[0].goto(server.url + "/")
    players[0].evaluate(f"sessionStorage.setItem('blink.seat.{code}', {json.dumps(seat0)})")
    for p in players:
        p.goto(server.url + f"/play/{code}")
    watcher = context.new_page()
    watcher.goto(server.url + f"/watch/{code}")
    expect(watcher.locator(".table[data-phase]")).to_be_visible(timeout=20000)
    expect(watcher.locator("#players-away")).to_have_count(0)
    for p in players:
        p.close()
    expect(watcher.locator("#players-away")).to_have_text(
        "The players have left: the game waits for them to come back.", timeout=20000
    )
    listed = server.api("/api/rooms")["rooms"]
    assert code not in [r["code"] for r in listed]  # type: ignore[union-attr]
    back = context.new_page()
    back.goto(server.url + "/")
    back.evaluate(f"sessionStorage.setItem('blink.seat.{code}', {json.dumps(seat0)})")
    back.goto(server.url + f"/play/{code}")
    expect(watcher.locator("#players-away")).to_have_count(0, timeout=20000)
