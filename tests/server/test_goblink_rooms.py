"""Go Blink rooms over a real server, real WebSocket clients and a real SQLite file.

Complete games (2 and 4 players, people and bots), a leak scan of every frame, refusal codes,
turn-timer defaults, idempotent ids and recovery after a restart on the same database.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from srvkit import TIMEOUT, Client, ServerThread

from blink.cards import Card, CardError, Color, parse_card
from blink.games.goblink import bots as gobots
from blink.games.goblink.bots import GoBotKind, GreedyBot
from blink.games.goblink.engine import GoAction, GoGame, GoView, matches_in
from blink.games.goblink.record import GoRecord
from blink.server.settings import Settings

pytestmark = pytest.mark.timeout(120)


def go_settings(db_url: str, **overrides: Any) -> Settings:
    """Short delays; the turn timer long unless a test wants it short."""
    base: dict[str, Any] = {
        "database_url": db_url,
        "countdown": 0.05,
        "stall_pause": 0.05,
        "between_games": 0.05,
        "deal_seed": 4000,
        "web_dir": None,
        "hello_timeout": 30.0,
        "message_rate": "4000 per 2 seconds",
        "turn_time": 60.0,
        "bot_delay": 0.0,
    }
    base.update(overrides)
    return Settings(**base)


@pytest.fixture
def db(tmp_path: Path) -> str:
    """A fresh SQLite file."""
    return f"sqlite:///{tmp_path / 'go.db'}"


@pytest.fixture
def servers() -> Iterator[list[ServerThread]]:
    """Servers started by a test, stopped at its end."""
    started: list[ServerThread] = []
    yield started
    for s in started:
        s.stop()


def start(servers: list[ServerThread], db: str, **overrides: Any) -> ServerThread:
    """Start a server on ``db``."""
    s = ServerThread(go_settings(db, **overrides))
    s.start()
    servers.append(s)
    return s


async def seat(
    server: ServerThread, seats: list[str | None], spectators: int = 0
) -> tuple[str, list[Client], list[str]]:
    """A Go Blink room with these seats (None: a person); connect every person (and watchers)."""
    r = server.post(
        "/api/rooms", {"game": "goblink", "players": len(seats), "seats": seats, "name": "Ann"}
    )
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["room"]["game"] == "goblink"
    code = body["code"]
    tokens = [body["token"]]
    people = [i for i, s in enumerate(seats) if s is None]
    for i in people[1:]:
        j = server.post(f"/api/rooms/{code}/join", {"name": f"P{i}"})
        assert j.status_code == 200, j.text
        tokens.append(j.json()["token"])
    clients = [
        await Client(f"S{i}").connect(server.ws, room=code, spectate=True)
        for i in range(spectators)
    ]
    seated = [
        await Client(f"P{i}").connect(server.ws, room=code, token=t) for i, t in enumerate(tokens)
    ]
    return code, seated + clients, tokens


def choose_action(v: dict[str, Any], seat: int, turn: int) -> dict[str, Any]:
    """A simple legal client strategy from a wire view."""
    hand = [parse_card(c) for c in v["hand"]]
    if v["phase"] == "asking":
        opponents = [p for p in range(v["players"]) if p != seat]
        target = opponents[turn % len(opponents)]
        c = hand[turn % len(hand)]
        attr = ("color", "shape", "count")[turn % 3]
        value: Any = {"color": c.color.label, "shape": c.shape.label, "count": c.count}[attr]
        return {"type": "ask", "target": target, "attribute": attr, "value": value}
    for m in matches_in(hand):
        if v["phase"] == "opening" and len(m) >= len(hand):
            continue
        return {"type": "lay", "cards": [str(c) for c in m]}
    return {"type": "end"}


async def play_loop(c: Client) -> dict[str, Any]:
    """Play the client's seat until the game ends; return the game_end message."""
    outstanding: str | None = None
    i = 0
    turn = 0
    need_seq = 0
    while True:
        while i < len(c.msgs):
            m = c.msgs[i]
            i += 1
            if m["type"] == "game_end":
                return m
            if m["type"] in ("ack", "refused") and m.get("id") == outstanding:
                assert m["type"] == "ack", m
                outstanding = None
                need_seq = m["seq"]
        v = c.view
        started = c.countdown_ms is None
        if (
            outstanding is None
            and started
            and v is not None
            and v["current"] == c.seat
            and (c.seq >= need_seq)
        ):
            turn += 1
            act = choose_action(v, c.seat or 0, turn + (c.seat or 0))
            outstanding = c.next_id()
            await c.send({**act, "id": outstanding})
        if c.reader is not None and c.reader.done():
            raise ConnectionError(f"{c.name} closed during the game")
        c.changed.clear()
        if i < len(c.msgs):
            continue
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(c.changed.wait(), 1.0)


