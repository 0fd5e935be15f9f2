"""Protocol behaviour over real WebSockets: every error code, races, reconnects, stalls."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from srvkit import Client, ServerThread, seat_clients

from blink.cards import STANDARD_DECK, parse_card, shuffled_deck
from blink.games.classic.engine import ClassicGame, Phase
from blink.games.classic.rules import OFFICIAL


def find_seed(pred: Callable[[ClassicGame], bool], sizes: tuple[int, ...] | None = None) -> int:
    """A deal seed whose first server game (id 1) satisfies ``pred`` just after the reveal."""
    for seed in range(100_000):
        g = ClassicGame(shuffled_deck(seed + 1, STANDARD_DECK), 2, OFFICIAL, sizes)
        g.reveal()
        if pred(g):
            return seed
    raise AssertionError("no seed found")


CHOOSING_SEED = find_seed(lambda g: g.phase is Phase.CHOOSING, (4, 4))


def _first_legal_reaches_flip(g: ClassicGame) -> bool:
    """Playing "seat 0's first legal play, else seat 1's" reaches a flip stall."""
    for _ in range(200):
        if g.phase is Phase.STALLED:
            return True
        if g.phase is not Phase.PLAYING:
            return False
        for seat in (0, 1):
            legal = g.legal_plays(seat)
            if legal:
                g.play(seat, legal[0].card, legal[0].pile)
                break
    return False


FLIP_SEED = find_seed(_first_legal_reaches_flip)


async def play_until_stall(a: Client, b: Client) -> None:
    """Both seats make their first legal play in turn (seat 0 first) until a stall."""
    for _ in range(400):
        if a.view and a.view["phase"] in ("stalled", "over"):
            return
        for c in (a, b):
            legal = c.legal()
            if legal:
                mid = await c.play(*legal[0])
                r = await c.wait(lambda m, mid=mid: m.get("id") == mid)
                assert r["type"] == "ack", r
                seq = r["seq"]
                for x in (a, b):
                    await x.wait(lambda m, seq=seq: m["type"] == "update" and m["seq"] >= seq)
                break
        else:
            raise AssertionError("no legal play and no stall")


async def _error(c: Client, frame: dict[str, Any] | str, code: str) -> dict[str, Any]:
    await c.send(frame)
    m = await c.wait(lambda m: m["type"] in ("error", "refused"))
    assert m["code"] == code, m
    return m


async def test_error_codes_outside_games(server: ServerThread) -> None:
    r = server.post("/api/rooms", {"name": "Ann"}).json()
    code, token = r["code"], r["token"]
    c = await Client("c").connect(server.ws)
    await _error(c, "{", "bad_json")
    await _error(c, "[1, 2]", "not_object")
    await _error(c, {"type": "dance"}, "unknown_type")
    await _error(c, {"no": "type"}, "unknown_type")
    await _error(c, {"type": "play", "id": "1", "card": "1RM", "pile": 0}, "hello_required")
    await _error(c, {"type": "hello"}, "bad_field")
    await _error(c, {"type": "hello", "protocol": 1, "room": code}, "bad_field")
    await _error(c, {"type": "hello", "protocol": 1, "room": "NOROOM"}, "no_such_room")
    assert await c.closed() == 4004

    c = await Client("c").connect(server.ws)
    await _error(c, {"type": "hello", "protocol": 99, "room": code}, "unsupported_protocol")
    assert await c.closed() == 4000

    c = await Client("c").connect(server.ws)
    await _error(c, {"type": "hello", "protocol": 1, "room": code, "token": "x" * 30}, "bad_token")
    assert await c.closed() == 4003

    a = await Client("a").connect(server.ws, room=code, token=token)
    w = await a.expect("welcome")
    assert w["seat"] == 0 and w["role"] == "player" and w["protocol"] == 1
    await _error(a, {"type": "hello", "protocol": 1, "room": code, "token": token}, "already_hello")
    m = await _error(a, {"type": "play", "id": "p1", "card": "1RM", "pile": 0}, "no_game")
    assert m["type"] == "refused" and m["id"] == "p1"
    m = await _error(a, {"type": "play", "id": "p2", "card": "9ZZ", "pile": 0}, "bad_card")
    assert m["id"] == "p2"
    await _error(a, {"type": "play", "id": "p3", "card": "1RM", "pile": 7}, "bad_field")
    await _error(a, {"type": "play", "id": "p4", "card": "1RM", "pile": True}, "bad_field")
    await _error(a, {"type": "play", "card": "1RM", "pile": 0}, "bad_field")
    await _error(a, {"type": "choose", "id": "", "card": "1RM"}, "bad_field")
    await _error(a, {"type": "rematch"}, "rematch_unavailable")
    await _error(a, {"type": "ping", "t": "soon"}, "bad_field")
    await a.send({"type": "ping", "t": 12.5})
    pong = await a.expect("pong")
    assert pong["t"] == 12.5 and isinstance(pong["server_ms"], int)

    s = await Client("s").connect(server.ws, room=code, spectate=True)
    assert (await s.expect("welcome"))["role"] == "spectator"
    await _error(s, {"type": "choose", "id": "c1", "card": "1RM"}, "not_a_player")
    await _error(s, {"type": "rematch"}, "not_a_player")
    # Nothing above changed the room.
    info = server.get(f"/api/rooms/{code}").json()
    assert info["status"] == "waiting" and info["games"] == []
    for x in (a, s):
        await x.close()


async def test_not_revealed_during_the_countdown(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(countdown=60.0)
    _code, (a, b), _ = await seat_clients(server)
    cd = await a.expect("countdown")
    assert 0 < cd["in_ms"] <= 60_000 and cd["seq"] == 0
    snap = next(m for m in a.msgs if m["type"] == "snapshot")
    assert snap["view"]["phase"] == "dealt" and snap["view"]["tops"] == [None, None]
    hand = snap["view"]["hand"]
    await _error(a, {"type": "play", "id": "e1", "card": hand[0], "pile": 0}, "not_revealed")
    await a.close()
    await b.close()


async def test_engine_error_codes_while_playing(server: ServerThread) -> None:
    _code, (a, b), _ = await seat_clients(server)
    await a.expect("update", seq=1)
    v = a.view
    assert v is not None and v["phase"] == "playing"
    public = {c for c in v["tops"] if c}
    absent = next(str(c) for c in STANDARD_DECK if str(c) not in v["hand"] and str(c) not in public)
    await _error(a, {"type": "play", "id": "e1", "card": absent, "pile": 0}, "card_not_in_hand")
    await _error(a, {"type": "play", "id": "e2", "card": v["hand"][0], "pile": 2}, "no_such_pile")
    await _error(a, {"type": "choose", "id": "e3", "card": v["hand"][0]}, "no_choice_needed")
    bad = [
        (c, p)
        for p in (0, 1)
        for c in v["hand"]
        if not parse_card(c).matches(parse_card(v["tops"][p]))
    ]
    if bad:
        card, pile = bad[0]
        await _error(
            a, {"type": "play", "id": "e4", "card": card, "pile": pile}, "no_common_attribute"
        )
    assert a.seq == 1  # nothing was applied
    await a.close()
    await b.close()


async def test_pile_out_of_reach_with_three_players(server: ServerThread) -> None:
    _code, clients, _ = await seat_clients(server, players=3)
    a = clients[0]
    await a.expect("update", seq=1)
    assert a.view is not None and a.view["reach"] == [0, 2]
    await _error(
        a, {"type": "play", "id": "r1", "card": a.view["hand"][0], "pile": 1}, "pile_out_of_reach"
    )
    for c in clients:
        await c.close()


async def test_choosing_stall_codes_and_choices(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(deal_seed=CHOOSING_SEED)
    _code, (a, b), _ = await seat_clients(server, handicap="4:4")
    up = await a.expect("update", seq=1)
    assert up["view"]["phase"] == "choosing"
    assert up["stall"]["kind"] == "choose" and up["stall"]["waiting"] == [0, 1]
    assert 0 < up["stall"]["in_ms"] <= 30_000
    va = a.view
    assert va is not None
    await _error(
        a, {"type": "play", "id": "x1", "card": va["hand"][0], "pile": 0}, "choice_awaited"
    )
    mine = va["hand"][1]
    mid = await a.choose(mine)
    ack = await a.expect("ack", id=mid)
    assert ack["seq"] == 2
    await _error(a, {"type": "choose", "id": "x2", "card": va["hand"][0]}, "already_chosen")
    # The other player sees that seat 0 chose, not what.
    ub = await b.expect("update", seq=2)
    assert ub["events"] == [{"type": "chose", "seat": 0, "card": None}]
    assert "default_for" not in ub  # seat 0 chose itself
    assert ub["view"]["chosen"] == [True, False] and ub["stall"]["waiting"] == [1]
    assert a.view is not None and a.view["my_choice"] == mine
    vb = b.view
    assert vb is not None
    await _error(b, {"type": "choose", "id": "y1", "card": va["hand"][0]}, "card_not_in_hand")
    await b.choose(vb["hand"][0])
    placed = await a.expect("update", seq=3)
    kinds = [e["type"] for e in placed["events"]]
    assert kinds[:3] == ["chose", "placed", "placed"]
    assert placed["events"][1]["card"] == mine
    await a.close()
    await b.close()


async def test_default_choice_after_the_deadline(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(deal_seed=CHOOSING_SEED, choice_deadline=0.2)
    _code, (a, b), _ = await seat_clients(server, handicap="4:4")
    up = await a.expect("update", seq=1)
    first_a = up["view"]["hand"][0]
    vb = (await b.expect("update", seq=1))["view"]
    # Nobody answers: the server chooses each player's first hand card.
    u2 = await a.expect("update", seq=2)
    assert u2["events"][0] == {"type": "chose", "seat": 0, "card": first_a}
    u3 = await b.expect("update", seq=3)
    placed = {e["seat"]: e["card"] for e in u3["events"] if e["type"] == "placed"}
    assert placed == {0: first_a, 1: vb["hand"][0]}
    # Each update says whom the table chose for, so everyone can be told what was placed.
    assert (u2["default_for"], u3["default_for"]) == (0, 1)
    seen_by_b = [m.get("default_for") for m in b.msgs if m["type"] == "update"]
    assert seen_by_b == [None, 0, 1]
    await a.close()
    await b.close()


async def test_flip_stall_is_announced_then_flipped(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(deal_seed=FLIP_SEED)
    _code, (a, b), _ = await seat_clients(server)
    await a.expect("update", seq=1)
    await b.expect("update", seq=1)
    await play_until_stall(a, b)
    s = next(m for m in a.msgs if m["type"] == "update" and m["stall"])
    assert s["stall"]["kind"] == "flip" and s["view"]["phase"] == "stalled"
    assert s["events"][-1] == {"type": "stalled", "kind": "flip"}
    # The server flips by itself after the pause.
    flipped = await a.expect("update", seq=s["seq"] + 1)
    assert [e["type"] for e in flipped["events"]][:2] == ["flipped", "flipped"]
    await a.close()
    await b.close()


async def test_flip_awaited(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(stall_pause=60.0, deal_seed=FLIP_SEED)
    _code, (a, b), _ = await seat_clients(server)
    await a.expect("update", seq=1)
    await b.expect("update", seq=1)
    await play_until_stall(a, b)
    assert a.view is not None and a.view["phase"] == "stalled"
    await _error(
        a, {"type": "play", "id": "f1", "card": a.view["hand"][0], "pile": 0}, "flip_awaited"
    )
    await a.close()
    await b.close()


async def test_race_on_one_pile(server: ServerThread) -> None:
    """Two plays on one pile at once, naming no version (as before versions): the second is
    judged against the first one's card, and refused with the engine's reason."""
    _code, (a, b), _ = await seat_clients(server)
    await a.expect("update", seq=1)
    await b.expect("update", seq=1)
    for _ in range(300):
        va, vb = a.view, b.view
        assert va is not None and vb is not None
        if va["phase"] == "over":
            break
        race = None
        for p in (0, 1):
            top = parse_card(va["tops"][p])
            for ca in va["hand"]:
                for cb in vb["hand"]:
                    x, y = parse_card(ca), parse_card(cb)
                    if x.matches(top) and y.matches(top) and not x.matches(y):
                        race = (ca, cb, p)
        if race is not None:
            ca, cb, p = race
            ia, ib = a.next_id(), b.next_id()
            await asyncio.gather(a.play(ca, p, ia), b.play(cb, p, ib))
            ra = await a.wait(lambda m, ia=ia: m.get("id") == ia)
            rb = await b.wait(lambda m, ib=ib: m.get("id") == ib)
            assert sorted([ra["type"], rb["type"]]) == ["ack", "refused"]
            loser = ra if ra["type"] == "refused" else rb
            assert loser["code"] == "no_common_attribute"
            winner_card = ca if ra["type"] == "ack" else cb
            seq = (ra if ra["type"] == "ack" else rb)["seq"]
            await a.wait(lambda m, seq=seq: m["type"] == "update" and m["seq"] == seq)
            assert a.view is not None and a.view["tops"][p] == winner_card
            break
        # No race here: make one legal play and look again.
        for c in (a, b):
            legal = c.legal()
            if legal:
                mid = await c.play(*legal[0])
                await c.wait(lambda m, mid=mid: m.get("id") == mid)
                break
        else:
            await asyncio.sleep(0.02)
    else:
        raise AssertionError("no race position found")
    await a.close()
    await b.close()


def _racing_plays(g: ClassicGame) -> tuple[str, str, int] | None:
    """Cards of seat 0 and seat 1 that both fit pile ``p`` now, where either one shuts the
    other out."""
    for p in (0, 1):
        top = g.top(p)
        for x in g.hand(0):
            for y in g.hand(1):
                if x.matches(top) and y.matches(top) and not x.matches(y):
                    return str(x), str(y), p
    return None


RACE_SEED = find_seed(lambda g: _racing_plays(g) is not None)


async def test_too_slow_when_both_name_the_pile_they_saw(
    make_server: Callable[..., ServerThread],
) -> None:
    """Two plays on one pile at once, each naming the version it saw: the first is accepted,
    the second is refused with the server's too_slow and the top that won."""
    server = make_server(deal_seed=RACE_SEED)
    _code, (a, b), _ = await seat_clients(server)
    await a.expect("update", seq=1)
    await b.expect("update", seq=1)
    assert a.view is not None and b.view is not None
    race = _racing_plays(_revealed(RACE_SEED))
    assert race is not None
    ca, cb, p = race
    assert ca in a.view["hand"] and cb in b.view["hand"]
    seen = a.view["versions"][p]
    assert seen == b.view["versions"][p] == 1  # the revealed card alone
    ia, ib = a.next_id(), b.next_id()
    await asyncio.gather(a.play(ca, p, ia, seen), b.play(cb, p, ib, seen))
    ra = await a.wait(lambda m: m.get("id") == ia)
    rb = await b.wait(lambda m: m.get("id") == ib)
    assert sorted([ra["type"], rb["type"]]) == ["ack", "refused"]
    (won, winner), (lost, _) = sorted([(ra, ca), (rb, cb)], key=lambda x: x[0]["type"])
    assert lost["code"] == "too_slow" and winner in lost["message"]
    assert lost["top"] == {"pile": p, "card": winner, "version": seen + 1}
    update = await a.wait(lambda m: m["type"] == "update" and m["seq"] == won["seq"])
    assert update["view"]["tops"][p] == winner and update["view"]["versions"][p] == seen + 1
    await a.close()
    await b.close()


