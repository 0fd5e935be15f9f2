"""Go Blink's game definition: its facts, its referee and its codecs, over the engine.

The referee's only job in Go Blink is the turn clock: when the current player's turn (or
opening decision) has lasted the driver's turn time, the engine's default action is taken for
them, again and again until their turn is over.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from blink.cards import Card
from blink.games.goblink.engine import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Drew,
    GoAction,
    GoEnd,
    GoEvent,
    GoGame,
    GoView,
    Passed,
    event_to_dict,
    redact,
    view_to_dict,
)
from blink.games.goblink.record import (
    CODEC,
    GoCodec,
    GoRecord,
    GoRecordError,
    go_action_from_dict,
    go_action_to_dict,
)
from blink.games.goblink.replay import go_game_replay
from blink.games.goblink.values import TURN_TIME
from blink.model.base import GameInfo, Pending, Timer, Timings

__all__ = ["GOBLINK", "GoBlinkDefinition"]

_INFO: Final = GameInfo(
    name="goblink",
    title="Go Blink",
    version=1,
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_players=4,
    real_time=False,
    ends=GoEnd,
    timings=Timings(turn=TURN_TIME),
    options={
        "dealer": "the dealer's seat (the player after the dealer starts)",
        "turn_limit": "end by fewest cards after this many turns (a safety net for simulations)",
    },
)


def _opt_int(opts: Mapping[str, Any], key: str, default: int | None) -> int | None:
    value = opts.get(key, default)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"the option {key!r} must be a whole number, not {value!r}")
    return value


class GoBlinkDefinition:
    """Go Blink for 2 to 6 players, as a :class:`~blink.model.base.GameDefinition`."""

    info: GameInfo = _INFO

    def new(
        self,
        players: int,
        seed: int | str | None = None,
        *,
        deck: Sequence[Card] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> GoGame:
        """A new game (options: ``dealer``, ``turn_limit``)."""
        players = self.info.check_players(players)
        opts = self.info.check_options(options)
        dealer = _opt_int(opts, "dealer", 0)
        return GoGame.new(
            players,
            seed,
            dealer=0 if dealer is None else dealer,
            deck=deck,
            turn_limit=_opt_int(opts, "turn_limit", None),
        )

    def reach(self, players: int, seat: int) -> tuple[int, ...]:
        """No shared piles to reach in Go Blink."""
        self.info.check_players(players)
        return ()

    def legal_actions(self, state: GoGame, seat: int) -> list[GoAction]:
        """``seat``'s asks, lay-downs and end of turn when it is their turn; else nothing."""
        return state.legal_actions(seat)

    def apply(self, state: GoGame, action: GoAction, t: int | None = None) -> list[GoEvent]:
        """Apply any Go Blink action (checked first; refused with the state unchanged)."""
        return state.apply(action, t)

    def referee(self, state: GoGame) -> Pending | None:
        """The current player's default action when their turn time runs out."""
        action = state.default_action()
        if action is None or state.current is None:
            return None
        return Pending(("turn", state.turns, state.current), Timer.TURN, ((state.current, action),))

    def view(self, state: GoGame, seat: int | None) -> GoView:
        """What ``seat`` may know."""
        return state.view(seat)

    def redact(self, event: GoEvent, viewer: int | None) -> GoEvent:
        """``event`` with the cards ``viewer`` may not see removed: the engine's redaction
        and a second guard: never another seat's drawn card, nor the cards passed between two
        others."""
        e = redact(event, viewer)
        if isinstance(e, Drew) and e.player != viewer and e.card is not None:
            return e._replace(card=None)
        if isinstance(e, Passed) and viewer not in (e.giver, e.receiver) and e.cards is not None:
            return e._replace(cards=None)
        return e

    def seat_of(self, action: GoAction) -> int | None:
        """Every Go Blink action is a player's."""
        return action.player

    def action_to_wire(self, action: GoAction) -> dict[str, Any]:
        """The record's form of an action."""
        return go_action_to_dict(action)

    def action_from_wire(self, data: Mapping[str, Any]) -> GoAction:
        """Parse the record's form of an action; ``ValueError`` naming the problem."""
        try:
            return go_action_from_dict(data)[0]
        except GoRecordError as exc:
            raise ValueError(exc.detail) from None

    def event_to_wire(self, event: GoEvent) -> dict[str, Any] | None:
        """The wire form of an event."""
        return event_to_dict(event)

    def view_to_wire(self, view: GoView, full: bool = True) -> dict[str, Any]:
        """The wire form of a view: the whole view, in updates as in snapshots."""
        return view_to_dict(view)

    def hidden_cards(self, state: GoGame, viewer: int | None) -> frozenset[Card]:
        """Other hands and the draw pile, except the cards ``viewer`` passed or was passed."""
        hidden: set[Card] = set(state.draw_pile())
        for p in range(state.players):
            if p != viewer:
                hidden.update(state.hand(p))
        if viewer is not None:
            view = state.view(viewer)
            for _, cards in (*view.given, *view.received):
                hidden.difference_update(cards)
        return frozenset(hidden)

    def history(self, state: GoGame) -> Sequence[tuple[GoAction, int | None]]:
        """Every accepted action with its time."""
        return state.history

    def options_of(self, state: GoGame) -> dict[str, Any]:
        """The dealer and the turn limit the game was dealt with."""
        return {"dealer": state.dealer, "turn_limit": state.turn_limit}

    @property
    def record_codec(self) -> GoCodec:
        """Go Blink's own record codec."""
        return CODEC

    def replay(self, record: GoRecord) -> dict[str, Any]:
        """The Go Blink replay frames of a record (with its ask log and matches)."""
        return go_game_replay(record)


GOBLINK: Final = GoBlinkDefinition()
"""The Go Blink definition (get it through :func:`blink.model.registry.get_game`)."""
