"""Farming a rating, tried as an attacker would (issue 36): a script that beats the house bots
on an equal deal, one bot spec after another; fresh puppet profiles that lose to it on purpose;
both together, measured on the leaderboard. The games against bots are played through the
real server and its WebSocket; the bulk of the attack (a day of games) goes through the
server's rating job on its real database, as the server runs it when a game ends."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from typing import Any

from sqlalchemy import create_engine, text
from srvkit import Client, ServerThread, bot_loop

from blink.server.profiles import _rate_job
from blink.server.room.room import hash_token

FAST = "@40"

SPECS = [f"beginner:{s}{FAST}" for s in ("random", "first", "blocker", "flexible")] + [
    f"casual:first{FAST}",
    f"casual:random{FAST}",
]
"""Six bots that differ in level or strategy: one day's budget of rated games is fewer."""

LEVELS = ("beginner", "casual", "skilled", "expert", "champion", "inhuman")
STRATEGIES = ("random", "first", "blocker", "flexible")


def new_profile(server: ServerThread, name: str) -> dict[str, Any]:
    r = server.post("/api/profiles", {"name": name})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def rated_games(server: ServerThread, pid: str) -> int:
    games: int = server.get(f"/api/profiles/{pid}").json()["games"]
    return games


async def play_bot(server: ServerThread, who: dict[str, Any], spec: str) -> dict[str, Any]:
    """One quick game of the script (a client that plays the first legal card at once)
    against the bot ``spec``; its ``game_end``."""
    body = {"bot": spec, "name": who["name"], "profile_secret": who["secret"]}
    r = server.post("/api/quick", body)
    assert r.status_code == 201, r.text
    c = await Client(who["name"]).connect(server.ws, room=r.json()["code"], token=who["secret"])
    (end,) = await asyncio.wait_for(bot_loop(c, games=1), 120)
    await c.close()
    return end


def settle(server: ServerThread) -> None:
    """Wait until every game ended so far is rated or refused: a fresh profile's game against
    a bot, played after them, is rated (the writer runs jobs in order)."""
    probe = new_profile(server, "Probe" + secrets.token_hex(3))
    asyncio.run(play_bot(server, probe, f"beginner:first{FAST}"))
    deadline = time.monotonic() + 30
    while rated_games(server, probe["id"]) < 1:
        assert time.monotonic() < deadline, "the probe's game was never rated"
        time.sleep(0.05)


async def test_a_script_gets_one_budget_whatever_the_bot(make_server: Any) -> None:
    """The attack: one bot spec after another, each under its own daily cap. The games are
    played; only one day's budget of them is rated, whichever bot they were against."""
    from blink.server.profiles import BOT_GAMES_RATED

    server = make_server()
    script = new_profile(server, "Script")
    assert len(SPECS) > BOT_GAMES_RATED
    for spec in SPECS:
        await play_bot(server, script, spec)
    await asyncio.to_thread(settle, server)
    assert rated_games(server, script["id"]) == BOT_GAMES_RATED


class Attack:
    """A day of the attack on a server's database, through the server's rating job."""

    def __init__(self, server: ServerThread) -> None:
        self.server = server
        self.engine = create_engine(server.settings.database_url)
        self.game = 9_000_000
        self.now = time.time()

    def rate(self, seats: list[dict[str, Any] | str], winner: int) -> None:
        """Rate one game between ``seats`` (a profile, or a bot's spec) won by ``winner``."""
        self.game += 1
        hashes = [None if isinstance(s, str) else hash_token(s["secret"]) for s in seats]
        bots = [s if isinstance(s, str) else None for s in seats]
        job = _rate_job("FARM01", self.game, hashes, bots, (winner,), self.now)
        with self.engine.begin() as conn:
            job(conn)
        self.now += 60

    def honest(self, names: list[str]) -> list[str]:
        """Established players (50 rated games each), ordinals 34 to 53: their ids."""
        ids = [new_profile(self.server, name)["id"] for name in names]
        with self.engine.begin() as conn:
            for k, pid in enumerate(ids):
                conn.execute(
                    text("update profiles set mu = :m, sigma = 2, games = 50 where id = :p"),
                    {"m": 40.0 + k, "p": pid},
                )
        return ids

    def close(self) -> None:
        self.engine.dispose()