def _revealed(seed: int) -> ClassicGame:
    """The server's first game (id 1) with deal seed ``seed``, just after the reveal."""
    g = ClassicGame(shuffled_deck(seed + 1, STANDARD_DECK), 2, OFFICIAL)
    g.reveal()
    return g


async def test_reconnect_resume_and_repeated_ids(server: ServerThread) -> None:
    code, (a, b), tokens = await seat_clients(server)
    await a.expect("update", seq=1)
    await b.expect("update", seq=1)
    game = b.game
    # b drops; a plays on.
    last_b = b.seq
    await b.close()
    acked: list[dict[str, Any]] = []
    last_id = None
    for _ in range(200):
        if len(acked) >= 3 or (a.view and a.view["phase"] == "over"):
            break
        legal = a.legal()
        if not legal:
            await asyncio.sleep(0.02)
            continue
        last_id = await a.play(*legal[0])
        r = await a.wait(lambda m, last_id=last_id: m.get("id") == last_id)
        if r["type"] == "ack":
            acked.append(r)
    assert acked, "seat 0 could not play"
    # Back with the token and the last seq seen: exactly the missed updates, no snapshot.
    b2 = Client("P1b")
    b2.game, b2.seq = game, last_b
    await b2.connect(server.ws, room=code, token=tokens[1], game=game, last_seq=last_b)
    await b2.expect("welcome")
    target = a.seq
    await b2.wait(lambda m: m["type"] == "update" and m["seq"] == target)
    updates = [m for m in b2.msgs if m["type"] == "update"]
    assert [m["seq"] for m in updates] == list(range(last_b + 1, target + 1))
    assert not any(m["type"] == "snapshot" for m in b2.msgs)
    # Its view matches a fresh snapshot.
    await b2.send({"type": "resync"})
    snap = await b2.expect("snapshot")
    for k in ("hand", "tops", "hand_counts", "draw_counts", "phase"):
        assert snap["view"][k] == updates[-1]["view"][k]
    # A repeated id gets its first answer and is not applied twice.
    seq_before = a.seq
    card = a.view["hand"][0] if a.view else "1RM"
    await a.send({"type": "play", "id": last_id, "card": card, "pile": 0})
    again = await a.wait(lambda m: m.get("id") == last_id)
    assert again == acked[-1]
    await a.send({"type": "ping"})
    await a.expect("pong")
    assert a.seq == seq_before
    # Another game id (or a seq from the future): a full snapshot.
    b3 = await Client("P1c").connect(server.ws, room=code, token=tokens[1], game=999, last_seq=3)
    snap3 = await b3.expect("snapshot")
    assert snap3["game"] == game and snap3["seq"] == a.seq
    for c in (a, b2, b3):
        await c.close()


