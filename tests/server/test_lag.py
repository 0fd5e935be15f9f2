"""Lag measured by the server (round trip and jitter per seat), and the clients' clock offset,
over real WebSockets behind a loopback proxy that delays each link."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest
from lagkit import DelayProxy, SyncClient
from srvkit import ServerThread
from test_protocol import find_seed

from blink.games.classic.engine import ClassicGame
from blink.model.netclock import ClockOffset
from blink.server.lag import PROBES_KEPT, LagMeter
from blink.server.protocol import Ping


def test_meter_smooths_samples_and_ignores_unknown_probes() -> None:
    m = LagMeter()
    assert m.figures() is None and m.one_way is None
    assert m.answer(5, 1.0) is None  # never sent
    m.probe(5, 10.0)
    assert m.answer(5, 10.1) == pytest.approx(0.1)
    assert m.answer(5, 10.2) is None  # answered once only
    assert m.figures() is not None and m.figures().rtt_ms == 100  # type: ignore[union-attr]
    m.probe(6, 20.0)
    m.answer(6, 20.9)
    assert m.rtt == pytest.approx(0.1 + (0.9 - 0.1) / 8)
    assert m.jitter == pytest.approx(0.8 / 4)
    for n in range(PROBES_KEPT + 1):
        m.probe(100 + n, 30.0)
    assert m.answer(100, 31.0) is None  # forgotten: only the last few count


def test_pong_probes_a_seat_and_counts_its_echo() -> None:
    from blink.server.lag import pong

    meters = [LagMeter(), LagMeter()]
    first = pong(Ping(t=1), 5.0, 77, meters, 1)
    assert first.probe == 77 and first.server_ms == 5000 and first.lag == [None, None]
    second = pong(Ping(t=2, echo=77), 5.04, 78, meters, 1)
    assert second.lag == [None, meters[1].figures()]
    assert meters[1].figures() is not None and meters[1].figures().rtt_ms == 40  # type: ignore[union-attr]
    watcher = pong(Ping(t=3), 6.0, 79, meters, None)
    assert not isinstance(watcher.probe, int)  # spectators are not measured
    lobby = pong(Ping(t=3), 6.0, 80, None, None)
    assert not isinstance(lobby.lag, list)


def test_clock_offset_takes_the_shortest_round_trip() -> None:
    c = ClockOffset()
    assert c.offset is None and c.local(10.0) is None
    c.sample(100.0, 1050.0, 110.0)  # rtt 10: offset 1050 - 105
    c.sample(200.0, 1200.0, 300.0)  # rtt 100, delayed one way: ignored
    assert c.offset == 945.0 and c.rtt == 10.0
    assert c.local(1945.0) == 1000.0


async def test_server_measures_each_seat_behind_its_own_delay(server: ServerThread) -> None:
    fast = await DelayProxy(server.port, 0.01).start()
    slow = await DelayProxy(server.port, 0.075).start()
    try:
        r = server.post("/api/rooms", {"players": 2, "name": "A"})
        code, token_a = r.json()["code"], r.json()["token"]
        token_b = server.post(f"/api/rooms/{code}/join", {"name": "B"}).json()["token"]
        a = await SyncClient("a").connect(fast.ws(), room=code, token=token_a)
        b = await SyncClient("b", skew=-1234.5).connect(slow.ws(), room=code, token=token_b)
        await a.expect("welcome")
        await b.expect("welcome")
        await b.ping(3)
        await a.ping(3)
        assert a.lag is not None and b.lag is not None
        mine, theirs = a.lag
        # A delay is a floor on the round trip; the ceilings are generous (a loaded machine).
        assert 20 <= mine["rtt_ms"] < 20 + 1000 and mine["jitter_ms"] >= 0
        assert 150 <= theirs["rtt_ms"] < 150 + 1000
        assert b.lag[1] == theirs or b.lag[1]["rtt_ms"] >= 150
        # Each client's offset is the server's clock minus its own (its skew undone).
        assert b.clock.offset is not None and a.clock.offset is not None
        assert abs((b.clock.offset - a.clock.offset) - 1234.5 * 1000) < 100
        await a.close()
        await b.close()
    finally:
        await fast.stop()
        await slow.stop()


SYNC_BOUND = 0.025
"""How far from the server's reveal each client's own reveal moment may be (seconds): the
offset estimate is off by at most half a round trip's asymmetry, which on loopback is the
scheduling noise of a loaded machine, far less than this."""


async def test_both_clients_reveal_at_the_announced_time(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(countdown=5.0)
    fast = await DelayProxy(server.port, 0.020).start()
    slow = await DelayProxy(server.port, 0.150).start()
    try:
        r = server.post("/api/rooms", {"players": 2, "name": "A"})
        code, token_a = r.json()["code"], r.json()["token"]
        token_b = server.post(f"/api/rooms/{code}/join", {"name": "B"}).json()["token"]
        a = await SyncClient("a", skew=500.0).connect(fast.ws(), room=code, token=token_a)
        b = await SyncClient("b", skew=-1234.5).connect(slow.ws(), room=code, token=token_b)
        naive: dict[str, float] = {}
        announced: dict[str, int] = {}
        for c, skew in ((a, 500.0), (b, -1234.5)):
            snap = await c.expect("snapshot")
            cd = await c.expect("countdown")
            # Counting ``in_ms`` from the frame's arrival is late by the link's one-way lag.
            naive[c.name] = c.now_ms() / 1000 - skew + cd["in_ms"] / 1000
            assert snap["countdown_at"] == cd["at"]
            announced[c.name] = cd["at"]
        assert announced["a"] == announced["b"]
        reveal = announced["a"] / 1000  # on the server's clock: this process's monotonic one
        await a.ping(4)
        await b.ping(4)
        for c, skew in ((a, 500.0), (b, -1234.5)):
            local = c.clock.local(announced[c.name])
            assert local is not None
            shown = local / 1000 - skew  # when the client shows it, on the true clock
            assert abs(shown - reveal) < SYNC_BOUND, (c.name, shown - reveal)
        assert naive["b"] - reveal >= 0.150  # what the announced time fixes
        # The reveal itself comes when the server's clock reaches the announced time.
        await a.wait(lambda m: m.get("type") == "update" and m["seq"] == 1, timeout=30)
        assert time.monotonic() >= reveal + 0.020 - 0.001  # never early (ms rounding)
        await a.close()
        await b.close()
    finally:
        await fast.stop()
        await slow.stop()


def _both_can_play_the_same_pile(g: ClassicGame) -> bool:
    piles = [{p.pile for p in g.legal_plays(s)} for s in (0, 1)]
    return bool(piles[0] & piles[1])


SAME_PILE_SEED = find_seed(_both_can_play_the_same_pile)


async def _race(make_server: Callable[..., ServerThread], allowance_ms: int) -> tuple[str, str]:
    """Seat 0 behind 20 ms each way, seat 1 behind 150 ms, both measured; seat 1 plays onto a
    pile and seat 0 onto the same pile 50 ms later, so that seat 0's play arrives first, 80 ms
    before seat 1's. The answers to seat 0's and seat 1's plays, as (type, ...)."""
    server = make_server(deal_seed=SAME_PILE_SEED)
    fast = await DelayProxy(server.port, 0.020).start()
    slow = await DelayProxy(server.port, 0.150).start()
    try:
        body = {"players": 2, "name": "A", "lag_allowance_ms": allowance_ms}
        r = server.post("/api/rooms", body)
        assert r.status_code == 201, r.text
        assert r.json()["room"]["options"].get("lag_allowance_ms") == (allowance_ms or None)
        code, token_a = r.json()["code"], r.json()["token"]
        token_b = server.post(f"/api/rooms/{code}/join", {"name": "B"}).json()["token"]
        a = await SyncClient("a").connect(fast.ws(), room=code, token=token_a)
        b = await SyncClient("b").connect(slow.ws(), room=code, token=token_b)
        for c in (a, b):
            await c.wait(lambda m: m.get("type") == "update" and m["seq"] == 1)
        await a.ping(3)
        await b.ping(3)
        pile = sorted({p for _, p in a.legal()} & {p for _, p in b.legal()})[0]
        card_a = next(c for c, p in a.legal() if p == pile)
        card_b = next(c for c, p in b.legal() if p == pile)
        id_b = await b.play(card_b, pile)
        await asyncio.sleep(0.05)  # a floor: sleeping longer only makes seat 0 later
        id_a = await a.play(card_a, pile)
        answer_a = await a.wait(lambda m: m.get("id") == id_a)
        answer_b = await b.wait(lambda m: m.get("id") == id_b)
        first = "a" if answer_a["type"] == "ack" and answer_a["seq"] == 2 else "b"
        if first == "b":
            assert answer_b["type"] == "ack" and answer_b["seq"] == 2
        await a.close()
        await b.close()
        return first, answer_a["type"]
    finally:
        await fast.stop()
        await slow.stop()


async def test_without_the_allowance_the_first_to_arrive_plays_first(
    make_server: Callable[..., ServerThread],
) -> None:
    first, _ = await _race(make_server, 0)
    assert first == "a"


async def test_the_allowance_puts_a_lagging_play_first_within_its_cap(
    make_server: Callable[..., ServerThread],
) -> None:
    # Seat 1's compensation is 150 ms (its one-way lag, under the 250 ms cap), seat 0's about
    # 20 ms: seat 1's play, 80 ms later, counts as made before seat 0's.
    first, _ = await _race(make_server, 250)
    assert first == "b"
