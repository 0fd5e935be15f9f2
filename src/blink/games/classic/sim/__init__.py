"""The discrete-event simulator: bots play in virtual time; statistics, plots, parallel runs.

``simulate_game(specs, seed)`` plays one game, ``simulate_series(specs, best_of, seed)`` a
best-of-N series; :mod:`blink.games.classic.sim.runner` runs many in parallel processes with
per-game seeds
derived from one master seed.
"""

from __future__ import annotations

from blink.games.classic.sim.core import (
    BEHIND_MARGIN,
    GameResult,
    SeriesResult,
    SimConfig,
    play_game,
    simulate_game,
    simulate_series,
)
from blink.sim.seeds import derive_seed

__all__ = [
    "BEHIND_MARGIN",
    "GameResult",
    "SeriesResult",
    "SimConfig",
    "derive_seed",
    "play_game",
    "simulate_game",
    "simulate_series",
]
