"""The server loads Go Blink's master bot's compiled search when it starts, in a worker thread
(``Settings.warm_bots``), so that a live table's first searched decision does not wait for
numba (half a minute on a machine whose cache is empty). Checked in a fresh interpreter, where
nothing else has loaded the search: the app's start-up is run, and its warm-up awaited. A game
without a live table (the tests' High Card, registered without one) has no bots to load, and
its warm-up is no error. The compiling itself is done in a child process, which writes numba's
cache, so the server's own interpreter never compiles (it would hold the interpreter's lock
for half a minute while tables are served): checked with an empty cache, counting numba's
compile events in the server's process."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from serve_process import ServeProcess

GAMES = Path(__file__).resolve().parents[1] / "fixtures" / "highcard"
"""Where the tests' High Card is (its distribution, not installed: its package alone)."""

PROBE = """
import asyncio, logging, sys
sys.path.insert(0, sys.argv[3])
from highcard import high_card_game
from blink.model.registry import register
from blink.server.app import create_app, lifespan
from blink.server.settings import Settings

logging.basicConfig(level=logging.WARNING)
register(high_card_game())  # no live table

async def main(warm):
    from numba.core import event

    app = create_app(Settings(database_url=sys.argv[1], web_dir=None, warm_bots=warm))
    with event.install_recorder("numba:compile") as compiled:
        async with lifespan(app):
            warmed = app.state.bots_warmed
            if warmed is not None:
                await asyncio.wait_for(warmed, 600)
            master = sys.modules.get("blink.games.goblink.fast.master")
            loaded = master is not None and bool(getattr(master.decide, "signatures", ()))
    print("COMPILED HERE", sum(1 for _, e in compiled.buffer if e.is_start))
    print("LOADED", loaded)

asyncio.run(main(sys.argv[2] == "on"))
"""


def _start(tmp_path: Path, warm: str, env: dict[str, str] | None = None) -> list[str]:
    """Run the app's start-up in a fresh interpreter: its last lines."""
    url = f"sqlite:///{tmp_path / 'blink.db'}"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, url, warm, str(GAMES)],
        capture_output=True,
        text=True,
        timeout=800,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "could not be loaded ahead" not in done.stderr, done.stderr[-3000:]
    assert "could not be compiled apart" not in done.stderr, done.stderr[-3000:]
    return done.stdout.splitlines()[-2:]


@pytest.mark.timeout(900)
@pytest.mark.parametrize("warm", ["on", "off"])
def test_the_master_bots_search_is_loaded_at_start(tmp_path: Path, warm: str) -> None:
    compiled, loaded = _start(tmp_path, warm)
    assert loaded == ("LOADED True" if warm == "on" else "LOADED False")
    assert compiled == "COMPILED HERE 0"


@pytest.mark.timeout(900)
def test_an_empty_cache_is_filled_by_a_child_process_not_the_server(tmp_path: Path) -> None:
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    compiled, loaded = _start(tmp_path, "on", env)
    assert loaded == "LOADED True"
    assert compiled == "COMPILED HERE 0"  # every search came from the cache the child wrote
    assert any(cache.rglob("*.nbi")), "the child wrote no cache"


@pytest.mark.timeout(900)
def test_blink_serve_compiles_apart(tmp_path: Path) -> None:
    # The real command (`python -m blink serve`): its compiler, a spawned process, loads the
    # bots from the default cache (warm by now), and the server loads them after it.
    server = ServeProcess(
        tmp_path / "blink.db", "--log-level", "info", env={"BLINK_WARM_BOTS": "1"}
    ).start()
    try:
        deadline = time.monotonic() + 600
        while "the bots are ready" not in server.stderr():
            assert server.proc is not None and server.proc.poll() is None, server.stderr()
            assert time.monotonic() < deadline, server.stderr()[-3000:]
            time.sleep(0.2)
        assert "could not be compiled apart" not in server.stderr(), server.stderr()[-3000:]
        assert "Traceback" not in server.stderr(), server.stderr()[-3000:]
        assert server.get("/api/health").status_code == 200
    finally:
        server.stop()
