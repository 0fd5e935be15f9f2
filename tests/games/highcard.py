"""High Card: a tiny third game, defined in the tests only, on the same deck.

Two to four players are dealt three cards each. In turn, starting with seat 0, each player lays
one card from their hand face up in front of them. When every card is down, the highest total
count wins; equal totals share. A player who does not act in time lays their first card.

It exists to show that everything generic (the registry, the conformance checks, records,
replays, the simulator) works for a game it has never heard of, without a change to its code.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any, Final, NamedTuple

import msgspec

from blink.cards import STANDARD_DECK, Card, CardError, parse_card, shuffled_deck
from blink.model.base import GameInfo, IllegalAction, Outcome, Pending, Termination, Timer
from blink.model.codec import DefinitionCodec
from blink.model.game import FrontEnd, Game
from blink.model.replays import definition_replay
from blink.model.table import BadMessage, CardText, MsgId, PileTop

HAND: Final = 3


class HighCardEnd(Termination):
    """Why a High Card game ends: High Card's own end reasons."""

    HIGHEST_TOTAL = "highest_total"
    """Every card is down: the highest total count wins."""


class Reason(Enum):
    """Why a High Card action is refused."""

    GAME_OVER = "game_over"
    OUT_OF_TURN = "out_of_turn"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    NO_SUCH_PLAYER = "no_such_player"


class Lay(NamedTuple):
    """``player`` lays ``card`` from their hand."""

    player: int
    card: Card


class Dealt(NamedTuple):
    """The deal (``deck`` is ``None`` in redacted copies)."""

    players: int
    deck: tuple[Card, ...] | None


class Laid(NamedTuple):
    """``player`` laid ``card``."""

    player: int
    card: Card


class Ended(NamedTuple):
    """The game is over."""

    outcome: Outcome


Event = Dealt | Laid | Ended


class View(NamedTuple):
    """What one seat may know: its own hand, the laid cards, whose turn it is."""

    seat: int | None
    hand: tuple[Card, ...]
    hand_counts: tuple[int, ...]
    laid: tuple[tuple[Card, ...], ...]
    current: int | None
    outcome: Outcome | None


class HighCardGame:
    """The state of one game of High Card."""

    def __init__(self, deck: Sequence[Card], players: int) -> None:
        self.deck = tuple(deck)
        self.players = players
        self.hands = [list(self.deck[i * HAND : (i + 1) * HAND]) for i in range(players)]
        self.laid: list[list[Card]] = [[] for _ in range(players)]
        self.current: int | None = 0
        self.outcome: Outcome | None = None
        self.events: list[Event] = [Dealt(players, self.deck)]
        self.actions: list[tuple[Lay, int | None]] = []

    @property
    def over(self) -> bool:
        """True once every card is down."""
        return self.outcome is not None

    def snapshot(self) -> tuple[object, ...]:
        """The whole state as a value."""
        hands = tuple(map(tuple, self.hands))
        return (hands, tuple(map(tuple, self.laid)), self.current, self.outcome)

    def lay(self, player: int, card: Card, t: int | None) -> list[Event]:
        """Check everything, then lay the card."""
        if self.over:
            raise IllegalAction(Reason.GAME_OVER, "the game is over")
        if not isinstance(player, int) or not 0 <= player < self.players:
            raise IllegalAction(Reason.NO_SUCH_PLAYER, f"there is no player {player!r}")
        if player != self.current:
            raise IllegalAction(Reason.OUT_OF_TURN, f"it is player {self.current}'s turn")
        if card not in self.hands[player]:
            raise IllegalAction(Reason.CARD_NOT_IN_HAND, f"{card} is not in your hand")
        self.hands[player].remove(card)
        self.laid[player].append(card)
        out: list[Event] = [Laid(player, card)]
        self.current = (player + 1) % self.players
        if not any(self.hands):
            totals = [sum(c.count for c in row) for row in self.laid]
            best = max(totals)
            winners = tuple(p for p, n in enumerate(totals) if n == best)
            self.outcome = Outcome(winners, HighCardEnd.HIGHEST_TOTAL)
            self.current = None
            out.append(Ended(self.outcome))
        self.events += out
        self.actions.append((Lay(player, card), t))
        return out


