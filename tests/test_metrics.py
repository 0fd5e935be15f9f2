"""``/metrics``: a real game over real WebSockets moves the counters and the histograms, each
app counts apart, and only loopback and ``--metrics-allow`` may read it."""

from __future__ import annotations

import asyncio
import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from serve_process import (
    ServeProcess,
    ServerThread,
    bot_loop,
    fast_settings,
    pg_create_db,
    pg_drop_db,
    seat_clients,
)

pytestmark = pytest.mark.timeout(300)


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a scrape: (name, sorted labels) -> value."""
    out: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(text: str, name: str, **labels: str) -> float:
    """One sample of a scrape (0 when absent)."""
    return samples(text).get((name, tuple(sorted(labels.items()))), 0.0)


PG_URL = os.environ.get("BLINK_TEST_DATABASE_URL")


@pytest.fixture(params=["sqlite"] + (["postgres"] if PG_URL else []))
def servers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[list[ServerThread]]:
    """Two servers in this process, each with its own database (and metrics): SQLite files
    (commits on the event loop), or PostgreSQL databases when ``BLINK_TEST_DATABASE_URL`` is
    set (commits on the writer thread)."""
    names: list[str] = []
    if request.param == "sqlite":
        urls = [f"sqlite:///{tmp_path / f's{i}.db'}" for i in (0, 1)]
    else:
        assert PG_URL is not None
        names = ["blink_m_" + secrets.token_hex(6) for _ in (0, 1)]
        urls = [pg_create_db(PG_URL, name) for name in names]
    started = [ServerThread(fast_settings(url)) for url in urls]
    try:
        for s in started:
            s.start()
        yield started
    finally:
        for s in started:
            s.stop()
        for name in names:
            assert PG_URL is not None
            pg_drop_db(PG_URL, name)


async def test_a_game_moves_the_metrics(servers: list[ServerThread]) -> None:
    server, other = servers
    before = server.get("/metrics")
    assert before.status_code == 200
    assert before.headers["content-type"].startswith("text/plain")
    assert value(before.text, "blink_websocket_connections") == 0

    code, (a, b), _ = await seat_clients(server)
    during = server.get("/metrics").text
    assert value(during, "blink_websocket_connections") == 2
    assert value(during, "blink_rooms") >= 1
    ends = await asyncio.gather(bot_loop(a), bot_loop(b))
    assert ends[0] and ends[1]

    acks = sum(1 for c in (a, b) for m in c.msgs if m["type"] == "ack")
    assert acks > 10
    after = server.get("/metrics").text
    assert value(after, "blink_plays_applied_total", game="classic") == acks
    assert value(after, "blink_ack_latency_seconds_count") == acks
    assert value(after, "blink_ack_latency_seconds_sum") > 0
    assert value(after, "blink_ack_latency_seconds_bucket", le="+Inf") == acks
    commits = value(after, "blink_commit_latency_seconds_count")
    assert commits >= 1 and value(after, "blink_commit_latency_seconds_sum") > 0
    # The writer's own counts: every commit timed is a transaction counted (whichever path
    # committed it: PostgreSQL's async pipeline is timed too), each holding writes, and each
    # acknowledged play is one write at least (its action row), and each transaction one
    # statement at least (a batch of plays on PostgreSQL's async writer is one statement).
    paths = ("sync", "async")
    committed = sum(value(after, "blink_db_commits_total", path=p) for p in paths)
    writes = sum(value(after, "blink_db_writes_total", path=p) for p in paths)
    statements = sum(value(after, "blink_db_statements_total", path=p) for p in paths)
    assert committed == commits
    assert writes >= acks and committed <= statements <= writes + committed
    if server.settings.database_url.startswith("postgresql"):
        assert value(after, "blink_db_commits_total", path="async") >= 1
    # A single node's bus hands nothing to other nodes.
    assert value(after, "blink_bus_ignored_total") == 0

    # The other app, in the same process, has counted nothing of it.
    theirs = other.get("/metrics").text
    assert value(theirs, "blink_plays_applied_total", game="classic") == 0
    assert value(theirs, "blink_ack_latency_seconds_count") == 0

    await a.close()
    await b.close()
    deadline = time.monotonic() + 30
    while value(server.get("/metrics").text, "blink_websocket_connections") != 0:
        assert time.monotonic() < deadline, "the connections gauge did not come back to 0"
        await asyncio.sleep(0.05)
    assert code


@pytest.fixture
def started() -> Iterator[list[ServeProcess]]:
    procs: list[ServeProcess] = []
    yield procs
    for p in procs:
        p.stop()


def test_only_loopback_and_allowed_addresses_read_it(
    tmp_path: Path, started: list[ServeProcess]
) -> None:
    """Behind a trusted proxy the client's forwarded address is the one checked."""
    proxy = ("--proxy-headers", "--forwarded-allow-ips", "127.0.0.1")
    plain = ServeProcess(tmp_path / "a.db", *proxy)
    allowing = ServeProcess(tmp_path / "b.db", *proxy, "--metrics-allow", "203.0.113.0/24")
    started += [plain, allowing]
    for p in started:
        p.start()
    outside = {"X-Forwarded-For": "203.0.113.9"}
    assert plain.get("/metrics").status_code == 200  # loopback, no proxy
    refused = plain.get("/metrics", **outside)
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "forbidden"
    assert "--metrics-allow" in refused.json()["error"]["message"]
    assert allowing.get("/metrics", **outside).status_code == 200
    elsewhere = {"X-Forwarded-For": "198.51.100.4"}
    assert allowing.get("/metrics", **elsewhere).status_code == 403
    assert "blink_plays_applied" in httpx.get(allowing.http + "/metrics", timeout=30).text
