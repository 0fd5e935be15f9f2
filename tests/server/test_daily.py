"""The daily challenge on a real server: one deal a day for everyone (and another the next day,
on a moved wall clock), the day's board, one ranked attempt, the streak, the seed hidden until
the day is over, a past day's deal replayed, a daily room restored with its deal."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from srvkit import Client, ServerThread, bot_loop

from blink.cards import STANDARD_DECK, shuffled_deck
from blink.server import daily

DAY = 86_400.0
START = 1_796_040_000.0
"""Noon on a day in UTC (a day on from it is the next date)."""
BOT = "beginner@30"
"""A bot slow enough that a client bot playing at once wins, fast enough that it wins
against a client that does not play."""


class WallClock:
    """The server's wall clock, moved by the test."""

    def __init__(self, at: float = START) -> None:
        self.now = at

    def __call__(self) -> float:
        return self.now


def settings(clock: WallClock) -> dict[str, Any]:
    return {"wall_clock": clock, "daily_bots": (BOT,)}


def new_profile(server: ServerThread, name: str) -> dict[str, Any]:
    """An account's profile (daily ranks need an account): its id, name and secret."""
    r = server.post("/api/accounts", {"name": name, "password": f"{name} plays blink daily"})
    assert r.status_code == 201, r.text
    profile: dict[str, Any] = r.json()["profile"]
    return profile


def play_daily(server: ServerThread, **body: Any) -> dict[str, Any]:
    r = server.post("/api/daily", body)
    assert r.status_code == 201, r.text
    made: dict[str, Any] = r.json()
    return made


async def first_hand(server: ServerThread, made: dict[str, Any]) -> tuple[Client, list[str]]:
    c = await Client("P").connect(server.ws, room=made["code"], token=made["token"])
    snap = await c.expect("snapshot")
    return c, list(snap["view"]["hand"])


async def slow_loop(c: Client, pause: float = 0.4) -> dict[str, Any]:
    """Play as a slow player until the game ends: a card only when nothing has happened for
    ``pause`` seconds (the bot is stuck without a card that fits), so the bot wins."""
    while True:
        try:
            m = await c.wait(lambda m: m["type"] in ("game_end", "update"), pause)
        except TimeoutError:
            v = c.view
            legal = c.legal()
            if legal:
                await c.play(*legal[0])
            elif v is not None and v["phase"] == "choosing" and v["my_choice"] is None:
                await c.choose(v["hand"][-1])
            continue
        if m["type"] == "game_end":
            return m


def wait_board(server: ServerThread, path: str, entries: int) -> dict[str, Any]:
    deadline = time.monotonic() + 30.0
    while True:
        got: dict[str, Any] = server.get(path).json()
        if len(got["board"]) >= entries:
            return got
        assert time.monotonic() < deadline, f"the board has {len(got['board'])} entries"
        time.sleep(0.05)


async def test_one_deal_a_day_hidden_until_the_day_is_over(make_server: Any) -> None:
    clock = WallClock()
    server = make_server(**settings(clock))
    today = server.get("/api/daily").json()
    assert today["over"] is False and today["seed"] is None and today["replay"] is None
    assert today["yesterday"] is None  # nobody played the day before
    assert today["bot"]["spec"].startswith("beginner") and today["bot"]["name"]
    a, b = play_daily(server, name="Ann"), play_daily(server, name="Bob")
    assert a["ranked"] is False and a["date"] == today["date"] and a["unranked"] == "guest"
    assert "deal_seed" not in a["room"]["options"] and a["room"]["options"]["daily"]
    ca, hand_a = await first_hand(server, a)
    cb, hand_b = await first_hand(server, b)
    assert hand_a == hand_b  # the day's practice deal, the same for every guest
    ranked = play_daily(server, name="Di", profile_secret=new_profile(server, "Di")["secret"])
    cd, hand_ranked = await first_hand(server, ranked)
    await cd.close()
    assert ranked["ranked"] is True and hand_ranked != hand_a
    # A quick game is not dealt from the day's seed.
    q = server.post("/api/quick", {"name": "Q"}).json()
    cq, hand_q = await first_hand(server, q)
    assert hand_q != hand_a
    ends = await bot_loop(ca)
    # The record shows the deal: not before the day is over (nor the room's series record).
    early = server.get(ends[0]["record_url"])
    assert early.status_code == 403 and early.json()["error"]["code"] == "daily_running"
    series = server.get(f"/api/rooms/{a['code']}/record")
    assert series.status_code == 403 and series.json()["error"]["code"] == "daily_running"
    replay = server.get(f"/api/games/{ends[0]['game']}/replay?room={a['code']}")
    assert replay.status_code == 403 and replay.json()["error"]["code"] == "daily_running"
    for c in (ca, cb, cq):
        await c.close()
    # The next day: another deal; yesterday's seed is shown now, and it is the deal played.
    clock.now += DAY
    other = play_daily(server, name="Cy")
    cc, hand_c = await first_hand(server, other)
    await cc.close()
    assert hand_c != hand_a and other["date"] != a["date"]
    past = server.get(f"/api/daily/{a['date']}").json()
    assert past["over"] is True and past["replay"] == {"date": a["date"]}
    record = server.get(ends[0]["record_url"]).json()
    day = daily.Day(a["date"], past["seed"], past["bot"]["spec"])
    practice = shuffled_deck(daily.practice_seed(day), STANDARD_DECK)
    assert record["deck"] == [str(card) for card in practice]
    assert record["deck"] != [str(card) for card in shuffled_deck(past["seed"], STANDARD_DECK)]
    now = server.get("/api/daily").json()
    assert now["seed"] is None and now["yesterday"]["seed"] == past["seed"]
    # Yesterday's deal played again: unranked practice, the same deal.
    again = play_daily(server, name="Ann", date=a["date"])
    assert again["ranked"] is False and again["date"] == a["date"]
    cr, hand_r = await first_hand(server, again)
    await cr.close()
    assert hand_r == hand_ranked
    # A day to come, a day nobody asked for, and a bad date are refused.
    ahead = server.get(f"/api/daily/{'2099-01-01'}")
    assert ahead.status_code == 404 and ahead.json()["error"]["code"] == "no_such_day"
    unseen = server.get("/api/daily/2020-01-01")
    assert unseen.status_code == 404 and unseen.json()["error"]["code"] == "no_such_day"
    bad = server.get("/api/daily/yesterday")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_date"


