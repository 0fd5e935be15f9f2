"""The bus: in one process, and across two buses on a real Redis (stopped and started again)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal

import pytest
from rediskit import RedisServer, redis_url

from blink.server.bus import (
    LEADERBOARD,
    LEASES,
    ROOMS,
    TOURNAMENTS,
    Event,
    LeaderboardChanged,
    LocalBus,
    Presence,
    RedisBus,
    Resync,
    Subscription,
    TournamentChanged,
    make_bus,
)
from blink.server.redis_close import within

TIMEOUT = 60.0
__all__ = ["redis_url"]  # the fixture


async def next_event(sub: Subscription, kind: type[Event]) -> Event:
    """The next event of ``kind`` (others are skipped), within the timeout."""

    async def wait() -> Event:
        while True:
            e = await sub.get()
            if isinstance(e, kind):
                return e

    return await asyncio.wait_for(wait(), TIMEOUT)


async def test_local_bus_delivers_in_order_to_each_subscriber_of_the_topic() -> None:
    bus = LocalBus()
    with bus.subscribe(TOURNAMENTS) as a, bus.subscribe(TOURNAMENTS) as b:
        other = bus.subscribe(LEADERBOARD)
        bus.publish(TOURNAMENTS, TournamentChanged("t1", 1))
        bus.publish(TOURNAMENTS, TournamentChanged("t1", 2))
        for sub in (a, b):
            assert await sub.get() == TournamentChanged("t1", 1)
            assert await sub.get() == TournamentChanged("t1", 2)
        assert other.pending() == 0
        assert bus.subscribers(TOURNAMENTS) == 2
    assert bus.subscribers(TOURNAMENTS) == 0
    bus.publish(TOURNAMENTS, TournamentChanged("t1", 3))  # nobody listens: nothing kept


async def test_a_subscriber_that_falls_behind_gets_one_resync() -> None:
    bus = LocalBus()
    with bus.subscribe(TOURNAMENTS, limit=8) as slow:
        for v in range(1000):
            bus.publish(TOURNAMENTS, TournamentChanged("t", v))
        assert slow.pending() <= 8
        first = await slow.get()
        assert first == Resync()
        rest = [slow.get_nowait() for _ in range(slow.pending())]
        assert rest and rest[-1] == TournamentChanged("t", 999)
        assert slow.resyncs >= 1


async def test_unknown_topic_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown topic"):
        LocalBus().publish("nope", LeaderboardChanged())
    assert isinstance(make_bus(None), LocalBus)


async def test_two_buses_on_one_redis_deliver_each_others_events(redis_url: str) -> None:
    a, b = RedisBus(redis_url, node="a"), RedisBus(redis_url, node="b")
    await a.start()
    await b.start()
    try:
        with a.subscribe(TOURNAMENTS) as at, b.subscribe(TOURNAMENTS) as bt:
            await _until(lambda: a.connected and b.connected)
            a.publish(TOURNAMENTS, TournamentChanged("x", 7))
            # Delivered here at once, and there through Redis; never twice here.
            assert await next_event(at, TournamentChanged) == TournamentChanged("x", 7)
            assert await next_event(bt, TournamentChanged) == TournamentChanged("x", 7)
            b.publish(TOURNAMENTS, TournamentChanged("y", 1))
            assert await next_event(at, TournamentChanged) == TournamentChanged("y", 1)
            assert await next_event(bt, TournamentChanged) == TournamentChanged("y", 1)
            assert at.pending() == 0 or all(
                not isinstance(at.get_nowait(), TournamentChanged) for _ in range(at.pending())
            )
    finally:
        await a.stop()
        await b.stop()


async def test_redis_stopped_and_started_again(caplog: pytest.LogCaptureFixture) -> None:
    server = RedisServer()
    server.start()
    a = RedisBus(server.url, node="a", backoff_cap=0.2)
    b = RedisBus(server.url, node="b", backoff_cap=0.2)
    await a.start()
    await b.start()
    caplog.set_level(logging.WARNING, logger="blink.server.bus")
    try:
        with a.subscribe(ROOMS) as ar, b.subscribe(LEADERBOARD) as bl:
            await _until(lambda: a.connected and b.connected)
            server.stop()
            await _until(lambda: not a.connected and not b.connected)
            # The node goes on: its own events still reach its own subscribers.
            for _ in range(50):
                b.publish(LEADERBOARD, LeaderboardChanged())
            assert await next_event(bl, LeaderboardChanged) == LeaderboardChanged()
            lost = [r for r in caplog.records if "lost Redis" in r.getMessage()]
            assert len(lost) == 2  # once per bus, however many retries
            server.start()
            await _until(lambda: a.connected and b.connected)
            # Back: each is told to resync, and events flow between them again.
            assert isinstance(await next_event(ar, Resync), Resync)
            while bl.get_nowait() is not None:
                pass
            a.publish(LEADERBOARD, LeaderboardChanged())
            assert await next_event(bl, LeaderboardChanged) == LeaderboardChanged()
            assert len([r for r in caplog.records if "is back" in r.getMessage()]) == 2
    finally:
        await a.stop()
        await b.stop()
        server.close()


async def test_the_redis_bus_counts_what_it_sends_and_hears_by_kind(redis_url: str) -> None:
    """``/metrics`` reads these: each message handed to Redis counts on its sender, by kind;
    the other node counts it heard; the sender's own echo is read and ignored."""
    a, b = RedisBus(redis_url, node="a"), RedisBus(redis_url, node="b")
    await a.start()
    await b.start()
    try:
        with b.subscribe(ROOMS) as bt:
            await _until(lambda: a.connected and b.connected)
            for n in range(3):
                a.publish(ROOMS, Presence("a", n + 1, 0))
            a.publish(LEADERBOARD, LeaderboardChanged())
            for _ in range(3):
                await next_event(bt, Presence)
            await _until(lambda: b.heard.get("leaderboard") == 1 and a.ignored >= 4)
            assert a.sent == {"presence": 3, "leaderboard": 1}
            assert b.heard == {"presence": 3, "leaderboard": 1}
            assert b.sent == {} and a.heard == {}
            assert a.ignored == 4  # its own four, echoed by Redis
    finally:
        await a.stop()
        await b.stop()


