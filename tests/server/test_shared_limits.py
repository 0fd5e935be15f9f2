"""The per-address windows a cluster's nodes share in a real Redis
(:mod:`blink.server.shared_limits`), as two nodes' limiters in one process see them:

- two nodes allow one window per address in all (room creation, unknown room codes, login
  attempts and failed logins), while another address still has its own;
- the Redis user of a local cluster (``REDIS_RULES``) may keep the windows, and touch no other
  key;
- two servers on one Redis share the unknown room codes of an address, asked by WebSocket on
  one and by REST and WebSocket on the other;
- when Redis stops answering (killed, or frozen with SIGSTOP), every check answers within its
  bound from the node's own window, which remembers what Redis allowed the node; the fallback
  is counted and logged, without the password; once Redis is back, the shared windows count
  again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from rediskit import RedisServer
from srvkit import ServerThread, fast_settings
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from blink.cluster.local import REDIS_RULES, REDIS_USER
from blink.server.accounts.logins import LoginLimiter
from blink.server.creation_limits import ROOMS, CreationLimiter
from blink.server.shared_limits import PREFIX, SharedWindows

pytestmark = pytest.mark.timeout(120)

PASSWORD = "limits-test-password-4b1d"
BOUND = 30.0
"""The longest a check may take here: far past its own bound (``wait``), so only a check that
hangs fails."""


@pytest.fixture
async def server() -> AsyncIterator[RedisServer]:
    """A Redis whose one usable user has the local cluster's rules."""
    s = RedisServer()
    s.start()
    admin = aioredis.Redis(port=s.port)
    await admin.execute_command(
        "ACL", "SETUSER", REDIS_USER, "on", f">{PASSWORD}", *REDIS_RULES.split()
    )
    await admin.aclose()
    try:
        yield s
    finally:
        s.close()


def url_of(s: RedisServer) -> str:
    """The URL of the cluster's user on ``s``."""
    return f"redis://{REDIS_USER}:{PASSWORD}@127.0.0.1:{s.port}/0"


async def test_two_nodes_allow_one_window_per_address(server: RedisServer) -> None:
    a = SharedWindows(url_of(server))
    b = SharedWindows(url_of(server))
    try:
        nodes = [
            CreationLimiter("3/minute", "2/minute", a),
            CreationLimiter("3/minute", "2/minute", b),
        ]
        made = [await nodes[i % 2].count("10.0.0.1", ROOMS) for i in range(6)]
        assert made[:3] == [None] * 3 and all(w is not None and w >= 1 for w in made[3:]), made
        assert await nodes[1].count("10.0.0.2", ROOMS) is None  # another address: its own
        # Unknown room codes: two in all, whichever node was asked.
        assert await nodes[0].check_lookups("10.0.0.1") is None
        await nodes[0].count_miss("10.0.0.1")
        await nodes[1].count_miss("10.0.0.1")
        assert await nodes[0].check_lookups("10.0.0.1") is not None
        assert await nodes[1].check_lookups("10.0.0.1") is not None
        assert await nodes[1].check_lookups("10.0.0.2") is None
        # Logins: attempts per address and failures per account, one window each.
        logins = [LoginLimiter("3/minute", "2/minute", a), LoginLimiter("3/minute", "2/minute", b)]
        tries = [await logins[i % 2].attempt("10.0.0.1") for i in range(4)]
        assert tries[:3] == [None] * 3 and tries[3] is not None
        await logins[0].failed("ann")
        await logins[1].failed("ann")
        assert await logins[0].account_blocked("ann") is not None
        assert await logins[1].account_blocked("bob") is None
        assert a.fallbacks == b.fallbacks == 0
    finally:
        await a.close()
        await b.close()
    user = aioredis.Redis(port=server.port, username=REDIS_USER, password=PASSWORD)
    try:
        keys = [k.decode() async for k in aioredis.Redis(port=server.port).scan_iter()]
        assert keys and all(k.startswith(PREFIX + ":") for k in keys), keys
        # The cluster's user keeps these windows, and touches no other key.
        for command in (("SET", "blink:rooms", "x"), ("GET", "x"), ("DEL", keys[0]), ("KEYS", "*")):
            with pytest.raises(aioredis.ResponseError, match=r"NOPERM|permission"):
                await user.execute_command(*command)
    finally:
        await user.aclose()