def _cards_in(obj: Any) -> set[Card]:
    out: set[Card] = set()
    if isinstance(obj, str):
        if 2 <= len(obj) <= 4:
            with contextlib.suppress(CardError, ValueError):
                out.add(parse_card(obj))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if k not in ("name", "bot", "type", "attribute", "value", "reason", "code"):
                out |= _cards_in(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= _cards_in(v)
    return out


def known_cards(record: GoRecord) -> list[set[Card]]:
    """For each seat: every card that was ever in its hand or on the discard pile."""
    game = GoGame(record.deck, record.players, record.dealer)
    known: list[set[Card]] = [set(game.hand(p)) for p in range(record.players)]
    for action, t in record.actions:
        game.apply(action, t)
        laid = {c for _p, m in game.discard() for c in m}
        for p in range(record.players):
            known[p] |= set(game.hand(p)) | laid
    return known


def assert_no_leaks(clients: list[Client], record: GoRecord) -> None:
    """Every frame a client got up to the game's end holds only cards its seat held or saw
    laid down (a tied game does not end its series: the next game's deal may follow)."""
    known = known_cards(record)
    game = GoGame.replay(record.deck, record.players, record.dealer, record.actions)
    public = {c for _p, m in game.discard() for c in m}
    draw_pile = set(game.draw_pile())
    for c in clients:
        allowed = public if c.seat is None else known[c.seat]
        for frame in c.frames:
            msg = json.loads(frame)
            seen = _cards_in(msg)
            leaked = seen - allowed
            assert not leaked, f"{c.name} saw {sorted(map(str, leaked))} in {frame[:300]}"
            assert not (seen & draw_pile), f"{c.name} saw a draw-pile card"
            if msg.get("type") == "game_end":
                break


async def finish(server: ServerThread, clients: list[Client], end: dict[str, Any]) -> GoRecord:
    """The finished game's record, checked against the end message."""
    r = server.get(end["record_url"])
    assert r.status_code == 200, r.text
    rec = GoRecord.from_dict(r.json())
    game = rec.verify()
    assert game.over
    assert list(game.outcome.winners) == end["outcome"]["winners"]  # type: ignore[union-attr]
    for c in clients:
        await c.close()
    return rec


async def test_two_people_play_a_whole_game(db: str, servers: list[ServerThread]) -> None:
    server = start(servers, db)
    _code, clients, _ = await seat(server, [None, None], spectators=1)
    players = clients[:2]
    for c in clients:
        # The game counts down first (no turn yet), then starts with a new snapshot.
        first = await c.expect("snapshot")
        assert first["turn"] is None and 0 < first["countdown_ms"] <= 50
        # Built a moment after the snapshot: never later than it said (a busy machine may
        # take a millisecond or more between the two).
        assert 0 <= (await c.expect("countdown"))["in_ms"] <= first["countdown_ms"]
        snap = await c.expect("snapshot", countdown_ms=None)
        assert snap["game_kind"] == "goblink" and snap["game"] == first["game"]
        assert snap["turn"]["seat"] == snap["view"]["current"]
    ends = await asyncio.gather(*(play_loop(c) for c in players))
    watcher_end = await clients[2].expect("game_end")
    assert ends[0]["outcome"] == ends[1]["outcome"] == watcher_end["outcome"]
    rec = await finish(server, clients, ends[0])
    assert rec.players == 2
    assert_no_leaks(clients, rec)
    # The scan is not vacuous: it finds the cards of frames, and flags an opponent's card.
    assert set().union(*(_cards_in(json.loads(f)) for f in players[0].frames))
    other_hand = GoGame(rec.deck, 2, rec.dealer).hand(1)
    spy = Client("spy")
    spy.seat = 0
    spy.frames = [json.dumps({"type": "update", "view": {"hand": [str(other_hand[0])]}})]
    with pytest.raises(AssertionError):
        assert_no_leaks([spy], GoRecord(rec.deck, 2, rec.dealer, []))


async def test_four_seats_with_three_bots_and_a_watcher(
    db: str, servers: list[ServerThread]
) -> None:
    server = start(servers, db)
    _code, clients, _ = await seat(server, [None, "random", "greedy", "memory"], spectators=1)
    me, watcher = clients
    end = await play_loop(me)
    assert (await watcher.expect("game_end"))["outcome"] == end["outcome"]
    rec = await finish(server, clients, end)
    assert rec.players == 4
    assert_no_leaks(clients, rec)
    # Every seat acted; the bots by themselves.
    seats_acting = {a.player for a, _t in rec.actions}
    assert seats_acting == {0, 1, 2, 3}


async def test_six_bots_and_quick_game(db: str, servers: list[ServerThread]) -> None:
    server = start(servers, db)
    opts = server.get("/api/options").json()
    assert "goblink" in opts["games"] and "memory" in opts["goblink_bots"]
    r = server.post("/api/quick", {"game": "goblink", "players": 3, "bot": "memory"})
    assert r.status_code == 201, r.text
    body = r.json()
    assert [s["kind"] for s in body["room"]["seats"]] == ["human", "bot", "bot"]
    me = await Client("me").connect(server.ws, room=body["code"], token=body["token"])
    end = await play_loop(me)
    rec = await finish(server, [me], end)
    assert_no_leaks([me], rec)
    series = server.get(f"/api/rooms/{body['code']}/record").json()
    assert len(series["games"]) == 1 and series["games"][0]["game"] == "goblink"
    assert [s["name"] for s in body["room"]["seats"]][1:] == [
        "Remembering bot 2",
        "Remembering bot 3",
    ]
    # Bad options are refused with codes.
    bad = server.post("/api/rooms", {"game": "goblink", "players": 7})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_options"
    bad = server.post("/api/rooms", {"game": "goblink", "players": 2, "seats": [None, "genius"]})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_bot"
    bad = server.post("/api/rooms", {"players": 4})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_options"


async def test_refusals_carry_the_engine_reason(db: str, servers: list[ServerThread]) -> None:
    server = start(servers, db)
    _code, clients, _ = await seat(server, [None, None], spectators=1)
    a, b, watcher = clients
    for c in clients:
        await c.expect("snapshot", countdown_ms=None)  # after the countdown
    assert a.view is not None
    cur = a.view["current"]
    me, other = (a, b) if cur == a.seat else (b, a)

    async def refused(c: Client, msg: dict[str, Any]) -> str:
        mid = c.next_id()
        await c.send({**msg, "id": mid})
        got = await c.wait(lambda m: m.get("id") == mid and m["type"] in ("ack", "refused"))
        assert got["type"] == "refused", got
        return str(got["code"])

    assert await refused(other, {"type": "end"}) == "out_of_turn"
    assert me.view is not None
    own = me.view["hand"][0]
    c0 = parse_card(own)
    ask = {"type": "ask", "target": other.seat, "attribute": "color", "value": c0.color.label}
    assert await refused(me, ask) == "no_ask_in_opening"
    assert await refused(me, {"type": "lay", "cards": me.view["hand"][:3]}) in (
        "not_a_match",
        "empties_hand_in_opening",
    )
    foreign = next(str(c) for c in GoGame.new(2, seed=1).deck if str(c) not in me.view["hand"])
    assert await refused(me, {"type": "lay", "cards": [foreign]}) == "card_not_in_hand"
    assert await refused(me, {"type": "play", "card": own, "pile": 0}) == "wrong_game"
    assert await refused(me, {**ask, "value": "mauve"}) == "bad_value"
    assert await refused(watcher, {"type": "end"}) == "not_a_player"
    # End both openings; then the first asker is refused for asking itself or an unheld value.
    for _ in range(2):
        assert a.view is not None
        c = a if a.view["current"] == a.seat else b
        mid = c.next_id()
        await c.send({"type": "end", "id": mid})
        await c.wait(lambda m, mid=mid: m.get("id") == mid and m["type"] == "ack")
    await a.wait(lambda m: m["type"] == "update" and m["view"]["phase"] == "asking")
    assert a.view is not None
    c = a if a.view["current"] == a.seat else b
    o = b if c is a else a
    assert c.view is not None
    held = {parse_card(x).color for x in c.view["hand"]}
    missing = next(col for col in Color if col not in held)
    self_ask = {"type": "ask", "target": c.seat, "attribute": "count", "value": 1}
    assert await refused(c, self_ask) == "ask_yourself"
    not_held = {"type": "ask", "target": o.seat, "attribute": "color", "value": missing.label}
    assert await refused(c, not_held) == "attribute_not_held"
    assert await refused(c, {"type": "end"}) == "ask_first"
    # A repeated id gets the same answer, and the game is unchanged by all of this.
    mid = c.next_id()
    first = {"type": "ask", "target": o.seat, "attribute": "count", "value": 9, "id": mid}
    await c.send(first)
    r1 = await c.wait(lambda m: m.get("id") == mid)
    await c.send(first)
    r2 = await c.wait(lambda m: m.get("id") == mid)
    assert r1 == r2 and r1["code"] == "bad_value"
    assert c.view["phase"] == "asking"
    for x in clients:
        await x.close()


async def test_idle_players_get_default_actions_until_the_end(
    db: str, servers: list[ServerThread]
) -> None:
    server = start(servers, db, turn_time=0.02)
    _code, clients, _ = await seat(server, [None, None])
    ends = [await c.expect("game_end", timeout=TIMEOUT * 2) for c in clients]
    assert ends[0]["outcome"] == ends[1]["outcome"]
    rec = await finish(server, clients, ends[0])
    # Nobody sent anything: every action was the engine's default (ask or end).
    assert {a.__class__.__name__ for a, _t in rec.actions} <= {"Ask", "EndTurn"}
    assert_no_leaks(clients, rec)


async def test_restart_recovers_the_game(db: str, servers: list[ServerThread]) -> None:
    server = start(servers, db)
    code, clients, tokens = await seat(server, [None, None, "greedy"])
    a, b = clients
    for c in clients:
        await c.expect("snapshot", countdown_ms=None)  # after the countdown
    # Play a few turns by hand.
    for _ in range(6):
        assert a.view is not None
        if a.view["current"] not in (a.seat, b.seat):
            await a.wait(lambda m: m["type"] == "update" and m["view"]["current"] != 2)
            continue
        c = a if a.view["current"] == a.seat else b
        act = choose_action(c.view or {}, c.seat or 0, c.seq)
        mid = c.next_id()
        await c.send({**act, "id": mid})
        got = await c.wait(lambda m, mid=mid: m.get("id") == mid)
        assert got["type"] == "ack", got
        while c.seq < got["seq"]:
            await asyncio.sleep(0.01)
    await asyncio.sleep(0.2)
    before_hand = list(a.view["hand"]) if a.view else []
    before_seq = a.seq
    game_id = a.game
    for c in clients:
        await c.close()
    server.stop()
    servers.remove(server)
    server2 = start(servers, db)
    info = server2.get(f"/api/rooms/{code}").json()
    assert info["game"] == "goblink" and info["status"] == "playing"
    a2 = await Client("A2").connect(server2.ws, room=code, token=tokens[0])
    b2 = await Client("B2").connect(server2.ws, room=code, token=tokens[1])
    snap = await a2.expect("snapshot")
    assert snap["game"] == game_id
    assert snap["seq"] >= before_seq
    if snap["seq"] == before_seq:
        assert snap["view"]["hand"] == before_hand
    await b2.expect("snapshot")
    ends = await asyncio.gather(play_loop(a2), play_loop(b2))
    rec = await finish(server2, [a2, b2], ends[0])
    assert_no_leaks([a2, b2], rec)


async def test_reconnect_resumes_with_the_missed_updates(
    db: str, servers: list[ServerThread]
) -> None:
    server = start(servers, db)
    code, clients, tokens = await seat(server, [None, None])
    a, b = clients
    for c in clients:
        await c.expect("snapshot", countdown_ms=None)  # after the countdown
    assert a.view is not None
    first = a if a.view["current"] == a.seat else b
    other = b if first is a else a
    game, seen = other.game, other.seq
    await other.close()
    # Two decisions while the other player is away.
    mid = first.next_id()
    await first.send({"type": "end", "id": mid})
    await first.expect("ack", id=mid)
    await asyncio.sleep(0.1)
    back = await Client("back").connect(
        server.ws, room=code, token=tokens[clients.index(other)], game=game, last_seq=seen
    )
    upd = await back.expect("update")
    assert upd["seq"] == seen + 1
    assert not any(m["type"] == "snapshot" for m in back.msgs)
    # The missed update is the other player's opening ending: now it is the returner's turn.
    assert upd["view"]["current"] == other.seat
    assert upd["turn"]["seat"] == other.seat
    await back.close()
    await first.close()


_cards = st.sampled_from([str(c) for c in GoGame.new(2, seed=0).deck] + ["9ZZ", "", "4YS"])
_values = st.one_of(
    st.sampled_from(["red", "star", "mauve", "", "5"]), st.integers(-2, 8), st.none(), st.booleans()
)
_messages = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.just("ask"),
            "target": st.one_of(st.integers(-1, 4), st.text(max_size=2), st.none()),
            "attribute": st.sampled_from(["color", "shape", "count", "size", 3]),
            "value": _values,
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("lay"),
            "cards": st.one_of(st.lists(_cards, max_size=5), st.text(max_size=3), st.none()),
        }
    ),
    st.fixed_dictionaries({"type": st.sampled_from(["end", "play", "choose"])}),
)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(msgs=st.lists(_messages, min_size=1, max_size=12))
def test_any_action_message_gets_one_answer_and_refusals_change_nothing(
    db: str, servers: list[ServerThread], msgs: list[dict[str, Any]]
) -> None:
    if not servers:
        start(servers, db)
    server = servers[0]

    async def scenario() -> None:
        # Two people; only seat 1 (the first to act) sends anything, so nothing else changes
        # the game.
        _code, clients, _ = await seat(server, [None, None])
        other, me = clients
        await me.expect("snapshot", countdown_ms=None)  # after the countdown
        for msg in msgs:
            seq_before = me.seq
            mid = me.next_id()
            await me.send({**msg, "id": mid})
            got = await me.wait(lambda m, mid=mid: m.get("id") == mid, timeout=10)
            assert got["type"] in ("ack", "refused"), got
            if got["type"] == "refused":
                assert isinstance(got["code"], str) and got["message"]
                await asyncio.sleep(0.01)
                assert me.seq == seq_before, "a refused action changed the game"
            else:
                while me.seq < got["seq"]:
                    await asyncio.sleep(0.01)
        assert me.reader is not None and not me.reader.done(), "the server closed"
        await me.close()
        await other.close()

    asyncio.run(scenario())


