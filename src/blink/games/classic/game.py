"""Classic Blink's :class:`~blink.model.game.Game`: the entry the ``blink.games`` entry-point
group names (``classic = "blink.games.classic.game:GAME"`` in pyproject.toml).

Every part is named by its module, imported the first time it is asked for: importing this
module imports none of the game's engine.
"""

from __future__ import annotations

from typing import Final

from blink.model.game import FrontEnd, Game

__all__ = ["GAME"]

GAME: Final = Game(
    "classic",
    "blink.games.classic.definition:CLASSIC",
    table="blink.games.classic.table:TABLE",
    study="blink.games.classic.study:study",
    deals="blink.games.classic.definition:DEALS",
    titles={"en": "Classic Blink", "es": "Blink clásico"},
    front=FrontEnd(
        commands="blink.games.classic.cli",
        env="blink.games.classic.envs.classic_v0",
        env_name="classic_v0",
        gym_id="blink/Classic-v0",
        gym_entry_point="blink.games.classic.envs.single:ClassicSingle",
        gym_vector_entry_point="blink.games.classic.envs.vector:ClassicVector",
        spiel="blink.games.classic.envs.spiel",
        spiel_name="python_blink_classic",
    ),
)
"""Classic Blink (get it through :func:`blink.model.registry.game`)."""
