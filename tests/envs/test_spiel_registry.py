"""blink.envs.spiel registers every game's OpenSpiel game from the registry (FrontEnd)."""

from __future__ import annotations

import subprocess
import sys

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the envs extra: pip install -e '.[envs]'")

from highcard import high_card_game  # noqa: E402

import blink.envs.spiel  # noqa: E402
from blink.model.registry import FrontEnd, front_ends, register, unregister  # noqa: E402


def test_every_game_with_one() -> None:
    assert blink.envs.spiel.spiel_games() == {
        "python_blink_classic": "blink.games.classic.envs.spiel",
        "python_go_blink": "blink.games.goblink.envs.spiel",
    }
    names = set(pyspiel.registered_names())
    assert {"python_blink_classic", "python_go_blink"} <= names


def test_importing_registers_them() -> None:
    code = (
        "import pyspiel, blink.envs.spiel\n"
        "print(sorted(n for n in pyspiel.registered_names() if n.startswith('python_')"
        " and 'blink' in n))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "['python_blink_classic', 'python_go_blink']"


def test_a_module_must_register_the_name_the_registry_gives() -> None:
    front = FrontEnd(spiel="blink.games.goblink.envs.spiel", spiel_name="python_high_card")
    register(high_card_game(front=front))
    try:
        assert front_ends()["highcard"] == front
        with pytest.raises(ValueError, match="registers 'python_go_blink'"):
            blink.envs.spiel.register_spiel_games()
    finally:
        unregister("highcard")
    assert "python_high_card" not in blink.envs.spiel.register_spiel_games()