async def test_a_series_of_bots_rotates_the_dealer(db: str, servers: list[ServerThread]) -> None:
    server = start(servers, db)
    r = server.post(
        "/api/rooms",
        {
            "game": "goblink",
            "players": 3,
            "seats": ["random", "greedy", "memory"],
            "best_of": 3,
            "take_seat": None,
        },
    )
    assert r.status_code == 201, r.text
    code = r.json()["code"]
    watcher = await Client("W").connect(server.ws, room=code, spectate=True)
    deadline = asyncio.get_running_loop().time() + 90
    info: dict[str, Any] = {}
    while asyncio.get_running_loop().time() < deadline:
        info = server.get(f"/api/rooms/{code}").json()
        if info["status"] == "finished":
            break
        await asyncio.sleep(0.2)
    assert info["status"] == "finished", info
    games = info["games"]
    assert len(games) >= 2 and info["series"]["winner"] is not None
    dealers = []
    for g in games:
        rec = GoRecord.from_dict(server.get(g["record_url"]).json())
        rec.verify()
        dealers.append(rec.dealer)
    assert dealers == [i % 3 for i in range(len(games))]
    await watcher.expect("rematch")
    await watcher.close()


async def _room_of_bots(server: ServerThread, seats: list[str]) -> tuple[str, Client]:
    """A room of bots only, and a watcher connected to it."""
    r = server.post(
        "/api/rooms",
        {"game": "goblink", "players": len(seats), "seats": seats, "take_seat": None},
    )
    assert r.status_code == 201, r.text
    code = r.json()["code"]
    return code, await Client("W").connect(server.ws, room=code, spectate=True)