class HighCard:
    """High Card's definition."""

    info: GameInfo = GameInfo(
        name="highcard",
        title="High Card",
        version=1,
        min_players=2,
        max_players=4,
        default_players=2,
        real_time=False,
        ends=HighCardEnd,
    )

    def new(
        self,
        players: int,
        seed: int | str | None = None,
        *,
        deck: Sequence[Card] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> HighCardGame:
        """A new game of High Card."""
        players = self.info.check_players(players)
        self.info.check_options(options)
        if deck is None:
            if seed is None:
                raise ValueError("give a seed or an explicit deck order")
            deck = shuffled_deck(seed, STANDARD_DECK)
        return HighCardGame(deck, players)

    def reach(self, players: int, seat: int) -> tuple[int, ...]:
        """No shared piles."""
        return ()

    def legal_actions(self, state: HighCardGame, seat: int) -> list[Lay]:
        """One lay per hand card, on one's turn."""
        if state.current != seat:
            return []
        return [Lay(seat, c) for c in state.hands[seat]]

    def apply(self, state: HighCardGame, action: Lay, t: int | None = None) -> list[Event]:
        """Lay a card."""
        if not isinstance(action, Lay):
            raise TypeError(f"not a High Card action: {action!r}")
        return state.lay(action.player, action.card, t)

    def referee(self, state: HighCardGame) -> Pending | None:
        """The current player's first card when their turn time runs out."""
        if state.current is None:
            return None
        seat = state.current
        first = state.hands[seat][0]
        return Pending(("turn", len(state.actions)), Timer.TURN, ((seat, Lay(seat, first)),))

    def view(self, state: HighCardGame, seat: int | None) -> View:
        """Own hand, counts of the others, the laid cards."""
        return View(
            seat,
            () if seat is None else tuple(state.hands[seat]),
            tuple(len(h) for h in state.hands),
            tuple(map(tuple, state.laid)),
            state.current,
            state.outcome,
        )

    def redact(self, event: Event, viewer: int | None) -> Event:
        """Only the deal's order is secret."""
        return event._replace(deck=None) if isinstance(event, Dealt) else event

    def seat_of(self, action: Lay) -> int | None:
        """The player who lays."""
        return action.player

    def action_to_wire(self, action: Lay) -> dict[str, Any]:
        """``{"type": "lay", "seat": 0, "card": "4YS"}``."""
        return {"type": "lay", "seat": action.player, "card": str(action.card)}

    def action_from_wire(self, data: Mapping[str, Any]) -> Lay:
        """The inverse of :meth:`action_to_wire`."""
        if data.get("type") != "lay" or not isinstance(data.get("seat"), int):
            raise ValueError(f"not a High Card action: {dict(data)!r}")
        return Lay(int(data["seat"]), parse_card(str(data.get("card"))))

    def event_to_wire(self, event: Event) -> dict[str, Any] | None:
        """Laid cards and the end; the deal is never sent."""
        if isinstance(event, Laid):
            return {"type": "laid", "seat": event.player, "card": str(event.card)}
        if isinstance(event, Ended):
            return {"type": "ended", "winners": list(event.outcome.winners)}
        return None

    def view_to_wire(self, view: View, full: bool = True) -> dict[str, Any]:
        """The view as JSON."""
        return {
            "seat": view.seat,
            "hand": [str(c) for c in view.hand],
            "hand_counts": list(view.hand_counts),
            "laid": [[str(c) for c in row] for row in view.laid],
            "current": view.current,
        }

    def hidden_cards(self, state: HighCardGame, viewer: int | None) -> frozenset[Card]:
        """The other hands and the undealt cards."""
        hidden = set(state.deck[state.players * HAND :])
        for p, hand in enumerate(state.hands):
            if p != viewer:
                hidden.update(hand)
        return frozenset(hidden)

    def history(self, state: HighCardGame) -> Sequence[tuple[Lay, int | None]]:
        """Every lay with its time."""
        return state.actions

    def options_of(self, state: HighCardGame) -> dict[str, Any]:
        """No options."""
        return {}

    @functools.cached_property
    def record_codec(self) -> DefinitionCodec:
        """Records through the definition's own wire forms."""
        return DefinitionCodec(self)

    def replay(self, record: Any) -> dict[str, Any]:
        """The generic replay layout."""
        return definition_replay(self, record)


HIGH_CARD: Final = HighCard()


class LayMsg(msgspec.Struct, tag="lay", tag_field="type", frozen=True):
    """Lay ``card`` from your hand (the one client message of High Card)."""

    id: MsgId
    card: CardText


class HighCardTable:
    """High Card at a live table (:class:`blink.model.table.Table`): no options, no bots."""

    messages: tuple[type[msgspec.Struct], ...] = (LayMsg,)

    def action_of(self, message: Any, seat: int) -> Lay:
        """The lay of ``seat``."""
        try:
            return Lay(seat, parse_card(message.card))
        except CardError as exc:
            raise BadMessage("bad_card", str(exc)) from None

    def lost_race(self, message: Any, view: Any, refusal: Exception) -> PileTop | None:
        """Never: nothing to race for."""
        return None

    def room_options(self, requested: Mapping[str, Any], players: int) -> dict[str, Any]:
        """No options."""
        return {}

    def deal_options(self, room: Mapping[str, Any], number: int, players: int) -> dict[str, Any]:
        """No options."""
        return {}

    def countdown(self, seconds: float) -> float | None:
        """No countdown: the first turn starts at the deal."""
        return None

    def figures(
        self, state: HighCardGame, actions_by_seat: list[int], duration_ms: int
    ) -> dict[str, Any]:
        """Each seat's total."""
        return {"totals": [sum(c.count for c in row) for row in state.laid]}

    @property
    def default_bot(self) -> str | None:
        """No bots."""
        return None

    def bot_names(self) -> list[str]:
        """No bots."""
        return []

    def check_bot(self, spec: str) -> str:
        """No bots."""
        raise BadMessage("bad_bot", "High Card has no bots")

    def bot_title(self, spec: str) -> str:
        """No bots."""
        raise BadMessage("bad_bot", "High Card has no bots")

    def bot_info(self) -> dict[str, Any]:
        """No bots."""
        return {}

    def bot_rating(self, spec: str) -> float:
        """No bots."""
        raise BadMessage("bad_bot", "High Card has no bots")

    def live_bot(self, *args: Any) -> Any:
        """No bots."""
        raise BadMessage("bad_bot", "High Card has no bots")


HIGH_CARD_TABLE: Final = HighCardTable()


def high_card_game(table: Any = None, front: FrontEnd | None = None) -> Game:
    """High Card's :class:`~blink.model.game.Game`: its rules, with ``table`` (``None``: it
    cannot be played in a room) and ``front``."""
    return Game("highcard", HIGH_CARD, table=table, front=front, titles={"en": "High Card"})


HIGH_CARD_GAME: Final = high_card_game(HIGH_CARD_TABLE)
"""High Card with its live table."""
