"""A third-party game, installed from a distribution of its own, is played through every front
end with no change to blink: High Card (``tests/fixtures/highcard``: its own pyproject.toml,
its ``blink.games`` entry point, its bot, terminal client, browser module and PettingZoo
environment).

The distribution is installed with pip into a temporary folder (``--target``, not the
environment's site-packages), from a copy of it (a build writes its metadata beside the
sources). A real ``blink serve`` runs with that folder on its ``PYTHONPATH``, and so does every
other process here: a fresh interpreter's registry finds the game by its entry point; headless
Chromium plays it from the lobby against its bot, by clicking its cards; the terminal client
``blink highcard play`` plays it with its cards on standard input; ``blink simulate --game
highcard`` runs; ``from blink.envs import highcard_v0`` passes PettingZoo's ``api_test``; a
tournament of it (``POST /api/tournaments`` with its ``game``) is played over WebSockets to
its champion.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from axe import describe, violations
from blinkweb import collect_errors
from playwright.sync_api import Browser, expect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from installing import install_into  # noqa: E402
from serve_process import ServeProcess  # noqa: E402

DISTRIBUTION = ROOT / "tests" / "fixtures" / "highcard"

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of every process here: the installed distribution on the path."""
    tmp = tmp_path_factory.mktemp("highcard")
    source = tmp / "source"
    shutil.copytree(
        DISTRIBUTION, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    )
    site = tmp / "site"
    install_into(source, site)
    assert (site / "highcard" / "web" / "main.js").is_file()
    variables = dict(os.environ, CI="true", LANG="C.UTF-8")
    path = [str(site), str(ROOT / "src"), variables.get("PYTHONPATH", "")]
    variables["PYTHONPATH"] = os.pathsep.join(p for p in path if p)
    variables["SITE"] = str(site)
    return variables


