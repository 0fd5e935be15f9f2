"""Every game as an OpenSpiel game (``pip install "blink[envs]"``): importing this module
registers them with ``pyspiel.register_game``.

::

    import pyspiel
    import blink.envs.spiel
    game = pyspiel.load_game("python_go_blink", {"players": 4})

Each game's OpenSpiel game is in its own package; the registry names its module and its
OpenSpiel name (:class:`blink.model.registry.FrontEnd`: ``spiel``, ``spiel_name``). The module
offers ``GAME_TYPE`` and ``GAME_CLASS``, registered here. See docs/envs.md.
"""

from __future__ import annotations

import importlib

import pyspiel

from blink.model.registry import front_ends

__all__ = ["register_spiel_games", "spiel_games"]


def spiel_games() -> dict[str, str]:
    """Every registered game's OpenSpiel game: its OpenSpiel name and its module."""
    return {
        f.spiel_name: f.spiel
        for f in front_ends().values()
        if f.spiel is not None and f.spiel_name is not None
    }


def register_spiel_games() -> list[str]:
    """Register with OpenSpiel every registered game's OpenSpiel game not registered yet (done
    on import; again after registering a game); their OpenSpiel names, registered or not."""
    known = set(pyspiel.registered_names())
    for name, module_name in spiel_games().items():
        if name in known:
            continue
        module = importlib.import_module(module_name)
        game_type = module.GAME_TYPE
        if game_type.short_name != name:
            raise ValueError(f"{module_name} registers {game_type.short_name!r}, not {name!r}")
        pyspiel.register_game(game_type, module.GAME_CLASS)
    return list(spiel_games())


register_spiel_games()
