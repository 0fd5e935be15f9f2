"""Property-based tests of the classic engine, including a stateful machine that plays random
legal and illegal actions (2 and 3 players, every ruleset and the earlier dead-end ruling,
handicaps) and checks every invariant after every step."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from blink.cards import STANDARD_DECK, Card, shuffled_deck
from blink.games.classic.engine import (
    ChoiceMade,
    ClassicGame,
    Dealt,
    Event,
    Flipped,
    IllegalAction,
    Phase,
    Placed,
    Play,
    Played,
    PlayerView,
    Refilled,
    Revealed,
    Stalled,
    StallKind,
    redact,
)
from blink.games.classic.record import GameRecord, loads
from blink.games.classic.rules import DEAD_END, OFFICIAL, DeadEnd, Ruleset
from blink.games.classic.wire import view_to_wire

ALL_180 = [Card.parse(f"{n}{c}{s}") for n in "12345" for c in "ROYGBP" for s in "MPSWFL"]
# Two families that never match each other: decks mixing them stall often.
LOW = [Card.parse(f"{n}{c}{s}") for n in "12" for c in "RO" for s in "MP"]
HIGH = [Card.parse(f"{n}{c}{s}") for n in "345" for c in "YGBP" for s in "SWFL"]
LEGACY_DEAD_END = Ruleset("dead-end", DeadEnd.FEWEST_CARDS_ANY_EMPTY)
"""The earlier dead-end ruling, which old records still replay under."""
RULESETS = [OFFICIAL, DEAD_END, LEGACY_DEAD_END]


# --- invariants shared by the machine and the plain properties --------------------------------


def check_invariants(game: ClassicGame) -> None:
    """Every rule that must hold in any reachable state."""
    players = game.players
    # Each of the deck's cards is in exactly one place.
    places: Counter[Card] = Counter()
    for p in range(players):
        places.update(game.hand(p))
        places.update(game.draw_pile(p))
        places.update(game.pile(p))
    places.update(game.set_aside)
    assert places == Counter(game.deck)
    # Hands never exceed the hand size (three), and are full while the draw pile lasts.
    for p in range(players):
        assert len(game.hand(p)) <= game.ruleset.hand_size
        if game.draw_pile(p):
            assert len(game.hand(p)) == game.ruleset.hand_size
    # Stall phases mean no one can play; playing means someone can.
    count = game.legal_play_count()
    assert count == len(game.all_legal_plays())
    if game.phase is Phase.PLAYING:
        assert count > 0
    check_piles(game)
    # Secret choices are hand cards.
    for seat, c in game.choices.items():
        assert c in game.hand(seat)
    # Views never show another player's hand card, a draw-pile card or a set-aside card.
    for viewer in [*range(players), None]:
        hidden = set(game.set_aside)
        for p in range(players):
            hidden.update(game.draw_pile(p))
            if p != viewer:
                hidden.update(game.hand(p))
        view = game.view(viewer)
        shown = set(view.hand) | {c for c in view.tops if c is not None}
        shown |= {c for pile in view.piles for c in pile}
        if view.my_choice is not None:
            shown.add(view.my_choice)
        assert not shown & hidden
        assert view.hand == (() if viewer is None else game.hand(viewer))
        assert view.hand_counts == tuple(len(game.hand(p)) for p in range(players))
        assert view.draw_counts == tuple(len(game.draw_pile(p)) for p in range(players))
        if viewer is not None:
            assert view.legal_plays() == game.legal_plays(viewer)
        # Redacted events for this viewer never contain a hidden card.
        for e in game.events_for(viewer):
            assert not event_cards(e) & hidden, (viewer, e)


def event_cards(e: Event) -> set[Card]:
    """Every card mentioned in an event."""
    out: set[Card] = set()
    for value in e:
        if isinstance(value, Card):
            out.add(value)
        elif isinstance(value, tuple):
            out.update(v for v in value if isinstance(v, Card))
    return out


def check_piles(game: ClassicGame) -> None:
    """Walk the event log: each played card covers the pile's top of that moment and shares an
    attribute with it (flips and stall placements need not); the piles end as the game has them."""
    piles: list[list[Card]] = [[game.pile(i)[0]] for i in range(game.players)]
    for e in game.events:
        if isinstance(e, Played):
            assert e.covered is piles[e.pile][-1]
            assert e.card.matches(e.covered)
            piles[e.pile].append(e.card)
        elif isinstance(e, Flipped | Placed):
            piles[e.pile].append(e.card)
    assert [tuple(p) for p in piles] == [game.pile(i) for i in range(game.players)]


def check_plays_match(events: list[Event]) -> None:
    """Every played card shares an attribute with the card it covers."""
    for e in events:
        if isinstance(e, Played):
            assert e.card.matches(e.covered)


def check_record_and_events(game: ClassicGame) -> None:
    """The record replays to the same state; the event log rebuilds it too."""
    record = GameRecord.from_game(game, names=["A", "B", "C"][: game.players])
    again = loads(record.to_json())
    assert isinstance(again, GameRecord)
    replayed = again.verify()
    assert replayed.snapshot() == game.snapshot()
    assert replayed.events == game.events
    assert replayed.history == game.history
    rebuilt = ClassicGame.from_events(game.events)
    assert rebuilt.snapshot() == game.snapshot()
    assert rebuilt.stalls == game.stalls


def step(game: ClassicGame, rng: random.Random) -> None:
    """One random legal action (the game must not be over)."""
    if game.phase is Phase.DEALT:
        game.reveal()
    elif game.phase is Phase.PLAYING:
        play = game.random_legal_play(rng)
        assert play is not None
        check_plays_match(game.play(*play))
    elif game.phase is Phase.STALLED:
        game.flip()
    else:
        seat = game.awaiting_choice()[0]
        hand = game.hand(seat)
        game.choose(seat, hand[rng.randrange(len(hand))])


def finish(game: ClassicGame, rng: random.Random) -> int:
    """Play random legal actions to the end; return the number of actions it took."""
    bound = len(game.deck) * 2 + 10  # every play, flip and placement removes a card
    for steps in range(bound):
        if game.over:
            return steps
        step(game, rng)
    raise AssertionError(f"the game did not end within {bound} actions")


deals = st.tuples(
    st.sampled_from([2, 3]),
    st.integers(0, 2**32),
    st.sampled_from(RULESETS),
    st.sampled_from(["equal", "handicap", "small", "stally", "stall", "stall"]),
)


def make_game(players: int, seed: int, ruleset: Ruleset, kind: str) -> ClassicGame:
    """A game of the given kind: an equal deal, a handicap, a small custom deck, or a small
    deck built to stall often."""
    rng = random.Random(seed)
    if kind == "equal":
        return ClassicGame.new(players, seed, ruleset=ruleset)
    if kind == "handicap":
        sizes = [rng.randint(4, 60 // players + 8) for _ in range(players)]
        while sum(sizes) > 60:
            sizes[sizes.index(max(sizes))] -= 1
        return ClassicGame.new(players, seed, ruleset=ruleset, sizes=sizes)
    if kind == "stall":  # stalled at the reveal: low centers, high hands
        low, high = rng.sample(LOW, len(LOW)), rng.sample(HIGH, len(HIGH))
        deck, sizes = [], []
        centers = [low.pop() for _ in range(players)]
        for center in centers:
            block = [center, high.pop(), high.pop(), high.pop()]
            for _ in range(rng.choice([0, 1, 2, 2, 3])):
                block.append(low.pop() if low and rng.random() < 0.6 else high.pop())
            deck += block
            sizes.append(len(block))
        return ClassicGame(deck, players, ruleset, sizes)
    if kind == "stally":
        deck = LOW + rng.sample(HIGH, rng.randint(4, 20))
        rng.shuffle(deck)
        sizes = None
        if rng.random() < 0.5:
            sizes = [rng.randint(4, len(deck) // players + 2) for _ in range(players)]
            while sum(sizes) > len(deck):
                sizes[sizes.index(max(sizes))] -= 1
        return ClassicGame(deck, players, ruleset, sizes)
    deck = rng.sample(ALL_180, rng.randint(4 * players, 4 * players + 10))
    return ClassicGame(deck, players, ruleset)


# --- plain properties ------------------------------------------------------------------------


@settings(max_examples=60)
@given(deals)
def test_random_games_end_and_keep_every_invariant(deal: tuple[int, int, Ruleset, str]) -> None:
    game = make_game(*deal)
    rng = random.Random(deal[1])
    finish(game, rng)
    assert game.over and game.outcome is not None
    assert game.outcome.winners and len(set(game.outcome.winners)) == len(game.outcome.winners)
    check_invariants(game)
    check_plays_match(game.events)
    check_record_and_events(game)
    if game.outcome.reason == "out_of_cards":
        assert [game.cards_left(p) for p in game.outcome.winners] == [0]
    if game.outcome.reason == "fewest_cards":
        assert game.ruleset.dead_end is not DeadEnd.CHOOSE
        if game.ruleset is DEAD_END:
            assert not any(game.draw_counts)
        left = [game.cards_left(p) for p in range(game.players)]
        assert set(game.outcome.winners) == {p for p in range(game.players) if left[p] == min(left)}


@settings(max_examples=80)
@given(
    st.sampled_from([2, 3]),
    st.integers(0, 2**32),
    st.sampled_from(["handicap", "small", "stally", "stall", "stall"]),
)
def test_the_dead_end_changes_only_a_stall_with_no_draw_pile_left(
    players: int, seed: int, kind: str
) -> None:
    """The same deal and the same random choices under ``official`` and ``dead-end`` give the
    same game, up to a stall with every draw pile empty: there the official rules ask for
    choices and the dead end ends the game, the fewest cards left winning (ties shared)."""
    official, dead = (make_game(players, seed, r, kind) for r in (OFFICIAL, DEAD_END))
    rng_official, rng_dead = random.Random(seed), random.Random(seed)
    while not official.over and not dead.over:
        step(official, rng_official)
        step(dead, rng_dead)
        if dead.over and dead.outcome is not None and dead.outcome.reason == "fewest_cards":
            assert dead.draw_counts == (0,) * players
            assert dead.events[1:-2] == official.events[1:-1]
            assert dead.events[-2] == Stalled(StallKind.DEAD_END)
            assert official.events[-1] == Stalled(StallKind.CHOOSE)
            assert official.phase is Phase.CHOOSING and official.draw_counts == dead.draw_counts
            left = [dead.cards_left(p) for p in range(players)]
            assert dead.outcome.winners == tuple(p for p in range(players) if left[p] == min(left))
            return
        assert dead.events[1:] == official.events[1:]
    assert dead.outcome == official.outcome


@settings(max_examples=40)
@given(st.integers(0, 2**32), st.sampled_from([2, 3]))
def test_random_legal_play_is_one_of_the_legal_plays(seed: int, players: int) -> None:
    game = ClassicGame.new(players, seed)
    game.reveal()
    rng = random.Random(seed)
    while game.phase is Phase.PLAYING:
        legal = game.all_legal_plays()
        pick = game.random_legal_play(rng)
        assert pick in legal and isinstance(pick, Play)
        game.play(*pick)
    assert game.random_legal_play(rng) is None


def test_random_legal_play_is_uniform() -> None:
    game = ClassicGame.new(2, 4)
    game.reveal()
    legal = game.all_legal_plays()
    assert len(legal) >= 2
    rng = random.Random(1)
    n = 400 * len(legal)
    counts = Counter(game.random_legal_play(rng) for _ in range(n))
    assert set(counts) == set(legal)
    assert all(abs(c - 400) < 100 for c in counts.values())


def test_legal_plays_agree_with_a_brute_force_check() -> None:
    for seed in range(30):
        game = ClassicGame.new(3 if seed % 2 else 2, seed)
        game.reveal()
        rng = random.Random(seed)
        while game.phase is Phase.PLAYING:
            brute = {
                Play(p, c, pile)
                for p in range(game.players)
                for c in game.hand(p)
                for pile in game.reach(p)
                if c.matches(game.top(pile))
            }
            assert set(game.all_legal_plays()) == brute
            game.play(*game.random_legal_play(rng))  # type: ignore[misc]


# --- the stateful machine --------------------------------------------------------------------


class ClassicMachine(RuleBasedStateMachine):
    """Random legal and illegal actions on one game; invariants checked after every step."""

    game: ClassicGame

    @initialize(deal=deals, revealed=st.booleans())
    def deal(self, deal: tuple[int, int, Ruleset, str], revealed: bool) -> None:
        self.game = make_game(*deal)
        self.rng = random.Random(deal[1])
        self.t = 0
        if revealed:
            self.game.reveal(0)

    def attempt(self, legal: bool, act: object) -> None:
        """Run an action; a refusal must change nothing, and legality must be predicted."""
        game = self.game
        before = (game.snapshot(), len(game.events), game.history, game.stalls)
        assert callable(act)
        self.t += 17
        try:
            events = act()
        except IllegalAction as exc:
            assert not legal, exc
            assert (game.snapshot(), len(game.events), game.history, game.stalls) == before
            assert exc.code == exc.reason.value and str(exc)
            return
        assert legal, "an illegal action was accepted"
        assert events == game.events[before[1] :] and events
        check_plays_match(events)

    @rule()
    def reveal(self) -> None:
        self.attempt(self.game.phase is Phase.DEALT, lambda: self.game.reveal(self.t))

    @rule(data=st.data())
    def legal_play(self, data: st.DataObject) -> None:
        legal = self.game.all_legal_plays()
        if legal:
            p = data.draw(st.sampled_from(legal))
            self.attempt(True, lambda: self.game.play(p.player, p.card, p.pile, self.t))

    @rule(
        player=st.integers(-1, 3),
        c=st.one_of(st.sampled_from(list(STANDARD_DECK)), st.sampled_from(ALL_180)),
        pile=st.integers(-1, 3),
    )
    def any_play(self, player: int, c: Card, pile: int) -> None:
        legal = Play(player, c, pile) in self.game.all_legal_plays()
        self.attempt(legal, lambda: self.game.play(player, c, pile, self.t))

    @rule()
    def flip(self) -> None:
        self.attempt(self.game.phase is Phase.STALLED, lambda: self.game.flip(self.t))

    @rule(data=st.data())
    def legal_choice(self, data: st.DataObject) -> None:
        waiting = self.game.awaiting_choice()
        if waiting:
            seat = data.draw(st.sampled_from(waiting))
            c = data.draw(st.sampled_from(self.game.hand(seat)))
            self.attempt(True, lambda: self.game.choose(seat, c, self.t))

    @rule(player=st.integers(-1, 3), c=st.sampled_from(ALL_180))
    def any_choice(self, player: int, c: Card) -> None:
        game = self.game
        legal = player in game.awaiting_choice() and c in game.hand(player)
        self.attempt(legal, lambda: game.choose(player, c, self.t))

    @rule(n=st.integers(1, 30))
    def advance(self, n: int) -> None:
        """Several random legal actions, to reach stalls, choices and endings mid-machine."""
        for _ in range(n):
            if self.game.over:
                return
            step(self.game, self.rng)
            check_invariants(self.game)

    @rule()
    def record_round_trip(self) -> None:
        check_record_and_events(self.game)

    @invariant()
    def invariants(self) -> None:
        if hasattr(self, "game"):
            check_invariants(self.game)

    def teardown(self) -> None:
        if hasattr(self, "game"):
            finish(self.game, self.rng)
            assert self.game.over
            check_invariants(self.game)
            check_record_and_events(self.game)


ClassicMachine.TestCase.settings = settings(max_examples=100, stateful_step_count=30, deadline=None)
TestClassicMachine = ClassicMachine.TestCase


# --- events of the stall branches are consistent ---------------------------------------------


@settings(max_examples=30)
@given(st.integers(0, 2**32))
def test_stall_events_lead_to_the_right_phase(seed: int) -> None:
    game = make_game(2, seed, OFFICIAL, "small")
    finish(game, random.Random(seed))
    phase_after = {StallKind.FLIP: "flip", StallKind.CHOOSE: "choose"}
    seen = [e for e in game.events if isinstance(e, Stalled)]
    assert game.stalls == len(seen)
    for i, e in enumerate(game.events):
        if isinstance(e, Stalled) and e.kind in phase_after:
            rest = game.events[i + 1 :]
            if not rest:
                continue
            nxt = rest[0]
            if e.kind is StallKind.FLIP:
                assert type(nxt).__name__ == "Flipped"
            else:
                assert isinstance(nxt, ChoiceMade)
    assert isinstance(game.events[0], Dealt) and isinstance(game.events[1], Revealed)


def test_redaction_of_a_finished_game_for_each_seat() -> None:
    game = ClassicGame.new(3, shuffled_deck(2)[0].index)
    finish(game, random.Random(2))
    for seat in (0, 1, 2, None):
        for e in game.events_for(seat):
            if isinstance(e, Refilled | ChoiceMade) and e.player != seat:
                assert e.card is None
            assert redact(e, seat) == e or not isinstance(e, Played)


def reference_view(game: ClassicGame, seat: int | None) -> PlayerView:
    """What ``seat`` may know, built field by field, by name, from the game's public accessors:
    the statement :meth:`ClassicGame.view` (built positionally, for speed) must equal."""
    players = game.players
    revealed = game.phase is not Phase.DEALT
    return PlayerView(
        seat=seat,
        players=players,
        phase=game.phase,
        ruleset=game.ruleset,
        hand=() if seat is None else tuple(game.hand(seat)),
        tops=tuple(game.top(p) for p in range(players)) if revealed else (None,) * players,
        piles=tuple(tuple(game.pile(p)) for p in range(players)) if revealed else ((),) * players,
        hand_counts=tuple(len(game.hand(p)) for p in range(players)),
        draw_counts=tuple(len(game.draw_pile(p)) for p in range(players)),
        set_aside=len(game.set_aside),
        chosen=tuple(p in game.choices for p in range(players)),
        my_choice=None if seat is None else game.choices.get(seat),
        outcome=game.outcome,
        plays=game.plays,
    )


@settings(max_examples=40)
@given(deals)
def test_views_and_their_wire_form_at_every_step(deal: tuple[int, int, Ruleset, str]) -> None:
    """Every seat's view (and a spectator's) equals the reference at every step, and its
    wire form's ``fits`` lists, per hand slot, exactly the piles of the engine's legal plays."""
    players, seed, ruleset, kind = deal
    game, rng = make_game(players, seed, ruleset, kind), random.Random(seed)
    while True:
        for seat in [*range(players), None]:
            view = game.view(seat)
            assert view == reference_view(game, seat)
            wire = view_to_wire(view, full=True)
            plays = view.legal_plays()
            assert wire["fits"] == [[p.pile for p in plays if p.card is c] for c in view.hand]
            assert wire["hand"] == [str(c) for c in view.hand]
            assert wire["tops"] == [None if c is None else str(c) for c in view.tops]
            assert wire["versions"] == [len(p) for p in view.piles]
            assert wire["phase"] == view.phase.value
            assert wire["reach"] == list(view.reach)
        if game.over:
            return
        step(game, rng)
