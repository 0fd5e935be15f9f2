"""Go Blink's :class:`~blink.model.game.Game`: the entry the ``blink.games`` entry-point group
names (``goblink = "blink.games.goblink.game:GAME"`` in pyproject.toml).

Every part is named by its module, imported the first time it is asked for: importing this
module imports none of the game's engine.
"""

from __future__ import annotations

from typing import Final

from blink.model.game import FrontEnd, Game

__all__ = ["GAME"]

GAME: Final = Game(
    "goblink",
    "blink.games.goblink.definition:GOBLINK",
    table="blink.games.goblink.table:TABLE",
    study="blink.games.goblink.study:study",
    titles={"en": "Go Blink", "es": "Go Blink"},
    front=FrontEnd(
        commands="blink.games.goblink.cli",
        web="blink.games.goblink",
        pages=("/?go=", "/?gowatch="),
        env="blink.games.goblink.envs.goblink_v0",
        env_name="goblink_v0",
        gym_id="blink/GoBlink-v0",
        gym_entry_point="blink.games.goblink.envs.single:GoBlinkSingle",
        gym_vector_entry_point="blink.games.goblink.envs.vector:GoBlinkVector",
        spiel="blink.games.goblink.envs.spiel",
        spiel_name="python_go_blink",
    ),
)
"""Go Blink (get it through :func:`blink.model.registry.game`)."""
