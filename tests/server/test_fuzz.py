"""Fuzz tests: the decoder is total, and bad input never changes state nor crashes the server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from srvkit import ServerThread, fast_settings
from websockets.sync.client import connect

from blink.model.registry import get_table
from blink.server.protocol import ProtocolError, decode

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
msg_types = st.sampled_from(
    ["hello", "play", "choose", "rematch", "leave", "resync", "ping", "PLAY", "", "x"]
)
field_names = st.sampled_from(
    ["type", "id", "card", "pile", "protocol", "room", "token", "t", "game", "last_seq"]
)
messages = st.dictionaries(field_names, json_values, max_size=6).flatmap(
    lambda d: msg_types.map(lambda t: {**d, "type": t})
)
frames = st.one_of(
    st.text(max_size=200),
    st.binary(max_size=200),
    json_values.map(json.dumps),
    messages.map(json.dumps),
)


CODES = {
    "bad_json",
    "bad_text",
    "not_object",
    "unknown_type",
    "bad_field",
    "hello_required",
    "wrong_game",
}


@given(frames, st.sampled_from([None, "classic", "goblink"]))
@settings(max_examples=300, deadline=None)
def test_decoder_is_total(frame: str | bytes, game: str | None) -> None:
    table = None if game is None else get_table(game)
    try:
        msg = decode(frame, table)
    except ProtocolError as exc:
        assert exc.code in CODES
        assert exc.message
    else:
        assert isinstance(msg, msgspec.Struct)
        # Whatever decodes can be encoded again: nothing a client sends fails later.
        msgspec.json.encode(msg)


@pytest.fixture(scope="module")
def fuzz_room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerThread, Any]]:
    """A server with a game in progress; the fuzzing client holds seat 0."""
    db = Path(tmp_path_factory.mktemp("fuzz")) / "blink.db"
    server = ServerThread(fast_settings(f"sqlite:///{db}", message_rate=None, max_errors=10**9))
    server.start()
    r = server.post("/api/rooms", {"name": "Fuzz"}).json()
    code = r["code"]
    other = server.post(f"/api/rooms/{code}/join", {"name": "Other"}).json()
    with connect(server.ws) as b, connect(server.ws) as a:
        hello = {"type": "hello", "protocol": 1, "room": code}
        b.send(json.dumps({**hello, "token": other["token"]}))
        a.send(json.dumps({**hello, "token": r["token"]}))
        while True:
            m = json.loads(a.recv(timeout=30))
            if m["type"] == "update" and m["seq"] == 1:
                break
        yield server, a
    server.stop()


def _snapshot(ws: Any) -> dict[str, Any]:
    ws.send(json.dumps({"type": "resync"}))
    while True:
        m = json.loads(ws.recv(timeout=30))
        if m["type"] == "snapshot":
            return m


@given(st.lists(frames, min_size=1, max_size=8))
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_bad_input_changes_nothing(
    fuzz_room: tuple[ServerThread, Any], batch: list[str | bytes]
) -> None:
    server, ws = fuzz_room
    bad = []
    for f in batch:
        try:
            msg = decode(f)
        except ProtocolError:
            bad.append(f)
            continue
        # Well-formed hello/leave/play/choose are not "bad input": leave them out.
        del msg
    before = _snapshot(ws)
    for f in bad:
        ws.send(f)
    after = _snapshot(ws)
    assert after == before
    assert server.get("/api/health").json()["status"] == "ok"
