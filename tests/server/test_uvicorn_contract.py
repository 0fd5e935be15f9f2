"""What the direct path (blink.server.direct) takes from uvicorn, checked against the installed
uvicorn: a new uvicorn release that changes any of it fails here before it slows or breaks the
server.

The direct path reads private parts of uvicorn's sans-I/O WebSocket protocol, so this lists
them one by one (names, attributes, methods; how the protocol uses its receive queue, its
``read_paused`` flag and its close), checks the version pin, then runs a real server with real
clients and checks that the direct path is the one taken. tests/server/test_direct.py covers
the frames it writes (read back by a WebSocket client library) and the plain ASGI path beside
it (a whole game over compression).

The transport's limits (blink.server.transport) subclass uvicorn's httptools HTTP protocol: the
last section lists the methods it overrides and the state it reads, and that uvicorn still has
no header timeout of its own; tests/server/test_slowloris.py runs them on real servers.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import logging
import re
import textwrap
import tomllib
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from srvkit import TIMEOUT, Client, ServerThread, seat_clients
from uvicorn.config import HTTP_PROTOCOLS, WS_PROTOCOLS, Config, WSProtocolType
from uvicorn.protocols.http import httptools_impl
from uvicorn.protocols.http.auto import AutoHTTPProtocol
from uvicorn.protocols.websockets import websockets_sansio_impl
from uvicorn.server import ServerState
from websockets.protocol import State
from websockets.server import ServerProtocol

from blink.server import direct
from blink.server.direct import WS_IMPL, DirectSocket, Inbox
from blink.server.transport import Guard, GuardedHttpProtocol

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
PROTOCOL = websockets_sansio_impl.WebSocketsSansIOProtocol


# -- the release and the name ----------------------------------------------------------------


def test_pyproject_pins_the_supported_range() -> None:
    deps = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    (pin,) = [d for d in deps if d.startswith("uvicorn")]
    assert pin == f"uvicorn[standard]{direct.supported_range()}"


def test_the_installed_uvicorn_is_supported() -> None:
    # Outside the range the direct path steps aside (and the server says so when it starts):
    # check a new release here, then move the bound in direct.py and pyproject.toml.
    assert direct.uvicorn_problem() is None, direct.uvicorn_problem()
    assert direct.uvicorn_version() == uvicorn.__version__


def test_ws_impl_names_the_sans_io_protocol() -> None:
    assert WS_IMPL in typing.get_args(WSProtocolType)
    assert WS_PROTOCOLS[WS_IMPL] == (
        "uvicorn.protocols.websockets.websockets_sansio_impl:WebSocketsSansIOProtocol"
    )
    # DirectSocket.find recognises the protocol by its class name.
    assert PROTOCOL.__name__ == direct._PROTOCOL_CLASS
    config = Config(_no_app, ws=WS_IMPL, log_config=None)
    config.load()
    assert config.ws_protocol_class is PROTOCOL


# -- the protocol's parts ----------------------------------------------------------------------


async def _no_app(scope: Any, receive: Any, send: Any) -> None:
    return None


@pytest.fixture
def protocol() -> Iterator[Any]:
    """A protocol as uvicorn makes one per connection (before the connection is made)."""
    loop = asyncio.new_event_loop()
    config = Config(_no_app, ws=WS_IMPL, ws_per_message_deflate=False, log_config=None)
    config.load()
    try:
        yield PROTOCOL(config=config, server_state=ServerState(), app_state={}, _loop=loop)
    finally:
        loop.close()


def test_the_attributes_and_methods_the_direct_path_uses(protocol: Any) -> None:
    # find: the ASGI send is the protocol's bound method.
    assert protocol.send.__self__ is protocol
    assert inspect.iscoroutinefunction(protocol.send)
    # The transport, set when the connection is made (DirectSocket writes on it).
    assert "transport" in vars(protocol) and protocol.transport is None
    # is_open: close_sent, and the websockets connection's state with an OPEN member.
    assert protocol.close_sent is False
    conn = protocol.conn
    assert isinstance(conn, ServerProtocol)
    assert type(conn.state) is State and type(conn.state).OPEN is State.OPEN
    # find: no extension without compression.
    assert conn.extensions == []
    # take_receiving: the receive queue (emptied into the inbox) and the read_paused flag.
    assert isinstance(protocol.queue, asyncio.Queue)
    assert protocol.read_paused is False


def _methods() -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    (cls,) = ast.parse(textwrap.dedent(inspect.getsource(PROTOCOL))).body
    assert isinstance(cls, ast.ClassDef)
    return {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)}


def _is_self(node: ast.expr, name: str) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == name
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def test_the_protocol_uses_its_queue_only_as_an_inbox_can_stand_in() -> None:
    # take_receiving replaces protocol.queue by an Inbox once: uvicorn must not assign it
    # again, and must only call what an Inbox has (receive, which takes from the queue, is
    # never called on the direct path).
    inbox = {n for n in vars(Inbox) if not n.startswith("_")}
    for name, fn in _methods().items():
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(_is_self(t, "queue") for t in targets):
                    assert name == "__init__", f"{name} assigns self.queue"
            if isinstance(node, ast.Attribute) and _is_self(node.value, "queue"):
                if name == "receive":
                    assert node.attr in {"get", "empty"}, node.attr
                else:
                    assert node.attr in inbox, f"{name} calls self.queue.{node.attr}"


def test_the_protocol_pauses_reading_only_when_read_paused_is_false() -> None:
    # take_receiving sets read_paused for good, so uvicorn never pauses the socket after a
    # message (nothing would resume it: its receive is not called).
    calls = 0
    for fn in _methods().values():
        for node in ast.walk(fn):
            if not isinstance(node, ast.If):
                continue
            guarded = (
                isinstance(node.test, ast.UnaryOp)
                and isinstance(node.test.op, ast.Not)
                and _is_self(node.test.operand, "read_paused")
            )
            for inner in ast.walk(node):
                if (
                    isinstance(inner, ast.Call)
                    and isinstance(inner.func, ast.Attribute)
                    and inner.func.attr == "pause_reading"
                ):
                    assert guarded, ast.unparse(node)
                    calls += 1
    every = inspect.getsource(PROTOCOL).count(".pause_reading(")
    assert calls == every >= 1


def test_a_close_from_the_server_waits_for_the_clients_close() -> None:
    # Frames written directly are followed by a close through the ASGI send. uvicorn must not
    # close the socket as soon as its close frame is written: a client still sending would get
    # a reset and lose the close and the frames before it (uvicorn before 0.52.1 did; the
    # flood in tests/server/test_protocol.py::test_abuse_closes_the_connection then failed
    # two runs in three). It closes the socket on a timer, or when the client's close comes.
    (send,) = [f for f in _methods().values() if f.name == "send"]
    branches = [
        node
        for node in ast.walk(send)
        if isinstance(node, ast.If)
        and any(
            isinstance(inner, ast.Call)
            and isinstance(inner.func, ast.Attribute)
            and inner.func.attr == "send_close"
            for inner in ast.walk(ast.Module(body=node.body, type_ignores=[]))
        )
    ]
    assert branches, "the ASGI send no longer sends a close frame"
    innermost = min(branches, key=lambda n: len(ast.unparse(n)))
    body = ast.Module(body=innermost.body, type_ignores=[])
    transport_closes = [
        n
        for n in ast.walk(body)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "close"
        and _is_self(n.func.value, "transport")
    ]
    assert not transport_closes, ast.unparse(innermost)
    assert "call_later" in ast.unparse(innermost), ast.unparse(innermost)
    # ... and when the client's close arrives after its own, it closes the socket.
    handle_close = ast.unparse(_methods()["handle_close"])
    assert "if self.close_sent" in handle_close and "self.transport.close()" in handle_close


def test_the_protocol_queues_events_an_inbox_handles() -> None:
    # What the protocol puts in its queue: websocket.receive with "text" or "bytes", and
    # websocket.disconnect (websocket.connect is taken by the ASGI accept, before the inbox).
    events: dict[str, set[str]] = {}
    for fn in _methods().values():
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "put_nowait"
                and _is_self(node.func.value, "queue")
            ):
                (event,) = node.args
                assert isinstance(event, ast.Dict), ast.unparse(node)
                keys = [ast.literal_eval(k) for k in event.keys if k is not None]
                assert len(keys) == len(event.keys) and "type" in keys, ast.unparse(node)
                kind = ast.literal_eval(event.values[keys.index("type")])
                events.setdefault(kind, set()).update(k for k in keys if k != "type")
    assert set(events) == {"websocket.connect", "websocket.receive", "websocket.disconnect"}
    assert events["websocket.receive"] == {"text", "bytes"}
    got: list[str | bytes] = []
    ended: list[bool] = []
    inbox = Inbox(got.append, lambda: ended.append(True))
    inbox.put_nowait({"type": "websocket.receive", "text": "a"})
    inbox.put_nowait({"type": "websocket.receive", "bytes": b"b"})
    inbox.put_nowait({"type": "websocket.disconnect", "code": 1000})
    assert got == ["a", b"b"] and ended == [True]


def test_an_unsupported_uvicorn_is_named_and_stepped_aside(monkeypatch: pytest.MonkeyPatch) -> None:
    class WebSocketsSansIOProtocol:
        async def send(self, message: Any) -> None:
            return None

    monkeypatch.setattr(direct, "uvicorn_version", lambda: "0.99.0")
    direct.uvicorn_problem.cache_clear()
    try:
        problem = direct.uvicorn_problem()
        assert problem is not None and "0.99.0" in problem
        assert direct.why_not_direct(WebSocketsSansIOProtocol().send) == problem
        assert DirectSocket.find(WebSocketsSansIOProtocol().send) is None
    finally:
        monkeypatch.undo()
        direct.uvicorn_problem.cache_clear()
    assert direct._release("0.54.0") == (0, 54, 0)
    assert direct._release("0.55") == (0, 55, 0)
    assert direct._release("0.52.1.post1") == (0, 52, 1)
    assert direct._release("0.55.0rc1") is None


# -- a real server -----------------------------------------------------------------------------


class _Found:
    """Every DirectSocket.find of the server, with the server's event loop."""

    def __init__(self) -> None:
        self.sockets: list[DirectSocket | None] = []
        self.loop: asyncio.AbstractEventLoop | None = None

    def by_port(self, port: int) -> DirectSocket:
        (found,) = [
            d
            for d in self.sockets
            if d is not None and d._protocol.client is not None and d._protocol.client[1] == port
        ]
        return found

    async def on_server(self, fn: Callable[[], Any]) -> Any:
        """``fn()`` called on the server's event loop (it owns the sockets)."""
        assert self.loop is not None

        async def call() -> Any:
            return fn()

        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(call(), self.loop))


