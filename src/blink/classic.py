"""Classic Blink for two or three players: a real-time race, applied one action at a time.

The engine is pure. It reads no clock and no global random state: a game is made from an
explicit deck order (or a seed), and the caller passes each action in the order it arrived,
optionally with its time in milliseconds since the reveal. Every accepted action returns the
events it caused; a refused action raises :class:`IllegalAction` and changes nothing.

Seating and piles. Seats are numbered clockwise from 0. With two players there are two center
piles, both reachable by both players; pile ``i`` is the one seat ``i`` started. With three
players pile ``i`` lies between seat ``i`` and seat ``i + 1`` (to seat ``i``'s right), so seat
``i`` reaches piles ``i`` (right) and ``i - 1`` (left), and starts pile ``i``.

Typical use::

    game = ClassicGame.new(players=2, seed=7)
    game.reveal()
    for play in game.legal_plays(0):
        events = game.play(0, play.card, play.pile)
        break
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import Enum
from typing import Final, NamedTuple

from blink.cards import STANDARD_DECK, Card, shuffled_deck
from blink.rules import OFFICIAL, DeadEnd, Ruleset, deal_sizes

__all__ = [
    "Action",
    "ChoiceMade",
    "Choose",
    "ClassicGame",
    "Dealt",
    "Ended",
    "Event",
    "Flip",
    "Flipped",
    "IllegalAction",
    "Outcome",
    "Phase",
    "Placed",
    "Play",
    "Played",
    "PlayerView",
    "Reason",
    "Refilled",
    "Reveal",
    "Revealed",
    "StallKind",
    "Stalled",
    "legal_plays_in_view",
    "own_pile",
    "reach",
    "redact",
]


class Phase(Enum):
    """Where a game is."""

    DEALT = "dealt"
    """Cards dealt, center cards face down: waiting for the reveal."""
    PLAYING = "playing"
    """The race is on: any player may play."""
    STALLED = "stalled"
    """No one can play and every player has draw cards: waiting for the flip."""
    CHOOSING = "choosing"
    """No one can play and a draw pile is empty: every player must choose a hand card."""
    OVER = "over"
    """The game has ended."""


class Reason(Enum):
    """Machine-readable reasons an action is refused (stable codes, used on the wire)."""

    NOT_REVEALED = "not_revealed"
    ALREADY_REVEALED = "already_revealed"
    GAME_OVER = "game_over"
    NO_SUCH_PLAYER = "no_such_player"
    NO_SUCH_PILE = "no_such_pile"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    PILE_OUT_OF_REACH = "pile_out_of_reach"
    NO_COMMON_ATTRIBUTE = "no_common_attribute"
    FLIP_AWAITED = "flip_awaited"
    CHOICE_AWAITED = "choice_awaited"
    NOT_STALLED = "not_stalled"
    NO_CHOICE_NEEDED = "no_choice_needed"
    ALREADY_CHOSEN = "already_chosen"


class IllegalAction(ValueError):
    """A refused action. ``reason`` is a :class:`Reason`; ``str(exc)`` is for people."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message

    @property
    def code(self) -> str:
        """The stable machine-readable code (``reason.value``)."""
        return self.reason.value


# --- actions -------------------------------------------------------------------------------


class Reveal(NamedTuple):
    """Turn the center cards face up together: the game begins."""


class Play(NamedTuple):
    """Play ``card`` from ``player``'s hand onto center pile ``pile``."""

    player: int
    card: Card
    pile: int


class Flip(NamedTuple):
    """Break a stall: every player flips the top of their draw pile onto their own pile."""


class Choose(NamedTuple):
    """In a stall with an empty draw pile, ``player`` chooses the hand card to place."""

    player: int
    card: Card


Action = Reveal | Play | Flip | Choose


# --- events --------------------------------------------------------------------------------


class StallKind(Enum):
    """How a stall will be broken."""

    FLIP = "flip"
    CHOOSE = "choose"
    DEAD_END = "dead_end"


class Dealt(NamedTuple):
    """The deal. ``deck`` is the full order (top first) and ``None`` in redacted copies."""

    players: int
    ruleset: Ruleset
    sizes: tuple[int, ...]
    deck: tuple[Card, ...] | None


class Revealed(NamedTuple):
    """The center cards, turned face up together."""

    tops: tuple[Card, ...]


