"""The server loads Go Blink's master bot's compiled search when it starts, in a worker thread
(``Settings.warm_bots``), so that a live table's first searched decision does not wait for
numba (half a minute on a machine whose cache is empty). Checked in a fresh interpreter, where
nothing else has loaded the search: the app's start-up is run, and its warm-up awaited. A game
without a live table (the tests' High Card, registered without one) has no bots to load, and
its warm-up is no error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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
    app = create_app(Settings(database_url=sys.argv[1], web_dir=None, warm_bots=warm))
    async with lifespan(app):
        warmed = app.state.bots_warmed
        if warmed is not None:
            await asyncio.wait_for(warmed, 600)
        master = sys.modules.get("blink.games.goblink.fast.master")
        loaded = master is not None and bool(getattr(master.decide, "signatures", ()))
        print("LOADED", loaded)

asyncio.run(main(sys.argv[2] == "on"))
"""


@pytest.mark.timeout(900)
@pytest.mark.parametrize("warm", ["on", "off"])
def test_the_master_bots_search_is_loaded_at_start(tmp_path: Path, warm: str) -> None:
    url = f"sqlite:///{tmp_path / 'blink.db'}"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, url, warm, str(GAMES)],
        capture_output=True,
        text=True,
        timeout=800,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "could not be loaded ahead" not in done.stderr, done.stderr[-3000:]
    assert done.stdout.splitlines()[-1] == ("LOADED True" if warm == "on" else "LOADED False")
