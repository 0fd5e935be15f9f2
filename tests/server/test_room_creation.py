"""Every path that makes a room counts in one window per client address, on a real server:
``POST /api/rooms``, ``/api/quick``, ``/api/daily``, ``/api/tournaments`` and quick play's
queue; one address hammering the queue makes no more rooms than the window allows while
another address still can; and a waiting room nobody is connected to leaves memory once the
server's (virtual) clock has passed its deadline.

Clients on other addresses connect from other loopback addresses (``127.0.0.x``), which the
server sees as different clients."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import websockets
from srvkit import TIMEOUT, Client, ServerThread

from blink.server.settings import Settings

pytestmark = pytest.mark.timeout(180)


def post(server: ServerThread, path: str, body: dict[str, Any], address: str) -> httpx.Response:
    """A POST from ``address``."""
    transport = httpx.HTTPTransport(local_address=address)
    with httpx.Client(transport=transport, timeout=TIMEOUT) as http:
        return http.post(server.http + path, json=body)


async def queue_client(server: ServerThread, address: str, name: str) -> Client:
    """A queue connection from ``address`` that said ``join`` (nothing read yet)."""
    c = Client(name)
    c.ws = await websockets.connect(
        f"ws://127.0.0.1:{server.port}/api/queue", local_addr=(address, 0), open_timeout=TIMEOUT
    )
    c.reader = asyncio.get_running_loop().create_task(c._read())
    await c.send({"type": "join", "name": name})
    return c


async def outcome(c: Client) -> dict[str, Any]:
    """What became of a join: ``paired`` or ``error`` (the connection is closed after it)."""
    m = await c.wait(lambda m: m["type"] in ("paired", "error"))
    await c.closed()
    return m


def make(server: ServerThread, path: str, address: str) -> tuple[bool, str | None]:
    """Make a room (a tournament) through REST ``path`` from ``address``: whether it was
    made, and the refusal's code."""
    body = {"name": "Ann", "kind": "cards"} if path == "/api/tournaments" else {"name": "Ann"}
    r = post(server, path, body, address)
    if r.status_code == 201:
        return True, None
    assert r.status_code == 429, r.text
    assert int(r.headers["retry-after"]) >= 1
    return False, r.json()["error"]["code"]


async def make_any(server: ServerThread, path: str, address: str) -> tuple[bool, str | None]:
    """:func:`make`, or a join of quick play's queue for ``path`` ``"queue"`` (made: it was
    let wait)."""
    if path != "queue":
        return await asyncio.to_thread(make, server, path, address)
    c = await queue_client(server, address, "Q")
    m = await c.wait(lambda m: m["type"] in ("queued", "error"))
    await c.close()
    return (True, None) if m["type"] == "queued" else (False, m["code"])


PATHS = ["/api/rooms", "/api/quick", "/api/daily", "/api/tournaments", "queue"]


@pytest.mark.parametrize("path", PATHS)
async def test_every_room_path_counts_in_one_window(
    make_server: Callable[..., ServerThread], path: str
) -> None:
    server = make_server(creation_rate="1/hour", queue_tick=0.05)
    # A room made through POST /api/rooms fills the address's window: this path is refused.
    assert await make_any(server, "/api/rooms", "127.0.0.2") == (True, None)
    assert await make_any(server, path, "127.0.0.2") == (False, "rate_limited")
    # And the other way round, from another address: this path fills it.
    assert await make_any(server, path, "127.0.0.3") == (True, None)
    assert await make_any(server, "/api/rooms", "127.0.0.3") == (False, "rate_limited")
    # Profiles are counted apart.
    assert post(server, "/api/profiles", {"name": "Ann"}, "127.0.0.3").status_code == 201


async def test_one_address_hammering_the_queue_makes_no_more_rooms_than_its_window(
    make_server: Callable[..., ServerThread],
) -> None:
    limit = 4
    server = make_server(creation_rate=f"{limit}/hour", queue_tick=0.02, queue_bot_after=None)
    hub = server.app.state.hub  # type: ignore[attr-defined]
    before = len(hub.rooms)
    clients = [await queue_client(server, "127.0.0.4", f"H{i}") for i in range(16)]
    results = await asyncio.gather(*(outcome(c) for c in clients))
    paired = [m for m in results if m["type"] == "paired"]
    refused = [m for m in results if m["type"] == "error"]
    rooms = {m["code"] for m in paired}
    assert 1 <= len(rooms) <= limit and len(hub.rooms) - before == len(rooms)
    assert len(paired) + len(refused) == len(clients)
    assert refused and all(m["code"] == "rate_limited" and m["message"] for m in refused)
    # The same window: the address cannot make a room through REST either.
    assert make(server, "/api/rooms", "127.0.0.4") == (False, "rate_limited")
    # Another address still can, through the queue and through REST.
    others = [await queue_client(server, "127.0.0.5", n) for n in ("Ann", "Bob")]
    pa, pb = await asyncio.gather(*(outcome(c) for c in others))
    assert pa["type"] == pb["type"] == "paired" and pa["code"] == pb["code"]
    assert make(server, "/api/rooms", "127.0.0.5") == (True, None)


class Clock:
    """Monotonic time that the test moves forward."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.offset


async def sweeps(server: ServerThread, n: int = 2) -> None:
    """Wait until ``n`` more sweeps for idle rooms have run."""
    hub = server.app.state.hub  # type: ignore[attr-defined]
    target = hub.sweeps + n
    deadline = time.monotonic() + TIMEOUT
    while hub.sweeps < target:
        assert time.monotonic() < deadline, "the sweeps stopped"
        await asyncio.sleep(0.01)


async def test_a_waiting_room_nobody_is_in_leaves_memory_promptly(
    make_server: Callable[..., ServerThread],
) -> None:
    clock = Clock()
    server = make_server(clock=clock, sweep_interval=0.01)
    hub = server.app.state.hub  # type: ignore[attr-defined]
    idle = Settings().abandon_after
    assert idle <= 300  # minutes, not an hour
    empty = server.post("/api/rooms", {"name": "Ann"}).json()
    made = server.post("/api/rooms", {"name": "Bob"}).json()
    bob = await Client("Bob").connect(server.ws, room=made["code"], token=made["token"])
    await bob.expect("welcome")
    await sweeps(server)  # both seen: the empty one idle from now
    clock.offset += idle - 5
    await sweeps(server)
    assert empty["code"] in hub.rooms and made["code"] in hub.rooms
    clock.offset += 10
    await sweeps(server)
    assert empty["code"] not in hub.rooms  # nobody in it: gone from memory
    assert made["code"] in hub.rooms  # its creator is connected: it stays
    # Asked for again, it comes back from the database as it was.
    info = server.get(f"/api/rooms/{empty['code']}").json()
    assert info["status"] == "waiting" and info["seats"][0]["name"] == "Ann"
    with contextlib.suppress(Exception):
        await bob.close()