class Played(NamedTuple):
    """``player`` played ``card`` from hand slot ``slot`` on ``pile``, covering ``covered``."""

    player: int
    card: Card
    pile: int
    slot: int
    covered: Card


class Refilled(NamedTuple):
    """``player`` drew into hand slot ``slot``; ``card`` is ``None`` for other viewers."""

    player: int
    slot: int
    card: Card | None


class Stalled(NamedTuple):
    """No player can play. ``kind`` says how the stall is broken."""

    kind: StallKind


class Flipped(NamedTuple):
    """``player`` flipped the top of their draw pile onto ``pile``."""

    player: int
    card: Card
    pile: int


class ChoiceMade(NamedTuple):
    """``player`` chose a hand card for the stall; ``card`` is ``None`` except for them."""

    player: int
    card: Card | None


class Placed(NamedTuple):
    """After every choice, ``player``'s chosen ``card`` from ``slot`` went on ``pile``."""

    player: int
    card: Card
    pile: int
    slot: int


class Outcome(NamedTuple):
    """How a game ended. More than one winner is a tie between them."""

    winners: tuple[int, ...]
    reason: str
    """``out_of_cards``, ``stall_placement`` or ``fewest_cards``."""

    @property
    def is_tie(self) -> bool:
        """True when several players share the result."""
        return len(self.winners) > 1

    @property
    def winner(self) -> int | None:
        """The single winner, or ``None`` for a tie."""
        return self.winners[0] if len(self.winners) == 1 else None


class Ended(NamedTuple):
    """The game is over."""

    outcome: Outcome


Event = Dealt | Revealed | Played | Refilled | Stalled | Flipped | ChoiceMade | Placed | Ended


def redact(event: Event, viewer: int | None) -> Event:
    """The event as ``viewer`` may see it (``None``: a spectator). Hidden cards become None."""
    if isinstance(event, Refilled):
        return event if event.player == viewer else event._replace(card=None)
    if isinstance(event, ChoiceMade):
        return event if event.player == viewer else event._replace(card=None)
    if isinstance(event, Dealt):
        return event._replace(deck=None)
    return event


# --- geometry ------------------------------------------------------------------------------

_REACH: Final = {2: ((0, 1), (0, 1)), 3: ((0, 2), (1, 0), (2, 1))}


def reach(players: int, seat: int) -> tuple[int, int]:
    """The two piles ``seat`` may play on (right pile first with three players)."""
    return _REACH[players][seat]


def own_pile(seat: int) -> int:
    """The pile ``seat`` started, where its flips and stall placements go."""
    return seat


# --- views ---------------------------------------------------------------------------------


class PlayerView(NamedTuple):
    """What one player (or a spectator, ``seat is None``) may know. Bots and clients get this.

    ``hand`` is the viewer's own hand (empty for a spectator); other hands and every draw pile
    are counts only. ``piles`` holds the face-up cards of each center pile, bottom first
    (empty before the reveal); ``tops`` the top cards (``None`` before the reveal).
    """

    seat: int | None
    players: int
    phase: Phase
    ruleset: Ruleset
    hand: tuple[Card, ...]
    tops: tuple[Card | None, ...]
    piles: tuple[tuple[Card, ...], ...]
    hand_counts: tuple[int, ...]
    draw_counts: tuple[int, ...]
    set_aside: int
    chosen: tuple[bool, ...]
    my_choice: Card | None
    outcome: Outcome | None
    plays: int

    @property
    def reach(self) -> tuple[int, int] | tuple[()]:
        """The piles the viewer may play on (none for a spectator)."""
        return () if self.seat is None else _REACH[self.players][self.seat]

    def legal_plays(self) -> list[Play]:
        """The viewer's legal plays in this view."""
        return legal_plays_in_view(self)


def legal_plays_in_view(view: PlayerView) -> list[Play]:
    """Every legal play for the viewer of ``view`` (none outside the playing phase)."""
    if view.seat is None or view.phase is not Phase.PLAYING:
        return []
    out = []
    for pile in _REACH[view.players][view.seat]:
        top = view.tops[pile]
        if top is None:
            continue
        for c in view.hand:
            if c.matches(top):
                out.append(Play(view.seat, c, pile))
    return out


# --- the game ------------------------------------------------------------------------------


