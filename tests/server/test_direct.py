"""The direct sending and receiving path (blink.server.direct) and the plain ASGI path beside it.

Every other server test runs on the direct path (uvicorn's sans-I/O protocol, compression off,
as ``blink serve`` runs). Here: the frames it writes are what a WebSocket client library reads,
and a server that negotiates compression (where the direct path steps aside) plays whole games
over plain ASGI.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st
from srvkit import ServerThread, bot_loop, seat_clients
from websockets.frames import Frame, Opcode
from websockets.protocol import Protocol, Side, State

from blink.games.classic.record import GameRecord
from blink.server.direct import text_frame


def _client_reads(data: bytes) -> list[Frame]:
    client = Protocol(Side.CLIENT, state=State.OPEN, max_size=None)
    client.receive_data(data)
    assert client.parser_exc is None
    return [e for e in client.events_received() if isinstance(e, Frame)]


@given(st.lists(st.text(max_size=300), min_size=1, max_size=5))
def test_frames_read_back_by_a_websocket_client(texts: list[str]) -> None:
    frames = _client_reads(b"".join(text_frame(t.encode()) for t in texts))
    assert [(f.opcode, f.fin, f.data.decode()) for f in frames] == [
        (Opcode.TEXT, True, t) for t in texts
    ]


def test_frame_lengths_at_the_header_boundaries() -> None:
    for n in (0, 125, 126, 127, 65535, 65536, 70000):
        payload = b"x" * n
        (frame,) = _client_reads(text_frame(payload))
        assert frame.data == payload and frame.opcode is Opcode.TEXT


async def test_full_game_with_compression_over_plain_asgi(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(deflate=True)
    _code, (a, b), _ = await seat_clients(server)
    # The test clients offer permessage-deflate; this server accepts it, so its frames are
    # compressed and go through ASGI's send, not the direct path.
    assert a.ws is not None and a.ws.protocol.extensions
    ends = await asyncio.gather(bot_loop(a), bot_loop(b))
    end = ends[0][0]
    assert end == ends[1][0]
    record = GameRecord.from_dict(server.get(end["record_url"]).json())
    assert len(record.actions) == end["seq"]
    assert list(record.verify().outcome.winners) == end["outcome"]["winners"]
    await a.close()
    await b.close()
