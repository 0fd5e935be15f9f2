"""Profile names people can tell apart: one name however it is cased or encoded, nothing
invisible, no look-alike scripts mixed; on a real server and as a unit."""

from __future__ import annotations

from pathlib import Path

import pytest
from srvkit import ServerThread, fast_settings

from blink.server.names import NameError_, check_name, name_key


@pytest.mark.parametrize("name", ["alice", "ALICE", "Ａｌｉｃｅ", " Alice "])
def test_one_name_however_it_is_written(name: str) -> None:
    assert name_key(check_name(name)) == name_key("Alice")


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("Ali\u200bce", "bad_name"),  # zero-width space
        ("\u202eecilA", "bad_name"),  # right-to-left override
        ("Al\u0007ice", "bad_name"),
        ("\u0410lice", "confusable_name"),  # a Cyrillic А among Latin letters
        ("", "bad_name"),
        ("x" * 25, "bad_name"),
    ],
)
def test_names_that_cannot_be_used(name: str, code: str) -> None:
    with pytest.raises(NameError_) as refused:
        check_name(name)
    assert refused.value.code == code and refused.value.message


@pytest.mark.parametrize("name", ["Zoë", "Łukasz", "李小龙", "Алиса", "O'Brien"])
def test_names_in_one_script_are_fine(name: str) -> None:
    assert check_name(name) == name


def test_the_server_keeps_names_apart(tmp_path: Path) -> None:
    server = ServerThread(fast_settings(f"sqlite:///{tmp_path / 'n.db'}"))
    server.start()
    try:
        assert server.post("/api/profiles", {"name": "Alice"}).status_code == 201
        for twin in ("alice", "ALICE", "Ａｌｉｃｅ"):
            r = server.post("/api/profiles", {"name": twin})
            assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken", twin
        for bad, code in (("Ali\u200bce", "bad_name"), ("\u0410lice", "confusable_name")):
            r = server.post("/api/profiles", {"name": bad})
            assert r.status_code == 400 and r.json()["error"]["code"] == code, bad
        assert server.post("/api/profiles", {"name": "Bob"}).status_code == 201
    finally:
        server.stop()
    # After a restart the names are read back: still one Alice.
    server = ServerThread(fast_settings(f"sqlite:///{tmp_path / 'n.db'}"))
    server.start()
    try:
        assert server.post("/api/profiles", {"name": "aLiCe"}).status_code == 409
    finally:
        server.stop()
