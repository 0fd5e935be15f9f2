"""blink.envs finds every game's environments through the registry (FrontEnd), lazily."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys

import pytest

gymnasium = pytest.importorskip("gymnasium", reason="the envs extra: pip install -e '.[envs]'")
pytest.importorskip("pettingzoo", reason="the envs extra: pip install -e '.[envs]'")

from highcard import high_card_game  # noqa: E402

import blink.envs  # noqa: E402
from blink.model.registry import FrontEnd, front_end, front_ends, register, unregister  # noqa: E402


def test_both_games_have_environments() -> None:
    assert blink.envs.environments() == {
        "classic_v0": "blink.games.classic.envs.classic_v0",
        "goblink_v0": "blink.games.goblink.envs.goblink_v0",
    }
    assert front_end("classic").gym_id == "blink/Classic-v0"
    assert front_end("goblink").gym_id == "blink/GoBlink-v0"


@pytest.mark.parametrize("name", ["classic", "goblink"])
def test_a_game_s_entries_name_its_modules(name: str) -> None:
    front = front_end(name)
    assert front.env is not None and front.env_name is not None
    module = getattr(blink.envs, front.env_name)
    assert module is importlib.import_module(front.env)
    assert module.raw_env.metadata["name"] == front.env_name
    assert callable(module.env)
    assert gymnasium.spec(front.gym_id).entry_point == front.gym_entry_point
    module_name, _, cls = str(front.gym_entry_point).partition(":")
    assert issubclass(getattr(importlib.import_module(module_name), cls), gymnasium.Env)


def test_the_public_names() -> None:
    from blink.envs import classic_v0, goblink_v0

    assert classic_v0.__name__ == "blink.games.classic.envs.classic_v0"
    assert goblink_v0.__name__ == "blink.games.goblink.envs.goblink_v0"
    assert {"classic_v0", "goblink_v0", "environments"} <= set(blink.envs.__all__)
    assert {"classic_v0", "goblink_v0", "register_gym_ids"} <= set(dir(blink.envs))
    with pytest.raises(AttributeError, match="no attribute 'chess_v0'"):
        blink.envs.chess_v0  # noqa: B018
    with pytest.raises(ImportError):
        from blink.envs import chess_v0  # noqa: F401


def test_importing_registers_the_ids_and_imports_no_environment() -> None:
    code = (
        "import sys, gymnasium, blink.envs\n"
        "print(sorted(i for i in gymnasium.registry if i.startswith('blink/')))\n"
        "print(sorted(m for m in sys.modules if m.startswith('blink.games')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.splitlines()
    assert out[0] == "['blink/Classic-v0', 'blink/GoBlink-v0']"
    # Only each game's entry (its Game, which names its parts by module) is imported.
    loaded = set(ast.literal_eval(out[1]))
    assert loaded == {
        "blink.games",
        "blink.games.classic",
        "blink.games.classic.game",
        "blink.games.goblink",
        "blink.games.goblink.game",
    }


def test_a_registered_game_s_environments_are_found() -> None:
    front = FrontEnd(
        env="blink.games.classic.envs.classic_v0",
        env_name="highcard_v0",
        gym_id="blink/HighCardTest-v0",
        gym_entry_point="blink.games.classic.envs.single:ClassicSingle",
    )
    register(high_card_game(front=front))
    try:
        assert front_ends()["highcard"] == front
        assert blink.envs.environments()["highcard_v0"] == front.env
        assert "highcard_v0" in dir(blink.envs)
        assert "blink/HighCardTest-v0" in blink.envs.register_gym_ids()
        assert gymnasium.spec("blink/HighCardTest-v0").entry_point == front.gym_entry_point
    finally:
        unregister("highcard")
        gymnasium.registry.pop("blink/HighCardTest-v0", None)
    assert "highcard" not in front_ends()
