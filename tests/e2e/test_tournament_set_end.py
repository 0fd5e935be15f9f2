"""A tournament match room's end screen in headless Chromium against a real `blink serve`:
a final-round set is three games, every one played; once they are, the screen says the set
is over with its count (no countdown to a game that does not come, no rematch) and what comes
next for the player, following the tournament live: the next match's room, then waiting for
the other matches, then the tournament's result. In English and Spanish."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from blinkweb import Server, collect_errors
from playwright.sync_api import BrowserContext, expect
from tests.server.srvkit import Client, bot_loop

TIMEOUT = 30_000


def play_set(server: Server, code: str, secrets: list[str]) -> None:
    """The match's two players, as WebSocket client bots, play game after game in room
    ``code`` until its set is over (the room is finished)."""
    ws = server.url.replace("http://", "ws://") + "/ws"

    async def run() -> None:
        clients = [
            await Client(f"P{i}").connect(ws, room=code, token=s) for i, s in enumerate(secrets)
        ]
        for _ in range(12):
            room = await asyncio.to_thread(server.api, f"/api/rooms/{code}")
            if room["status"] == "finished":
                break
            await asyncio.wait_for(asyncio.gather(*(bot_loop(c, games=1) for c in clients)), 120)
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


def expected_next(state: dict[str, Any], name: str, code: str) -> str:
    """What the end screen should say comes next for ``name`` (tnext.js's whatNext)."""
    if state["status"] == "finished":
        return "over"
    for m in state["tournament"]["matches"]:
        room = state["rooms"].get(m["id"])
        if room and room["code"] != code and m["status"] != "decided" and name in m["players"]:
            return "match"
    return "wait"


def test_a_final_set_ends_with_what_comes_next(server: Server, context: BrowserContext) -> None:
    # Names no other test of the shared server gives (a profile's name is unique).
    profiles = [server.api("/api/profiles", {"name": n}) for n in ("Vera", "Walt", "Xena")]
    secret = {str(p["name"]): str(p["secret"]) for p in profiles}
    made = server.api("/api/tournaments", {"name": "Set ends", "kind": "online"})
    tid, org = str(made["id"]), str(made["organiser_secret"])
    for p in profiles:
        server.api(f"/api/tournaments/{tid}/join", {"profile_secret": p["secret"]})
    state = server.api(f"/api/tournaments/{tid}/start", {"organiser_secret": org, "seed": 4})
    matches = {m["id"]: m for m in state["tournament"]["matches"]}
    rooms = {mid: str(r["code"]) for mid, r in state["rooms"].items()}
    assert sorted(rooms) == ["F1-2", "F1-3", "F2-3"]
    first = matches["F1-2"]["players"]
    me, other = str(first[0]), str(first[1])
    code = rooms["F1-2"]

    play_set(server, code, [secret[me], secret[other]])
    room = server.api(f"/api/rooms/{code}")
    assert room["best_of"] == 3 and room["status"] == "finished"
    assert sum(room["series"]["score"]) == 3

    page = context.new_page()
    errors = collect_errors(page)
    seat = f"JSON.stringify({{token: '{secret[me]}', seat: 0}})"
    page.add_init_script(f"sessionStorage.setItem('blink.seat.{code}', {seat})")
    page.goto(f"{server.url}/play/{code}")
    end = page.locator("section.end")
    expect(end.locator(".series-kicker")).to_have_text(
        "Set over · 3 games, every game counts", timeout=TIMEOUT
    )
    score = room["series"]["score"]
    winner = str(first[score.index(max(score))])
    title = "You won the set!" if winner == me else f"{winner} wins the set"
    expect(end.locator(".series-win h1")).to_have_text(title)
    assert end.locator("#next-in").count() == 0  # no countdown to a game that does not come
    assert end.locator('[data-act="rematch"]').count() == 0  # the tournament goes on
    # The player's next match: the other final set they are in, with a link to its room.
    nxt = end.locator("#t-next")
    expect(nxt).to_have_attribute("data-next", "match", timeout=TIMEOUT)
    opponent = next(p for p in matches["F1-3"]["players"] if p != me)
    assert me in matches["F1-3"]["players"]
    expect(nxt).to_contain_text(f"Your next match: against {opponent}.")
    expect(nxt.locator("a#next-match")).to_have_attribute("href", f"/play/{rooms['F1-3']}")

    page.select_option("#lang", "es")
    expect(end.locator(".series-kicker")).to_have_text(
        "Enfrentamiento terminado · 3 partidas, cuenta cada una"
    )
    expect(page.locator("#t-next")).to_contain_text(
        f"Tu próximo enfrentamiento: contra {opponent}."
    )
    expect(page.locator("#t-next a#next-match")).to_have_text("Jugar tu próximo enfrentamiento")
    page.select_option("#lang", "en")

    # The link takes the same profile's seat in the next room.
    page.locator("#t-next a#next-match").click()
    page.wait_for_url(f"**/play/{rooms['F1-3']}", timeout=TIMEOUT)
    held = page.evaluate(f"JSON.parse(sessionStorage.getItem('blink.seat.{rooms['F1-3']}'))")
    assert held == {"token": secret[me], "seat": matches["F1-3"]["players"].index(me)}
    page.goto(f"{server.url}/play/{code}")
    expect(page.locator("#t-next")).to_have_attribute("data-next", "match", timeout=TIMEOUT)

    # The next set is played elsewhere: the screen follows, the player waits for the others.
    f13 = matches["F1-3"]["players"]
    play_set(server, rooms["F1-3"], [secret[str(n)] for n in f13])
    expect(page.locator("#t-next")).to_have_attribute("data-next", "wait", timeout=TIMEOUT)
    expect(page.locator("#t-next")).to_have_text("Waiting for the other matches to finish.")

    # The last set: the tournament's result (or, after a tie on wins, what the tie-break asks).
    f23 = matches["F2-3"]["players"]
    play_set(server, rooms["F2-3"], [secret[str(n)] for n in f23])
    final = server.api(f"/api/tournaments/{tid}")
    want = expected_next(final, me, code)
    expect(page.locator("#t-next")).to_have_attribute("data-next", want, timeout=TIMEOUT)
    if want == "over":
        champion = final["tournament"]["champion"]
        expect(page.locator("#t-next")).to_have_text(
            f"The tournament is over: {champion} is the champion."
        )
        page.select_option("#lang", "es")
        expect(page.locator("#t-next")).to_have_text(f"El torneo terminó: gana {champion}.")
    assert errors == []