@pytest.fixture
def found(monkeypatch: pytest.MonkeyPatch) -> _Found:
    record = _Found()
    original = DirectSocket.find.__func__  # type: ignore[attr-defined]

    def find(cls: type[DirectSocket], send: Callable[..., Any]) -> DirectSocket | None:
        record.loop = asyncio.get_running_loop()
        result: DirectSocket | None = original(cls, send)
        record.sockets.append(result)
        return result

    monkeypatch.setattr(DirectSocket, "find", classmethod(find))
    return record


def _local_port(c: Client) -> int:
    assert c.ws is not None
    port: int = c.ws.local_address[1]
    return port


async def test_a_real_server_takes_the_direct_path(
    make_server: Callable[..., ServerThread], found: _Found, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="blink.server")
    server = make_server(max_errors=2)
    _code, (a, b), _ = await seat_clients(server)
    await a.expect("snapshot")
    await b.expect("snapshot")
    assert len(found.sockets) == 2 and None not in found.sockets
    assert server.app.state.send_path == "direct"
    said = [r for r in caplog.records if r.name == "blink.server" and "frames" in r.getMessage()]
    assert [(r.levelno, r.getMessage()) for r in said] == [
        (
            logging.INFO,
            f"frames are written straight onto the socket (uvicorn {uvicorn.__version__}, "
            f"--ws {WS_IMPL})",
        )
    ]

    d = found.by_port(_local_port(a))
    protocol = d._protocol
    # The client offered compression; without it on the server nothing was negotiated.
    assert a.ws is not None and not a.ws.protocol.extensions
    assert protocol.conn.extensions == [] and protocol.conn.state is State.OPEN
    for name in ("write", "get_write_buffer_size", "is_closing", "resume_reading"):
        assert callable(getattr(protocol.transport, name, None)), name
    # Received messages go straight to the session, with the socket always read: several
    # messages sent at once are all answered (a paused socket would leave them unread).
    assert isinstance(protocol.queue, Inbox) and protocol.read_paused is True
    for t in range(5):
        await a.send({"type": "ping", "t": t})
    for t in range(5):
        await a.expect("pong", t=t)
    assert await found.on_server(protocol.transport.is_reading) is True
    assert await found.on_server(d.is_open) is True

    # A close goes through uvicorn's ASGI send after the frames written before it: three bad
    # messages (max_errors=2) are three error frames, then the close.
    for _ in range(3):
        await a.send("not json")
    errors = [await a.expect("error") for _ in range(3)]
    assert [e["code"] for e in errors] == [errors[0]["code"]] * 3
    assert await a.closed() == 1008
    assert await found.on_server(d.is_open) is False
    assert protocol.close_sent is True

    # The other end closing reaches the session through the inbox (websocket.disconnect).
    d_b = found.by_port(_local_port(b))
    hub = server.app.state.hub
    await b.close()
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while hub.connections:
        assert asyncio.get_running_loop().time() < deadline, "the server never saw the close"
        await asyncio.sleep(0.01)
    assert await found.on_server(d_b.is_open) is False


