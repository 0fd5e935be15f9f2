"""Finished games of random legal actions, for tests that need whole games (replays, records).

Importable from every test folder (tests/ is on the path through its conftest.py).
"""

from __future__ import annotations

import random

from blink.cards import STANDARD_DECK
from blink.games.classic.engine import ClassicGame, Phase
from blink.games.classic.rules import DEAD_END, OFFICIAL, Ruleset
from blink.games.goblink.engine import GoGame, LayDown

__all__ = ["random_game", "random_go_game"]


def random_game(
    seed: int, small: bool = False, players: int | None = None, ruleset: Ruleset | None = None
) -> ClassicGame:
    """A finished classic game of random legal actions: by default 2 or 3 players and every
    fifth game under the dead-end ruleset; ``small`` decks run into choosing stalls."""
    rng = random.Random(seed)
    players = players or 2 + seed % 2
    ruleset = ruleset or (DEAD_END if seed % 5 == 0 else OFFICIAL)
    if small:
        deck = rng.sample(STANDARD_DECK, rng.randint(4 * players, 16))
        game = ClassicGame(deck, players, ruleset)
    else:
        game = ClassicGame.new(players, seed=seed, ruleset=ruleset)
    t = 0
    game.reveal(t)
    while not game.over:
        t += rng.randint(40, 900)
        if game.phase is Phase.PLAYING:
            play = rng.choice(game.all_legal_plays())
            game.play(play.player, play.card, play.pile, t)
        elif game.phase is Phase.STALLED:
            game.flip(t)
        else:
            seat = next(p for p in range(players) if p not in game.choices)
            game.choose(seat, rng.choice(game.hand(seat)), t)
    return game


def random_go_game(seed: int, players: int | None = None) -> GoGame:
    """A finished Go Blink game of random legal actions (by default 2 to 6 players; a turn
    limit); turns end less often than cards are laid down, so blunks happen too."""
    rng = random.Random(seed)
    players = players or 2 + seed % 5
    game = GoGame.new(players, seed=seed, dealer=rng.randrange(players), turn_limit=40)
    t = 0
    while not game.over:
        t += rng.randint(50, 2000)
        actions = game.legal_actions()
        lays = [a for a in actions if isinstance(a, LayDown)]
        game.apply(rng.choice(lays) if lays and rng.random() < 0.7 else rng.choice(actions), t)
    return game