class ClassicGame:
    """A game of classic Blink for two or three players.

    Make one with :meth:`new`. Act with :meth:`reveal`, :meth:`play`, :meth:`flip` and
    :meth:`choose` (or :meth:`apply` with an action value); each returns the events it caused
    and raises :class:`IllegalAction` without changing anything when refused. Read it through
    :meth:`view` (what one player may know) or the read-only properties.
    """

    __slots__ = (
        "_draws",
        "_hands",
        "_history",
        "_piles",
        "_reach",
        "_tops",
        "choices",
        "deck",
        "events",
        "outcome",
        "phase",
        "players",
        "plays",
        "ruleset",
        "set_aside",
        "sizes",
        "stalls",
    )

    def __init__(
        self,
        deck: Sequence[Card],
        players: int = 2,
        ruleset: Ruleset = OFFICIAL,
        sizes: Sequence[int] | None = None,
    ) -> None:
        """Deal ``deck`` (top card first) to ``players`` players.

        Each player's draw pile is the next ``sizes[i]`` cards of the deck (an equal share by
        default); the rest is set aside unseen. From their draw pile each player places the top
        card face down as their center pile and takes the next ``hand_size`` as a hand.
        """
        deck = tuple(deck)
        if len(set(deck)) != len(deck):
            raise ValueError("the deck has a duplicate card")
        self.deck = deck
        self.players = players
        self.ruleset = ruleset
        self.sizes = deal_sizes(players, len(deck), sizes)
        self._reach = _REACH[players]
        # Draw piles are stored bottom first so that drawing is list.pop().
        self._draws: list[list[Card]] = []
        self._hands: list[list[Card]] = []
        self._piles: list[list[Card]] = []
        start = 0
        hand_size = ruleset.hand_size
        for n in self.sizes:
            pile = deck[start : start + n]
            start += n
            self._piles.append([pile[0]])
            self._hands.append(list(pile[1 : 1 + hand_size]))
            self._draws.append(list(reversed(pile[1 + hand_size :])))
        self.set_aside = deck[start:]
        self._tops: list[Card] = [p[0] for p in self._piles]
        self.phase = Phase.DEALT
        self.choices: dict[int, Card] = {}
        self.outcome: Outcome | None = None
        self.plays = 0
        self.stalls = 0
        self._history: list[tuple[Action, int | None]] = []
        self.events: list[Event] = [Dealt(players, ruleset, self.sizes, deck)]

    @classmethod
    def new(
        cls,
        players: int = 2,
        seed: int | str | None = None,
        *,
        deck: Sequence[Card] | None = None,
        ruleset: Ruleset = OFFICIAL,
        sizes: Sequence[int] | None = None,
    ) -> ClassicGame:
        """A new game: the standard deck shuffled by ``seed``, or an explicit ``deck`` order."""
        if deck is None:
            if seed is None:
                raise ValueError("give a seed or an explicit deck order")
            deck = shuffled_deck(seed, STANDARD_DECK)
        elif seed is not None:
            deck = shuffled_deck(seed, deck)
        return cls(deck, players, ruleset, sizes)

    # -- reading --------------------------------------------------------------------------

    def hand(self, player: int) -> tuple[Card, ...]:
        """A player's hand, slot order (full state: for the engine's owner, not for players)."""
        return tuple(self._hands[player])

    def draw_pile(self, player: int) -> tuple[Card, ...]:
        """A player's draw pile, top first (full state)."""
        return tuple(reversed(self._draws[player]))

    def pile(self, index: int) -> tuple[Card, ...]:
        """A center pile, bottom first (the first card is face down before the reveal)."""
        return tuple(self._piles[index])

    def top(self, index: int) -> Card:
        """The top card of a center pile."""
        return self._tops[index]

    @property
    def history(self) -> tuple[tuple[Action, int | None], ...]:
        """Every accepted action with its time in ms since the reveal (if given), in order."""
        return tuple(self._history)

    @property
    def over(self) -> bool:
        """True once the game has ended."""
        return self.phase is Phase.OVER

    def cards_left(self, player: int) -> int:
        """Cards in a player's hand and draw pile together."""
        return len(self._hands[player]) + len(self._draws[player])

    def reach(self, player: int) -> tuple[int, int]:
        """The piles ``player`` may play on."""
        return self._reach[player]

    def legal_plays(self, player: int) -> list[Play]:
        """Every play ``player`` may make now (empty unless the game is in the playing phase)."""
        if self.phase is not Phase.PLAYING:
            return []
        tops = self._tops
        hand = self._hands[player]
        a, b = self._reach[player]
        row_a = tops[a]._row
        row_b = tops[b]._row
        out = [Play(player, c, a) for c in hand if row_a[c.index]]
        if a != b:
            out += [Play(player, c, b) for c in hand if row_b[c.index]]
        return out

    def all_legal_plays(self) -> list[Play]:
        """Every legal play of every player."""
        out: list[Play] = []
        for p in range(self.players):
            out.extend(self.legal_plays(p))
        return out

    def view(self, seat: int | None) -> PlayerView:
        """What ``seat`` may know (``None`` for a spectator): never another hand or a draw."""
        if seat is not None and not 0 <= seat < self.players:
            raise IllegalAction(Reason.NO_SUCH_PLAYER, f"there is no seat {seat}")
        revealed = self.phase is not Phase.DEALT
        return PlayerView(
            seat=seat,
            players=self.players,
            phase=self.phase,
            ruleset=self.ruleset,
            hand=() if seat is None else tuple(self._hands[seat]),
            tops=tuple(self._tops) if revealed else (None,) * self.players,
            piles=tuple(tuple(p) for p in self._piles) if revealed else ((),) * self.players,
            hand_counts=tuple(len(h) for h in self._hands),
            draw_counts=tuple(len(d) for d in self._draws),
            set_aside=len(self.set_aside),
            chosen=tuple(p in self.choices for p in range(self.players)),
            my_choice=None if seat is None else self.choices.get(seat),
            outcome=self.outcome,
            plays=self.plays,
        )

    def events_for(self, seat: int | None) -> list[Event]:
        """The whole event log as ``seat`` may see it."""
        return [redact(e, seat) for e in self.events]

    # -- acting ---------------------------------------------------------------------------

    def apply(self, action: Action, t: int | None = None) -> list[Event]:
        """Apply any action value; ``t`` is its time in ms since the reveal, for the record."""
        if isinstance(action, Play):
            return self.play(action.player, action.card, action.pile, t)
        if isinstance(action, Choose):
            return self.choose(action.player, action.card, t)
        if isinstance(action, Flip):
            return self.flip(t)
        if isinstance(action, Reveal):
            return self.reveal(t)
        raise TypeError(f"not an action: {action!r}")

    def reveal(self, t: int | None = None) -> list[Event]:
        """Turn the center cards face up together and start the race."""
        if self.phase is not Phase.DEALT:
            if self.phase is Phase.OVER:
                raise IllegalAction(Reason.GAME_OVER, "the game is over")
            raise IllegalAction(Reason.ALREADY_REVEALED, "the center cards are already face up")
        self.phase = Phase.PLAYING
        out: list[Event] = [Revealed(tuple(self._tops))]
        self._after_change(out)
        self._history.append((Reveal(), t))
        self.events.extend(out)
        return out

    def play(self, player: int, card: Card, pile: int, t: int | None = None) -> list[Event]:
        """``player`` plays ``card`` from their hand on ``pile``.

        Judged against the pile's top card as it is now: when two players race for a pile,
        the second play is judged against the first one's card.
        """
        if self.phase is not Phase.PLAYING:
            self._refuse_phase()
        if not 0 <= player < self.players:
            raise IllegalAction(Reason.NO_SUCH_PLAYER, f"there is no player {player}")
        hand = self._hands[player]
        try:
            slot = hand.index(card)
        except ValueError:
            raise IllegalAction(
                Reason.CARD_NOT_IN_HAND, f"{card} ({_name(card)}) is not in your hand"
            ) from None
        if pile not in self._reach[player]:
            if not 0 <= pile < self.players:
                raise IllegalAction(Reason.NO_SUCH_PILE, f"there is no pile {pile}")
            raise IllegalAction(
                Reason.PILE_OUT_OF_REACH,
                f"pile {pile} is out of your reach (you may play on piles "
                f"{' and '.join(map(str, self._reach[player]))})",
            )
        top = self._tops[pile]
        if not top._row[card.index]:
            raise IllegalAction(
                Reason.NO_COMMON_ATTRIBUTE,
                f"{_name(card)} shares no colour, shape or count with {_name(top)} on pile {pile}",
            )
        self._piles[pile].append(card)
        self._tops[pile] = card
        self.plays += 1
        out: list[Event] = [Played(player, card, pile, slot, top)]
        draw = self._draws[player]
        if draw:
            new = draw.pop()
            hand[slot] = new
            out.append(Refilled(player, slot, new))
        else:
            del hand[slot]
            if not hand:
                self._end(out, Outcome((player,), "out_of_cards"))
        if self.phase is Phase.PLAYING:
            self._after_change(out)
        self._history.append((Play(player, card, pile), t))
        self.events.extend(out)
        return out

    def flip(self, t: int | None = None) -> list[Event]:
        """Break a flip stall: every player flips their draw pile's top onto their own pile."""
        if self.phase is not Phase.STALLED:
            if self.phase is Phase.OVER:
                raise IllegalAction(Reason.GAME_OVER, "the game is over")
            if self.phase is Phase.CHOOSING:
                raise IllegalAction(
                    Reason.CHOICE_AWAITED, "a draw pile is empty: each player must choose a card"
                )
            raise IllegalAction(Reason.NOT_STALLED, "the game is not stalled: there is a play")
        out: list[Event] = []
        for p in range(self.players):
            c = self._draws[p].pop()
            self._piles[p].append(c)
            self._tops[p] = c
            out.append(Flipped(p, c, p))
        self.phase = Phase.PLAYING
        self._after_change(out)
        self._history.append((Flip(), t))
        self.events.extend(out)
        return out

    def choose(self, player: int, card: Card, t: int | None = None) -> list[Event]:
        """In a choosing stall, ``player`` picks the hand card to place on their own pile.

        Choices stay secret until every player has chosen; then all are placed at once.
        """
        if self.phase is not Phase.CHOOSING:
            if self.phase is Phase.OVER:
                raise IllegalAction(Reason.GAME_OVER, "the game is over")
            if self.phase is Phase.DEALT:
                raise IllegalAction(Reason.NOT_REVEALED, "the center cards are not revealed yet")
            raise IllegalAction(Reason.NO_CHOICE_NEEDED, "no stall choice is awaited")
        if not 0 <= player < self.players:
            raise IllegalAction(Reason.NO_SUCH_PLAYER, f"there is no player {player}")
        if player in self.choices:
            raise IllegalAction(Reason.ALREADY_CHOSEN, "you have already chosen a card")
        if card not in self._hands[player]:
            raise IllegalAction(
                Reason.CARD_NOT_IN_HAND, f"{card} ({_name(card)}) is not in your hand"
            )
        self.choices[player] = card
        out: list[Event] = [ChoiceMade(player, card)]
        if len(self.choices) == self.players:
            self._place_choices(out)
        self._history.append((Choose(player, card), t))
        self.events.extend(out)
        return out

    def default_choice(self, player: int) -> Card:
        """The card chosen for a player who does not choose in time: their first hand card."""
        return self._hands[player][0]

    # -- internals ------------------------------------------------------------------------

    def _refuse_phase(self) -> None:
        phase = self.phase
        if phase is Phase.OVER:
            raise IllegalAction(Reason.GAME_OVER, "the game is over")
        if phase is Phase.DEALT:
            raise IllegalAction(Reason.NOT_REVEALED, "the center cards are not revealed yet")
        if phase is Phase.STALLED:
            raise IllegalAction(Reason.FLIP_AWAITED, "the game is stalled: wait for the flip")
        raise IllegalAction(
            Reason.CHOICE_AWAITED, "the game is stalled: choose a hand card to place"
        )

    def _place_choices(self, out: list[Event]) -> None:
        placed = []
        for p in range(self.players):
            c = self.choices[p]
            hand = self._hands[p]
            slot = hand.index(c)
            self._piles[p].append(c)
            self._tops[p] = c
            out.append(Placed(p, c, p, slot))
            draw = self._draws[p]
            if draw:
                new = draw.pop()
                hand[slot] = new
                placed.append(Refilled(p, slot, new))
            else:
                del hand[slot]
        out.extend(placed)
        self.choices = {}
        empty = tuple(p for p in range(self.players) if not self._hands[p])
        if empty:
            self._end(out, Outcome(empty, "stall_placement"))
            return
        self.phase = Phase.PLAYING
        self._after_change(out)

    def _after_change(self, out: list[Event]) -> None:
        """Detect a stall after the position changed."""
        tops = self._tops
        for p, (a, b) in enumerate(self._reach):
            mask = tops[a]._mask | tops[b]._mask
            for c in self._hands[p]:
                if mask >> c.index & 1:
                    return
        self.stalls += 1
        if all(self._draws):
            self.phase = Phase.STALLED
            out.append(Stalled(StallKind.FLIP))
        elif self.ruleset.dead_end is DeadEnd.FEWEST_CARDS:
            out.append(Stalled(StallKind.DEAD_END))
            left = [self.cards_left(p) for p in range(self.players)]
            fewest = min(left)
            winners = tuple(p for p in range(self.players) if left[p] == fewest)
            self._end(out, Outcome(winners, "fewest_cards"))
        else:
            self.phase = Phase.CHOOSING
            out.append(Stalled(StallKind.CHOOSE))

    def _end(self, out: list[Event], outcome: Outcome) -> None:
        self.phase = Phase.OVER
        self.outcome = outcome
        out.append(Ended(outcome))

    # -- rebuilding -----------------------------------------------------------------------

    @classmethod
    def replay(
        cls,
        deck: Sequence[Card],
        players: int,
        ruleset: Ruleset,
        sizes: Sequence[int] | None,
        actions: Iterable[tuple[Action, int | None]],
    ) -> ClassicGame:
        """Rebuild a game from its deal and accepted (action, time) pairs.

        Raises :class:`IllegalAction` at the first action that is not legal.
        """
        game = cls(deck, players, ruleset, sizes)
        for action, t in actions:
            game.apply(action, t)
        return game

    @classmethod
    def from_events(cls, events: Sequence[Event]) -> ClassicGame:
        """Rebuild a game by replaying its full (unredacted) event log."""
        first = events[0] if events else None
        if not isinstance(first, Dealt) or first.deck is None:
            raise ValueError("an event log starts with the full Dealt event")
        game = cls(first.deck, first.players, first.ruleset, first.sizes)
        for e in events[1:]:
            _apply_event(game, e)
        return game

    def snapshot(self) -> tuple[object, ...]:
        """A value capturing the whole state, for equality checks in tests and verification."""
        return (
            self.phase,
            tuple(tuple(h) for h in self._hands),
            tuple(tuple(d) for d in self._draws),
            tuple(tuple(p) for p in self._piles),
            tuple(sorted(self.choices.items())),
            self.outcome,
            self.plays,
        )


