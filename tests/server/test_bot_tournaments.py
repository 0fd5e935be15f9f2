"""Bot tournaments on a real server: only bot accounts enter one (with their tokens), a person
is refused there and a bot account in a people's tournament (``bots_only``, ``people_only``);
real ``blink bot play --tournament`` processes join, check in and play one to its end, and
their games are on the bot ladder, never the people's."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import time
from typing import Any

import httpx
from srvkit import ServerThread
from test_bot_cli import BLINK, _env, _run
from test_bot_play import _bearer, _bot

from blink.cli import botclient

Json = dict[str, Any]


def _tournament(server: ServerThread, **body: Any) -> Json:
    r = server.post("/api/tournaments", {"name": "Cup", **body})
    assert r.status_code == 201, r.text
    out: Json = r.json()
    return out


def _join(server: ServerThread, tid: str, token: str | None = None, **body: Any) -> httpx.Response:
    headers = {} if token is None else _bearer(token)
    return httpx.post(
        f"{server.http}/api/tournaments/{tid}/join", json=body, headers=headers, timeout=30
    )


def _code(r: httpx.Response) -> str:
    code: str = r.json()["error"]["code"]
    return code


def test_only_bots_enter_a_bot_tournament_and_people_keep_theirs(server: ServerThread) -> None:
    clank = _bot(server, "Ada", "Clank")
    person = server.post("/api/profiles", {"name": "Carla"}).json()
    bots = _tournament(server, entrants="bots")
    assert bots["entrants"] == "bots"
    # A person is refused a bot tournament, with their profile's secret.
    r = _join(server, bots["id"], profile_secret=person["secret"])
    assert r.status_code == 403 and _code(r) == "bots_only", r.text
    # A bot account enters with its token: the answer names it, marked a bot.
    r = _join(server, bots["id"], clank["token"])
    assert r.status_code == 200, r.text
    assert r.json()["you"] == {"profile": clank["id"], "name": "Clank"}
    assert r.json()["players"][0]["bot"] is True
    again = _join(server, bots["id"], profile_secret=clank["token"])  # the token as the secret
    assert again.status_code == 409 and _code(again) == "already_joined"
    # The organiser cannot enter a player by name alone, nor the tournament be one of cards.
    org = {"organiser_secret": bots["organiser_secret"], "name": "Dora"}
    added = server.post(f"/api/tournaments/{bots['id']}/players", org)
    assert added.status_code == 403 and _code(added) == "bots_only"
    cards = server.post("/api/tournaments", {"kind": "cards", "entrants": "bots"})
    assert cards.status_code == 400 and _code(cards) == "bot_tournament_setup"
    # A people's tournament stays people's: the bot is refused, by header or by secret.
    people = _tournament(server)
    assert people["entrants"] == "people"
    for r in (
        _join(server, people["id"], clank["token"]),
        _join(server, people["id"], profile_secret=clank["token"]),
    ):
        assert r.status_code == 403 and _code(r) == "people_only", r.text
    assert _join(server, people["id"], profile_secret=person["secret"]).status_code == 200
    listed = {t["id"]: t["entrants"] for t in server.get("/api/tournaments").json()["tournaments"]}
    assert listed == {bots["id"]: "bots", people["id"]: "people"}
    seen = httpx.get(
        f"{server.http}/api/tournaments/{people['id']}", headers=_bearer(clank["token"])
    )
    assert seen.json()["you"] == {"profile": clank["id"], "name": None}


def _play(server: ServerThread, token: str, tid: str) -> subprocess.Popen[str]:
    """A real ``blink bot play --tournament`` process."""
    args = ["--server", server.http, "--token", token, "--tournament", tid, "--strategy", "first"]
    return subprocess.Popen(
        [*BLINK, "bot", "play", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )


def _until(server: ServerThread, tid: str, pred: Any, procs: list[subprocess.Popen[str]]) -> Json:
    """The tournament's state once ``pred`` holds of it (a process that exits first fails)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        state: Json = server.get(f"/api/tournaments/{tid}").json()
        if pred(state):
            return state
        for p in procs:
            assert p.poll() is None, p.communicate()
        time.sleep(0.05)
    raise AssertionError(f"the tournament never got there: {state}")