async def test_the_board_one_ranked_attempt_and_the_streak(make_server: Any) -> None:
    clock = WallClock()
    server = make_server(**settings(clock))
    ann, bob, cy = (new_profile(server, n) for n in ("Ann", "Bob", "Cy"))
    made = {p["name"]: play_daily(server, name=p["name"], profile_secret=p["secret"])
            for p in (ann, bob, cy)}  # fmt: skip
    assert all(m["ranked"] for m in made.values())
    again = server.post("/api/daily", {"name": "Ann", "profile_secret": ann["secret"]})
    assert again.status_code == 409 and again.json()["error"]["code"] == "daily_played"
    guest = play_daily(server, name="Guest")
    assert guest["ranked"] is False
    ends = {}
    # Each game starts when its player connects (so no bot gets a head start): Ann and Cy
    # play at once and win, Bob plays slowly and the bot wins; the guest's game is not ranked.
    for name, m in [*made.items(), ("Guest", guest)]:
        c = await Client(name).connect(server.ws, room=m["code"], token=m["token"])
        ends[name] = await slow_loop(c) if name == "Bob" else (await bot_loop(c))[0]
        await c.close()
    del ends["Guest"]
    board = wait_board(server, "/api/daily", 3)["board"]
    # A day is won by winning alone: a tied game is not a win (its series goes on, and the
    # day keeps the first game's result).
    won = {n: ends[n]["outcome"]["winners"] == [0] for n in ends}
    assert {e["name"]: e["won"] for e in board} == won
    assert not won["Bob"] and all(won[n] or ends[n]["outcome"]["tie"] for n in ("Ann", "Cy"))
    # Wins first, then shorter times; the clock stands still here, so equal times fall back
    # on the last key, the profile's id.
    ids = {p["name"]: p["id"] for p in (ann, bob, cy)}
    expected = sorted(ends, key=lambda n: (not won[n], ends[n]["figures"]["duration_ms"], ids[n]))
    assert [e["name"] for e in board] == expected
    assert [e["duration_ms"] for e in board] == [
        ends[n]["figures"]["duration_ms"] for n in expected
    ]
    assert all(e["record_url"] is None for e in board)  # a record shows the deal
    assert [e["rank"] for e in board] == [1, 2, 3]
    # The day's winner (Ann or Cy; neither, when both tied the day's deal).
    winner = ann if won["Ann"] or not won["Cy"] else cy
    first = 1 if won[winner["name"]] else 0
    streak = server.get(f"/api/daily?profile={winner['id']}").json()["streak"]
    assert streak == {"current": first, "best": first}
    assert server.get(f"/api/profiles/{bob['id']}").json()["daily_streak"] == {
        "current": 0,
        "best": 0,
    }
    # The next day: the winner plays again (a win makes a streak of two); yesterday's board
    # links records.
    yesterday = server.get("/api/daily").json()["date"]
    clock.now += DAY
    past = server.get(f"/api/daily/{yesterday}").json()
    assert all(e["record_url"] for e in past["board"])
    assert server.get(past["board"][0]["record_url"]).status_code == 200
    m = play_daily(server, name=winner["name"], profile_secret=winner["secret"])
    assert m["ranked"] is True
    c = await Client("W").connect(server.ws, room=m["code"], token=m["token"])
    end = (await bot_loop(c))[0]
    await c.close()
    assert 0 in end["outcome"]["winners"]
    # Won again: one more day in the run; tied (not a win): the run is still yesterday's.
    run = first + 1 if end["outcome"]["winners"] == [0] else first
    wait_board(server, "/api/daily", 1)
    got = server.get(f"/api/profiles/{winner['id']}").json()["daily_streak"]
    assert got == {"current": run, "best": run}
    # Two days on (one missed): the current streak is over, the best stays.
    clock.now += 2 * DAY
    assert server.get(f"/api/daily?profile={winner['id']}").json()["streak"] == {
        "current": 0,
        "best": run,
    }