# -- the HTTP protocol under the transport's limits ----------------------------------------------

HTTP = httptools_impl.HttpToolsProtocol


def _http_methods() -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    (cls,) = [
        n
        for n in ast.parse(inspect.getsource(httptools_impl)).body
        if isinstance(n, ast.ClassDef) and n.name == HTTP.__name__
    ]
    return {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)}


def test_the_guarded_protocol_is_the_one_uvicorn_picks_and_takes() -> None:
    # The guard changes no parser: httptools is what uvicorn picks on its own (uvicorn[standard]
    # installs it), and a protocol class given as http= is used as it is.
    assert AutoHTTPProtocol is HTTP
    assert HTTP_PROTOCOLS["httptools"] == "uvicorn.protocols.http.httptools_impl:HttpToolsProtocol"
    cls = Guard(10.0, 512).protocol()
    assert issubclass(cls, GuardedHttpProtocol) and cls.__mro__[2] is HTTP
    config = Config(_no_app, http=cls, ws=WS_IMPL, log_config=None)
    config.load()
    assert config.http_protocol_class is cls


def test_uvicorn_has_no_header_timeout_of_its_own() -> None:
    # When a release brings one (or a per-address cap), blink.server.transport may give way.
    params = set(inspect.signature(Config).parameters)
    assert {p for p in params if "timeout" in p} == {
        "ws_ping_timeout",
        "timeout_keep_alive",
        "timeout_notify",
        "timeout_graceful_shutdown",
        "timeout_worker_healthcheck",
    }
    assert not {p for p in params if "per_address" in p or "per_ip" in p}
    # Its keep-alive timeout is lifted by any byte: a trickled head would never time out.
    first = _http_methods()["data_received"].body[0]
    assert ast.unparse(first) == "self._unset_keepalive_if_required()"