async def test_a_master_bot_plays_a_whole_game(db: str, servers: list[ServerThread]) -> None:
    server = start(servers, db)
    opts = server.get("/api/options").json()
    assert "master" in opts["goblink_bots"]
    code, watcher = await _room_of_bots(server, ["master", "greedy"])
    info = server.get(f"/api/rooms/{code}").json()
    assert [s["name"] for s in info["seats"]] == ["Master bot 1", "Greedy bot 2"]
    # The master's first decision in a process loads (or, on a cold numba cache, compiles)
    # its search: give it time.
    end = await watcher.expect("game_end", timeout=100)
    rec = await finish(server, [watcher], end)
    assert rec.players == 2 and {a.player for a, _t in rec.actions} == {0, 1}


class HeldBot:
    """A greedy bot whose decisions wait until the test releases them (a slow search)."""

    name = "held"
    description = "a greedy bot that waits for the test"
    rating = 25.0
    deciding = threading.Event()
    release = threading.Event()

    def __init__(self, seat: int, seed: int = 0) -> None:
        self.seat = seat
        self.inner = GreedyBot(seat, seed)

    def act(self, view: GoView) -> GoAction:
        """The greedy bot's action, once released."""
        HeldBot.deciding.set()
        assert HeldBot.release.wait(60), "the test never released the bot"
        return self.inner.act(view)


async def test_the_server_answers_while_a_bot_decides(
    db: str, servers: list[ServerThread], monkeypatch: pytest.MonkeyPatch
) -> None:
    HeldBot.deciding.clear()
    HeldBot.release.clear()
    kind = GoBotKind("held", HeldBot.description, HeldBot.rating, HeldBot, (), "Held")
    monkeypatch.setitem(gobots._BY_NAME, "held", kind)
    server = start(servers, db)
    try:
        code, watcher = await _room_of_bots(server, ["held", "greedy"])
        while not HeldBot.deciding.is_set():
            await asyncio.sleep(0.01)
        # A bot is deciding (and will until released): the server still answers.
        await watcher.send({"type": "ping", "t": 7})
        pong = await watcher.expect("pong")
        assert pong["t"] == 7
        assert server.get(f"/api/rooms/{code}").json()["status"] == "playing"
        other = await Client("X").connect(server.ws, room=code, spectate=True)
        await other.close()
    finally:
        HeldBot.release.set()
    end = await watcher.expect("game_end", timeout=60)
    rec = await finish(server, [watcher], end)
    assert {a.player for a, _t in rec.actions} == {0, 1}
