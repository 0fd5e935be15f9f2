"""Files on disk, one way each (blink.files): the atomic write every writer uses, the user's
folders from platformdirs, and one Wilson interval."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from blink import files
from blink.profile_store import StoredProfile, profile_home
from blink.profile_store import save as save_profile
from blink.server.settings import default_database_path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "blink"


def _python_sources() -> dict[str, str]:
    return {p.relative_to(SRC).as_posix(): p.read_text() for p in sorted(SRC.rglob("*.py"))}


def test_write_atomic_writes_text_and_bytes_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    files.write_atomic(target, "é\n")
    assert target.read_bytes() == "é\n".encode()
    files.write_atomic(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_write_atomic_keeps_the_mode_or_sets_the_one_given(tmp_path: Path) -> None:
    target = tmp_path / "kept"
    target.write_text("old")
    target.chmod(0o640)
    files.write_atomic(target, "new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    secret = tmp_path / "secret"
    files.write_atomic(secret, "s", mode=0o600)
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    fresh = tmp_path / "fresh"
    files.write_atomic(fresh, "x")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~mask


def test_write_atomic_flushes_the_file_and_then_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        mode = os.fstat(fd).st_mode
        synced.append("folder" if stat.S_ISDIR(mode) else "file")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    files.write_atomic(tmp_path / "f", "data")
    # The data before the move, the folder after it: a crash leaves the old file or the new.
    assert synced == ["file", "folder"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.mkdir()  # a folder where the file should go: os.replace refuses
    (target / "inside").write_text("kept")
    with pytest.raises(OSError):
        files.write_atomic(target, "new")
    assert (target / "inside").read_text() == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_a_relative_xdg_data_home_makes_no_relative_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The XDG specification: a relative path in these variables is invalid and ignored. The
    # database goes to the home's data folder, never to ./data/blink under the working folder.
    home = tmp_path / "home"
    work = tmp_path / "work"
    home.mkdir()
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", "data")
    monkeypatch.setenv("XDG_CONFIG_HOME", "config")
    monkeypatch.delenv("BLINK_HOME", raising=False)
    path = default_database_path()
    assert path.is_absolute()
    assert path == home / ".local" / "share" / "blink" / "blink.db"
    assert list(work.iterdir()) == []
    assert profile_home() == home / ".config" / "blink"
    saved = save_profile(StoredProfile(server="http://h:1", id="i", name="Ann", secret="s"))
    assert saved.parent == home / ".config" / "blink"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert list(work.iterdir()) == []


def test_an_absolute_xdg_data_home_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("BLINK_HOME", raising=False)
    assert default_database_path() == tmp_path / "data" / "blink" / "blink.db"
    assert profile_home() == tmp_path / "config" / "blink"


def test_one_atomic_write_and_no_hand_written_user_folder() -> None:
    hand_written = re.compile(
        r"os\.replace\(|os\.rename\(|XDG_[A-Z]+_HOME\"|Path\.home\(\)|\"\.local\"|\"~/\.(local|config)"
    )
    found = [
        f"{name}: {m.group(0)}"
        for name, text in _python_sources().items()
        if name != "files.py"
        for m in hand_written.finditer(text)
    ]
    assert not found, f"use blink.files instead: {found}"
    # A temporary file made elsewhere is only blink.tui.outputs' probe of a folder's
    # writability (made and removed at once), never a write.
    makers = [
        name
        for name, text in _python_sources().items()
        if "tempfile.mkstemp(" in text and name != "files.py"
    ]
    assert makers == ["tui/outputs.py"]


def test_one_wilson_interval() -> None:
    defined = [name for name, text in _python_sources().items() if "def wilson(" in text]
    assert defined == ["sim/statistics.py"]
    from blink.games.classic.sim import stats
    from blink.sim.statistics import wilson

    assert stats.wilson is wilson
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_replacing_moves_a_filled_file_over_the_path_or_leaves_it(tmp_path: Path) -> None:
    target = tmp_path / "backup.db"
    target.write_text("old")
    with pytest.raises(RuntimeError), files.replacing(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("the writer failed")
    assert target.read_text() == "old"
    with files.replacing(target) as tmp:
        assert tmp.parent == tmp_path and tmp.read_bytes() == b""
        tmp.write_text("new")
    assert target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backup.db"]