async def test_redis_down_falls_back_on_the_nodes_own_window(
    server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    shared = SharedWindows(url_of(server), wait=0.2)
    node = CreationLimiter("3/minute", "2/minute", shared)
    logins = LoginLimiter("3/minute", "2/minute", shared)
    try:
        assert await node.count("10.0.0.1", ROOMS) is None
        assert await node.count("10.0.0.1", ROOMS) is None
        assert await logins.attempt("10.0.0.1") is None
        assert shared.fallbacks == 0
        assert server.proc is not None
        # Frozen: each check waits its bound, then counts in the node's own window, which
        # remembers the two rooms Redis allowed this node.
        os.kill(server.proc.pid, signal.SIGSTOP)
        caplog.set_level(logging.INFO, logger="blink.server")
        try:
            third = await asyncio.wait_for(node.count("10.0.0.1", ROOMS), BOUND)
            fourth = await asyncio.wait_for(node.count("10.0.0.1", ROOMS), BOUND)
            other = await asyncio.wait_for(node.count("10.0.0.2", ROOMS), BOUND)
            login = await asyncio.wait_for(logins.attempt("10.0.0.1"), BOUND)
            looked = await asyncio.wait_for(node.check_lookups("10.0.0.1"), BOUND)
        finally:
            os.kill(server.proc.pid, signal.SIGCONT)
        assert third is None and fourth is not None and other is None
        assert login is None and looked is None
        assert shared.fallbacks == 5
        warned = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warned) == 1 and "did not answer" in warned[0].getMessage()
        assert PASSWORD not in caplog.text and "***" in warned[0].getMessage()
        # Back: the shared windows count again (the checks that timed out may have been
        # counted too, once Redis read them: never fewer than asked).
        again = [await node.count("10.0.0.3", ROOMS) for _ in range(4)]
        assert again[:3] == [None] * 3 and again[3] is not None
        assert await node.count("10.0.0.1", ROOMS) is not None
        assert shared.fallbacks == 5
        assert "answers again" in caplog.text
        # Killed: refused connections fall back at once, still within the bound.
        server.stop()
        assert await asyncio.wait_for(node.count("10.0.0.4", ROOMS), BOUND) is None
        assert await asyncio.wait_for(node.count("10.0.0.1", ROOMS), BOUND) is not None
        assert shared.fallbacks == 7
        assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1
    finally:
        await shared.close()


def test_two_servers_share_the_unknown_codes_of_an_address(
    server: RedisServer, tmp_path: Path
) -> None:
    """Two servers on one Redis: the codes one address missed on the first (WebSocket hellos,
    each answered once the shared window counted it) lock its lookups on the second too."""
    nodes = [
        ServerThread(
            fast_settings(
                f"sqlite:///{tmp_path / f'{i}.db'}", miss_rate="3/hour", redis_url=url_of(server)
            )
        )
        for i in range(2)
    ]
    for n in nodes:
        n.start()
    try:
        for guess in ("AAAAAA", "BBBBBB", "CCCCCC"):
            with connect(nodes[0].ws) as ws:
                ws.send(
                    json.dumps({"type": "hello", "protocol": 1, "room": guess, "spectate": True})
                )
                assert json.loads(ws.recv(timeout=30))["code"] == "no_such_room"
                with pytest.raises(ConnectionClosed) as closed:
                    ws.recv(timeout=30)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 4004
        r = nodes[1].get("/api/rooms/DDDDDD")
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
        with connect(nodes[1].ws) as ws:
            ws.send(
                json.dumps({"type": "hello", "protocol": 1, "room": "EEEEEE", "spectate": True})
            )
            assert json.loads(ws.recv(timeout=30))["code"] == "rate_limited"
        assert "blink_limits_fallbacks_total 0.0" in nodes[1].get("/metrics").text
    finally:
        for n in nodes:
            n.stop()
