"""Classic Blink for two or three players: a real-time race, applied one action at a time.

The engine is pure. It reads no clock and no global random state: a game is made from an
explicit deck order (or a seed), and the caller passes each action in the order it arrived,
optionally with its time in milliseconds since the reveal. Every accepted action returns the
events it caused; a refused action raises :class:`IllegalAction` and changes nothing.

Seating and piles. Seats are numbered from 0 so that seat ``i + 1`` sits on seat ``i``'s
right. With two players there are two center piles, both reachable by both players; pile ``i``
is the one seat ``i`` started. With three players pile ``i`` lies between seat ``i`` and seat
``i + 1`` (to seat ``i``'s right), so seat ``i`` reaches piles ``i`` (right) and ``i - 1``
(left), and starts pile ``i``. See docs/rules.md for every ruling.

This module holds the game itself, :class:`ClassicGame`. Its vocabulary (phases, refusal
reasons, actions, events and :func:`redact`) is in :mod:`blink.games.classic.actions`; the
table's geometry and what one player may know, in :mod:`blink.games.classic.view`; rebuilding
a game from its event log, in :mod:`blink.games.classic.rebuild`. Every public name of those
modules is importable from here as well.

Typical use::

    game = ClassicGame.new(players=2, seed=7)
    game.reveal()
    for play in game.legal_plays(0):
        events = game.play(0, play.card, play.pile)
        break
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Final, Protocol

from blink.cards import STANDARD_DECK, Card, shuffled_deck
from blink.games.classic.actions import (
    Action,
    ChoiceMade,
    Choose,
    ClassicEnd,
    Dealt,
    Ended,
    Event,
    Flip,
    Flipped,
    Phase,
    Placed,
    Play,
    Played,
    Reason,
    Refilled,
    Reveal,
    Revealed,
    Stalled,
    StallKind,
    redact,
)
from blink.games.classic.rebuild import apply_event
from blink.games.classic.rules import OFFICIAL, Ruleset, deal_sizes
from blink.games.classic.view import _REACH, PlayerView, legal_plays_in_view, own_pile, reach
from blink.model.base import IllegalAction, Outcome

if TYPE_CHECKING:
    from random import Random

__all__ = [
    "Action",
    "ChoiceMade",
    "Choose",
    "ClassicEnd",
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
    "RandomSource",
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


class RandomSource(Protocol):
    """Anything with a ``random()`` giving a float in [0, 1), such as :class:`random.Random`."""

    def random(self) -> float:
        """A float in [0, 1)."""
        ...


# Engine-internal fast paths: build NamedTuple values without their Python-level __new__, and
# read enum members from module globals.
_tuple_new: Final = tuple.__new__
_PLAYING: Final = Phase.PLAYING
_STALLED: Final = Phase.STALLED
_CHOOSING: Final = Phase.CHOOSING
_OVER: Final = Phase.OVER
_DEALT: Final = Phase.DEALT


class ClassicGame:
    """A game of classic Blink for two or three players.

    Make one with :meth:`new`. Act with :meth:`reveal`, :meth:`play`, :meth:`flip` and
    :meth:`choose` (or :meth:`apply` with an action value); each returns the events it caused
    and raises :class:`IllegalAction` without changing anything when refused. Read it through
    :meth:`view` (what one player may know) or the read-only properties.

    Fast path for simulations (python-chess style): :meth:`legal_play_count` and
    :meth:`random_legal_play` answer without building the list of legal plays; the play they
    return still goes through the checked :meth:`play` and produces the same events.
    """

    __slots__ = (
        "_draws",
        "_hands",
        "_hm",
        "_piles",
        "_reach",
        "_times",
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
        # Each hand as a bit set over card indexes, for cheap stall detection.
        self._hm: list[int] = [sum(c._bit for c in h) for h in self._hands]
        self.phase = _DEALT
        self.choices: dict[int, Card] = {}
        self.outcome: Outcome | None = None
        self.plays = 0
        self.stalls = 0
        # The time of each accepted action; the actions themselves are read from the events.
        self._times: list[int | None] = []
        self.events: list[Event] = [Dealt(players, ruleset, self.sizes, deck)]

    @classmethod
    def new(
        cls,
        players: int = 2,
        seed: int | str | Random | None = None,
        *,
        deck: Sequence[Card] | None = None,
        ruleset: Ruleset = OFFICIAL,
        sizes: Sequence[int] | None = None,
    ) -> ClassicGame:
        """A new game: the standard deck shuffled by ``seed``, or an explicit ``deck`` order.

        ``seed`` may be a :class:`random.Random` owned by the caller (see
        :func:`blink.cards.shuffled_deck`); given with ``deck``, it shuffles that deck.
        """
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

    @property
    def hands(self) -> tuple[tuple[Card, ...], ...]:
        """Every hand, slot order (full state: for the engine's owner, not for players)."""
        return tuple(map(tuple, self._hands))

    @property
    def draw_counts(self) -> tuple[int, ...]:
        """How many cards each draw pile holds."""
        return tuple(map(len, self._draws))

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
        """Every accepted action with its time in ms since the reveal (if given), in order.

        Derived from the event log: each action's first event names it (a flip's first event
        is seat 0's :class:`Flipped`).
        """
        out: list[tuple[Action, int | None]] = []
        times = self._times
        i = 0
        for e in self.events:
            action: Action
            if isinstance(e, Played):
                action = Play(e.player, e.card, e.pile)
            elif isinstance(e, Revealed):
                action = Reveal()
            elif isinstance(e, Flipped):
                if e.player != 0:
                    continue
                action = Flip()
            elif isinstance(e, ChoiceMade) and e.card is not None:
                action = Choose(e.player, e.card)
            else:
                continue
            out.append((action, times[i] if i < len(times) else None))
            i += 1
        return tuple(out)

    @property
    def over(self) -> bool:
        """True once the game has ended."""
        return self.phase is _OVER

    def cards_left(self, player: int) -> int:
        """Cards in a player's hand and draw pile together."""
        return len(self._hands[player]) + len(self._draws[player])

    def reach(self, player: int) -> tuple[int, int]:
        """The piles ``player`` may play on."""
        return self._reach[player]

    def legal_plays(self, player: int) -> list[Play]:
        """Every play ``player`` may make now (empty unless the game is in the playing phase)."""
        if player.__class__ is not int or not 0 <= player < self.players:
            raise _no_player(player)
        if self.phase is not _PLAYING:
            return []
        tops = self._tops
        hand = self._hands[player]
        h = self._hm[player]
        a, b = self._reach[player]
        out: list[Play] = []
        top = tops[a]
        if h & top._mask:  # some hand card matches: find which
            row = top._row
            for c in hand:
                if row[c.index]:
                    out.append(_tuple_new(Play, (player, c, a)))
        if a != b:
            top = tops[b]
            if h & top._mask:
                row = top._row
                for c in hand:
                    if row[c.index]:
                        out.append(_tuple_new(Play, (player, c, b)))
        return out

    def legal_actions(self, player: int) -> list[Play] | list[Choose]:
        """Every decision ``player`` may take now: plays while racing, or in a choosing stall
        one :class:`Choose` per hand card until they have chosen. The reveal and the flip are
        the table's, not a player's (see :mod:`blink.games.classic.definition`)."""
        if self.phase is _CHOOSING:
            if player.__class__ is not int or not 0 <= player < self.players:
                raise _no_player(player)
            if player in self.choices:
                return []
            return [Choose(player, c) for c in self._hands[player]]
        return self.legal_plays(player)

    def all_legal_plays(self) -> list[Play]:
        """Every legal play of every player."""
        out: list[Play] = []
        for p in range(self.players):
            out.extend(self.legal_plays(p))
        return out

    def legal_play_count(self) -> int:
        """How many (player, card, pile) plays are legal now, without listing them."""
        if self.phase is not _PLAYING:
            return 0
        tops = self._tops
        hm = self._hm
        total = 0
        for p, (a, b) in enumerate(self._reach):
            total += (hm[p] & tops[a]._mask).bit_count()
            if a != b:
                total += (hm[p] & tops[b]._mask).bit_count()
        return total

    def random_legal_play(self, rng: RandomSource) -> Play | None:
        """One of :meth:`all_legal_plays`, uniformly at random, or ``None`` when there is none.

        ``rng`` is the caller's generator (one ``rng.random()`` call per pick). Much cheaper
        than listing every legal play: the fast path for simulations and benchmarks.
        """
        if self.phase is not _PLAYING:
            return None
        tops = self._tops
        hm = self._hm
        if len(hm) == 2:
            return self._random_play_2(rng)
        counts: list[tuple[int, int, int]] = []
        total = 0
        for p, (a, b) in enumerate(self._reach):
            h = hm[p]
            n = (h & tops[a]._mask).bit_count()
            if n:
                counts.append((n, p, a))
                total += n
            if a != b:
                n = (h & tops[b]._mask).bit_count()
                if n:
                    counts.append((n, p, b))
                    total += n
        if not total:
            return None
        r = int(rng.random() * total)
        for n, p, pile in counts:
            if r < n:
                row = tops[pile]._row
                for c in self._hands[p]:
                    if row[c.index]:
                        if not r:
                            return _tuple_new(Play, (p, c, pile))
                        r -= 1
            r -= n
        return None  # pragma: no cover - unreachable: the counts above add up to total

    def _random_play_2(self, rng: RandomSource) -> Play | None:
        """:meth:`random_legal_play` for two players (both reach both piles)."""
        tops = self._tops
        h0, h1 = self._hm
        t0 = tops[0]
        t1 = tops[1]
        m0 = t0._mask
        m1 = t1._mask
        a = (h0 & m0).bit_count()
        b = (h0 & m1).bit_count()
        c = (h1 & m0).bit_count()
        total = a + b + c + (h1 & m1).bit_count()
        if not total:
            return None
        r = int(rng.random() * total)
        if r < a:
            p, top = 0, t0
        elif r < a + b:
            p, top, r = 0, t1, r - a
        elif r < a + b + c:
            p, top, r = 1, t0, r - a - b
        else:
            p, top, r = 1, t1, r - a - b - c
        row = top._row
        for card in self._hands[p]:
            if row[card.index]:
                if not r:
                    return _tuple_new(Play, (p, card, 0 if top is t0 else 1))
                r -= 1
        return None  # pragma: no cover - unreachable: the counts above add up to total

    def view(self, seat: int | None) -> PlayerView:
        """What ``seat`` may know (``None`` for a spectator): never another hand or a draw."""
        if seat is not None and (seat.__class__ is not int or not 0 <= seat < self.players):
            raise IllegalAction(Reason.NO_SUCH_PLAYER, f"there is no seat {seat!r}")
        players = self.players
        if self.phase is not _DEALT:
            tops: tuple[Card | None, ...] = tuple(self._tops)
            piles = tuple(map(tuple, self._piles))
        else:
            tops, piles = (None,) * players, ((),) * players
        # Positional, in PlayerView's field order: a NamedTuple's keyword constructor costs
        # as much again, and a live server builds a view per receiver per play.
        return _tuple_new(
            PlayerView,
            (
                seat,
                players,
                self.phase,
                self.ruleset,
                () if seat is None else tuple(self._hands[seat]),
                tops,
                piles,
                tuple(map(len, self._hands)),
                tuple(map(len, self._draws)),
                len(self.set_aside),
                tuple(p in self.choices for p in range(players)),
                None if seat is None else self.choices.get(seat),
                self.outcome,
                self.plays,
            ),
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
        if self.phase is not _DEALT:
            if self.phase is _OVER:
                raise IllegalAction(Reason.GAME_OVER, "the game is over")
            raise IllegalAction(Reason.ALREADY_REVEALED, "the center cards are already face up")
        self.phase = _PLAYING
        out: list[Event] = [Revealed(tuple(self._tops))]
        self._after_change(out)
        self._times.append(t)
        self.events += out
        return out

    def play(self, player: int, card: Card, pile: int, t: int | None = None) -> list[Event]:
        """``player`` plays ``card`` from their hand on ``pile``.

        Judged against the pile's top card as it is now: when two players race for a pile,
        the second play is judged against the first one's card.
        """
        if self.phase is not _PLAYING:
            self._refuse_phase()
        if player.__class__ is not int or not 0 <= player < self.players:
            raise _no_player(player)
        hand = self._hands[player]
        try:
            slot = hand.index(card)
        except ValueError:
            raise _refusal(
                Reason.CARD_NOT_IN_HAND, "{card} is not in your hand", card=card
            ) from None
        if pile not in self._reach[player] or pile.__class__ is not int:
            raise self._no_reach(player, pile)
        tops = self._tops
        top = tops[pile]
        if not top._row[card.index]:
            raise _refusal(
                Reason.NO_COMMON_ATTRIBUTE,
                "{card} shares no colour, shape or count with {top} on {pile}",
                card=card,
                top=top,
                pile=pile,
            )
        # Legal: apply it.
        self._piles[pile].append(card)
        tops[pile] = card
        self.plays += 1
        hm = self._hm
        draw = self._draws[player]
        out: list[Event]
        if draw:
            new = draw.pop()
            hand[slot] = new
            hm[player] ^= card._bit | new._bit
            out = [
                _tuple_new(Played, (player, card, pile, slot, top)),
                _tuple_new(Refilled, (player, slot, new)),
            ]
        else:
            del hand[slot]
            hm[player] ^= card._bit
            out = [_tuple_new(Played, (player, card, pile, slot, top))]
            if not hand:
                self._end(out, Outcome((player,), ClassicEnd.OUT_OF_CARDS))
                self._times.append(t)
                self.events += out
                return out
        # Stall detection: does any hand card match a top its player can reach?
        if len(hm) == 2:
            if not (hm[0] | hm[1]) & (tops[0]._mask | tops[1]._mask):
                self._stall(out)
        else:
            self._after_change(out)
        self._times.append(t)
        self.events += out
        return out

    def flip(self, t: int | None = None) -> list[Event]:
        """Break a flip stall: every player flips their draw pile's top onto their own pile."""
        if self.phase is not _STALLED:
            if self.phase is _OVER:
                raise IllegalAction(Reason.GAME_OVER, "the game is over")
            if self.phase is _DEALT:
                raise IllegalAction(Reason.NOT_REVEALED, "the center cards are not revealed yet")
            if self.phase is _CHOOSING:
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
        self.phase = _PLAYING
        self._after_change(out)
        self._times.append(t)
        self.events += out
        return out

    def choose(self, player: int, card: Card, t: int | None = None) -> list[Event]:
        """In a choosing stall, ``player`` picks the hand card to place on their own pile.

        Choices stay secret until every player has chosen; then all are placed at once.
        """
        if self.phase is not _CHOOSING:
            if self.phase is _OVER:
                raise IllegalAction(Reason.GAME_OVER, "the game is over")
            if self.phase is _DEALT:
                raise IllegalAction(Reason.NOT_REVEALED, "the center cards are not revealed yet")
            if self.phase is _STALLED:
                raise IllegalAction(
                    Reason.FLIP_AWAITED,
                    "no choice is needed: every player still has draw cards, wait for the flip",
                )
            raise IllegalAction(Reason.NO_CHOICE_NEEDED, "no stall choice is awaited")
        if player.__class__ is not int or not 0 <= player < self.players:
            raise _no_player(player)
        if player in self.choices:
            raise IllegalAction(Reason.ALREADY_CHOSEN, "you have already chosen a card")
        if card not in self._hands[player]:
            raise _refusal(Reason.CARD_NOT_IN_HAND, "{card} is not in your hand", card=card)
        self.choices[player] = card
        out: list[Event] = [ChoiceMade(player, card)]
        if len(self.choices) == self.players:
            self._place_choices(out)
        self._times.append(t)
        self.events += out
        return out

    def default_choice(self, player: int) -> Card:
        """The card chosen for a player who does not choose in time: their first hand card."""
        return self._hands[player][0]

    def awaiting_choice(self) -> tuple[int, ...]:
        """The seats that still have to choose a card (empty unless the game is choosing)."""
        if self.phase is not _CHOOSING:
            return ()
        return tuple(p for p in range(self.players) if p not in self.choices)

    # -- internals ------------------------------------------------------------------------

    def _refuse_phase(self) -> None:
        phase = self.phase
        if phase is _OVER:
            raise IllegalAction(Reason.GAME_OVER, "the game is over")
        if phase is _DEALT:
            raise IllegalAction(Reason.NOT_REVEALED, "the center cards are not revealed yet")
        if phase is _STALLED:
            raise IllegalAction(Reason.FLIP_AWAITED, "the game is stalled: wait for the flip")
        raise IllegalAction(
            Reason.CHOICE_AWAITED, "the game is stalled: choose a hand card to place"
        )

    def _no_reach(self, player: int, pile: object) -> IllegalAction:
        if pile.__class__ is not int or not 0 <= pile < self.players:
            return IllegalAction(Reason.NO_SUCH_PILE, f"there is no pile {pile!r}")
        return _refusal(
            Reason.PILE_OUT_OF_REACH,
            "{pile} is out of your reach (you may play on {reach})",
            pile=pile,
            reach=tuple(self._reach[player]),
        )

    def _place_choices(self, out: list[Event]) -> None:
        placed = []
        hm = self._hm
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
                hm[p] ^= c._bit | new._bit
                placed.append(Refilled(p, slot, new))
            else:
                del hand[slot]
                hm[p] ^= c._bit
        out.extend(placed)
        self.choices = {}
        empty = tuple(p for p in range(self.players) if not self._hands[p])
        if empty:
            self._end(out, Outcome(empty, ClassicEnd.STALL_PLACEMENT))
            return
        self.phase = _PLAYING
        self._after_change(out)

    def _after_change(self, out: list[Event]) -> None:
        """Detect a stall after the position changed."""
        tops = self._tops
        hm = self._hm
        for p, (a, b) in enumerate(self._reach):
            if hm[p] & (tops[a]._mask | tops[b]._mask):
                return
        self._stall(out)

    def _stall(self, out: list[Event]) -> None:
        """No one can play: decide how the stall is broken."""
        self.stalls += 1
        if all(self._draws):
            self.phase = _STALLED
            out.append(Stalled(StallKind.FLIP))
        elif self.ruleset.dead_end.ends_stall(self.draw_counts):
            out.append(Stalled(StallKind.DEAD_END))
            left = [self.cards_left(p) for p in range(self.players)]
            fewest = min(left)
            winners = tuple(p for p in range(self.players) if left[p] == fewest)
            self._end(out, Outcome(winners, ClassicEnd.FEWEST_CARDS))
        else:
            self.phase = _CHOOSING
            out.append(Stalled(StallKind.CHOOSE))

    def end_by_fewest_cards(self) -> list[Event]:
        """End the game now: the fewest cards left (hand and draw pile) win, shared on a tie.

        No rule of the table calls it: a driver's own limit does (the environments end a game
        no one has played in for a while this way, docs/envs.md). Nothing once it is over."""
        out: list[Event] = []
        if self.phase is _OVER:
            return out
        left = [self.cards_left(p) for p in range(self.players)]
        fewest = min(left)
        winners = tuple(p for p in range(self.players) if left[p] == fewest)
        self._end(out, Outcome(winners, ClassicEnd.FEWEST_CARDS))
        self.events += out
        return out

    def _end(self, out: list[Event], outcome: Outcome) -> None:
        self.phase = _OVER
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
        """Rebuild a game by replaying its full (unredacted) event log.

        The events are applied as they are, without the rules (event sourcing); a log that
        does not fit its own deal (a card drawn that is not the top of the draw pile, a card
        played that is not in the hand) raises :class:`ValueError`. Action times are not in
        events, so the rebuilt :attr:`history` has no times.
        """
        first = events[0] if events else None
        if not isinstance(first, Dealt) or first.deck is None:
            raise ValueError("an event log starts with the full Dealt event")
        game = cls(first.deck, first.players, first.ruleset, first.sizes)
        for e in events[1:]:
            apply_event(game, e)
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


def _no_player(player: object) -> IllegalAction:
    return IllegalAction(Reason.NO_SUCH_PLAYER, f"there is no player {player!r}")


def _refusal(reason: Reason, template: str, **subjects: object) -> IllegalAction:
    """A refusal about cards and piles: the engine's sentence (cards by notation and long
    name, piles by number) and its template, for a client to name them its own way."""
    typed: dict[str, Card | int | tuple[int, ...]] = {}
    plain: dict[str, str] = {}
    for key, value in subjects.items():
        if isinstance(value, Card | int | tuple):
            typed[key] = value
        if isinstance(value, tuple):
            plain[key] = "piles " + " and ".join(map(str, value))
        elif isinstance(value, int) and not isinstance(value, Card):
            plain[key] = f"pile {value}"
        else:
            plain[key] = _name(value)
    if len(typed) < len(subjects):  # something that is no card or pile: no template
        return IllegalAction(reason, template.format(**plain))
    return IllegalAction(reason, template.format(**plain), template=template, subjects=typed)


def _name(card: object) -> str:
    """A card's notation and long name for messages (or the repr of a non-card)."""
    if isinstance(card, Card):
        return f"{card} ({card.long_name})"
    return repr(card)
