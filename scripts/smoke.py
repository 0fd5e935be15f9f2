"""A quick check that an installed blink works: import it, create the server app, serve it,
play a whole game in it, and open the terminal client.

Run by scripts/lowest on the lowest versions of the dependencies that pyproject.toml allows
(and usable on any install): ``python scripts/smoke.py``. It prints one line a step and exits
0, or stops at the first failure with its traceback.

1. ``blink --version`` and ``blink db migrate`` (Typer, SQLAlchemy, Alembic) on a new file;
2. ``create_app()`` served by uvicorn on a free port in this process: the page, the health
   check and the API docs (FastAPI, Starlette, Pydantic, fastapi-offline);
3. a room of two bots, watched over the WebSocket (the websockets client the terminal uses,
   websockets.asyncio) to its game's end, and its record fetched (httpx) and verified
   (msgspec);
4. every game played out in this process through its rules engine;
5. the terminal client (Textual) against a bot, headless, until the cards are dealt.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

TIMEOUT = 120.0


def step(text: str) -> None:
    """Say what was checked."""
    print(f"smoke: {text}", flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def check_commands(folder: Path) -> None:
    from typer.testing import CliRunner

    import blink
    from blink.cli import app

    runner = CliRunner()
    version = runner.invoke(app, ["--version"])
    assert version.exit_code == 0 and blink.__version__ in version.stdout, version.output
    db = folder / "migrated.db"
    migrated = runner.invoke(app, ["db", "migrate", "--db", str(db)])
    assert migrated.exit_code == 0 and "migrated" in migrated.stdout, migrated.output
    step(f"blink {blink.__version__} from {Path(blink.__file__).parent}; blink db migrate")


class Served:
    """The app of ``create_app()`` served by uvicorn in a thread."""

    def __init__(self, database: Path) -> None:
        import uvicorn

        from blink.server.app import create_app
        from blink.server.direct import WS_IMPL
        from blink.server.settings import Settings, sqlite_url

        settings = Settings(
            database_url=sqlite_url(database),
            countdown=0.05,
            stall_pause=0.05,
            between_games=0.05,
            deal_seed=7,
        )
        self.port = free_port()
        config = uvicorn.Config(
            create_app(settings),
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            ws=WS_IMPL,  # as blink serve runs it
            ws_per_message_deflate=False,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Served:
        self.thread.start()
        deadline = time.monotonic() + TIMEOUT
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *_: object) -> None:
        self.server.should_exit = True
        self.thread.join(TIMEOUT)

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def check_pages(served: Served) -> None:
    import httpx

    page = httpx.get(served.http + "/", timeout=TIMEOUT)
    assert page.status_code == 200 and "<html" in page.text.lower(), page.status_code
    assert httpx.get(served.http + "/api/health", timeout=TIMEOUT).status_code == 200
    assert httpx.get(served.http + "/docs", timeout=TIMEOUT).status_code == 200
    step("create_app() serves the page, /api/health and /docs")


async def watch_to_the_end(ws_url: str, code: str) -> dict[str, Any]:
    """Watch room ``code`` over its WebSocket until a game ends; the game_end frame."""
    from websockets.asyncio.client import connect

    async with connect(f"{ws_url}/{code}", max_size=None, open_timeout=TIMEOUT) as ws:
        hello = {"type": "hello", "protocol": 1, "room": code, "spectate": True}
        await ws.send(json.dumps(hello))
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
            if frame.get("type") == "game_end":
                return dict(frame)
            if frame.get("type") == "error":
                raise RuntimeError(f"the server refused the spectator: {frame}")


def check_a_served_game(served: Served) -> None:
    import httpx

    from blink.games.classic.record import GameRecord
    from blink.model.records import SeriesRecord

    made = httpx.post(
        served.http + "/api/rooms",
        json={"players": 2, "seats": ["casual:first@40", "skilled:flexible@40"], "take_seat": None},
        timeout=TIMEOUT,
    )
    assert made.status_code == 201, made.text
    code = made.json()["code"]
    ws_url = served.http.replace("http://", "ws://") + "/ws"
    end = asyncio.run(watch_to_the_end(ws_url, code))
    record = httpx.get(served.http + end["record_url"], timeout=TIMEOUT).json()
    if "games" in record:
        games = SeriesRecord.from_dict(record).games
    else:
        games = [GameRecord.from_dict(record)]
    for game in games:
        game.verify()
    step(f"a game of two bots played in room {code} over the WebSocket, its record verified")


def check_every_game_in_process() -> None:
    import random

    from blink.model.registry import game_names, get_game
    from blink.sim.generic import RandomAgent, play_out

    for name in game_names():
        game = get_game(name)
        players = game.info.default_players
        state = game.new(players, seed=3)
        agents = {seat: RandomAgent(random.Random(seat)) for seat in range(players)}
        run = play_out(game, state, agents, rng=random.Random(3))
        assert run.state.over and run.actions > 0
        step(f"{name} played out in this process through its rules engine ({run.actions} actions)")


async def check_terminal() -> None:
    from blink.games.classic.bots import BotSpec
    from blink.games.classic.tui.app import BlinkApp
    from blink.games.classic.tui.table import LocalTable

    table = LocalTable(players=2, humans=(0,), bots={1: BotSpec("expert", "blocker")}, seed=1)
    app = BlinkApp(table, title="smoke")
    async with app.run_test() as pilot:
        deadline = time.monotonic() + TIMEOUT
        while table.game is None:
            if time.monotonic() > deadline:
                raise RuntimeError("the terminal client dealt no cards")
            await pilot.pause(0.05)
        await pilot.press("ctrl+q")
    step("the terminal client (Textual) dealt a game against a bot")


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="blink-smoke-") as tmp:
        folder = Path(tmp)
        check_commands(folder)
        with Served(folder / "served.db") as served:
            check_pages(served)
            check_a_served_game(served)
        check_every_game_in_process()
        asyncio.run(check_terminal())
    step("all good")
    return 0


if __name__ == "__main__":
    sys.exit(main())
