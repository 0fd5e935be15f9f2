"""A real Server-Sent Events client for the tests (httpx streaming): reads a stream in the
background and hands its events over one by one."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import httpx

TIMEOUT = 60.0


@dataclass
class Sse:
    """One event of a stream (``event`` ``""`` for a comment, whose text is ``data``)."""

    event: str
    data: Any
    id: str | None = None


class EventStream:
    """``async with EventStream(url) as s``: the stream of ``url`` (``status`` its status),
    with ``await s.next("room")`` for the next event of a kind."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.url = url
        self.headers = {"accept": "text/event-stream", **(headers or {})}
        self.events: asyncio.Queue[Sse | None] = asyncio.Queue()
        self.seen: list[Sse] = []
        self.status = 0
        self.retry: int | None = None
        self._client = httpx.AsyncClient(timeout=httpx.Timeout(TIMEOUT, read=None))
        self._task: asyncio.Task[None] | None = None
        self._opened: asyncio.Future[int] | None = None

    async def __aenter__(self) -> EventStream:
        self._opened = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._read())
        self.status = await asyncio.wait_for(asyncio.shield(self._opened), TIMEOUT)
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the stream."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
        await self._client.aclose()

    async def _read(self) -> None:
        assert self._opened is not None
        try:
            async with self._client.stream("GET", self.url, headers=self.headers) as r:
                self._opened.set_result(r.status_code)
                if r.status_code != 200:
                    self.body = (await r.aread()).decode()
                    return
                fields: dict[str, str] = {}
                async for line in r.aiter_lines():
                    if line == "":
                        if fields:
                            self._emit(fields)
                        fields = {}
                    elif line.startswith(":"):
                        self._put(Sse("", line[1:].strip()))
                    else:
                        name, _, value = line.partition(":")
                        value = value.removeprefix(" ")
                        fields[name] = fields[name] + "\n" + value if name in fields else value
        except Exception as exc:
            if not self._opened.done():
                self._opened.set_exception(exc)
        finally:
            self.events.put_nowait(None)

    def _emit(self, fields: dict[str, str]) -> None:
        if "retry" in fields and len(fields) == 1:
            self.retry = int(fields["retry"])
            return
        data = fields.get("data")
        self._put(
            Sse(
                fields.get("event", "message"),
                None if data is None else json.loads(data),
                fields.get("id"),
            )
        )

    def _put(self, e: Sse) -> None:
        self.seen.append(e)
        self.events.put_nowait(e)

    async def next(
        self, event: str, where: Callable[[Any], bool] = lambda _d: True, timeout: float = TIMEOUT
    ) -> Sse:
        """The next event named ``event`` whose data satisfies ``where`` (others skipped)."""

        async def wait() -> Sse:
            while True:
                e = await self.events.get()
                if e is None:
                    raise EOFError(f"the stream {self.url} ended")
                if e.event == event and where(e.data):
                    return e

        return await asyncio.wait_for(wait(), timeout)

    async def ended(self, timeout: float = TIMEOUT) -> None:
        """Wait until the server closes the stream."""

        async def wait() -> None:
            while await self.events.get() is not None:
                pass

        await asyncio.wait_for(wait(), timeout)