async def test_a_restart_restores_a_daily_room_with_its_deal(make_server: Any) -> None:
    clock = WallClock()
    first = make_server(**settings(clock))
    ann, bob = new_profile(first, "Ann"), new_profile(first, "Bob")
    played = play_daily(first, name="Ann", profile_secret=ann["secret"])
    c, hand = await first_hand(first, played)
    await c.close()
    # Made, nobody connected: no game dealt yet.
    waiting = play_daily(first, name="Bob", profile_secret=bob["secret"])
    first.stop()
    second = make_server(**settings(clock))
    info = second.get(f"/api/rooms/{waiting['code']}").json()
    assert info["status"] == "waiting" and "deal_seed" not in info["options"]
    c, restored = await first_hand(second, waiting)
    await c.close()
    assert restored == hand
    assert second.get("/api/daily").json()["date"] == played["date"]


async def test_two_servers_on_one_database_agree_on_the_day(make_server: Any) -> None:
    clock = WallClock()
    one, two = make_server(**settings(clock)), make_server(**settings(clock))
    # Both draw the day at once: the date's primary key keeps one draw, which both then use.
    made = await asyncio.gather(
        *(asyncio.to_thread(play_daily, s, name=f"P{i}") for i, s in enumerate((one, two)))
    )
    hands = []
    for s, m in zip((one, two), made, strict=True):
        c, hand = await first_hand(s, m)
        await c.close()
        hands.append(hand)
    assert hands[0] == hands[1]
    # A profile's ranked attempt asked of both at once: one room, one refusal.
    ann = new_profile(one, "Ann")
    body = {"name": "Ann", "profile_secret": ann["secret"]}
    answers = await asyncio.gather(
        *(asyncio.to_thread(s.post, "/api/daily", body) for s in (one, two))
    )
    assert sorted(r.status_code for r in answers) == [201, 409]


async def test_the_last_games_of_a_day_and_its_grace(make_server: Any) -> None:
    clock = WallClock(START + 12 * 3600 - 60)  # 23:59 UTC
    server = make_server(**settings(clock))
    ann, bob, cy = (new_profile(server, n) for n in ("Ann", "Bob", "Cy"))
    # (Seated under another name: the board shows the profile's own.)
    made = {p["name"]: play_daily(server, name=f"{p['name']} at home", profile_secret=p["secret"])
            for p in (ann, bob, cy)}  # fmt: skip
    day = made["Ann"]["date"]
    # Ann's and Cy's games begin before midnight; Bob's room waits.
    ca, _ = await first_hand(server, made["Ann"])
    cc, _ = await first_hand(server, made["Cy"])
    clock.now += 6 * 60  # 00:05: the day is over, its last games may still end
    closing = server.get(f"/api/daily/{day}").json()
    assert closing["over"] is False and closing["seed"] is None and closing["replay"] is None
    again = server.post("/api/daily", {"name": "Di", "date": day})
    assert again.status_code == 409 and again.json()["error"]["code"] == "daily_closing"
    assert 0 in (await bot_loop(ca))[0]["outcome"]["winners"]  # ends in the grace: it counts
    await ca.close()
    wait_board(server, f"/api/daily/{day}", 1)
    clock.now += 6 * 60  # 00:11: past the grace
    await bot_loop(cc)  # Cy's game ends after the grace: not on the board
    await cc.close()
    cb, _ = await first_hand(server, made["Bob"])  # Bob's begins the next day: neither
    await bot_loop(cb)
    await cb.close()
    new_profile(server, "Later")  # committed after every result queued before it
    over = server.get(f"/api/daily/{day}").json()
    assert over["over"] is True and isinstance(over["seed"], int)
    assert [e["name"] for e in over["board"]] == ["Ann"]
    assert server.post("/api/daily", {"name": "Di", "date": day}).status_code == 201