def _apply_event(game: ClassicGame, e: Event) -> None:
    """Re-apply one event to a game (used to rebuild state from an event log)."""
    if isinstance(e, Revealed):
        game.phase = Phase.PLAYING
    elif isinstance(e, Played):
        del game._hands[e.player][e.slot]
        game._piles[e.pile].append(e.card)
        game._tops[e.pile] = e.card
        game.plays += 1
        game.phase = Phase.PLAYING
    elif isinstance(e, Refilled):
        draw = game._draws[e.player]
        card = draw.pop()
        if e.card is not None and card != e.card:
            raise ValueError(f"log does not match the deal: expected {e.card}, drew {card}")
        game._hands[e.player].insert(e.slot, card)
    elif isinstance(e, Stalled):
        game.stalls += 1
        game.phase = {
            StallKind.FLIP: Phase.STALLED,
            StallKind.CHOOSE: Phase.CHOOSING,
            StallKind.DEAD_END: Phase.OVER,
        }[e.kind]
    elif isinstance(e, Flipped):
        game._piles[e.pile].append(game._draws[e.player].pop())
        game._tops[e.pile] = game._piles[e.pile][-1]
        game.phase = Phase.PLAYING
    elif isinstance(e, ChoiceMade):
        if e.card is None:
            raise ValueError("a redacted event log cannot rebuild a game")
        game.choices[e.player] = e.card
    elif isinstance(e, Placed):
        game._hands[e.player].remove(e.card)
        game._piles[e.pile].append(e.card)
        game._tops[e.pile] = e.card
        game.choices.pop(e.player, None)
        game.phase = Phase.PLAYING
    elif isinstance(e, Ended):
        game.phase = Phase.OVER
        game.outcome = e.outcome
    game.events.append(e)


def _name(card: Card) -> str:
    return card.long_name
