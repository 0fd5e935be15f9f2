"""A database that stops answering makes a node unhealthy, and the router stops sending it
players: a real cluster of one node (its own PostgreSQL, Redis and HAProxy,
:class:`blink.cluster.local.LocalCluster`) whose PostgreSQL is frozen with SIGSTOP (every
process of the server, then SIGCONT, whatever happens). Nothing is refused while it is frozen
(a commit just waits), so only asking the database tells: ``/api/health`` answers ``503
unhealthy`` saying the database did not answer in time, HAProxy's check marks the node down,
and once the server runs again the node is healthy and routed to again.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cluster_helpers import local_cluster, until

from blink.cluster.local import LocalCluster
from blink.server.settings import Settings

pytestmark = pytest.mark.timeout(300)

NODE_ARGS = ("--log-level", "warning", "--creation-rate", "0")


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    """One node behind HAProxy, on a PostgreSQL of its own (frozen by the test)."""
    yield from local_cluster(NODE_ARGS, nodes=1)


def descendants(pid: int) -> list[int]:
    """``pid`` and every process under it (from /proc), parents first."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            stat = (entry / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        p = todo.pop(0)
        found.append(p)
        todo.extend(children.get(p, []))
    return found


@contextlib.contextmanager
def frozen(pid: int) -> Iterator[None]:
    """Every process of the server ``pid`` stopped (SIGSTOP, the postmaster first, so it
    starts no other), continued (SIGCONT) at the end whatever happened."""
    stopped: list[int] = []
    try:
        for p in descendants(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGSTOP)
                stopped.append(p)
        yield
    finally:
        for p in reversed(stopped):
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGCONT)


def health(url: str) -> httpx.Response:
    """``GET /api/health``, waiting far longer than the node's bound."""
    return httpx.get(f"{url}/api/health", timeout=60)


async def test_health_fails_while_postgresql_is_frozen(cluster: LocalCluster) -> None:
    node = cluster.running[0]
    assert cluster.postgres is not None and cluster.postgres.proc is not None
    assert health(node.http).status_code == 200
    assert health(cluster.url).status_code == 200
    with frozen(cluster.postgres.proc.pid):
        r = health(node.http)
        assert r.status_code == 503, r.text
        body = r.json()
        bound = Settings.health_db_timeout
        assert body["status"] == "unhealthy"
        assert body["reason"] == f"the database did not answer within {bound:g} s"
        # The router's check fails too: the node is marked down, and with no node up HAProxy
        # answers itself.
        await until(
            "the router marks the node down",
            lambda: "application/json" not in health(cluster.url).headers.get("content-type", ""),
        )
        assert health(cluster.url).status_code == 503
    await until("the node is healthy again", lambda: health(node.http).status_code == 200)
    await until("the router routes to it again", lambda: health(cluster.url).status_code == 200)
    assert health(cluster.url).json()["status"] == "ok"
