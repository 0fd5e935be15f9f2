"""Finished games of random legal actions, for tests that need whole games (replays, records).

Importable from every test folder (tests/ is on the path through its conftest.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from blink.cards import STANDARD_DECK
from blink.games.classic.engine import ClassicGame
from blink.games.classic.rules import DEAD_END, OFFICIAL, Ruleset
from blink.games.goblink.engine import GoGame, LayDown
from blink.model.base import GameDefinition
from blink.model.registry import get_game

__all__ = ["play_randomly", "random_game", "random_go_game"]


def play_randomly(
    definition: GameDefinition[Any, Any, Any, Any],
    state: Any,
    rng: random.Random,
    *,
    step: tuple[int, int] = (40, 900),
    prefer: Callable[[Any], bool] | None = None,
) -> Any:
    """Play ``state`` to its end through the definition only: a random legal action of any
    seat, or, when nobody may act, what the referee does next. ``prefer`` picks, seven times
    in ten, among the legal actions it accepts. ``t`` grows by a random ``step`` (ms)."""
    t = 0
    while not state.over:
        legal = [a for seat in range(state.players) for a in definition.legal_actions(state, seat)]
        if not legal:
            pending = definition.referee(state)
            assert pending is not None, "nobody can act and the game does nothing by itself"
            for _, action in pending.actions:
                definition.apply(state, action, t)
            continue
        t += rng.randint(*step)
        liked = [a for a in legal if prefer(a)] if prefer is not None else []
        choice = rng.choice(liked) if liked and rng.random() < 0.7 else rng.choice(legal)
        definition.apply(state, choice, t)
    return state


def random_game(
    seed: int, small: bool = False, players: int | None = None, ruleset: Ruleset | None = None
) -> ClassicGame:
    """A finished classic game of random legal actions: by default 2 or 3 players and every
    fifth game under the dead-end ruleset; ``small`` decks run into choosing stalls."""
    rng = random.Random(seed)
    players = players or 2 + seed % 2
    ruleset = ruleset or (DEAD_END if seed % 5 == 0 else OFFICIAL)
    classic = get_game("classic")
    deck = rng.sample(STANDARD_DECK, rng.randint(4 * players, 16)) if small else None
    game: ClassicGame = classic.new(
        players, seed=None if small else seed, deck=deck, options={"ruleset": ruleset}
    )
    return play_randomly(classic, game, rng)


def random_go_game(seed: int, players: int | None = None) -> GoGame:
    """A finished Go Blink game of random legal actions (by default 2 to 6 players; a turn
    limit); turns end less often than cards are laid down, so blunks happen too."""
    rng = random.Random(seed)
    players = players or 2 + seed % 5
    go = get_game("goblink")
    options = {"dealer": rng.randrange(players), "turn_limit": 40}
    game: GoGame = go.new(players, seed=seed, options=options)
    return play_randomly(go, game, rng, step=(50, 2000), prefer=lambda a: isinstance(a, LayDown))
