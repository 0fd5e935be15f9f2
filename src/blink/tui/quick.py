"""Quick play from the terminal (``blink play --server URL --quick``): wait in the server's
queue (the ``/api/queue`` WebSocket, docs/protocol.md) on a Rich status line, then play the
paired game on the default game's online table (:func:`blink.tui.seats.online_client`).

When the server offers a bot (after its ``--queue-bot-after`` wait), the status line says
so: Enter then starts a game against bots, as ``blink play --server URL`` does; otherwise the
wait goes on. Ctrl+C stops waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from blink.tui.i18n import _
from blink.tui.seats import PROFILE_REFUSALS, OnlineError, Seat, base_url, online_client

__all__ = ["QueueState", "queue_url", "run_quick", "status_line", "wait_in_queue"]


@dataclass(frozen=True)
class QueueState:
    """What the waiting player sees: seconds waited, players online and waiting, and whether
    a bot is offered."""

    waited: float = 0.0
    online: int = 0
    waiting: int = 0
    offered: bool = False


def queue_url(base: str) -> str:
    """The queue's WebSocket on the server at ``base`` (``ws://HOST/api/queue``)."""
    parts = urlsplit(base)
    scheme = "wss" if parts.scheme == "https" else "ws"
    return urlunsplit((scheme, parts.netloc, parts.path.rstrip("/") + "/api/queue", "", ""))


def status_line(state: QueueState) -> str:
    """The status line of a wait."""
    line = _("Waiting for an opponent · {seconds} s · {online} online, {waiting} waiting").format(
        seconds=int(state.waited), online=state.online, waiting=state.waiting
    )
    if state.offered:
        line += " · " + _("nobody yet: press Enter to play a bot instead")
    return line


async def wait_in_queue(
    server: str,
    *,
    name: str = "Player",
    players: int = 2,
    profile_secret: str | None = None,
    on_status: Callable[[QueueState], None] = lambda _s: None,
    accept_bot: asyncio.Event | None = None,
) -> Seat | None:
    """Wait in the queue of ``server`` until paired (the seat to take) or, once a bot was
    offered, until ``accept_bot`` is set (``None``: the queue is left). Raises
    :class:`OnlineError` when the server cannot be reached or refuses."""
    base = base_url(server)
    accept = accept_bot or asyncio.Event()
    try:
        async with connect(queue_url(base), open_timeout=10) as ws:
            join: dict[str, Any] = {"type": "join", "name": name, "players": players}
            if profile_secret:
                join["profile_secret"] = profile_secret
            await ws.send(json.dumps(join))
            state = QueueState()
            accepted: asyncio.Task[Any] = asyncio.get_running_loop().create_task(accept.wait())
            try:
                while True:
                    receiving = asyncio.get_running_loop().create_task(ws.recv())
                    done, _ = await asyncio.wait(
                        {receiving, accepted}, return_when=asyncio.FIRST_COMPLETED
                    )
                    if receiving not in done:
                        receiving.cancel()
                        if state.offered:
                            await ws.send(json.dumps({"type": "leave"}))
                            return None
                        accepted = asyncio.get_running_loop().create_task(_cleared(accept))
                        continue
                    msg = json.loads(receiving.result())
                    kind = msg.get("type")
                    if kind == "paired":
                        return Seat(base, str(msg["code"]), int(msg["seat"]), str(msg["token"]))
                    if kind == "error":
                        raise OnlineError(str(msg.get("message")), str(msg.get("code")))
                    if kind == "queue":
                        state = replace(
                            state,
                            waited=float(msg["waited"]),
                            online=int(msg["online"]),
                            waiting=int(msg["waiting"]),
                        )
                    elif kind == "bot_offer":
                        state = replace(state, offered=True, waited=float(msg["waited"]))
                    on_status(state)
            finally:
                accepted.cancel()
    except (OSError, WebSocketException, ConnectionClosed) as exc:
        host = urlsplit(base).netloc
        raise OnlineError(
            _("cannot wait in the queue at {host} ({error})").format(
                host=host, error=type(exc).__name__
            )
        ) from None


async def _cleared(event: asyncio.Event) -> None:
    """Enter before the offer does nothing: forget it and wait for the next one."""
    event.clear()
    await event.wait()


def run_quick(
    server: str,
    *,
    name: str,
    players: int,
    profile_secret: str | None,
    bot_seats: list[str | None],
    colorblind: bool = False,
    ascii_symbols: bool = False,
) -> int:
    """Wait in the queue on a status line, then play the paired game (or, when the offered bot
    is taken, a game against ``bot_seats``); the exit code."""
    from rich.console import Console

    console = Console(stderr=True)
    notice = None
    try:
        with console.status(status_line(QueueState())) as status:

            def show(state: QueueState) -> None:
                status.update(status_line(state))

            try:
                seat = asyncio.run(_wait(server, name, players, profile_secret, show))
            except OnlineError as exc:
                if exc.code not in PROFILE_REFUSALS or not profile_secret:
                    raise
                notice = _(
                    "the server refused your profile ({reason}): playing anonymously, not rated"
                ).format(reason=exc)
                profile_secret = None
                seat = asyncio.run(_wait(server, name, players, None, show))
    except KeyboardInterrupt:
        print("blink play: " + _("stopped waiting"), file=sys.stderr)
        return 130
    if seat is None:
        code: int = online_client().run_online(
            server,
            name=name,
            players=players,
            seats=bot_seats,
            profile_secret=profile_secret,
            colorblind=colorblind,
            ascii_symbols=ascii_symbols,
        )
        return code
    if notice:
        seat = Seat(seat.base_url, seat.code, seat.seat, seat.token, notice)
    played: int = online_client().play_seat(
        seat, name=name, colorblind=colorblind, ascii_symbols=ascii_symbols
    )
    return played


async def _wait(
    server: str,
    name: str,
    players: int,
    secret: str | None,
    show: Callable[[QueueState], None],
) -> Seat | None:
    """The wait, with Enter on the terminal accepting an offered bot."""
    accept = asyncio.Event()
    loop = asyncio.get_running_loop()
    reading = False

    def entered() -> None:
        sys.stdin.readline()
        accept.set()

    with contextlib.suppress(OSError, ValueError, NotImplementedError):
        if sys.stdin is not None and sys.stdin.isatty():
            loop.add_reader(sys.stdin.fileno(), entered)
            reading = True
    try:
        return await wait_in_queue(
            server,
            name=name,
            players=players,
            profile_secret=secret,
            on_status=show,
            accept_bot=accept,
        )
    finally:
        if reading:
            loop.remove_reader(sys.stdin.fileno())
