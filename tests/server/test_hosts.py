"""Against DNS rebinding: a server answers only to its own names, over HTTP and WebSocket."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from srvkit import ServerThread, fast_settings
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from blink.cli.serve import served_hosts


def test_only_the_servers_own_names_are_answered(tmp_path: Path) -> None:
    settings = fast_settings(f"sqlite:///{tmp_path / 'h.db'}", allowed_hosts=("127.0.0.1",))
    server = ServerThread(settings)
    server.start()
    try:
        assert server.get("/api/health").status_code == 200
        evil = httpx.get(server.http + "/api/health", headers={"host": "evil.example"})
        assert evil.status_code == 400
        rebound = {"Host": "evil.example", "Origin": "http://evil.example"}
        with pytest.raises(InvalidStatus), connect(server.ws, additional_headers=rebound):
            pass
        foreign = {"Origin": "http://evil.example"}
        with pytest.raises(InvalidStatus), connect(server.ws, additional_headers=foreign):
            pass
        own = {"Origin": f"http://127.0.0.1:{server.port}"}
        with connect(server.ws, additional_headers=own) as ws:
            ws.send(json.dumps({"type": "ping", "t": 1}))
            assert json.loads(ws.recv(timeout=30))["type"] == "pong"
    finally:
        server.stop()


def test_blink_serve_answers_to_its_addresses_and_the_names_given() -> None:
    assert served_hosts("127.0.0.1", []) == ("127.0.0.1", "localhost")
    everywhere = served_hosts("0.0.0.0", ["Play.Example.org"])
    assert {"127.0.0.1", "localhost", "play.example.org"} <= set(everywhere)
    assert "0.0.0.0" not in everywhere
    assert served_hosts("0.0.0.0", ["*"]) == ()
