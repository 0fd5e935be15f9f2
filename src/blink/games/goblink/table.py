"""Go Blink at a live table: its client messages, frames, end figures and bots."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Annotated, Any, Final

import msgspec

from blink.cards import CardError, parse_card
from blink.games.goblink import bots as gobots
from blink.games.goblink.bots import GoBotError, get_gobot_kind
from blink.games.goblink.engine import (
    MAX_PLAYERS,
    Ask,
    EndTurn,
    GoAction,
    GoGame,
    LayDown,
    value_from_wire,
)
from blink.games.goblink.live import LiveGoBot
from blink.model.table import BadMessage, CardText, LiveBot, MsgId, PileTop

__all__ = ["TABLE", "AskMsg", "EndMsg", "GoTable", "LayMsg"]


Seat = Annotated[int, msgspec.Meta(ge=0, le=MAX_PLAYERS - 1)]


class AskMsg(msgspec.Struct, tag="ask", tag_field="type", frozen=True):
    """Ask the player at ``target`` for every card of a value (``attribute``: ``color``,
    ``shape`` or ``count``; ``value``: ``"yellow"``, ``"star"``, 4)."""

    id: MsgId
    target: Seat
    attribute: Annotated[str, msgspec.Meta(max_length=16)]
    value: Annotated[str, msgspec.Meta(max_length=16)] | Annotated[int, msgspec.Meta(ge=0, le=9)]


class LayMsg(msgspec.Struct, tag="lay", tag_field="type", frozen=True):
    """Lay down ``cards`` from your hand as a match."""

    id: MsgId
    cards: Annotated[list[CardText], msgspec.Meta(min_length=1, max_length=60)]


class EndMsg(msgspec.Struct, tag="end", tag_field="type", frozen=True):
    """End your turn."""

    id: MsgId


def _card(text: str) -> Any:
    try:
        return parse_card(text)
    except CardError as exc:
        raise BadMessage("bad_card", str(exc)) from None


class GoTable:
    """Go Blink as a :class:`~blink.model.table.Table`."""

    messages: tuple[type[msgspec.Struct], ...] = (AskMsg, LayMsg, EndMsg)

    def action_of(self, message: Any, seat: int) -> GoAction:
        """An ask, a lay-down or the end of a turn of ``seat``."""
        if isinstance(message, AskMsg):
            try:
                value = value_from_wire(message.attribute, message.value)
            except ValueError as exc:
                raise BadMessage("bad_value", str(exc)) from None
            return Ask(seat, message.target, value)
        if isinstance(message, LayMsg):
            return LayDown(seat, tuple(_card(c) for c in message.cards))
        if isinstance(message, EndMsg):
            return EndTurn(seat)
        raise BadMessage("wrong_game", "this room plays Go Blink: send ask, lay or end")

    def lost_race(self, message: Any, view: Any, refusal: Exception) -> PileTop | None:
        """Never: Go Blink has no piles to race for."""
        return None

    def room_options(self, requested: Mapping[str, Any], players: int) -> dict[str, Any]:
        """Go Blink rooms have no options (the deal passes round the table)."""
        return {}

    def deal_options(self, room: Mapping[str, Any], number: int, players: int) -> dict[str, Any]:
        """Game ``number`` of a series is dealt by the next seat round the table."""
        return {"dealer": (number - 1) % players}

    def countdown(self, seconds: float) -> float | None:
        """A new game is held for the whole countdown, as a classic game waits for its
        reveal: the first turn (and its time) starts when it ends."""
        return seconds if seconds > 0 else None

    def figures(
        self, state: GoGame, actions_by_seat: list[int], duration_ms: int
    ) -> dict[str, Any]:
        """Turns, asks, matches, actions by seat, cards in hand and the duration."""
        return {
            "turns": state.turns,
            "asks": state.asks,
            "matches": len(state.discard()),
            "actions_by_seat": list(actions_by_seat),
            "hand_counts": [len(state.hand(p)) for p in range(state.players)],
            "duration_ms": duration_ms,
        }

    @property
    def default_bot(self) -> str | None:
        """The bot of a quick game."""
        return gobots.DEFAULT_GOBOT

    def bot_names(self) -> list[str]:
        """Every Go Blink bot."""
        return list(gobots.GOBOTS)

    def check_bot(self, spec: str, players: int | None = None) -> str:
        """A Go Blink bot name (or alias) normalised (each plays every table size)."""
        try:
            return get_gobot_kind(spec).name
        except GoBotError as exc:
            raise BadMessage("bad_bot", str(exc)) from None

    def bot_title(self, spec: str) -> str:
        """The bot's name for people (:attr:`GoBotKind.display_name`): "Remembering bot"."""
        try:
            return get_gobot_kind(spec).display_name
        except GoBotError as exc:
            raise BadMessage("bad_bot", str(exc)) from None

    def bot_info(self) -> dict[str, Any]:
        """Go Blink's bots with their descriptions, and the bot of a seat when none is named."""
        return {
            "bots": [
                {"name": k.name, "description": k.description} for k in gobots.GOBOTS.values()
            ],
            "default_bot": gobots.DEFAULT_GOBOT,
        }

    def bot_rating(self, spec: str) -> float:
        """The bot kind's rating (:attr:`blink.games.goblink.bots.GoBotKind.rating`)."""
        try:
            return float(get_gobot_kind(spec).rating)
        except GoBotError as exc:
            raise BadMessage("bad_bot", str(exc)) from None

    def warm_bots(self) -> None:
        """Load the compiled search of the master bot (its first decision would)."""
        for kind in gobots.GOBOTS.values():
            kind.warm()

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
        """A bot that acts ``pace`` seconds into each of its turns (it is made, and decides,
        in a worker thread: :mod:`blink.games.goblink.live`)."""
        kind = get_gobot_kind(spec)
        return LiveGoBot(partial(kind.make, seat, seed), seat, view, submit, pace)


TABLE: Final = GoTable()
"""Go Blink's table (:func:`blink.model.registry.get_table`)."""