async def test_abuse_closes_the_connection(make_server: Callable[..., ServerThread]) -> None:
    # Ten messages an hour: the window cannot move on during the test, however slowly the
    # pings go out.
    server = make_server(message_rate="10/hour")
    r = server.post("/api/rooms", {"name": "Ann"}).json()
    # Oversized message: 1009.
    c = await Client("c").connect(server.ws, room=r["code"], token=r["token"])
    await c.expect("welcome")
    await c.send({"type": "ping", "t": 1, "pad": "x" * 5000})
    err = await c.expect("error")
    assert err["code"] == "too_large"
    assert await c.closed() == 1009
    # A flood: the hello and nine pings fit the window, the next message closes it (1008).
    c = await Client("c").connect(server.ws, room=r["code"], token=r["token"])
    for i in range(40):
        await c.send({"type": "ping", "t": i})
    err = await c.expect("error")
    assert err["code"] == "rate_limited"
    assert await c.closed() == 1008
    assert [m["t"] for m in c.msgs if m["type"] == "pong"] == list(range(9))
    # Each connection has its own window: another one from the same address is served.
    d = await Client("d").connect(server.ws, room=r["code"], token=r["token"])
    await d.send({"type": "ping", "t": 7})
    assert (await d.expect("pong"))["t"] == 7
    await d.close()
    # Too many bad messages: 1008.
    server2 = make_server(max_errors=5)
    c = await Client("c").connect(server2.ws)
    for _ in range(7):
        await c.send("nonsense")
    assert await c.closed() == 1008


