"""The OpenSpiel game type of a registered game: what every game's OpenSpiel module shares.

Both games are games of chance dealt explicitly, with hidden hands, general-sum and rewarded
at the end, and their player counts are their definitions' (``get_game(name).info``), never
restated here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyspiel

from blink.model.registry import get_game

__all__ = ["game_type"]


def game_type(
    game: str,
    short_name: str,
    long_name: str,
    parameters: Mapping[str, Any],
    *,
    sequential: bool,
    information_state: bool,
) -> Any:
    """The ``pyspiel.GameType`` of registered game ``game`` under OpenSpiel name ``short_name``:
    sequential or simultaneous, with or without an information state (string and tensor),
    always with an observation string and tensor, and ``parameters`` as its defaults."""
    info = get_game(game).info
    dynamics = pyspiel.GameType.Dynamics
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=dynamics.SEQUENTIAL if sequential else dynamics.SIMULTANEOUS,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=info.max_players,
        min_num_players=info.min_players,
        provides_information_state_string=information_state,
        provides_information_state_tensor=information_state,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(parameters),
    )