def top_ten(server: ServerThread) -> list[str]:
    board = server.get("/api/leaderboard?limit=10").json()
    return [p["name"] for p in board["players"]]


async def test_a_script_and_its_puppets_stay_out_of_the_top_ten(make_server: Any) -> None:
    """A day of the whole attack: the script beats every bot (every level and strategy) three
    times, and twenty fresh puppet profiles lose to it three times each. Twenty established
    players hold the leaderboard; the script and its puppets are not in its top ten."""
    server = make_server()
    attack = Attack(server)
    try:
        honest = [f"Player{k:02d}" for k in range(20)]
        attack.honest(honest)
        script = new_profile(server, "Script")
        for level in LEVELS:
            for strategy in STRATEGIES:
                for _ in range(3):
                    attack.rate([script, f"{level}:{strategy}"], 0)
        puppets = [new_profile(server, f"Puppet{k:02d}") for k in range(20)]
        for puppet in puppets:
            for _ in range(3):
                attack.rate([script, puppet], 0)
        top = top_ten(server)
        assert len(top) == 10
        assert "Script" not in top and not any(n.startswith("Puppet") for n in top), top
        assert set(top) <= set(honest)
    finally:
        attack.close()


async def test_puppets_lift_nobody(make_server: Any) -> None:
    """Wins over fresh profiles (no rated games: puppets made for the purpose) lift the winner
    by nothing, however many puppets there are; their own loss is theirs."""
    server = make_server()
    attack = Attack(server)
    try:
        script = new_profile(server, "Script")
        for k in range(10):
            puppet = new_profile(server, f"Puppet{k:02d}")
            for _ in range(3):
                attack.rate([script, puppet], 0)
        got = server.get(f"/api/profiles/{script['id']}").json()
        assert got["rating"]["mu"] == 25.0 and got["rating"]["ordinal"] == 0.0
    finally:
        attack.close()


async def play_paced(c: Client, pause: float) -> dict[str, Any]:
    """Play one game as a person could: each play ``pause`` seconds after the view that
    allowed it (the server measures at least that); its ``game_end``."""
    while True:
        end = next((m for m in c.msgs if m["type"] == "game_end"), None)
        if end is not None:
            return end
        legal = c.legal()
        if legal:
            seen = c.seq
            await asyncio.sleep(pause)
            if c.seq == seen and c.legal():
                card, pile = c.legal()[0]
                mid = await c.play(card, pile)
                await c.wait(lambda m, i=mid: m.get("id") == i)
            continue
        v = c.view
        if v is not None and v["phase"] == "choosing" and v["my_choice"] is None and v["hand"]:
            await asyncio.sleep(pause)
            await c.choose(v["hand"][-1])
        c.changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(c.changed.wait(), 0.5)


async def test_plays_faster_than_a_person_are_not_rated_and_flagged(make_server: Any) -> None:
    """The script plays the moment a card fits: its game is played, not rated, and its profile
    is flagged for the operator (``blink db flagged``). A player whose plays come after a
    person's reaction time is rated as before."""
    from typer.testing import CliRunner

    from blink.cli import app

    server = make_server(reaction_floor_ms=100)
    script = new_profile(server, "Script")
    await play_bot(server, script, f"beginner:first{FAST}")
    person = new_profile(server, "Person")
    r = server.post(
        "/api/quick",
        {"bot": "beginner:first", "name": "Person", "profile_secret": person["secret"]},
    )
    c = await Client("Person").connect(server.ws, room=r.json()["code"], token=person["secret"])
    await asyncio.wait_for(play_paced(c, 0.15), 300)
    await c.close()
    deadline = time.monotonic() + 30
    while rated_games(server, person["id"]) < 1:
        assert time.monotonic() < deadline, "the person's game was never rated"
        await asyncio.sleep(0.05)
    assert rated_games(server, script["id"]) == 0
    out = await asyncio.to_thread(
        CliRunner().invoke,
        app,
        ["db", "flagged", "--database-url", server.settings.database_url],
    )
    assert out.exit_code == 0, out.output
    assert "Script" in out.output and "Person" not in out.output
