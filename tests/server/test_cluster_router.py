"""What the router and the bus of a real cluster let a client do (PostgreSQL, Redis, two
``blink serve --cluster`` nodes and HAProxy on loopback, as ``blink cluster run`` starts them).

Clients come from several loopback addresses (127.0.0.2, 127.0.0.3, ...: every address of
127.0.0.0/8 is this machine's), so that the nodes, past HAProxy, must tell them apart:

- a client that exhausts a per-address limit through the router locks out nobody else, and a
  client's own ``X-Forwarded-For`` does not make it count as another address, neither through
  the router nor straight to a node's port from the router's own address (the nodes believe
  it only with the router's secret, which no log, metric or command line shows);
- the nodes share each address's windows in Redis: one address gets one window's rooms from
  the whole cluster, though its requests reach both nodes (its REST calls and its joins of
  quick play's queue alike);
- ``/metrics`` is not served through the router (any spelling of its path), only on a node's
  own address;
- a room's path in another form than the router's (``/ws/%41BCDEF``) is refused by the router,
  and a node asks for a room held elsewhere only for a request the router pinned to it;
- the cluster's Redis refuses a client without its password, and what is published on it is
  checked before a player sees it;
- the router caps each address's open connections for the whole cluster (a node sees only
  the router's address, which its own socket cap spares).
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
import redis.asyncio as aioredis
import websockets
from cluster_helpers import local_cluster, until
from srvkit import TIMEOUT

from blink.cluster.local import LocalCluster, Node
from blink.server.bus import Envelope, RoomChanged, RoomWanted
from blink.server.protocol import RoomSummary, SeatInfo

pytestmark = pytest.mark.timeout(600)

NODE_ARGS = (
    *("--countdown", "0.05", "--stall-pause", "0.05", "--between-games", "0.05"),
    *("--creation-rate", "3/minute", "--log-level", "warning"),
    *("--redis-wait", "30"),  # the windows are Redis's however busy the machine
)
"""Three rooms a minute from one address, in the whole cluster (the windows are in Redis)."""
ROUTER_SOCKETS = 8
"""Open connections one address may hold through the router (512 by default)."""


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    """Two nodes behind HAProxy, as ``blink cluster run`` starts them."""
    yield from local_cluster(NODE_ARGS, max_sockets_per_address=ROUTER_SOCKETS)


def client(source: str) -> httpx.Client:
    """An HTTP client whose connections come from ``source`` (a loopback address)."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=TIMEOUT)


def make_room(url: str, source: str) -> str:
    """A public two-seat room made through ``url`` from ``source``; its code."""
    with client(source) as c:
        r = c.post(f"{url}/api/rooms", json={"name": "Host", "public": True})
    assert r.status_code == 201, r.text
    return str(r.json()["code"])


def create(c: httpx.Client, url: str, **headers: str) -> int:
    """``POST /api/rooms`` through ``c``; the status."""
    return c.post(f"{url}/api/rooms", json={"name": "A"}, headers=headers).status_code


def writes_of(node: Node) -> float:
    """The writes ``node`` committed (its own ``/metrics``, on its own address): a new room is
    one (a cluster node keeps no room in memory until someone uses it)."""
    r = httpx.get(node.http + "/metrics", timeout=TIMEOUT)
    lines = r.text.splitlines()
    return sum(float(x.split()[-1]) for x in lines if x.startswith("blink_db_writes_total"))


async def queue_join(url: str, source: str) -> Any:
    """A join of quick play's queue through ``url`` from ``source``: the first frame."""
    async with websockets.connect(
        ws(url) + "/api/queue", local_addr=(source, 0), open_timeout=TIMEOUT
    ) as conn:
        await conn.send(json.dumps({"type": "join", "name": "Q"}))
        return json.loads(await asyncio.wait_for(conn.recv(), TIMEOUT))