def test_bot_processes_play_a_bot_tournament_to_its_end(
    make_server: Any,
) -> None:
    server: ServerThread = make_server(choice_deadline=0.5)
    bots = [_bot(server, f"Owner{i}", name) for i, name in enumerate(["Clank", "Rivet", "Bolt"])]
    person = server.post("/api/profiles", {"name": "Carla"}).json()
    made = _tournament(server, entrants="bots")
    tid, org = made["id"], {"organiser_secret": made["organiser_secret"]}
    procs = [_play(server, b["token"], tid) for b in bots]
    try:
        _until(server, tid, lambda s: len(s["players"]) == 3, procs)
        # Check-in opens: each bot's client checks in by itself; the draw is over those there.
        assert server.post(f"/api/tournaments/{tid}/check-in/open", org).status_code == 200
        _until(server, tid, lambda s: len(s["check_in"]["players"]) == 3, procs)
        started = server.post(f"/api/tournaments/{tid}/start", org)
        assert started.status_code == 200, started.text
        outs = [p.communicate(timeout=600) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err
        assert "entered tournament" in out
    final = server.get(f"/api/tournaments/{tid}").json()
    assert final["status"] == "finished"
    champion = final["tournament"]["champion"]
    assert champion in {"Clank", "Rivet", "Bolt"}
    assert all(p["bot"] for p in final["players"])
    # Every match was played in its room, by the bots' own seats: the games are rated on
    # the bot ladder, never on the people's.
    for b in bots:
        page = server.get(f"/api/profiles/{b['id']}").json()
        assert page["bot"] is True and page["games"] >= 2, page
    ladder = server.get("/api/leaderboard?ladder=bots").json()
    on_bots = {p["name"] for p in ladder["players"] + ladder["provisional"]}
    assert on_bots == {"Clank", "Rivet", "Bolt"}
    people = server.get("/api/leaderboard?ladder=people").json()
    on_people = {p["name"] for p in people["players"] + people["provisional"]}
    assert not on_people & on_bots
    assert server.get(f"/api/profiles/{person['id']}").json()["games"] == 0
    for codes in final["rooms"].values():
        seats = server.get(f"/api/rooms/{codes['code']}").json()["seats"]
        assert all(s["bot_account"] for s in seats)


class _Relay:
    """A real TCP relay to the server whose connections can all be cut at once."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.links: list[asyncio.StreamWriter] = []
        self.server: asyncio.Server | None = None

    async def _pipe(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while data := await r.read(65536):
                w.write(data)
                await w.drain()
        w.close()

    async def _link(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        ur, uw = await asyncio.open_connection("127.0.0.1", self.port)
        self.links.append(w)
        self.links.append(uw)
        await asyncio.gather(self._pipe(r, uw), self._pipe(ur, w))

    async def start(self) -> str:
        self.server = await asyncio.start_server(self._link, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    def cut(self) -> int:
        """Cut every connection through the relay; how many it has had."""
        for w in self.links:
            w.transport.abort()
        return len(self.links)


async def _poll(pred: Any) -> None:
    async def loop() -> None:
        while not pred():
            await asyncio.sleep(0.02)

    await asyncio.wait_for(loop(), 120)


async def test_the_tournament_client_takes_up_a_dropped_wait_and_room(
    make_server: Any,
) -> None:
    server: ServerThread = make_server(choice_deadline=0.5)
    clank, rivet = _bot(server, "Ada", "Clank"), _bot(server, "Bob", "Rivet")
    made = _tournament(server, entrants="bots")
    tid, org = made["id"], {"organiser_secret": made["organiser_secret"]}
    relay = _Relay(server.port)
    through = await relay.start()
    policy = botclient.house_policy("first")
    said: list[str] = []
    first = asyncio.create_task(
        botclient.tournament(through, clank["token"], tid, policy, said.append)
    )

    def state() -> Json:
        out: Json = server.get(f"/api/tournaments/{tid}").json()
        return out

    await _poll(lambda: len(state()["players"]) == 1)
    # Its wait for the next change dies: the client opens the stream again.
    before = relay.cut()
    await _poll(lambda: len(relay.links) > before)
    second = asyncio.create_task(
        botclient.tournament(server.http, rivet["token"], tid, policy, lambda _: None)
    )
    await _poll(lambda: len(state()["players"]) == 2)
    assert server.post(f"/api/tournaments/{tid}/start", org).status_code == 200
    rooms: dict[str, Any] = {}

    def playing() -> bool:
        rooms.update(state()["rooms"])
        return bool(rooms)

    await _poll(playing)
    code = next(iter(rooms.values()))["code"]
    await _poll(lambda: server.get(f"/api/rooms/{code}").json()["status"] != "waiting")
    before = relay.cut()  # the room's connection dies (mid-game, or between games)
    played = await asyncio.wait_for(asyncio.gather(first, second), 300)
    assert len(relay.links) > before  # it came back through the relay
    assert played[0] >= 2 and played[1] >= 2
    assert state()["status"] == "finished"
    assert code in said
    assert relay.server is not None
    relay.server.close()


def test_the_client_refuses_what_it_cannot_play_with_one_sentence(server: ServerThread) -> None:
    clank = _bot(server, "Ada", "Clank")
    people = _tournament(server)
    args = ["--server", server.http, "--token", clank["token"], "--tournament"]
    refused = _run(*args, people["id"])
    assert refused.returncode == 2 and "(people_only)" in refused.stderr
    assert "Traceback" not in refused.stderr
    missing = _run(*args, "nope")
    assert missing.returncode == 2 and "(no_such_tournament)" in missing.stderr
    both = _run(*args, people["id"], "--arena")
    assert both.returncode == 2 and "--tournament" in both.stderr
    # A bot tournament drawn without this bot: said in the client's language.
    drawn = _tournament(server, entrants="bots")
    others = [_bot(server, f"Owner{name}", name) for name in ("Rivet", "Bolt")]
    for other in others:
        assert _join(server, drawn["id"], other["token"]).status_code == 200
    org = {"organiser_secret": drawn["organiser_secret"], "seed": 1}
    assert server.post(f"/api/tournaments/{drawn['id']}/draw", org).status_code == 200
    late = _run(*args, drawn["id"], language="es")
    assert late.returncode == 2 and "el sorteo del torneo" in late.stderr, late.stderr
    # A bot withdraws itself with its token (Authorization: Bearer).
    gone = httpx.post(
        f"{server.http}/api/tournaments/{drawn['id']}/withdraw",
        json={},
        headers=_bearer(others[0]["token"]),
        timeout=30,
    )
    assert gone.status_code == 200, gone.text
    assert [p["withdrawn"] for p in gone.json()["players"]] == [True, False]
