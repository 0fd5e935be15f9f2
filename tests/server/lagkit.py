"""Helpers for the lag tests: a loopback TCP proxy that delays each direction, and a client
that answers the server's probes and estimates its clock."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from srvkit import Client

from blink.model.netclock import ClockOffset


class DelayProxy:
    """A TCP proxy on loopback to ``port`` that delays every byte by ``delay`` seconds in each
    direction (order kept), like a link with that one-way latency."""

    def __init__(self, port: int, delay: float) -> None:
        self.target = port
        self.delay = delay
        self.server: asyncio.Server | None = None
        self.tasks: set[asyncio.Task[None]] = set()

    @property
    def port(self) -> int:
        """The proxy's own port."""
        assert self.server is not None
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    def ws(self) -> str:
        """The server's WebSocket URL through the proxy."""
        return f"ws://127.0.0.1:{self.port}/ws"

    async def start(self) -> DelayProxy:
        """Listen on a free port."""
        self.server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        return self

    async def stop(self) -> None:
        """Stop listening and end every link."""
        for t in list(self.tasks):
            t.cancel()
        for t in list(self.tasks):
            with contextlib.suppress(BaseException):
                await t
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target)
        self._spawn(self._pipe(reader, up_w))
        self._spawn(self._pipe(up_r, writer))

    async def _pipe(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
        self._spawn(self._deliver(queue, dst))
        loop = asyncio.get_running_loop()
        try:
            while data := await src.read(65536):
                queue.put_nowait((loop.time() + self.delay, data))
        finally:
            queue.put_nowait((loop.time() + self.delay, b""))

    async def _deliver(
        self, queue: asyncio.Queue[tuple[float, bytes]], dst: asyncio.StreamWriter
    ) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                due, data = await queue.get()
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not data:
                    break
                dst.write(data)
                await dst.drain()
        finally:
            dst.close()


class SyncClient(Client):
    """A test client that answers each ``probe`` at once and estimates the server's clock
    (milliseconds) from its pings; ``skew`` (seconds) is added to its own clock, as another
    machine's would differ."""

    def __init__(self, name: str = "", skew: float = 0.0) -> None:
        super().__init__(name)
        self.skew = skew
        self.clock = ClockOffset()
        self.pending: dict[float, float] = {}
        self.lag: list[Any] | None = None

    def now_ms(self) -> float:
        """This client's clock, in milliseconds."""
        return (time.monotonic() + self.skew) * 1000

    def _track(self, m: dict[str, Any]) -> None:
        super()._track(m)
        if m.get("type") != "pong":
            return
        received = self.now_ms()
        if isinstance(m.get("t"), (int, float)):
            self.clock.sample(m["t"], m["server_ms"], received)
        if "lag" in m:
            self.lag = m["lag"]
        probe = m.get("probe")
        if probe is not None and self.ws is not None:
            echo = {"type": "ping", "t": self.now_ms(), "echo": probe}
            asyncio.get_running_loop().create_task(self.send(echo))

    async def ping(self, rounds: int = 1) -> None:
        """Ping ``rounds`` times, each after the answers to the last one."""
        for _ in range(rounds):
            t = self.now_ms()
            await self.send({"type": "ping", "t": t})
            await self.expect("pong", t=t)
            # the echo of its probe is answered too (without a probe)
            await self.wait(lambda m: m.get("type") == "pong" and "probe" not in m)
