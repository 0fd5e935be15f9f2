"""``blink bot play`` against a real server on a free port: a whole rated game against a house
bot, two bot accounts playing each other (one hosts, one joins), a drop resumed with
``last_seq``, the user's own ``plan(view)`` module, and bad input refused with exit 2."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
from srvkit import ServerThread

from blink.cli import botclient

PASSWORD = "correct horse battery"
BLINK = [sys.executable, "-m", "blink.cli"]


def _bot(server: ServerThread, owner: str, name: str) -> dict[str, Any]:
    with httpx.Client(base_url=server.http, timeout=30) as c:
        assert c.post("/api/accounts", json={"name": owner, "password": PASSWORD}).is_success
        made = c.post("/api/bots", json={"name": name})
        assert made.status_code == 201, made.text
        out: dict[str, Any] = made.json()
        return out


def _env(language: str = "en") -> dict[str, str]:
    path = str(Path(botclient.__file__).parents[2])
    return {**os.environ, "PYTHONPATH": path, "LANGUAGE": language}


def _run(*args: str, language: str = "en") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*BLINK, "bot", "play", *args],
        capture_output=True,
        text=True,
        env=_env(language),
        timeout=300,
    )


def test_blink_bot_play_plays_a_rated_game_against_a_house_bot(server: ServerThread) -> None:
    bot = _bot(server, "Ada", "Clank")
    done = _run(
        "--server", server.http, "--token", bot["token"], "--games", "2",
        "--opponent", "inhuman:first", "--strategy", "blocker",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    page = server.get(f"/api/profiles/{bot['id']}").json()
    assert page["games"] >= 1 and page["bot"] is True


def test_two_bot_accounts_play_each_other(server: ServerThread, tmp_path: Path) -> None:
    first, second = _bot(server, "Bea", "Hosty"), _bot(server, "Cy", "Joiny")
    mine = tmp_path / "mybot.py"
    mine.write_text(
        "from blink.games.classic.actions import Choose, Phase, Play\n"
        "def plan(view):\n"
        "    if view.phase is Phase.CHOOSING and view.my_choice is None and view.hand:\n"
        "        return Choose(view.seat, view.hand[0])\n"
        "    for card in view.hand:\n"
        "        for pile, top in enumerate(view.tops):\n"
        "            if top is not None and card.matches(top):\n"
        "                return Play(view.seat, card, pile)\n"
        "    return None\n"
    )
    host = subprocess.Popen(
        [*BLINK, "bot", "play", "--server", server.http, "--token", first["token"], "--host"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    assert host.stdout is not None
    code = host.stdout.readline().strip()
    assert len(code) >= 4, host.stderr.read() if host.stderr else ""
    joined = _run(
        "--server", server.http, "--token", second["token"], "--join", code,
        "--module", str(mine),
    )  # fmt: skip
    assert joined.returncode == 0, joined.stderr
    assert host.wait(timeout=120) == 0
    seats = server.get(f"/api/rooms/{code}").json()["seats"]
    assert [s["name"] for s in seats] == ["Hosty", "Joiny"]
    assert all(s["bot_account"] for s in seats)


async def test_a_drop_is_resumed(server: ServerThread) -> None:
    bot = _bot(server, "Dee", "Phoenix")
    code = await botclient.open_room(server.http, bot["token"], "inhuman:first", None, False)
    player = botclient.new_seat(botclient.house_policy("first"), 1)
    sockets: list[Any] = []
    dropped = asyncio.Event()

    def on_connect(ws: Any) -> None:
        sockets.append(ws)

    async def drop() -> None:
        while player.seq < 5:
            await asyncio.sleep(0.01)
        resumed_from = player.seq
        await sockets[0].close()  # the client's socket dies mid-game
        dropped.set()
        assert resumed_from > 0

    dropper = asyncio.create_task(drop())
    await asyncio.wait_for(
        botclient.play_room(server.http, bot["token"], code, player, on_connect), 120
    )
    await dropper
    assert dropped.is_set() and len(sockets) >= 2 and player.ended == 1


def test_two_bots_in_the_arena_play_each_other_game_after_game(server: ServerThread) -> None:
    first, second = _bot(server, "Eve", "Arenaone"), _bot(server, "Fay", "Arenatwo")
    runs = [
        subprocess.Popen(
            [*BLINK, "bot", "play", "--server", server.http, "--token", bot["token"],
             "--arena", "--games", "2", "--strategy", "blocker"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
        )
        for bot in (first, second)
    ]  # fmt: skip
    outs = [r.communicate(timeout=240) for r in runs]
    assert [r.returncode for r in runs] == [0, 0], outs
    codes = [out.split() for out, _ in outs]
    assert codes[0] == codes[1] and len(set(codes[0])) == 2  # two rooms, the same two
    assert all("played 2 games" in err for _, err in outs)
    ladder = server.get("/api/leaderboard?ladder=bots").json()
    lines = {p["id"]: p for p in [*ladder["players"], *ladder["provisional"]]}
    assert {first["id"], second["id"]} <= set(lines)
    assert all(lines[b["id"]]["games"] == 2 for b in (first, second))
    for bot in (first, second):
        page = server.get(f"/api/profiles/{bot['id']}").json()
        assert page["bot"] is True and page["games"] == 2
        games = server.get(f"/api/profiles/{bot['name']}/games").json()
        assert len(games["games"]) == 2
        # What the bot's page (/@/NAME) shows: its two rated games and its owner.
        figures = server.get(f"/api/profiles/{bot['name']}/figures").json()
        assert figures["games"] == 2 and len(figures["rating_history"]) == 3
        assert figures["bot"] is True and figures["owner"] in ("Eve", "Fay")


def test_bad_input_exits_2_with_one_sentence(server: ServerThread, tmp_path: Path) -> None:
    cases = [
        ["--server", "nowhere", "--token", "t"],
        ["--server", server.http, "--token", "t", "--strategy", "nope"],
        ["--server", server.http, "--token", "t", "--module", str(tmp_path / "none.py")],
        ["--server", server.http, "--token", "not-a-token", "--opponent", "expert"],
    ]
    for args in cases:
        done = _run(*args)
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("blink bot play: "), done.stderr


def test_its_messages_are_in_spanish_too(server: ServerThread, tmp_path: Path) -> None:
    cases = [
        (["--server", "nowhere", "--token", "t"], "--server debe ser una dirección"),
        (["--server", server.http, "--token", "t", "--games", "0"], "--games debe ser 1 o más"),
        (
            ["--server", server.http, "--token", "t", "--module", str(tmp_path / "none.py")],
            "no existe el archivo",
        ),
        (["--server", server.http, "--token", "t", "--host", "--arena"], "indica solo uno de"),
    ]
    for args, words in cases:
        for done in (_run(*args, language="es"), _run(*args, "--lang", "es")):
            assert done.returncode == 2, (args, done.stderr)
            assert done.stderr.startswith(f"blink bot play: {words}"), done.stderr
    bot = _bot(server, "Gus", "Hablador")
    done = _run(
        "--server", server.http, "--token", bot["token"], "--opponent", "inhuman:first",
        language="es",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "se jugó 1 partida"