async def test_one_address_gets_one_window_from_the_whole_cluster(cluster: LocalCluster) -> None:
    url = cluster.url
    before = [writes_of(n) for n in cluster.running]
    with client("127.0.0.2") as attacker, client("127.0.0.3") as victim:
        tries = [create(attacker, url) for _ in range(10)]
        # Three in all, though HAProxy takes the nodes in turn: both made some.
        assert tries == [201] * 3 + [429] * 7, tries
        after = [writes_of(n) for n in cluster.running]
        assert all(a > b for a, b in zip(after, before, strict=True)), (before, after)
        # Quick play's queue counts in the same window, on either node.
        for _ in range(2):
            first = await queue_join(url, "127.0.0.2")
            assert first["type"] == "error" and first["code"] == "rate_limited", first
        assert [create(victim, url) for _ in range(2)] == [201, 201]
        assert (await queue_join(url, "127.0.0.3"))["type"] == "queued"
    # A client's own X-Forwarded-For names nobody: it counts as the address it came from,
    # even from the router's own address (the nodes trust 127.0.0.1: HAProxy drops the
    # client's header and sends its own).
    with client("127.0.0.1") as forger, client("127.0.0.4") as other:
        forged = [create(forger, url, **{"X-Forwarded-For": "127.0.0.4"}) for _ in range(10)]
        assert forged[-2:] == [429, 429], forged
        assert [create(other, url) for _ in range(2)] == [201, 201]


async def test_only_the_router_names_a_clients_address(cluster: LocalCluster) -> None:
    """A process of the router's machine reaches a node's port from 127.0.0.1, the address the
    nodes trust: without the router's secret (none, or a wrong one) its X-Forwarded-For is
    ignored, on REST and WebSocket alike, and it counts as 127.0.0.1."""
    node = cluster.running[0]
    secret = cluster.proxy_secret
    wrong = ({}, {"X-Blink-Proxy": "x" * len(secret)}, {"X-Blink-Proxy": secret[:-1]})
    with client("127.0.0.1") as local:
        # Each request names a fresh address: believed, each would be that address's first.
        forged = [
            create(local, node.http, **{"X-Forwarded-For": f"127.0.1.{i}"}, **wrong[i % 3])
            for i in range(1, 10)
        ]
        assert forged[-3:] == [429] * 3, forged
        # The router's own requests carry the secret: an address is believed with it.
        proxied = {"X-Forwarded-For": "127.0.1.100", "X-Blink-Proxy": secret}
        assert create(local, node.http, **proxied) == 201
    for headers in wrong:
        async with websockets.connect(
            ws(node.http) + "/api/queue",
            additional_headers={"X-Forwarded-For": "127.0.1.200", **headers},
            local_addr=("127.0.0.1", 0),
            open_timeout=TIMEOUT,
        ) as conn:
            await conn.send(json.dumps({"type": "join", "name": "Q"}))
            first = json.loads(await asyncio.wait_for(conn.recv(), TIMEOUT))
        assert first["type"] == "error" and first["code"] == "rate_limited", first
    # The secret is nowhere to be read but the files of mode 0600 and the nodes' environment.
    assert cluster.folder is not None
    for private in (cluster.secret_file, cluster.folder / "haproxy.cfg"):
        assert private.stat().st_mode & 0o777 == 0o600
        assert secret in private.read_text()
    for n in cluster.running:
        assert secret not in httpx.get(n.http + "/metrics", timeout=TIMEOUT).text
        assert secret not in n.log.read_text(errors="replace")
        assert secret.encode() not in Path(f"/proc/{n.proc.pid}/cmdline").read_bytes()


@pytest.mark.parametrize("path", ["/metrics", "/%6detrics", "//metrics", "/METRICS", "/metrics/"])
def test_metrics_only_on_the_node(cluster: LocalCluster, path: str) -> None:
    with client("127.0.0.5") as c:
        r = c.get(cluster.url + path, follow_redirects=True)
        assert r.status_code in (403, 404), (path, r.status_code, r.text[:200])
        assert "blink_" not in r.text
    # On a node's own address: the metrics; relayed by a proxy to it, never.
    direct = httpx.get(cluster.running[0].http + "/metrics", timeout=TIMEOUT)
    assert direct.status_code == 200 and "blink_" in direct.text
    relayed = httpx.get(
        cluster.running[0].http + "/metrics", headers={"X-Forwarded-For": "127.0.0.1"}
    )
    assert relayed.status_code == 403


def ws(base: str) -> str:
    """The WebSocket URL of an HTTP base URL."""
    return base.replace("http://", "ws://")


async def hello(url: str, code: str, source: str = "127.0.0.1", **headers: str) -> Any:
    """A spectator's hello on WebSocket ``url`` from ``source``; the first frame, decoded."""
    async with websockets.connect(
        url, additional_headers=headers, local_addr=(source, 0), open_timeout=TIMEOUT
    ) as conn:
        await conn.send(
            json.dumps({"type": "hello", "protocol": 1, "room": code, "spectate": True})
        )
        return json.loads(await asyncio.wait_for(conn.recv(), TIMEOUT))


