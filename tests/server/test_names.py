"""Profile names people can tell apart: one name however it is cased or encoded, nothing
invisible, no look-alike scripts mixed, no name that looks like another (UTS #39 skeletons);
on a real server and as a unit."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from srvkit import ServerThread, fast_settings

from blink.server.names import MAX_NAME, NameError_, check_name, confusable_table, name_key


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


# -- look-alikes: the UTS #39 skeleton and the project's fold (blink.server.names.name_key)

_TABLE = confusable_table()
_SOURCES: dict[str, list[str]] = {}
for _src, _proto in _TABLE.items():
    if len(_proto) == 1 and unicodedata.normalize("NFKC", _src) == _src:
        _SOURCES.setdefault(_proto, []).append(_src)
_LETTERS = "abcdefghjkmnopqrstuvwxyzABCDEFGHJKMNOPQRSTUVWXYZ"


@pytest.mark.parametrize(
    ("name", "twin"),
    [
        ("Pepe", "Рере"),  # all four letters Cyrillic
        ("Bill", "BiII"),  # capital i's
        ("Bill", "B1ll"),
        ("Oscar", "0scar"),
        ("BILL", "bill"),
        ("modern", "rnodern"),
        ("Alice", "Ａｌｉｃｅ"),
    ],
)
def test_look_alike_names_are_one_name(name: str, twin: str) -> None:
    assert name_key(name) == name_key(twin)


@pytest.mark.parametrize(("name", "other"), [("Bob", "Rob"), ("Ann", "Anna"), ("Eva", "Ava")])
def test_different_names_stay_apart(name: str, other: str) -> None:
    assert name_key(name) != name_key(other)


@given(st.text(min_size=1, max_size=MAX_NAME))
def test_every_name_equals_itself(name: str) -> None:
    key = name_key(name)
    assert key == name_key(name)
    assert name_key(unicodedata.normalize("NFKC", name)) == key
    assert len(key) <= 128  # it fits the database's column


@given(st.data())
def test_a_name_with_look_alike_characters_is_the_same_name(data: st.DataObject) -> None:
    """Any Latin name with some letters swapped for characters Unicode says look like them
    (in any script), or with its case changed, has the same key."""
    name = data.draw(st.text(alphabet=_LETTERS, min_size=1, max_size=MAX_NAME))
    twin = []
    for c in name:
        choices = _SOURCES.get(c, [])
        swap = data.draw(st.sampled_from([c, c.swapcase(), *choices]))
        twin.append(swap)
    assert name_key("".join(twin)) == name_key(name)


def test_the_server_refuses_look_alikes_with_their_own_code(tmp_path: Path) -> None:
    server = ServerThread(fast_settings(f"sqlite:///{tmp_path / 'n.db'}"))
    server.start()
    try:
        for name in ("Pepe", "Bill", "Oscar"):
            assert server.post("/api/profiles", {"name": name}).status_code == 201
        for twin, holder in (("Рере", "Pepe"), ("BiII", "Bill"), ("0scar", "Oscar")):
            r = server.post("/api/profiles", {"name": twin})
            assert r.status_code == 409, twin
            error = r.json()["error"]
            assert error["code"] == "name_lookalike" and holder in error["message"], twin
        r = server.post("/api/profiles", {"name": "PEPE"})
        assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken"
    finally:
        server.stop()
