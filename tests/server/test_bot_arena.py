"""The bot arena on a real server: a bot account waits in quick play's queue with its token
(``Authorization: Bearer``, or as ``profile_secret``), in a pool of its own: paired with
another bot account, never with a person, and never offered a house bot (on a virtual clock);
a refused token is a code; ``blink bot play --arena``'s wait is taken up again after a drop."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from srvkit import Client, ServerThread
from test_bot_play import BotClient, _bot

from blink.cli import botclient


async def _queued_bot(server: ServerThread, token: str, name: str, **join: Any) -> BotClient:
    c = await BotClient(name).connect_bot(f"ws://127.0.0.1:{server.port}/api/queue", token)
    await c.send({"type": "join", "name": name, **join})
    return c


async def test_bots_wait_in_a_pool_of_their_own(
    make_server: Callable[..., ServerThread],
) -> None:
    now = [1000.0]
    server = make_server(
        clock=lambda: now[0], queue_tick=0.02, queue_bot_after=20.0, queue_widen=0.5
    )
    clank, rivet = _bot(server, "Ada", "Clank"), _bot(server, "Bob", "Rivet")
    person = await Client("Carla").connect(f"ws://127.0.0.1:{server.port}/api/queue")
    await person.send({"type": "join", "name": "Carla"})
    assert (await person.expect("queued"))["pool"] == "people"
    bot = await _queued_bot(server, clank["token"], "Anything")
    queued = await bot.expect("queued")
    assert queued["pool"] == "bots" and queued["bot_after"] is None
    # Far past the wait after which a person is offered a house bot, and past the widest gap:
    # the person and the bot are still not paired, and the bot is offered nothing.
    now[0] += 300.0
    await person.expect("bot_offer")
    await bot.wait(lambda m: m["type"] == "queue" and m["waited"] >= 300.0)
    await person.wait(lambda m: m["type"] == "queue" and m["waited"] >= 300.0)
    assert not [m for m in bot.msgs if m["type"] == "bot_offer"]
    # A second bot account, its token as the join's profile secret: the two bots are paired,
    # each under its own name and seated with its token.
    other = await Client("x").connect(f"ws://127.0.0.1:{server.port}/api/queue")
    await other.send({"type": "join", "name": "Whatever", "profile_secret": rivet["token"]})
    pa, pb = await bot.expect("paired"), await other.expect("paired")
    assert (
        pa["code"] == pb["code"] and pa["opponents"] == ["Rivet"] and pb["opponents"] == ["Clank"]
    )
    assert {pa["token"], pb["token"]} == {clank["token"], rivet["token"]}
    seats = server.get(f"/api/rooms/{pa['code']}").json()["seats"]
    assert sorted(s["name"] for s in seats) == ["Clank", "Rivet"]
    assert all(s["bot_account"] for s in seats)
    assert not [m for m in person.msgs if m["type"] == "paired"]  # the person still waits
    await person.send({"type": "leave"})
    assert await person.closed() == 1000


async def test_a_refused_token_cannot_wait(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(queue_tick=0.05)
    # Refused at the handshake, before any join.
    c = await BotClient("Nope").connect_bot(f"ws://127.0.0.1:{server.port}/api/queue", "bad")
    err = await c.expect("error")
    assert err["code"] == "bad_bot_token"
    assert await c.closed() == 4011


async def _until(pred: Callable[[], bool]) -> None:
    async def poll() -> None:
        while not pred():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), 30)


async def test_a_dropped_wait_is_taken_up_again(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(queue_tick=0.05)
    clank, rivet = _bot(server, "Ada", "Clank"), _bot(server, "Bob", "Rivet")
    links: list[asyncio.StreamWriter] = []

    async def pipe(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while data := await r.read(65536):
                w.write(data)
                await w.drain()
        w.close()

    async def link(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        """A real TCP relay to the server: the first connection through it is cut."""
        ur, uw = await asyncio.open_connection("127.0.0.1", server.port)
        links.append(w)
        await asyncio.gather(pipe(r, uw), pipe(ur, w))

    relay = await asyncio.start_server(link, "127.0.0.1", 0)
    port = relay.sockets[0].getsockname()[1]
    waiting = asyncio.create_task(
        botclient.wait_in_arena(f"http://127.0.0.1:{port}", clank["token"])
    )
    await _until(lambda: len(links) == 1)
    await asyncio.sleep(0.3)  # its join is in (or not yet: it waits again all the same)
    links[0].transport.abort()  # the wait's connection dies
    await _until(lambda: len(links) == 2)  # the client waits again, on a new connection
    other = await _queued_bot(server, rivet["token"], "Rivet")
    paired = await other.expect("paired")
    assert await asyncio.wait_for(waiting, 30) == paired["code"]
    assert paired["opponents"] == ["Clank"]
    relay.close()