async def test_a_room_path_in_another_form_is_refused_by_the_router(
    cluster: LocalCluster,
) -> None:
    code = make_room(cluster.url, "127.0.0.6")
    odd = "%" + format(ord(code[0]), "02X") + code[1:]
    for path in (f"/ws/{odd}", f"/ws/{code}/x", f"/ws/{code};x", f"/watch/{odd}"):
        # Four times: HAProxy's round robin would reach both nodes.
        for _ in range(4):
            with pytest.raises(websockets.InvalidStatus) as refused:
                await hello(ws(cluster.url) + path, code)
            assert refused.value.response.status_code == 400, path
            assert b"bad_room_path" in refused.value.response.body
    with client("127.0.0.6") as c:
        r = c.get(f"{cluster.url}/api/rooms/{odd}")
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_room_path"
        assert c.get(f"{cluster.url}/api/rooms/{code.lower()}").status_code == 200


def wanted_codes(message: dict[str, Any]) -> str | None:
    """The room of a ``RoomWanted`` read from Redis (``None``: another message)."""
    if message.get("type") != "message":
        return None
    event = msgspec.json.decode(message["data"], type=Envelope).event
    return event.code if isinstance(event, RoomWanted) else None


async def test_a_node_asks_for_a_room_only_when_the_router_pinned_it(
    cluster: LocalCluster,
) -> None:
    home, other = cluster.running[0], cluster.running[1]
    first, second = (make_room(cluster.url, "127.0.0.7") for _ in range(2))
    # Both rooms are held by `home`, each watched there (so neither is let go meanwhile).
    watchers = []
    for code in (first, second):
        conn = await websockets.connect(f"{ws(home.http)}/ws/{code}", open_timeout=TIMEOUT)
        await conn.send(
            json.dumps({"type": "hello", "protocol": 1, "room": code, "spectate": True})
        )
        assert json.loads(await asyncio.wait_for(conn.recv(), TIMEOUT))["type"] == "welcome"
        watchers.append(conn)
    assert cluster.redis is not None
    bus = aioredis.Redis.from_url(cluster.redis.url)
    pubsub = bus.pubsub()
    await pubsub.subscribe("blink:leases")
    try:
        # Not pinned by the router: no header, or the header from an address that is not
        # the router's. The node answers room_elsewhere and asks nobody for the room.
        other_ws = f"{ws(other.http)}/ws/{first}"
        assert (await hello(other_ws, first))["code"] == "room_elsewhere"
        forged = await hello(other_ws, first, "127.0.0.8", **{"X-Blink-Room": first})
        assert forged["code"] == "room_elsewhere"
        # From the router's address without the router's secret: not pinned either.
        for wrong in ({}, {"X-Blink-Proxy": "not-the-routers-secret"}):
            unproven = await hello(other_ws, first, **{"X-Blink-Room": first}, **wrong)
            assert unproven["code"] == "room_elsewhere"
        # Pinned by the router (its header and its secret, from its address): the node asks
        # for the room.
        router = {"X-Blink-Room": second, "X-Blink-Proxy": cluster.proxy_secret}
        pinned = await hello(f"{ws(other.http)}/ws/{second}", second, **router)
        assert pinned["code"] == "room_elsewhere"
        # The node publishes in order: any ask for `first` would come before this one.
        heard: list[str] = []

        async def read() -> None:
            while second not in heard:
                msg = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if msg is not None and (code := wanted_codes(msg)) is not None:
                    heard.append(code)

        await asyncio.wait_for(read(), TIMEOUT)
        assert heard == [second]
    finally:
        await pubsub.aclose()
        await bus.aclose()
        for conn in watchers:
            await conn.close()


def redis_answer(port: int, command: bytes) -> bytes:
    """What the cluster's Redis answers a client that gives no password."""
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
        sock.sendall(command)
        return sock.recv(256)


def test_redis_refuses_a_client_without_the_password(cluster: LocalCluster) -> None:
    assert cluster.redis is not None and cluster.folder is not None
    for command in (b"PING\r\n", b"PUBLISH blink:leases x\r\n", b"AUTH default x\r\n"):
        answer = redis_answer(cluster.redis.port, command)
        assert answer.startswith((b"-NOAUTH", b"-WRONGPASS")), answer
    conf = cluster.folder / "redis" / "redis.conf"
    assert conf.stat().st_mode & 0o777 == 0o600
    assert cluster.redis.password in conf.read_text()
    for node in cluster.running:
        with open(f"/proc/{node.proc.pid}/cmdline", "rb") as f:
            assert cluster.redis.password.encode() not in f.read()
        assert cluster.redis.password not in node.log.read_text(errors="replace")


