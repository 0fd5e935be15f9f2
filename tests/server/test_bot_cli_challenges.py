"""``blink bot play --challenge NAME`` and ``--accept-challenges`` as real processes against a
real server: one bot challenges, the other accepts as challenges come, and both play every
game and exit 0; a declined or expired challenge ends the challenger with exit 2 and one
sentence (in Spanish too); the two options are refused beside another way to play; a
person's room that did not admit bots refuses ``--join``."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from typing import Any

import httpx
from srvkit import ServerThread
from test_bot_cli import BLINK, _bot, _env, _run
from test_challenges import VirtualClock

from blink.server.challenges import EXPIRY


def _start(server: ServerThread, token: str, *args: str, lang: str = "en") -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*BLINK, "bot", "play", "--server", server.http, "--token", token, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(lang),
    )


def _incoming(server: ServerThread, token: str) -> list[dict[str, Any]]:
    """The bot's open challenges, once one has come (polled on the real clock: the process
    sends it when it is ready, whatever the machine's speed)."""
    headers = {"Authorization": f"Bearer {token}"}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        mine = httpx.get(f"{server.http}/api/challenges", headers=headers, timeout=30).json()
        found = [c for c in mine["incoming"] if c["status"] == "open"]
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError("no challenge came")


def test_a_challenger_and_an_accepter_play_every_game(server: ServerThread) -> None:
    host, guest = _bot(server, "Ada", "Clank"), _bot(server, "Bea", "Rivet")
    accepter = _start(server, guest["token"], "--accept-challenges", "--games", "2")
    challenger = _start(
        server, host["token"], "--challenge", "rivet", "--games", "2", "--strategy", "blocker"
    )
    outs = [p.communicate(timeout=240) for p in (challenger, accepter)]
    assert [challenger.returncode, accepter.returncode] == [0, 0], outs
    codes = [out.split() for out, _ in outs]
    assert codes[0] == codes[1] and len(set(codes[0])) == 2, outs  # two rooms, the same two
    assert all("played 2 games" in err for _, err in outs), outs
    for code in codes[0]:
        seats = server.get(f"/api/rooms/{code}").json()["seats"]
        assert [s["name"] for s in seats] == ["Clank", "Rivet"]
        games = server.get(f"/api/games?room={code}").json()["games"]
        assert len(games) == 1 and all(p["bot_account"] for p in games[0]["players"])


def test_a_declined_challenge_ends_the_challenger(server: ServerThread) -> None:
    host, guest = _bot(server, "Ada", "Clank"), _bot(server, "Bea", "Rivet")
    for lang, words in (("en", "the challenge to Rivet was declined"), ("es", "Rivet rechazó")):
        challenger = _start(server, host["token"], "--challenge", "Rivet", lang=lang)
        (sent,) = _incoming(server, guest["token"])
        r = httpx.post(
            f"{server.http}/api/challenges/{sent['id']}/decline",
            headers={"Authorization": f"Bearer {guest['token']}"},
            timeout=30,
        )
        assert r.status_code == 200, r.text
        _out, err = challenger.communicate(timeout=120)
        assert challenger.returncode == 2, err
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("blink bot play: "), err
        assert words in lines[0], err


def test_an_expired_challenge_ends_the_challenger(
    make_server: Callable[..., ServerThread],
) -> None:
    clock = VirtualClock()
    server = make_server(wall_clock=clock)
    host, guest = _bot(server, "Ada", "Clank"), _bot(server, "Bea", "Rivet")
    challenger = _start(server, host["token"], "--challenge", "Rivet")
    _incoming(server, guest["token"])
    clock.now += EXPIRY
    _out, err = challenger.communicate(timeout=120)
    assert challenger.returncode == 2, err
    assert "the challenge to Rivet expired before it was accepted" in err, err


def test_the_options_go_alone(server: ServerThread) -> None:
    for args in (
        ["--challenge", "Rivet", "--arena"],
        ["--accept-challenges", "--host"],
        ["--accept-challenges", "--challenge", "Rivet"],
    ):
        done = _run("--server", server.http, "--token", "t", *args)
        assert done.returncode == 2, (args, done.stderr)
        assert "give --challenge or --accept-challenges alone" in done.stderr, done.stderr
    unknown = _run("--server", server.http, "--token", "t", "--challenge", "Rivet")
    assert unknown.returncode == 2 and "bad_bot_token" in unknown.stderr, unknown.stderr


def test_a_bot_cannot_join_a_persons_room_that_did_not_admit_bots(server: ServerThread) -> None:
    bot = _bot(server, "Ada", "Clank")
    closed = server.post("/api/rooms", {"players": 2, "name": "Ann"}).json()["code"]
    done = _run("--server", server.http, "--token", bot["token"], "--join", closed)
    assert done.returncode == 2 and "(bots_not_admitted)" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
