"""Classic Blink's game definition: its facts, its referee and its codecs, over the engine.

The referee says what the table does by itself: the reveal after the countdown, the flip after
a stall's pause, and in a choosing stall each missing player's default choice at the deadline.
Every driver (the server, the terminal table, the simulator) asks it instead of restating the
phase machine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from blink.cards import STANDARD_DECK, Card
from blink.games.classic.engine import (
    Action,
    ChoiceMade,
    Choose,
    ClassicEnd,
    ClassicGame,
    Event,
    Flip,
    Phase,
    Play,
    PlayerView,
    Refilled,
    Reveal,
    reach,
    redact,
)
from blink.games.classic.record import (
    CODEC,
    ClassicCodec,
    GameRecord,
    RecordError,
    action_from_dict,
    action_to_dict,
)
from blink.games.classic.replay import classic_game_replay
from blink.games.classic.rules import (
    CHOICE_DEADLINE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    OFFICIAL,
    STALL_PAUSE,
    Ruleset,
    deal_sizes,
    get_ruleset,
    parse_handicap,
)
from blink.games.classic.wire import event_to_wire, view_to_wire
from blink.model.base import GameInfo, Pending, Timer, Timings

__all__ = ["CLASSIC", "DEALS", "ClassicDeals", "ClassicDefinition"]

_INFO: Final = GameInfo(
    name="classic",
    title="Classic Blink",
    version=1,
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_players=2,
    real_time=True,
    ends=ClassicEnd,
    timings=Timings(stall_pause=STALL_PAUSE, choice_deadline=CHOICE_DEADLINE),
    options={
        "ruleset": "the ruleset's name (official, dead-end) or a Ruleset",
        "sizes": "each seat's draw-pile size (a handicap), or a handicap text such as 35:25",
    },
)


def _ruleset(value: object) -> Ruleset:
    if value is None:
        return OFFICIAL
    if isinstance(value, Ruleset):
        return value
    if isinstance(value, str):
        return get_ruleset(value)
    raise ValueError(f"a ruleset is a name or a Ruleset, not {value!r}")


def _sizes(value: object, players: int, deck_size: int) -> tuple[int, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return parse_handicap(value, players, deck_size)
    if isinstance(value, Sequence):
        return tuple(int(n) for n in value)
    raise ValueError(f"draw-pile sizes are a list of numbers or a handicap, not {value!r}")


class ClassicDefinition:
    """Classic Blink, as a :class:`~blink.model.base.GameDefinition`."""

    info: GameInfo = _INFO

    def new(
        self,
        players: int,
        seed: int | str | None = None,
        *,
        deck: Sequence[Card] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> ClassicGame:
        """A new classic game (options: ``ruleset``, ``sizes``)."""
        players = self.info.check_players(players)
        opts = self.info.check_options(options)
        ruleset = _ruleset(opts.get("ruleset"))
        sizes = _sizes(opts.get("sizes"), players, len(STANDARD_DECK if deck is None else deck))
        return ClassicGame.new(players, seed, deck=deck, ruleset=ruleset, sizes=sizes)

    def reach(self, players: int, seat: int) -> tuple[int, ...]:
        """The two piles ``seat`` may play on."""
        return reach(self.info.check_players(players), seat)

    def legal_actions(self, state: ClassicGame, seat: int) -> list[Action]:
        """``seat``'s plays while racing, or its stall choices while the table waits for them."""
        return list(state.legal_actions(seat))

    def apply(self, state: ClassicGame, action: Action, t: int | None = None) -> list[Event]:
        """Apply any classic action (checked first; refused with the state unchanged)."""
        return state.apply(action, t)

    def referee(self, state: ClassicGame) -> Pending | None:
        """The reveal, the flip, or the default choices still missing; ``None`` while racing."""
        phase = state.phase
        if phase is Phase.DEALT:
            return Pending(("reveal",), Timer.COUNTDOWN, ((None, Reveal()),))
        if phase is Phase.STALLED:
            return Pending(("flip", state.stalls), Timer.STALL_PAUSE, ((None, Flip()),))
        if phase is Phase.CHOOSING:
            waiting = state.awaiting_choice()
            actions = tuple((p, Choose(p, state.default_choice(p))) for p in waiting)
            return Pending(("choose", state.stalls), Timer.CHOICE_DEADLINE, actions)
        return None

    def view(self, state: ClassicGame, seat: int | None) -> PlayerView:
        """What ``seat`` may know."""
        return state.view(seat)

    def redact(self, event: Event, viewer: int | None) -> Event:
        """``event`` with the cards ``viewer`` may not see removed: the engine's redaction,
        and a second guard: another seat's drawn or chosen card is never sent, whatever the
        redaction does."""
        e = redact(event, viewer)
        if isinstance(e, (Refilled, ChoiceMade)) and e.player != viewer and e.card is not None:
            return e._replace(card=None)
        return e

    def seat_of(self, action: Action) -> int | None:
        """The player of a play or a choice; ``None`` for the reveal and the flip."""
        if isinstance(action, Play | Choose):
            return action.player
        return None

    def action_to_wire(self, action: Action) -> dict[str, Any]:
        """The record's form of an action."""
        return action_to_dict(action, None)

    def action_from_wire(self, data: Mapping[str, Any]) -> Action:
        """Parse the record's form of an action; ``ValueError`` naming the problem."""
        try:
            return action_from_dict(data)[0]
        except RecordError as exc:
            raise ValueError(exc.detail) from None

    def event_to_wire(self, event: Event) -> dict[str, Any] | None:
        """The wire form of an event (``None`` for the deal, which is never sent)."""
        return event_to_wire(event)

    def view_to_wire(self, view: PlayerView, full: bool = True) -> dict[str, Any]:
        """The wire form of a view: with the piles, the player count and the ruleset when
        ``full`` (a snapshot); an update's is compact."""
        return view_to_wire(view, full=full)

    def hidden_cards(self, state: ClassicGame, viewer: int | None) -> frozenset[Card]:
        """Other hands, every draw pile, the set-aside cards, and face-down center cards."""
        hidden: set[Card] = set(state.set_aside)
        for p in range(state.players):
            hidden.update(state.draw_pile(p))
            if p != viewer:
                hidden.update(state.hand(p))
        if state.phase is Phase.DEALT:
            for i in range(state.players):
                hidden.update(state.pile(i))
        return frozenset(hidden)

    def history(self, state: ClassicGame) -> Sequence[tuple[Action, int | None]]:
        """Every accepted action with its time."""
        return state.history

    def options_of(self, state: ClassicGame) -> dict[str, Any]:
        """The ruleset and the draw-pile sizes the game was dealt with."""
        return {"ruleset": state.ruleset, "sizes": state.sizes}

    @property
    def record_codec(self) -> ClassicCodec:
        """Classic Blink's own record codec."""
        return CODEC

    def replay(self, record: GameRecord) -> dict[str, Any]:
        """The classic replay frames of a record."""
        return classic_game_replay(record)


CLASSIC: Final = ClassicDefinition()
"""The classic Blink definition (get it through :func:`blink.model.registry.get_game`)."""


class ClassicDeals:
    """Classic Blink's deal rules for tournaments (:class:`blink.model.game.DealRules`)."""

    @property
    def deck_size(self) -> int:
        """The standard deck's cards."""
        return len(STANDARD_DECK)

    def check_sizes(self, players: int, deck_size: int, sizes: Sequence[int]) -> None:
        """Every draw pile at least the minimum, together within the deck (``DealError``, a
        ``ValueError``, otherwise)."""
        deal_sizes(players, deck_size, sizes)

    def parse_sizes(self, text: str, players: int) -> tuple[int, ...] | None:
        """A handicap as :func:`~blink.games.classic.rules.parse_handicap` reads it (``DealError``,
        a ``ValueError``, when it cannot be dealt)."""
        return parse_handicap(text, players)


DEALS: Final = ClassicDeals()
"""Classic Blink's deal rules (get them through its :class:`~blink.model.game.Game`)."""
