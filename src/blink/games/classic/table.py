"""Classic Blink at a live table: its client messages, frames, end figures and bots.

The bot package is optional at import time: without it, seats cannot hold bots
(``bots_unavailable``) and everything else works.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, Final

import msgspec

from blink.cards import STANDARD_DECK, CardError, parse_card
from blink.games.classic.actions import Played, Reason
from blink.games.classic.engine import Choose, ClassicGame, Play, PlayerView
from blink.games.classic.rules import (
    MAX_PLAYERS,
    RULESETS,
    DealError,
    get_ruleset,
    parse_handicap,
)
from blink.games.classic.wire import card_text
from blink.model.base import IllegalAction
from blink.model.table import BadMessage, CardText, LiveBot, MsgId, PileTop

__all__ = ["TABLE", "ChooseMsg", "ClassicTable", "PlayMsg"]


class PlayMsg(msgspec.Struct, tag="play", tag_field="type", frozen=True):
    """Play ``card`` from your hand on ``pile``; ``version``: the pile's version in the view
    the play was chosen in (the view's ``versions``), to be told ``too_slow`` when the pile
    changed first and the card no longer fits."""

    id: MsgId
    card: CardText
    pile: Annotated[int, msgspec.Meta(ge=0, le=MAX_PLAYERS - 1)]
    version: Annotated[int, msgspec.Meta(ge=0, le=2**31)] | None = None


class ChooseMsg(msgspec.Struct, tag="choose", tag_field="type", frozen=True):
    """Choose ``card`` of your hand in a choosing stall."""

    id: MsgId
    card: CardText


def _card(text: str) -> Any:
    try:
        return parse_card(text)
    except CardError as exc:
        raise BadMessage("bad_card", str(exc)) from None


def _bots() -> Any:
    # Imported here, not at the top: the bot package is optional (see the module docstring).
    try:
        import blink.games.classic.bots as bots
        import blink.games.classic.bots.live as live  # noqa: F401
    except ImportError:
        return None
    return bots


class ClassicTable:
    """Classic Blink as a :class:`~blink.model.table.Table`."""

    messages: tuple[type[msgspec.Struct], ...] = (PlayMsg, ChooseMsg)

    def action_of(self, message: Any, seat: int) -> Play | Choose:
        """A play or a choice of ``seat``."""
        if isinstance(message, PlayMsg):
            return Play(seat, _card(message.card), message.pile)
        if isinstance(message, ChooseMsg):
            return Choose(seat, _card(message.card))
        raise BadMessage("wrong_game", "this room plays classic Blink: send play or choose")

    def lost_race(self, message: Any, view: Any, refusal: Exception) -> PileTop | None:
        """A play that named an older version of its pile, refused because its card does not
        fit the top that covered the one it saw: the pile's top now. A stale play that still
        fits is a legal play and was accepted; any other refusal is its own."""
        if not (
            isinstance(message, PlayMsg)
            and message.version is not None
            and isinstance(view, PlayerView)
            and isinstance(refusal, IllegalAction)
            and refusal.reason is Reason.NO_COMMON_ATTRIBUTE
        ):
            return None
        version = view.versions[message.pile]
        top = view.tops[message.pile]
        if top is None or message.version >= version:
            return None
        return PileTop(pile=message.pile, card=card_text(top), version=version)

    def room_options(self, requested: Mapping[str, Any], players: int) -> dict[str, Any]:
        """The ruleset's name and the draw-pile sizes of a handicap (``None``: even)."""
        ruleset = get_ruleset(str(requested.get("ruleset") or "official"))
        try:
            sizes = parse_handicap(
                str(requested.get("handicap") or ""), players, len(STANDARD_DECK)
            )
        except DealError as exc:
            raise ValueError(str(exc)) from None
        return {"ruleset": ruleset.name, "sizes": None if sizes is None else list(sizes)}

    def deal_options(self, room: Mapping[str, Any], number: int, players: int) -> dict[str, Any]:
        """Every game of a room is dealt with the room's ruleset and sizes."""
        sizes = room.get("sizes")
        return {"ruleset": room.get("ruleset"), "sizes": None if sizes is None else tuple(sizes)}

    def countdown(self, seconds: float) -> float | None:
        """No hold: the game counts down by itself (its referee reveals the center cards
        after the countdown)."""
        return None

    def figures(
        self, state: ClassicGame, actions_by_seat: list[int], duration_ms: int
    ) -> dict[str, Any]:
        """Plays, the duration, plays by seat, cards left and stalls."""
        plays_by_seat = [0] * state.players
        for e in state.events:
            if isinstance(e, Played):
                plays_by_seat[e.player] += 1
        return {
            "plays": state.plays,
            "duration_ms": duration_ms,
            "plays_by_seat": plays_by_seat,
            "cards_left": [state.cards_left(p) for p in range(state.players)],
            "stalls": state.stalls,
        }

    @property
    def default_bot(self) -> str | None:
        """The first bot level (``None`` without the bot package)."""
        names = self.bot_names()
        return names[0] if names else None

    def bot_names(self) -> list[str]:
        """The bot levels (a seat may also name a level with a strategy, ``expert:blocker``)."""
        bots = _bots()
        return [] if bots is None else [str(x) for x in bots.LEVELS]

    def rulesets(self) -> list[str]:
        """The rulesets a room may be made with (``/api/options``'s ``rulesets``)."""
        return list(RULESETS)

    def strategies(self) -> list[str]:
        """The bot strategies (empty without the bot package)."""
        bots = _bots()
        return [] if bots is None else [str(x) for x in bots.STRATEGIES]

    def check_bot(self, spec: str, players: int | None = None) -> str:
        """A bot spec (``"expert:blocker"``) normalised; refused for a table of ``players``
        it cannot play (the ``trained`` level plays the table size it was trained for)."""
        bots = _bots()
        if bots is None:
            raise BadMessage("bots_unavailable", "bots are not available on this server")
        try:
            parsed = bots.BotSpec.parse(spec.strip().lower())
            if players is not None:
                parsed.check_players(players)
            return str(parsed)
        except (bots.BotConfigError, ValueError) as exc:
            raise BadMessage("bad_bot", str(exc)) from None

    def bot_title(self, spec: str) -> str:
        """The bot's name for people (:attr:`BotSpec.display_name`): "Expert blocking bot"."""
        bots = _bots()
        if bots is None:
            raise BadMessage("bots_unavailable", "bots are not available on this server")
        try:
            return str(bots.BotSpec.parse(spec).display_name)
        except (bots.BotConfigError, ValueError) as exc:
            raise BadMessage("bad_bot", str(exc)) from None

    def warm_bots(self) -> None:
        """Nothing: classic Blink's live bots are plain Python, ready at once."""

    def bot_info(self) -> dict[str, Any]:
        """The bot levels and strategies with their descriptions, and the defaults (empty, and
        no defaults, when the optional bot package is missing)."""
        bots = _bots()
        if bots is None:
            return {"levels": [], "strategies": [], "default_level": None, "default_strategy": None}
        return {
            "levels": [
                {"name": lv.name, "description": lv.description} for lv in bots.LEVELS.values()
            ],
            "strategies": [
                {"name": s.name, "description": s.description} for s in bots.STRATEGIES.values()
            ],
            "default_level": bots.DEFAULT_LEVEL,
            "default_strategy": bots.DEFAULT_STRATEGY,
        }

    def bot_rating(self, spec: str) -> float:
        """The rating of the spec's level (``"expert:blocker@2"``: the expert's)."""
        bots = _bots()
        name = spec.strip().lower().split(":")[0].split("@")[0]
        level = None if bots is None else bots.LEVELS.get(name)
        if level is None:
            raise BadMessage("bad_bot", f"no rating for bot level {spec!r}")
        return float(level.rating)

    def live_bot(
        self,
        spec: str,
        seat: int,
        seed: int,
        view: Callable[[], Any],
        submit: Callable[[Any], None],
        clock: Callable[[], float],
        pace: float,
    ) -> LiveBot:
        """A real-time bot with its reaction-time model (``pace`` is not used: it races)."""
        bots = _bots()
        if bots is None:
            raise BadMessage("bots_unavailable", "bots are not available on this server")
        from blink.games.classic.bots.live import LiveBot as ClassicLiveBot

        bot = bots.BotSpec.parse(spec).build(seat, seed)
        live: LiveBot = ClassicLiveBot(bot, view, submit, clock=clock)
        return live


TABLE: Final = ClassicTable()
"""Classic Blink's table (``CLASSIC.table``)."""