async def test_the_ranked_deal_cannot_be_rehearsed(make_server: Any) -> None:
    """Issue 36's rehearsal: a player plays today's challenge unranked first (as a guest, and
    with a profile no account owns), then takes the ranked attempt. The unranked games are
    another deal (another first hand, other centre cards); the ranked attempt is the ranked
    deal, the same as everyone else's."""
    clock = WallClock()
    server = make_server(**settings(clock))

    async def deal(made: dict[str, Any]) -> tuple[list[str], list[Any]]:
        c = await Client("P").connect(server.ws, room=made["code"], token=made["token"])
        # The first view of the game under way (the reveal's): the first hand, the centre.
        m = await c.wait(lambda m: m.get("view", {}).get("phase") == "playing")
        await c.close()
        return list(m["view"]["hand"]), list(m["view"]["tops"])

    as_guest = play_daily(server, name="Eve")
    fresh = server.post("/api/profiles", {"name": "Eve's browser"}).json()
    no_account = play_daily(server, name="Eve", profile_secret=fresh["secret"])
    assert (as_guest["ranked"], no_account["ranked"]) == (False, False)
    assert no_account["unranked"] == "account_needed"
    eve, other = new_profile(server, "Eve"), new_profile(server, "Other")
    ranked = play_daily(server, name="Eve", profile_secret=eve["secret"])
    theirs = play_daily(server, name="Other", profile_secret=other["secret"])
    assert ranked["ranked"] and theirs["ranked"]
    practice = [await deal(as_guest), await deal(no_account)]
    real = [await deal(ranked), await deal(theirs)]
    assert real[0] == real[1]  # the same ranked deal for everyone
    for hand, centre in practice:
        assert hand != real[0][0] and centre != real[0][1]
    # No unranked game of the day is on its board.
    board = wait_board(server, "/api/daily", 0)["board"]
    assert {e["name"] for e in board} <= {"Eve", "Other"}


async def test_a_guest_result_is_not_ranked(make_server: Any) -> None:
    """A guest (and a profile without an account) plays today's challenge and wins: nothing
    goes on the board; an account's ranked game does."""
    clock = WallClock()
    server = make_server(**settings(clock))
    fresh = server.post("/api/profiles", {"name": "Browser"}).json()
    for made in (
        play_daily(server, name="Guest"),
        play_daily(server, name="Browser", profile_secret=fresh["secret"]),
    ):
        c = await Client("G").connect(server.ws, room=made["code"], token=made["token"])
        await bot_loop(c)
        await c.close()
    ann = new_profile(server, "Ann")
    m = play_daily(server, name="Ann", profile_secret=ann["secret"])
    c = await Client("A").connect(server.ws, room=m["code"], token=m["token"])
    await bot_loop(c)
    await c.close()
    board = wait_board(server, "/api/daily", 1)["board"]
    assert [e["name"] for e in board] == ["Ann"]
    assert server.get(f"/api/profiles/{fresh['id']}").json()["games"] == 0


async def test_a_daily_game_played_faster_than_a_person_is_not_ranked(make_server: Any) -> None:
    """Issue 36's scripted daily player: an account whose plays come faster than a person's
    reaction floor spends its attempt, stays off the board and is flagged for the operator;
    a player slower than the floor is ranked as before."""
    import sqlalchemy as sa

    from blink.server.fairness import fair_play_flags

    clock = WallClock()
    server = make_server(**settings(clock), reaction_floor_ms=100)
    script, person = new_profile(server, "Script"), new_profile(server, "Person")
    for p in (script, person):
        m = play_daily(server, name=p["name"], profile_secret=p["secret"])
        c = await Client(p["name"]).connect(server.ws, room=m["code"], token=m["token"])
        await (bot_loop(c) if p is script else slow_loop(c))
        await c.close()
    board = wait_board(server, "/api/daily", 1)["board"]
    assert [e["name"] for e in board] == ["Person"]
    engine = sa.create_engine(server.settings.database_url)
    try:
        deadline = time.monotonic() + 30
        while True:
            with engine.connect() as conn:
                flagged = [r.profile_id for r in conn.execute(sa.select(fair_play_flags))]
            if flagged:
                break
            assert time.monotonic() < deadline, "the scripted daily player was never flagged"
            await asyncio.sleep(0.05)
    finally:
        engine.dispose()
    assert flagged == [script["id"]]
    again = server.post("/api/daily", {"name": "Script", "profile_secret": script["secret"]})
    assert again.status_code == 409  # the attempt is spent
    assert [e["name"] for e in server.get("/api/daily").json()["board"]] == ["Person"]
