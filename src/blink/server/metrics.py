"""The server's Prometheus metrics (``GET /metrics``), one registry per app.

What is measured, and where (docs/deploy.md lists the names):

- live rooms, live games, open WebSocket connections and players waiting in quick play's
  queue: gauges read from the hub when ``/metrics`` is scraped (:meth:`Metrics.watch`,
  :meth:`Metrics.watch_queue`), so the hot path does nothing for them;
- plays applied: a counter per game kind, counted by the session for each action message of
  a player the room accepts (:meth:`Metrics.applied`: one dict lookup of a child bound once
  per game kind, then ``inc``);
- ack latency: a histogram of the seconds from an action message received by the session to
  its ``ack`` queued for the player (after its commit), measured inside the server;
- commit latency: a histogram of the seconds one group commit of the storage writer takes
  (every job queued meanwhile, in one transaction);
- the storage writer's transactions, writes and statements, and the bus's messages sent to
  and heard from the other nodes by kind: counters kept as plain integers by the writer and
  the bus and read at each scrape (:meth:`Metrics.watch_writer`, :meth:`Metrics.watch_bus`),
  what ``benchmarks/bench_cluster_scale.py`` divides by the plays;
- the checks of the per-address windows shared in Redis that Redis did not answer in time
  (:mod:`blink.server.shared_limits`), each counted in the node's own window instead.

Each app has its own :class:`~prometheus_client.CollectorRegistry`, not the library's global
one: several apps in one process (the tests) each count their own. A metric update costs about
a microsecond (the library's lock and a float add), against about 0.3 ms of CPU per play.

``/metrics`` is answered only to loopback and the networks of ``--metrics-allow``
(:class:`AddressFilter`); anyone else gets 404, as if there were nothing.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Final, Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

__all__ = ["CONTENT_TYPE", "LATENCY_BUCKETS", "AddressFilter", "Metrics"]

CONTENT_TYPE: Final = CONTENT_TYPE_LATEST
"""The media type of the text exposition format."""

LATENCY_BUCKETS: Final = (
    0.0005,
    0.001,
    0.002,
    0.005,
    0.01,
    0.02,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    10.0,
)
"""Histogram buckets (seconds) for the ack and commit latencies: a commit takes a fraction of
a millisecond on SQLite, an ack a few; the top buckets catch a slow disk or database."""


class WriterCounting(Protocol):
    """What the storage writer counts (:class:`blink.server.storage.WriterCounts`), by
    path."""

    @property
    def commits(self) -> Mapping[str, int]: ...
    @property
    def jobs(self) -> Mapping[str, int]: ...
    @property
    def statements(self) -> Mapping[str, int]: ...


class BusCounting(Protocol):
    """What the bus counts (:class:`blink.server.bus.Bus`)."""

    @property
    def sent(self) -> Mapping[str, int]: ...
    @property
    def heard(self) -> Mapping[str, int]: ...
    @property
    def ignored(self) -> int: ...


class LimitsCounting(Protocol):
    """What the cluster's shared windows count
    (:class:`blink.server.shared_limits.SharedWindows`)."""

    @property
    def fallbacks(self) -> int: ...


class _Counted(Collector):
    """Counters kept elsewhere as plain integers, read at each scrape."""

    def __init__(self) -> None:
        self.writer: WriterCounting | None = None
        self.bus: BusCounting | None = None
        self.limits: LimitsCounting | None = None

    def describe(self) -> Iterable[Metric]:
        return []  # read at each scrape only: nothing to check at registration

    def collect(self) -> Iterator[Metric]:
        w = self.writer
        if w is not None:
            for name, what, counts in (
                ("blink_db_commits", "Transactions the storage writer committed", w.commits),
                ("blink_db_writes", "Writes (jobs) the storage writer committed", w.jobs),
                (
                    "blink_db_statements",
                    "Statements the storage writer sent in committed transactions (a write "
                    "is one; a batch with a cluster's fenced writes adds its fence check)",
                    w.statements,
                ),
            ):
                family = CounterMetricFamily(
                    name, f"{what}, by path (sync: a thread; async: the pipeline).", labels=["path"]
                )
                for path, n in sorted(dict(counts).items()):
                    family.add_metric([path], n)
                yield family
        b = self.bus
        if b is not None:
            for name, what, counts in (
                ("blink_bus_sent", "Bus messages sent to the other nodes (Redis)", b.sent),
                ("blink_bus_heard", "Bus messages of the other nodes heard and delivered", b.heard),
            ):
                family = CounterMetricFamily(name, f"{what}, by kind of event.", labels=["kind"])
                for k, n in sorted(dict(counts).items()):
                    family.add_metric([k], n)
                yield family
            yield CounterMetricFamily(
                "blink_bus_ignored",
                "Bus messages read from Redis and not delivered (this node's own, or unsound).",
                value=b.ignored,
            )
        if self.limits is not None:
            yield CounterMetricFamily(
                "blink_limits_fallbacks",
                "Checks of the per-address windows shared in Redis that Redis did not answer in "
                "time: each was counted in this node's own window.",
                value=self.limits.fallbacks,
            )


class Metrics:
    """The metrics of one server app, in their own registry."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.rooms = Gauge("blink_rooms", "Rooms in memory.", registry=r)
        self.games = Gauge("blink_games_live", "Games in progress.", registry=r)
        self.connections = Gauge(
            "blink_websocket_connections", "Open game WebSocket connections.", registry=r
        )
        self.queue_waiting = Gauge(
            "blink_queue_waiting", "Players waiting in quick play's queue.", registry=r
        )
        self.plays = Counter(
            "blink_plays_applied",
            "Action messages of players (a play, a choice, a Go Blink turn) applied, by game kind.",
            ["game"],
            registry=r,
        )
        self.ack_seconds = Histogram(
            "blink_ack_latency_seconds",
            "Seconds from an action message received to its ack queued for the player "
            "(after its commit).",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.commit_seconds = Histogram(
            "blink_commit_latency_seconds",
            "Seconds one group commit of the storage writer takes.",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self._counted = _Counted()
        r.register(self._counted)
        self._by_game: dict[str, Callable[[], None]] = {}
        self.observe_ack: Callable[[float], None] = self.ack_seconds.observe
        """Record one ack latency (seconds): bound once, called per action."""
        self.observe_commit: Callable[[float], None] = self.commit_seconds.observe
        """Record one commit's duration (seconds): called by the storage writer, any thread."""

    def applied(self, game: str) -> None:
        """One action of a player of a ``game`` room applied (its child bound on first use)."""
        inc = self._by_game.get(game)
        if inc is None:
            inc = self._by_game[game] = self.plays.labels(game).inc
        inc()

    def watch(
        self,
        rooms: Callable[[], float],
        games: Callable[[], float],
        connections: Callable[[], float],
    ) -> None:
        """Read the gauges from these functions at each scrape (the hub's counts)."""
        self.rooms.set_function(rooms)
        self.games.set_function(games)
        self.connections.set_function(connections)

    def watch_queue(self, waiting: Callable[[], float]) -> None:
        """Read the quick play queue's gauge from this function at each scrape."""
        self.queue_waiting.set_function(waiting)

    def watch_writer(self, counts: WriterCounting) -> None:
        """Serve the storage writer's counts (``blink_db_*_total``)."""
        self._counted.writer = counts

    def watch_bus(self, bus: BusCounting) -> None:
        """Serve the bus's counts (``blink_bus_*_total``)."""
        self._counted.bus = bus

    def watch_limits(self, limits: LimitsCounting) -> None:
        """Serve the shared windows' fallbacks (``blink_limits_fallbacks_total``)."""
        self._counted.limits = limits

    def render(self) -> bytes:
        """Every metric, in the Prometheus text format (:data:`CONTENT_TYPE`)."""
        return generate_latest(self.registry)


class AddressFilter:
    """Which client addresses may read ``/metrics``: loopback (unless ``loopback`` is false),
    and every address in the networks given (``10.0.0.0/8``, ``192.0.2.7``, ``::1``; ``*``
    for any)."""

    def __init__(self, allowed: Iterable[str] = (), loopback: bool = True) -> None:
        items = [a.strip() for a in allowed if a.strip()]
        self.any = "*" in items
        self.loopback = loopback
        self.networks = [ipaddress.ip_network(a, strict=False) for a in items if a != "*"]

    @staticmethod
    def check(allowed: Iterable[str]) -> str | None:
        """``None`` when every item of ``allowed`` is an address, a network or ``*``; else one
        sentence naming the first that is not."""
        for item in allowed:
            text = item.strip()
            if text in ("*", ""):
                continue
            try:
                ipaddress.ip_network(text, strict=False)
            except ValueError:
                return (
                    f"{text!r} is not an address or a network: write one such as 10.0.0.5 or "
                    "10.0.0.0/8 (or * for any)"
                )
        return None

    def allows(self, host: str | None) -> bool:
        """Whether a client at ``host`` may read the metrics."""
        if self.any:
            return True
        if not host:
            return False
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        mapped = getattr(address, "ipv4_mapped", None)
        if mapped is not None:
            address = mapped
        if self.loopback and address.is_loopback:
            return True
        return any(address in net for net in self.networks)
