"""The OpenSpiel game type of a registered game: what every game's OpenSpiel module shares.

Both games are games of chance dealt explicitly, with hidden hands, rewarded at the end
(+1 for a sole winner, 0 for winners who share, -1 for the others), and their player counts are
their definitions' (``get_game(name).info``), never restated here. Those rewards sum to 0 with
two players (a win and a loss, or a shared result) and not with more (one +1, several -1): a
game made for two players is ``ZERO_SUM`` (:func:`for_players`), else ``GENERAL_SUM``, the
registered type's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyspiel

from blink.model.registry import get_game

__all__ = ["for_players", "game_type", "utility_sum"]


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


def for_players(registered: Any, players: int) -> Any:
    """The type of a game made for ``players``: ``registered`` (``GENERAL_SUM``), or the same
    type with ``ZERO_SUM`` utility for two players (their rewards always sum to 0)."""
    if players != 2:
        return registered
    t = registered
    return pyspiel.GameType(
        short_name=t.short_name,
        long_name=t.long_name,
        dynamics=t.dynamics,
        chance_mode=t.chance_mode,
        information=t.information,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=t.reward_model,
        max_num_players=t.max_num_players,
        min_num_players=t.min_num_players,
        provides_information_state_string=t.provides_information_state_string,
        provides_information_state_tensor=t.provides_information_state_tensor,
        provides_observation_string=t.provides_observation_string,
        provides_observation_tensor=t.provides_observation_tensor,
        parameter_specification=t.parameter_specification,
    )


def utility_sum(players: int) -> float | None:
    """The sum of every player's returns of a game for ``players``: 0 for two, else none."""
    return 0.0 if players == 2 else None
