"""What the tests of a real cluster share: the cluster itself (PostgreSQL, Redis, two ``blink
serve --cluster`` nodes and HAProxy on loopback, :class:`blink.cluster.local.LocalCluster`),
the nodes still running, and waiting for something to happen with a generous limit (never a
sleep sized to the machine's speed)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

from blink.cluster.local import LocalCluster, Node

CHECK_INTERVAL_MS = 100
"""How often HAProxy asks each node's health: a node is down after one failed check and up
after one passed, so a stopped node's rooms move at once."""
UNTIL_LIMIT = 60.0
"""The longest :func:`until` waits, in seconds: far more than anything takes on a loaded
machine, so only something that never happens fails."""


def local_cluster(
    node_args: tuple[str, ...], nodes: int = 2, **options: Any
) -> Iterator[LocalCluster]:
    """A running cluster of ``nodes`` nodes with ``node_args`` (and more of
    :class:`LocalCluster`'s fields, ``options``), health-checked every
    :data:`CHECK_INTERVAL_MS`, stopped (every process) once the generator is closed: the body
    of a test module's ``cluster`` fixture."""
    c = LocalCluster(
        nodes=nodes,
        node_args=node_args,
        check_interval_ms=CHECK_INTERVAL_MS,
        fall=1,
        rise=1,
        **options,
    )
    with c:
        yield c


def live(cluster: LocalCluster) -> list[Node]:
    """The nodes still running."""
    return [n for n in cluster.running if n.proc.poll() is None]


async def until(what: str, cond: Callable[[], bool], limit: float = UNTIL_LIMIT) -> None:
    """Wait for ``cond`` to hold, looking every 20 ms; fail saying ``what`` after ``limit``
    seconds."""
    deadline = time.monotonic() + limit
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        await asyncio.sleep(0.02)
