"""``blink replay`` on hostile record files, run for real: a lone surrogate, a deeply nested
document, a file far larger than any record, and terminal escape sequences in a player's name.
Each is one sentence and exit status 2 (no traceback), or, for the name, the record replayed
with the escape shown as text, never sent to the terminal raw."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from blink.cli.engine import MAX_RECORD_BYTES
from blink.games.classic.engine import ClassicGame
from blink.games.classic.record import GameRecord

pytestmark = pytest.mark.timeout(300)

MEMORY_CAP = 1024 * 1024 * 1024
"""The address space a replay may take in these tests (1 GB): a 50 MB file took 3 GB."""


def _limit_memory() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def replay(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m blink replay ARGS PATH`` with its memory capped, to its end."""
    return subprocess.run(
        [sys.executable, "-m", "blink", "replay", *args, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limit_memory,
        env={**os.environ, "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"},
    )


def refused(done: subprocess.CompletedProcess[str], *words: str) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout[-300:], done.stderr[-2000:])
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr[-2000:]
    assert lines[0].startswith("blink replay: "), lines[0]
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def record_text(names: list[str]) -> str:
    """A short, legal classic record with these names (JSON, non-ASCII escaped)."""
    game = ClassicGame.new(2, 3)
    game.reveal(0)
    return json.dumps(GameRecord.from_game(game, names).to_dict())


def test_a_lone_surrogate_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "surrogate.json"
    path.write_text(record_text(["\ud800Ann", "Bob"]), encoding="ascii")
    assert "\\ud800" in path.read_text()
    refused(replay(path), "lone surrogate")
    refused(replay(path, "--json"), "lone surrogate")


def test_a_deeply_nested_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 200_000 + "]" * 200_000)
    refused(replay(path), "nested")
    meta = {"a": {}}
    inner = meta["a"]
    for _ in range(500):  # deep enough to trouble what reads it, within json's own limit
        inner["a"] = {}
        inner = inner["a"]
    data = json.loads(record_text(["Ann", "Bob"]))
    data["meta"] = meta
    path.write_text(json.dumps(data))
    refused(replay(path), "nested")


def test_a_file_larger_than_the_limit_is_refused_without_reading_it(tmp_path: Path) -> None:
    """A 50 MB array of numbers (3 GB of memory before); the limit is stated in --help."""
    path = tmp_path / "huge.json"
    with path.open("w") as f:
        f.write("[")
        f.write("1234567890," * (50 * 1024 * 1024 // 11))
        f.write("0]")
    line = refused(replay(path), f"{MAX_RECORD_BYTES // (1024 * 1024)} MB")
    assert "larger" in line
    helped = subprocess.run(
        [sys.executable, "-m", "blink", "replay", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "100"},
    )
    assert f"{MAX_RECORD_BYTES // (1024 * 1024)} MB" in helped.stdout


def test_escape_sequences_in_a_record_are_never_printed_raw(tmp_path: Path) -> None:
    path = tmp_path / "escapes.json"
    evil = "\x1b]0;owned\x07\x1b[2J\x1b[31mAnn\u202e\x9b"
    path.write_text(record_text([evil, "Bob\r"]))
    done = replay(path)
    assert done.returncode == 0, done.stderr
    for raw in ("\x1b", "\x07", "\r", "\u202e", "\x9b"):
        assert raw not in done.stdout
    assert "\\x1b]0;owned\\x07" in done.stdout and "Bob\\x0d" in done.stdout
    done = replay(path, "--json")
    assert done.returncode == 0 and "\x1b" not in done.stdout
    # a record that does not verify names the players in its refusal too
    data = json.loads(record_text([evil, "Bob"]))
    data["result"] = {"winners": [1], "reason": "emptied"}
    path.write_text(json.dumps(data))
    done = replay(path)
    assert done.returncode in (1, 2) and "\x1b" not in done.stderr + done.stdout