def _summary(code: str, players: int, spectators: int) -> RoomSummary:
    seats = [SeatInfo(i, "human", None, None, False, False, False) for i in range(players)]
    return RoomSummary(
        code, "classic", players, 1, "classic", "waiting", list(range(players)), seats, spectators
    )


def _listed(node: Node) -> set[str]:
    rooms = httpx.get(f"{node.http}/api/rooms", timeout=TIMEOUT).json()["rooms"]
    return {r["code"] for r in rooms}


async def test_forged_rooms_on_the_bus_reach_no_lobby(cluster: LocalCluster) -> None:
    assert cluster.redis is not None
    bus = aioredis.Redis.from_url(cluster.redis.url)
    forged = [
        RoomChanged("FAKE01", "intruder", 1.0, _summary("FAKE01", 1000, 0)),  # 1,000 seats
        RoomChanged("FAKE02", "intruder", 1.0, _summary("FAKE02", 2, 1_000_000_008)),
        RoomChanged("FAKE03", "intruder", 1.0, _summary("OTHER1", 2, 0)),  # another's summary
        RoomChanged("fake04", "intruder", 1.0, _summary("fake04", 2, 0)),  # not a code
        RoomChanged("FAKE05", "a-node", 1.0, _summary("FAKE05", 2, 0)),  # not its sender
    ]
    sound = RoomChanged("SOUND1", "intruder", 1.0, _summary("SOUND1", 2, 0))
    try:
        for event in [*forged, sound]:
            data = msgspec.json.encode(Envelope("intruder", event))
            await bus.publish("blink:rooms", data)
        await bus.publish("blink:rooms", b"not json")
        # The nodes read in order: once the sound one is listed, the others were dropped.
        for node in cluster.running:
            await until("the sound room is listed", lambda n=node: "SOUND1" in _listed(n), TIMEOUT)
            assert not {e.code for e in forged} & _listed(node)
        assert all(n.proc.poll() is None for n in cluster.running)
    finally:
        gone = RoomChanged("SOUND1", "intruder", 0.0, None)
        await bus.publish("blink:rooms", msgspec.json.encode(Envelope("intruder", gone)))
        await bus.aclose()


async def spectate(url: str, code: str, source: str) -> websockets.ClientConnection:
    """A spectator of room ``code`` through ``url`` from ``source``, welcomed and kept open."""
    conn = await websockets.connect(
        f"{ws(url)}/ws/{code}", local_addr=(source, 0), open_timeout=TIMEOUT
    )
    await conn.send(json.dumps({"type": "hello", "protocol": 1, "room": code, "spectate": True}))
    assert json.loads(await asyncio.wait_for(conn.recv(), TIMEOUT))["type"] == "welcome"
    return conn


def refused_at_once(port: int, source: str) -> bool:
    """Whether a TCP connection to the router from ``source`` is closed before any answer to
    the request it sends. The router resets a refused connection as soon as it accepts it,
    which on loopback can reach the client while its ``connect`` still waits."""
    try:
        sock = socket.create_connection(
            ("127.0.0.1", port), timeout=TIMEOUT, source_address=(source, 0)
        )
    except ConnectionResetError:
        return True
    with sock:
        try:
            sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            return sock.recv(64) == b""
        except (ConnectionResetError, BrokenPipeError):
            return True


async def test_the_router_caps_an_addresss_connections_for_every_node(
    cluster: LocalCluster,
) -> None:
    """A node sees every client as the router's address, which its own socket cap spares:
    the router counts each client address's open connections, whichever node they reach."""
    code = make_room(cluster.url, "127.0.0.11")
    # Spectators' sockets stay open (the router takes the nodes in turn for nothing here: a
    # room's sockets go to its node; the cap is the router's either way).
    held = [await spectate(cluster.url, code, "127.0.0.9") for _ in range(ROUTER_SOCKETS)]
    try:
        assert refused_at_once(cluster.port, "127.0.0.9")
        # Another address is served; the held sockets still are.
        with client("127.0.0.10") as other:
            assert other.get(f"{cluster.url}/api/health").status_code == 200
        await held[0].ping()
        # One closed: room for one more.
        await held.pop().close()
        again = None
        for _ in range(50):  # the router sees the close a moment after the client
            try:
                again = await spectate(cluster.url, code, "127.0.0.9")
                break
            except (OSError, websockets.InvalidHandshake, websockets.ConnectionClosed):
                await asyncio.sleep(0.1)
        assert again is not None
        held.append(again)
    finally:
        for conn in held:
            await conn.close()