@pytest.fixture(scope="module")
def server(env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real ``blink serve`` that has the game installed; its base URL."""
    tmp = tmp_path_factory.mktemp("highcard-server")
    args = ("--no-warm-bots", "--bot-delay", "0.05", "--turn-time", "120", "--creation-rate", "0")
    process = ServeProcess(tmp / "blink.db", *args, env=env).start()
    try:
        yield process.base
    finally:
        process.stop()
    logged = process.stderr()
    assert "Traceback" not in logged and "was refused" not in logged, logged[-3000:]


def _python(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``python ARGS`` with the installed game, bounded in time."""
    return subprocess.run(
        [sys.executable, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=env["SITE"],
    )


REGISTRY = """
import highcard
from blink.model.registry import game, game_names
from blink.server.room_setup import room_games
print(game_names())
print(game("highcard").title("en"), "/", game("highcard").title("es"))
print(highcard.__file__.startswith(__import__("os").environ["SITE"]))
print("highcard" in room_games(), game("highcard").table.bot_names())
"""


def test_a_fresh_interpreter_finds_the_game_by_its_entry_point(env: dict[str, str]) -> None:
    done = _python(env, "-c", REGISTRY)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "('classic', 'goblink', 'highcard')",
        "High Card / Carta alta",
        "True",  # the installed copy, not the checkout's
        "True ['highest']",
    ]


def test_a_browser_plays_it_from_the_lobby_against_its_bot(browser: Browser, server: str) -> None:
    options = httpx.get(f"{server}/api/options", timeout=30).json()
    info = options["game_info"]["highcard"]
    assert info["web"] == "/games/highcard/main.js"
    assert info["pages"] == {"play": "/?hc=", "watch": "/?hcwatch="}
    context = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    try:
        page = context.new_page()
        errors = collect_errors(page)
        failed: list[str] = []
        page.on(
            "response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None
        )
        asked: list[str] = []
        page.on("request", lambda r: asked.append(r.url))
        page.goto(server + "/")
        panel = page.locator("#hc-panel")
        expect(panel.get_by_role("heading", name="High Card")).to_be_visible(timeout=20000)
        panel.get_by_role("button", name="Play against the bot").click()
        expect(page.locator("#hc-table")).to_be_visible(timeout=20000)
        code = page.url.split("?hc=")[1]
        # The room's generic link leads to the game's own page.
        link = httpx.get(f"{server}/play/{code}", timeout=30, follow_redirects=False)
        assert link.is_redirect and link.headers["location"] == f"/?hc={code}", link.headers
        hand = page.locator("#hc-hand")
        expect(hand.get_by_role("button")).to_have_count(3, timeout=20000)
        laid: list[str] = []
        for left in (3, 2, 1):
            expect(hand.get_by_role("button")).to_have_count(left, timeout=20000)
            card = hand.get_by_role("button", name=re.compile(r"^Lay ")).first
            expect(card).to_be_enabled(timeout=20000)  # the bot has laid: our turn again
            laid.append(str(card.get_attribute("data-card")))
            card.click()
        end = page.locator("#hc-end")
        expect(end).to_be_visible(timeout=20000)
        expect(page.locator("#hc-result")).to_have_text(re.compile(r"won|tie"))
        expect(page.locator('#hc-laid li[data-seat="0"]')).to_contain_text("total")
        expect(page.locator('#hc-laid li[data-seat="1"]')).to_contain_text("Highest-card bot")
        record_url = str(end.get_attribute("data-record"))
        assert re.fullmatch(r"/api/games/\w+/record(\?room=\w+)?", record_url), record_url
        # The game's own replay frames, drawn by its module; High Card has no study, so the
        # viewer does not ask for one (/api/options says so).
        end.get_by_role("link", name="Replay").click()
        expect(page.locator('.replay[data-game="highcard"]')).to_be_visible(timeout=20000)
        expect(page.locator("#rp-board .rp-seat")).to_have_count(2)
        assert (
            httpx.get(server + "/api/options", timeout=30).json()["game_info"]["highcard"]["study"]
            is False
        )
        # The viewer decides before it draws the replay, so a request would have gone by now.
        assert not [u for u in asked if re.search(r"/api/games/\w+/study", u)], asked
        assert not failed, failed
        assert not errors, errors
        expect(page.locator("#rp-study")).to_have_count(0)
    finally:
        context.close()
    record = httpx.get(server + record_url, timeout=30).json()
    assert record["game"] == "highcard" and record["result"] is not None
    mine = [a["card"] for a in record["actions"] if a["seat"] == 0]
    assert mine == laid, (mine, laid)
    assert [a["seat"] for a in record["actions"]] == [0, 1, 0, 1, 0, 1]


def test_its_table_speaks_spanish_and_plays_by_keyboard(browser: Browser, server: str) -> None:
    # bypass_csp: the accessibility checker is added to the page as a script of its own.
    context = browser.new_context(
        viewport={"width": 1200, "height": 800}, locale="es-ES", bypass_csp=True
    )
    try:
        page = context.new_page()
        errors = collect_errors(page)
        page.goto(server + "/")
        panel = page.locator("#hc-panel")
        expect(panel.get_by_role("heading", name="Carta alta")).to_be_visible(timeout=20000)
        panel.get_by_role("button", name="Jugar contra el bot").click()
        hand = page.locator("#hc-hand")
        expect(hand.get_by_role("button", name=re.compile(r"^Bajar "))).to_have_count(
            3, timeout=20000
        )
        expect(page.locator("#hc-turn")).to_have_text("Tu turno: baja una carta.", timeout=20000)
        found = violations(page, "#hc-table")
        assert not found, describe(found)
        first = hand.get_by_role("button").first
        first.focus()
        page.keyboard.press("Enter")  # the card in focus
        for left in (2, 1):
            expect(hand.get_by_role("button")).to_have_count(left, timeout=20000)
            expect(first).to_be_enabled(timeout=20000)
            if left == 2:
                expect(first).to_be_focused()  # the focus stays in the hand, turn after turn
                page.keyboard.press("Enter")
            else:
                page.keyboard.press("1")  # the first card of the hand
        expect(page.locator("#hc-result")).to_have_text(
            re.compile(r"Has ganado|Ha ganado|Empate"), timeout=20000
        )
        assert not errors, errors
    finally:
        context.close()


def test_the_terminal_client_plays_it_on_the_server(env: dict[str, str], server: str) -> None:
    done = _python(env, "-m", "blink", "highcard", "play", "--server", server, stdin="1\n1\n1\n")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Room ") and "you are seat 1" in lines[0]
    assert sum(line.startswith("Your hand: ") for line in lines) == 3
    assert re.fullmatch(r"Result: you (won|lost), totals \d+ : \d+\.|Result: a tie, .*", lines[-1])
    bad = _python(
        env, "-m", "blink", "highcard", "play", "--server", server, "--lang", "es", stdin="9\n"
    )
    assert bad.returncode == 2, bad.stdout + bad.stderr
    assert bad.stderr.strip().endswith("no es ni un lugar de tu mano (1 a 3) ni una de sus cartas.")
    assert "Traceback" not in bad.stderr


def test_blink_simulate_plays_it(env: dict[str, str]) -> None:
    done = _python(env, "-m", "blink", "simulate", "--game", "highcard", "--games", "20", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["games"] == 20 and result["players"] == 2
    assert sum(result["wins"]) >= 20  # a tie counts for each winner


ENVIRONMENT = textwrap.dedent(
    """
    from pettingzoo.test import api_test
    from blink.envs import highcard_v0

    api_test(highcard_v0.env(players=3), num_cycles=30)
    env = highcard_v0.env(players=2)
    env.reset(seed=5)
    steps, rewards = 0, {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        rewards[agent] = reward
        action = None if terminated or truncated else env.action_space(agent).sample(
            obs["action_mask"])
        env.step(action)
        steps += action is not None
    print(steps, sorted(rewards.values()) in ([-1.0, 1.0], [0.0, 0.0]))
    """
)


def test_its_pettingzoo_environment_passes_the_api_test(env: dict[str, str]) -> None:
    done = _python(env, "-c", ENVIRONMENT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed API test" in done.stdout
    assert done.stdout.splitlines()[-1] == "6 True"


def _lay_in(server: str, code: str, secret: str, stop: threading.Event) -> None:
    """A tournament player in match room ``code``: lays its first card on each of its turns,
    until the room's series is over, the room is closed or ``stop`` is set."""
    address = server.replace("http", "ws", 1) + f"/ws/{code}"
    with connect(address, open_timeout=30) as ws:
        hello = {"type": "hello", "protocol": 1, "room": code, "token": secret}
        ws.send(json.dumps(hello))
        seat, sent = None, 0
        while not stop.is_set():
            try:
                m = json.loads(ws.recv(timeout=1))
            except TimeoutError:
                continue
            except ConnectionClosed:
                return
            if m["type"] == "welcome":
                seat = m["seat"]
            elif m["type"] == "room" and m["room"]["status"] in ("finished", "closed"):
                return
            elif m["type"] in ("snapshot", "update"):
                view = m["view"]
                if view["current"] == seat and view["hand"]:
                    sent += 1
                    ws.send(json.dumps({"type": "lay", "id": f"t{sent}", "card": view["hand"][0]}))


def test_a_tournament_of_it_is_played_to_its_champion(server: str) -> None:
    def post(path: str, body: dict[str, object], status: int = 200) -> dict[str, Any]:
        r = httpx.post(server + path, json=body, timeout=30)
        assert r.status_code == status, r.text
        out: dict[str, Any] = r.json()
        return out

    players = [post("/api/profiles", {"name": n}, 201) for n in ("Ann", "Bob", "Cy", "Di")]
    made = post("/api/tournaments", {"name": "Cards", "game": "highcard"}, 201)
    tid, org = made["id"], made["organiser_secret"]
    base = f"/api/tournaments/{tid}"
    for p in players:
        post(f"{base}/join", {"profile_secret": p["secret"]})
    post(f"{base}/check-in/open", {"organiser_secret": org})
    for p in players:
        post(f"{base}/check-in", {"profile_secret": p["secret"]})
    assert post(f"{base}/start", {"organiser_secret": org, "seed": 3})["game"] == "highcard"
    secrets = {p["name"]: p["secret"] for p in players}
    stop = threading.Event()
    seats: dict[tuple[str, str], threading.Thread] = {}
    rooms: set[str] = set()
    deadline = time.monotonic() + 150
    try:
        while True:
            state = httpx.get(server + base, timeout=30).json()
            if state["status"] == "finished":
                break
            assert time.monotonic() < deadline, state
            for m in state["tournament"]["matches"]:
                room = state["rooms"].get(m["id"])
                if room is None or m["status"] == "decided":
                    continue
                for name in m["players"]:
                    if name in secrets and (room["code"], name) not in seats:
                        rooms.add(room["code"])
                        seat = threading.Thread(
                            target=_lay_in, args=(server, room["code"], secrets[name], stop)
                        )
                        seats[room["code"], name] = seat
                        seat.start()
            time.sleep(0.2)
    finally:
        stop.set()
        for seat in seats.values():
            seat.join(30)
    tournament = state["tournament"]
    assert tournament["champion"] in secrets
    games = [g for m in tournament["matches"] for g in m["games"]]
    assert len(games) >= 4  # two rounds of best-of-three matches
    for code in rooms:
        room = httpx.get(f"{server}/api/rooms/{code}", timeout=30).json()
        assert room["game"] == "highcard" and room["options"]["tournament"] == tid, room