async def _until(cond: object) -> None:
    assert callable(cond)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while not cond():
        assert loop.time() < deadline, "condition not met in time"
        await asyncio.sleep(0.01)


async def test_a_frozen_redis_is_found_by_the_ping_and_met_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A Redis that holds its connections open but answers nothing (SIGSTOP: a host that hung,
    a network cut without a reset) is noticed by the reader's ping, not waited on for ever;
    when it answers again the buses are back and events flow between them."""
    server = RedisServer()
    server.start()
    assert server.proc is not None
    pid = server.proc.pid
    a = RedisBus(server.url, node="a", backoff_cap=0.2, ping_after=0.3)
    b = RedisBus(server.url, node="b", backoff_cap=0.2, ping_after=0.3)
    await a.start()
    await b.start()
    caplog.set_level(logging.WARNING, logger="blink.server.bus")
    try:
        with b.subscribe(LEADERBOARD) as bl:
            await _until(lambda: a.connected and b.connected)
            os.kill(pid, signal.SIGSTOP)
            try:
                # Nothing closes the sockets: only the unanswered ping tells.
                await _until(lambda: not a.connected and not b.connected)
                assert any("did not answer a ping" in r.getMessage() for r in caplog.records)
            finally:
                os.kill(pid, signal.SIGCONT)
            await _until(lambda: a.connected and b.connected)
            while bl.get_nowait() is not None:
                pass
            a.publish(LEADERBOARD, LeaderboardChanged())
            assert await next_event(bl, LeaderboardChanged) == LeaderboardChanged()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)  # a stopped process would not take the SIGKILL's end
        await a.stop()
        await b.stop()
        server.close()


async def test_forged_and_malformed_messages_from_redis_are_dropped(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Whoever can publish to Redis can send anything: what is not a sound event (made-up
    counts, a room's summary no room could have, an event on another topic than its kind's,
    a node named for another, not JSON at all) reaches no consumer, and the reader goes on."""
    import redis.asyncio as aioredis

    bus = RedisBus(redis_url, node="a")
    await bus.start()
    raw = aioredis.Redis.from_url(redis_url)
    caplog.set_level(logging.DEBUG, logger="blink.server.bus")
    presence = '{"type":"presence","node":"x","online":%d,"waiting":%d}'
    forged = [
        ("rooms", presence % (1_000_000_008, 0)),  # a million players and more
        ("rooms", presence % (-1, 0)),
        ("rooms", presence % (5, 9)),  # more waiting than online
        ("leases", presence % (5, 0)),  # not the topic of its kind
        ("leases", '{"type":"wanted","node":"x","code":"%41BCDEF"}'),  # not a code
        ("leases", '{"type":"wanted","node":"y","code":"ABCDEF"}'),  # another node's name
        (
            "rooms",
            '{"type":"rooms","node":"x","rooms":[{"type":"room","code":"AB","node":'
            '"x","created_at":1e300,"room":null}]}',
        ),  # a time after the year 5138
        ("rooms", "not json"),
        ("rooms", '{"type":"nonsense"}'),
        ("tournaments", '{"type":"tournament","id":"' + "t" * 500 + '","version":1}'),
    ]
    try:
        with bus.subscribe(ROOMS) as rooms, bus.subscribe(LEASES) as leases:
            await _until(lambda: bus.connected)
            for topic, event in forged:
                await raw.publish(f"blink:{topic}", '{"node":"x","event":' + event + "}")
            await raw.publish("blink:rooms", '{"node":"x","event":' + presence % (7, 2) + "}")
            # In order: once the sound event is here, every forged one was read before it.
            assert await next_event(rooms, Presence) == Presence("x", 7, 2)
            assert rooms.pending() == 0 and leases.pending() == 0
            assert bus.connected
            dropped = [r for r in caplog.records if r.getMessage().startswith("dropped")]
            assert len(dropped) >= len(forged) - 1  # the tournament's topic has no listener here
    finally:
        await raw.aclose()
        await bus.stop()