class SteppedClock:
    """A clock that stands still until the test moves it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_the_message_window_opens_again(make_server: Callable[..., ServerThread]) -> None:
    # Ten messages in a fixed window of two seconds, on the server's clock, which only the
    # test moves: what is counted does not depend on how fast the messages go out.
    clock = SteppedClock()
    server = make_server(message_rate="10 per 2 seconds", clock=clock)
    r = server.post("/api/rooms", {"name": "Ann"}).json()
    c = await Client("c").connect(server.ws, room=r["code"], token=r["token"])
    for i in range(9):  # with the hello, ten: the window is full
        await c.send({"type": "ping", "t": i})
    await c.wait(lambda m: m.get("type") == "pong" and m["t"] == 8)
    clock.now += 2.0  # the window is over: the next message opens another
    for i in range(10, 20):
        await c.send({"type": "ping", "t": i})
    await c.wait(lambda m: m.get("type") == "pong" and m["t"] == 19)
    clock.now += 1.999  # still that window: full
    await c.send({"type": "ping", "t": 99})
    err = await c.expect("error")
    assert err["code"] == "rate_limited"
    assert await c.closed() == 1008
    assert [m["t"] for m in c.msgs if m["type"] == "pong"] == [*range(9), *range(10, 20)]


async def test_origin_check(server: ServerThread) -> None:
    import websockets

    try:
        await websockets.connect(server.ws, origin="http://evil.example")  # type: ignore[arg-type]
    except websockets.InvalidStatus as exc:
        assert exc.response.status_code == 403
    else:
        raise AssertionError("a foreign origin was accepted")
    ok = await websockets.connect(
        server.ws,
        origin=f"http://127.0.0.1:{server.port}",  # type: ignore[arg-type]
    )
    await ok.close()


async def test_rest_errors(server: ServerThread) -> None:
    def err(r: Any, status: int, code: str) -> None:
        assert r.status_code == status, r.text
        assert r.json()["error"]["code"] == code

    err(server.get("/api/rooms/NOPE42"), 404, "no_such_room")
    err(server.post("/api/rooms", {"players": 4}), 400, "bad_options")
    err(server.post("/api/rooms", {"best_of": 2}), 400, "bad_options")
    err(server.post("/api/rooms", {"ruleset": "nope"}), 400, "bad_options")
    err(server.post("/api/rooms", {"handicap": "70:3"}), 400, "bad_options")
    err(server.post("/api/rooms", {"seats": [None]}), 400, "bad_options")
    err(server.get("/api/games/12345/record"), 404, "no_such_game")
    r = server.post("/api/rooms", {"name": "Ann"}).json()
    code = r["code"]
    err(server.post(f"/api/rooms/{code}/join", {"seat": 0}), 409, "seat_taken")
    err(server.post(f"/api/rooms/{code}/join", {"seat": 5}), 400, "bad_seat")
    assert server.post(f"/api/rooms/{code}/join", {"name": "Bob"}).status_code == 200
    err(server.post(f"/api/rooms/{code}/join", {}), 409, "room_full")
    listed = server.get("/api/rooms").json()["rooms"]
    assert any(x["code"] == code for x in listed)
    assert server.get(f"/api/rooms/{code.lower()}").json()["code"] == code


async def test_no_hello_in_time(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(hello_timeout=0.2)
    c = await Client("c").connect(server.ws)
    err = await c.expect("error")
    assert err["code"] == "hello_required"
    assert await c.closed() == 4008
