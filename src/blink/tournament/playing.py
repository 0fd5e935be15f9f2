"""The game a tournament is of: a registered game (:mod:`blink.model.registry`) by its name,
checked for what a tournament asks of it (its matches' players), and its deal rules for a
match dealt with a handicap (docs/new-game.md, "Tournaments").

A tournament plays two-player matches (every pairing, every set of the final round) and, when
three finalists are level in a circle, one three-player play-off game; the game's player range
(:class:`~blink.model.base.GameInfo`) must seat them.
"""

from __future__ import annotations

from typing import Final

from blink.model.game import DealRules, Game, NoDeals
from blink.model.registry import UnknownGame, game
from blink.tournament.errors import GameError

__all__ = [
    "MATCH_PLAYERS",
    "PLAY_OFF_PLAYERS",
    "check_game",
    "check_play_off",
    "deal_rules",
    "has_deal_rules",
]

MATCH_PLAYERS: Final = 2
"""The players of a match: every pairing and every set of the final round."""

PLAY_OFF_PLAYERS: Final = 3
"""The players of the final round's play-off game (three finalists level in a circle)."""


def _seats(found: Game, players: int) -> bool:
    info = found.info
    return info.min_players <= players <= info.max_players


def check_game(name: object) -> Game:
    """The registered game ``name``, if a tournament can be of it: :class:`GameError`
    (``unknown-game``) for a game not registered, (``match-size``) for one whose player range
    has no two-player game."""
    if not isinstance(name, str) or not name:
        raise GameError(f"a tournament's game is named by its registry name, not {name!r}")
    try:
        found = game(name)
    except UnknownGame as e:
        raise GameError(str(e), "unknown-game") from None
    if not _seats(found, MATCH_PLAYERS):
        info = found.info
        raise GameError(
            f"{found.title()} is played by {info.min_players} to {info.max_players} players, "
            f"and a tournament's matches are of {MATCH_PLAYERS}",
            "match-size",
        )
    return found


def check_play_off(name: str, finalists: int) -> None:
    """A field with three finalists may need a three-player play-off: :class:`GameError`
    (``match-size``) when the game ``name`` cannot seat three."""
    if finalists != PLAY_OFF_PLAYERS:
        return
    found = check_game(name)
    if not _seats(found, PLAY_OFF_PLAYERS):
        raise GameError(
            f"{found.title()} is played by {found.info.max_players} players at most, and this "
            f"field ends in {PLAY_OFF_PLAYERS} finalists, whose play-off is a "
            f"{PLAY_OFF_PLAYERS}-player game: add or remove a player",
            "match-size",
        )


def deal_rules(name: str) -> DealRules:
    """The deal rules of the game ``name`` (a handicap is dealt by them): :class:`GameError`
    (``no-deals``) for a game without them."""
    try:
        return check_game(name).deals
    except NoDeals as e:
        raise GameError(f"{e}: a match of it is dealt equally", "no-deals") from None


def has_deal_rules(name: str) -> bool:
    """True when a match of the game ``name`` may be dealt with a handicap."""
    try:
        deal_rules(name)
    except GameError:
        return False
    return True
