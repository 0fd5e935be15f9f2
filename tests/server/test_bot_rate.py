"""A bot account's messages are counted together across all its WebSocket connections on a
real server (``Settings.bot_message_rate``, on a frozen clock): a bot that spreads its messages
over two connections, each under a connection's own limit, is stopped at the bot's
(``bot_rate_limited``, 1008); another bot's window is its own."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from srvkit import ServerThread
from test_bot_play import BotClient, _bearer, _bot


async def _in_own_room(server: ServerThread, token: str, name: str) -> BotClient:
    """A connection of the bot, seated in a new private room it made (hello sent)."""
    made = httpx.post(
        f"{server.http}/api/rooms",
        json={"players": 2, "public": False},
        headers=_bearer(token),
        timeout=30,
    )
    assert made.status_code == 201, made.text
    code = made.json()["code"]
    c = await BotClient(name).connect_bot(f"{server.ws}/{code}", token, room=code)
    await c.expect("welcome")
    return c


async def _pings(c: BotClient, n: int) -> None:
    for i in range(n):
        await c.send({"type": "ping", "t": i})
    for _ in range(n):
        await c.expect("pong")


async def test_a_bots_connections_share_one_window(
    make_server: Callable[..., ServerThread],
) -> None:
    now = [1000.0]  # frozen: no window ends during the test
    server = make_server(
        clock=lambda: now[0], message_rate="30 per 2 seconds", bot_message_rate="40 per 2 seconds"
    )
    bot, other = _bot(server, "Ada", "Clank"), _bot(server, "Bob", "Rivet")
    a = await _in_own_room(server, bot["token"], "a")
    b = await _in_own_room(server, bot["token"], "b")
    await _pings(a, 19)  # 20 messages on a, with its hello
    await _pings(b, 19)  # 20 on b: 40 for the bot, each connection under its own 30
    await b.send({"type": "ping", "t": 99})
    err = await b.expect("error")
    assert err["code"] == "bot_rate_limited"
    assert await b.closed() == 1008
    # Another bot's connection counts in its own window.
    c = await _in_own_room(server, other["token"], "c")
    await _pings(c, 25)
    assert not [m for m in [*a.msgs, *c.msgs] if m["type"] == "error"]
    for x in (a, c):
        await x.close()
