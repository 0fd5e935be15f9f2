"""The terminal's profile: stored per server, sent on create/join, rated games, stale secrets."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from tests.tui.helpers import stage, wait_for
from tests.tui.test_online import play_until_over

from blink import profile_store
from blink.games.classic.tui.app import BlinkApp
from blink.games.classic.tui.online import OnlineTable, fetch_profile, prepare, resolve_profile
from blink.games.classic.tui.table import Stage
from blink.games.classic.tui.widgets import StatusLine
from blink.profile_store import ProfileStoreError, StoredProfile


def test_store_round_trip_mode_and_one_file_per_server(tmp_path: Path) -> None:
    p = StoredProfile("127.0.0.1:8000", "abc123", "Ann", "s3cret")
    path = profile_store.save(p, tmp_path)
    assert path.name == "profile-127.0.0.1_8000.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert profile_store.load("http://127.0.0.1:8000/", tmp_path) == p
    assert profile_store.load("127.0.0.1:8000", tmp_path) == p
    # Another port, another server: no profile there.
    assert profile_store.load("http://127.0.0.1:8001", tmp_path) is None
    assert profile_store.server_key("https://Blink.example") == "blink.example:443"
    # No temporary files are left behind; a rewrite replaces the file.
    profile_store.save(StoredProfile("127.0.0.1:8000", "abc123", "Ann B", "s3cret"), tmp_path)
    assert [f.name for f in tmp_path.iterdir()] == [path.name]
    assert profile_store.load("127.0.0.1:8000", tmp_path).name == "Ann B"  # type: ignore[union-attr]
    assert profile_store.forget("127.0.0.1:8000", tmp_path)
    assert not profile_store.forget("127.0.0.1:8000", tmp_path)


def test_store_default_folder_and_bad_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BLINK_HOME", str(tmp_path / "bh"))
    assert profile_store.profile_home() == tmp_path / "bh"
    monkeypatch.delenv("BLINK_HOME")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert profile_store.profile_home() == tmp_path / "xdg" / "blink"
    path = profile_store.profile_path("localhost:9000", tmp_path)
    path.write_text("{not json")
    with pytest.raises(ProfileStoreError) as e:
        profile_store.load("localhost:9000", tmp_path)
    assert e.value.code == "bad_file"


async def test_a_terminal_game_with_a_stored_profile_is_rated(
    server_url: str, tmp_path: Path
) -> None:
    # `blink play --server URL --profile Ann --bot expert`: the profile is made and stored.
    stored, note = resolve_profile(server_url, create="Ann", home=tmp_path)
    assert stored is not None and note is not None and "created" in note
    assert profile_store.load(server_url, tmp_path) == stored
    # The next run uses the stored profile (no new one is made).
    again, _ = resolve_profile(server_url, home=tmp_path)
    assert again == stored
    assert resolve_profile(server_url, create="Ann", home=tmp_path)[0] == stored
    assert resolve_profile(server_url, anonymous=True, home=tmp_path) == (None, None)

    seat = prepare(
        server_url, seats=[None, "expert:first"], name="Ann", profile_secret=stored.secret
    )
    assert seat.token == stored.secret and seat.notice is None
    table = OnlineTable(seat, name="Ann")
    app = BlinkApp(table, title="rated")
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: stage(app) in (Stage.COUNTDOWN, Stage.PLAYING, Stage.OVER))
        await play_until_over(pilot, app, 0)
        # The end screen shows the rating change once the server has stored it.
        await wait_for(pilot, lambda: bool(table.status().ratings))
        shown = str(app.table_screen.query_one(StatusLine).render())
    deadline = time.monotonic() + 30
    while (prof := fetch_profile(server_url, stored.id))["games"] < 1:
        assert time.monotonic() < deadline, prof
        time.sleep(0.1)
    assert prof["games"] == 1 and prof["name"] == "Ann"
    (line,) = table.status().ratings
    after = prof["rating"]["ordinal"]
    assert line.seat == 0 and abs(line.after - after) < 1e-9
    assert line.before == 0.0 and abs(line.delta - after) < 1e-9
    sign = "+" if after >= 0 else "−"
    assert (
        f"Rating: You 0.0 → {round(after, 1) + 0.0:.1f} ({sign}{abs(round(after, 1)):.1f})" in shown
    )
    # The terminal's room is private (no --public): a profile's history never publishes its code.
    assert prof["history"][0]["room"] is None
    assert prof["history"][0]["opponents"] == ["bot:expert:first"]


def test_a_refused_secret_falls_back_to_an_anonymous_seat(server_url: str) -> None:
    # A stale secret (the server's database was reset, say): the seat is taken anonymously.
    seat = prepare(server_url, seats=[None, "beginner:first"], profile_secret="stale-secret")
    assert seat.seat == 0 and seat.token and seat.token != "stale-secret"
    assert seat.notice is not None and "anonymously" in seat.notice
    # The same profile twice in one room: the second seat is anonymous.
    made = httpx.post(f"{server_url}/api/profiles", json={"name": "Bo"}, timeout=10).json()
    first = prepare(server_url, name="Bo", profile_secret=made["secret"])
    assert first.token == made["secret"] and first.notice is None
    second = prepare(server_url, join=first.code, name="Bo", profile_secret=made["secret"])
    assert second.seat == 1 and second.token != made["secret"]
    assert second.notice is not None and "already has a seat" in second.notice
    room = httpx.get(f"{server_url}/api/rooms/{first.code}", timeout=10).json()
    assert all(s["taken"] for s in room["seats"])


def test_a_stale_stored_profile_is_replaced_by_profile_name(
    server_url: str, tmp_path: Path
) -> None:
    stale = StoredProfile(profile_store.server_key(server_url), "000000000000", "Old", "gone")
    profile_store.save(stale, tmp_path)
    # Without --profile the stale one is used (and refused at the seat, see above).
    assert resolve_profile(server_url, home=tmp_path)[0] == stale
    fresh, note = resolve_profile(server_url, create="Cy", home=tmp_path)
    assert fresh is not None and fresh.id != stale.id and fresh.name == "Cy"
    assert note is not None and "created" in note
    assert fetch_profile(server_url, fresh.id)["games"] == 0


@pytest.mark.timeout(90)
def test_cli_notice_for_a_stale_profile_is_one_line(server_url: str, tmp_path: Path) -> None:
    # `blink play --server URL --join CODE` with a stale stored profile, in a real process:
    # one notice line on stderr before the full-screen app opens.
    profile_store.save(
        StoredProfile(profile_store.server_key(server_url), "000000000000", "Old", "gone"),
        tmp_path,
    )
    room = httpx.post(f"{server_url}/api/rooms", json={"players": 2}, timeout=10).json()
    env = {**os.environ, "BLINK_HOME": str(tmp_path), "TERM": "dumb"}
    # --lang en: the sentences below are English whatever the machine's language.
    command = ["play", "--lang", "en", "--server", server_url, "--join", room["code"]]
    proc = subprocess.Popen(
        [sys.executable, "-m", "blink.cli", *command],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()  # written before the full-screen app starts
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert first.startswith("blink play: the server refused your profile"), first
    assert "anonymously" in first
    # Conflicting options: one line, exit 2.
    both = ["--profile", "X", "--no-profile"]
    r = subprocess.run(
        [sys.executable, "-m", "blink.cli", "play", "--server", server_url, *both],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