def test_a_forged_count_is_not_added_to_the_players_online() -> None:
    """A node's count past the bus's bound is dropped as it is read."""
    from blink.server.bus import MAX_ONLINE

    bus = RedisBus("redis://127.0.0.1:1/0", node="me")
    data = '{"node":"n%d","event":{"type":"presence","node":"n%d","online":%d,"waiting":0}}'
    assert bus.check(ROOMS, (data % (1, 1, MAX_ONLINE + 1)).encode()) is None
    assert bus.check(ROOMS, (data % (1, 1, MAX_ONLINE)).encode()) == Presence("n1", MAX_ONLINE, 0)


async def test_a_close_that_ignores_its_cancellation_does_not_hold_a_stop(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """redis-py shields its closes from cancellation, and a close can wait for ever for a
    socket whose other end is gone: the bus gives such a close its time, then goes on."""
    release = asyncio.Event()

    async def stubborn() -> None:
        while not release.is_set():
            with contextlib.suppress(asyncio.CancelledError):
                await release.wait()

    caplog.set_level(logging.WARNING, logger="blink.server.redis_close")
    await asyncio.wait_for(within(stubborn(), "a test's close", wait=0.05), TIMEOUT)
    assert any("did not let a test's close close" in r.getMessage() for r in caplog.records)
    release.set()


async def test_a_bus_stops_while_its_redis_is_frozen() -> None:
    """A bus whose Redis hangs (SIGSTOP) with events waiting to be sent still stops."""
    server = RedisServer()
    server.start()
    assert server.proc is not None
    pid = server.proc.pid
    bus = RedisBus(server.url, node="a", backoff_cap=0.2, ping_after=0.3)
    await bus.start()
    try:
        await _until(lambda: bus.connected)
        os.kill(pid, signal.SIGSTOP)
        for _ in range(3):
            bus.publish(LEADERBOARD, LeaderboardChanged())
        await asyncio.sleep(0.1)
        await asyncio.wait_for(bus.stop(), TIMEOUT)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)
        await bus.stop()
        server.close()
