"""``blink leaderboard --server URL`` against a real server (uvicorn in a thread, SQLite file)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.server.srvkit import Client, ServerThread, fast_settings, free_port, play_series
from typer.testing import CliRunner

from blink.cli import app
from blink.ratings import bot_rating

runner = CliRunner()


def blink(*args: str) -> tuple[int, str, str]:
    r = runner.invoke(app, list(args))
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("board") / "blink.db"
    s = ServerThread(fast_settings(f"sqlite:///{db}"))
    s.start()
    yield s
    s.stop()


def _rated_game(server: ServerThread, name: str) -> dict[str, Any]:
    """A profile plays a quick series against a bot (a client bot drives the seat): one game,
    or more when a game is tied (``played``: how many, each rated)."""
    prof = server.post("/api/profiles", {"name": name}).json()
    body = server.post(
        "/api/quick", {"bot": "beginner:first@40", "name": name, "profile_secret": prof["secret"]}
    ).json()

    async def play() -> int:
        c = await Client(name).connect(server.ws, room=body["code"], token=body["token"])
        played = len(await asyncio.wait_for(play_series([c]), 120))
        await c.close()
        return played

    played = asyncio.run(play())
    deadline = time.monotonic() + 30
    while server.get(f"/api/profiles/{prof['id']}").json()["games"] < played:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    return {**prof, "played": played}


def test_server_leaderboard_json_and_table(server: ServerThread) -> None:
    ann = _rated_game(server, "Ann")
    server.post("/api/profiles", {"name": "[b]Newbie"})  # no games yet; markup-like name
    code, out, err = blink("leaderboard", "--server", server.http, "--json")
    assert code == 0, err
    rows = json.loads(out)
    players = [r for r in rows if not r["bot"] and not r["provisional"]]
    bots = [r for r in rows if r["bot"]]
    by_rank = sorted(players, key=lambda p: p["rank"])
    assert by_rank == sorted(players, key=lambda p: -p["rating"])
    (a,) = [p for p in players if p["name"] == "Ann"]
    assert a["id"] == ann["id"] and a["games"] == ann["played"] and a["wins"] in (0, 1)
    assert {p["rank"] for p in players} == {1}
    assert {b["name"] for b in bots} >= {"bot beginner", "bot inhuman"}
    assert all(b["rank"] is None for b in bots)
    inhuman = next(b for b in bots if b["name"] == "bot inhuman")
    assert inhuman["rating"] == round(bot_rating("inhuman").ordinal, 2)
    # Best first, players and bots together; then the profile with no rated game, unranked.
    ranked = rows[:-1]
    assert [r["rating"] for r in ranked] == sorted((r["rating"] for r in ranked), reverse=True)
    assert rows[-1]["name"] == "[b]Newbie" and rows[-1]["provisional"] and rows[-1]["rank"] is None

    code, out, err = blink("leaderboard", "--server", server.http)
    assert code == 0, err
    assert "Leaderboard" in out and "Ann" in out and "[b]Newbie" in out
    assert "bot inhuman" in out and "bot" in out.split("bot inhuman")[0].splitlines()[-1]
    # --top limits the players asked for.
    code, out, _ = blink("leaderboard", "--server", server.http, "--top", "1", "--json")
    assert code == 0 and len([r for r in json.loads(out) if not r["bot"]]) == 1


def test_unreachable_server_is_one_line_and_exit_2(tmp_path: Path) -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    for args in (
        ["--server", closed],
        ["--server", closed, "--json"],
        [],
        ["--server", closed, "--ratings", str(tmp_path / "r.json")],
    ):
        code, out, err = blink("leaderboard", *args)
        assert code == 2, args
        lines = err.strip().splitlines()
        assert len(lines) == 1, (args, err)
        assert "Traceback" not in err and out == ""
    code, _, err = blink("leaderboard", "--server", closed)
    assert "cannot reach the server at 127.0.0.1:" in err


def test_a_path_that_is_not_a_blink_server(server: ServerThread) -> None:
    code, _, err = blink("leaderboard", "--server", server.http + "/nothing-here")
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_blink_profile_shows_the_stored_profile(
    server: ServerThread, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from blink import profile_store

    monkeypatch.setenv("BLINK_HOME", str(tmp_path))
    code, _, err = blink("profile", "--server", server.http)
    assert code == 2 and "--profile NAME" in err and len(err.strip().splitlines()) == 1
    bo = _rated_game(server, "Bo")
    key = profile_store.server_key(server.http)
    profile_store.save(profile_store.StoredProfile(key, bo["id"], "Bo", bo["secret"]))
    code, out, err = blink("profile", "--server", server.http, "--json")
    assert code == 0, err
    data = json.loads(out)
    played = bo["played"]
    assert data["id"] == bo["id"] and data["games"] == played and len(data["history"]) == played
    assert "secret" not in out
    code, out, err = blink("profile", "--server", server.http)
    assert code == 0, err
    games = "1 rated game," if played == 1 else f"{played} rated games,"
    assert "Bo" in out and games in out and "Last rated games" in out
    assert "Daily challenge: 0 days won in a row (best 0)" in out
    assert data["daily_streak"] == {"current": 0, "best": 0}
    # A profile the server does not know (its database was reset): one line, exit 2.
    profile_store.save(profile_store.StoredProfile(key, "000000000000", "Old", "x"))
    code, _, err = blink("profile", "--server", server.http)
    assert code == 2 and "no profile" in err and len(err.strip().splitlines()) == 1
