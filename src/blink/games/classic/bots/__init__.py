"""Bots that play Blink like people: a reaction-time model and a choosing strategy.

``make_bot("expert", "blocker", seat=0, seed=1)`` builds a bot; ``BotSpec.parse("expert:blocker")``
reads the ``level:strategy`` notation used on command lines (an optional ``@speed`` suffix,
``expert:first@1.5``, makes the bot that many times faster, for sweeps). Every bot implements
:class:`Bot`: it sees only a :class:`~blink.games.classic.engine.PlayerView` and answers with an
:class:`Intent`. :class:`blink.games.classic.bots.live.LiveBot` runs the same bots in real time.

The levels (:data:`LEVELS`) and the strategies (:data:`STRATEGIES`, objects with behaviour:
:class:`Strategy`) are each stated once, in their registry, with the defaults beside them
(:data:`DEFAULT_LEVEL`, :data:`DEFAULT_STRATEGY`); everything else reads the names from there.
:func:`get_level` and :func:`get_strategy` refuse an unknown name with a
:class:`BotConfigError` listing the known ones: there is no fallback.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from blink.games.classic.bots.base import Bot, BotConfigError, Intent
from blink.games.classic.bots.human import HumanBot
from blink.games.classic.bots.reaction import DEFAULT_LEVEL, LEVELS, Level, get_level
from blink.games.classic.bots.strategies import (
    FIRST,
    STRATEGIES,
    Knowledge,
    Strategy,
    get_strategy,
    register_strategy,
    unregister_strategy,
)

if TYPE_CHECKING:  # numpy, imported when a trained bot is made
    from blink.games.classic.bots.trained import PolicyBot

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_STRATEGY",
    "LEVELS",
    "STRATEGIES",
    "Bot",
    "BotConfigError",
    "BotSpec",
    "HumanBot",
    "Intent",
    "Knowledge",
    "Level",
    "Strategy",
    "get_level",
    "get_strategy",
    "make_bot",
    "register_strategy",
    "unregister_strategy",
]

DEFAULT_STRATEGY = FIRST.name
"""The strategy of a spec that names none (``"expert"`` is ``expert:first``)."""


def _check_speed(speed: object) -> float:
    if not (isinstance(speed, int | float) and math.isfinite(speed) and speed > 0):
        raise BotConfigError(f"a bot speed must be a positive number, not {speed!r}", "speed")
    return float(speed)


def _check_policy_strategy(level: Level, strategy: str) -> None:
    """A level that plays a trained policy takes the default strategy only."""
    if level.policy and strategy != DEFAULT_STRATEGY:
        raise BotConfigError(
            f"the {level.name} level plays its trained policy and takes no strategy "
            f"(write {level.name}, not {level.name}:{strategy})",
            "strategy",
            (DEFAULT_STRATEGY,),
        )


def make_bot(
    level: str, strategy: str, seat: int, seed: int, speed: float = 1.0
) -> HumanBot | PolicyBot:
    """A bot of skill ``level`` choosing by ``strategy`` for ``seat``, seeded by ``seed`` (a
    level with a trained policy, ``trained``: a :class:`PolicyBot` playing it, one step of
    ``mean_play`` seconds at a time).

    Raises :class:`BotConfigError` listing the allowed names for an unknown level or strategy.
    """
    lv = get_level(level).scaled(_check_speed(speed))
    st = get_strategy(strategy)
    _check_policy_strategy(lv, strategy)
    if lv.policy:
        from blink.games.classic.bots.trained import PolicyBot, load_weights  # numpy: on use

        return PolicyBot(seat, load_weights(lv.policy), lv.mean_play, seed)
    return HumanBot(seat, lv, st, seed)


@dataclass(frozen=True)
class BotSpec:
    """A bot's level and strategy (and speed factor), as written ``level:strategy[@speed]``."""

    level: str
    strategy: str = DEFAULT_STRATEGY
    speed: float = 1.0

    def __post_init__(self) -> None:
        level = get_level(self.level)
        get_strategy(self.strategy)
        _check_policy_strategy(level, self.strategy)
        _check_speed(self.speed)

    @classmethod
    def parse(cls, text: str) -> BotSpec:
        """Read ``"expert:blocker"``, ``"expert"`` (the :data:`DEFAULT_STRATEGY`) or
        ``"expert:first@2"``.

        Raises :class:`BotConfigError` listing the allowed levels or strategies.
        """
        raw = text.strip().lower()
        speed = 1.0
        if "@" in raw:
            raw, _, sp = raw.partition("@")
            try:
                speed = float(sp)
            except ValueError:
                raise BotConfigError(
                    f"bot {text!r}: the speed after @ must be a number, like expert:first@1.5",
                    "speed",
                ) from None
        parts = raw.split(":")
        if len(parts) > 2 or not parts[0]:
            raise BotConfigError(
                f"bot {text!r}: write level:strategy, for example expert:blocker "
                f"(levels: {', '.join(LEVELS)}; strategies: {', '.join(STRATEGIES)})",
                "spec",
            )
        strategy = parts[1] if len(parts) == 2 and parts[1] else DEFAULT_STRATEGY
        return cls(parts[0], strategy, speed)

    def check_players(self, players: int) -> None:
        """Refuse (:class:`BotConfigError`, field ``players``) a table of ``players`` the bot
        cannot play: a trained policy's level plays the table size it was trained for."""
        level = get_level(self.level)
        if level.policy:
            from blink.games.classic.bots.trained import load_weights  # numpy: on use

            trained = load_weights(level.policy).players
            if players != trained:
                raise BotConfigError(
                    f"the {level.name} bot plays {trained}-player games only, not {players}",
                    "players",
                    (str(trained),),
                )

    def build(self, seat: int, seed: int) -> HumanBot | PolicyBot:
        """The bot for ``seat`` seeded by ``seed``."""
        return make_bot(self.level, self.strategy, seat, seed, self.speed)

    @property
    def display_name(self) -> str:
        """The bot's name for people, from its level's and strategy's titles: "Skilled bot",
        "Expert blocking bot" (and "×2" for a faster bot)."""
        words = [get_level(self.level).display_name]
        title = get_strategy(self.strategy).title
        if title:
            words.append(title)
        words.append("bot")
        if self.speed != 1.0:
            words.append(f"×{self.speed:g}")
        return " ".join(words)

    def __str__(self) -> str:
        # A trained policy's level takes no strategy: "trained", not "trained:first".
        base = self.level if get_level(self.level).policy else f"{self.level}:{self.strategy}"
        return base if self.speed == 1.0 else f"{base}@{self.speed:g}"