def test_what_the_guarded_protocol_overrides_and_reads() -> None:
    methods = _http_methods()
    # The overridden methods, with the parameters the subclass's take.
    for name, params in {
        "connection_made": ["self", "transport"],
        "connection_lost": ["self", "exc"],
        "on_message_begin": ["self"],
        "on_headers_complete": ["self"],
        "handle_websocket_upgrade": ["self"],
        "shutdown": ["self"],
    }.items():
        assert [a.arg for a in methods[name].args.args] == params, name
        own = getattr(GuardedHttpProtocol, name)
        assert [p for p in inspect.signature(own).parameters] == params, name
    # httptools looks the callbacks up on the protocol it is given: the subclass's are called.
    init = ast.unparse(methods["__init__"])
    assert "self.parser = httptools.HttpRequestParser(self)" in init
    # The state it reads: the peer (set when the connection is made), the loop, the transport,
    # the request under way (None before the first) and whether its response is complete.
    made = ast.unparse(methods["connection_made"])
    assert "self.transport = transport" in made
    assert "self.client = get_remote_addr(transport)" in made
    for attr in ("self.loop = ", "self.cycle: RequestResponseCycle = None"):
        assert attr in init, attr
    cycle_init = inspect.getsource(httptools_impl.RequestResponseCycle.__init__)
    assert "self.response_complete = False" in cycle_init
    assert "self.keep_alive = keep_alive" in cycle_init
    # A late pipelined head sets keep_alive to False: the cycle closes the connection after
    # its response (as uvicorn's own shutdown does).
    send = ast.unparse(
        ast.parse(textwrap.dedent(inspect.getsource(httptools_impl.RequestResponseCycle.send)))
    )
    assert re.search(r"if not self\.keep_alive:\n +self\.transport\.close\(\)\n", send), send
    assert "self.cycle.keep_alive = False" in ast.unparse(methods["shutdown"])
    # At shutdown an event stream is closed at once: the cycle keeps its request's scope,
    # whose headers say whether it asked for one (the server then waits for no response).
    assert "self.scope = scope" in cycle_init
    assert "self.server_state.connections" in inspect.getsource(uvicorn.server.Server.shutdown)
    # An upgrade hands the transport to the WebSocket protocol: that one is told when the
    # socket is gone (the subclass releases the socket's count then), never this one.
    upgrade = ast.unparse(methods["handle_websocket_upgrade"])
    assert "self.transport.set_protocol(protocol)" in upgrade
    # The subclass's own names are not uvicorn's.
    source = inspect.getsource(httptools_impl)
    for name in ("guard", "_host", "_head_timer", "_head_started", "_wait_for_head"):
        assert f"self.{name}" not in source, name
        assert name not in vars(HTTP), name
