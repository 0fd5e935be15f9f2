"""Go Blink's master bot (registered as ``master``; docs/strategy.md): legal, deterministic,
from its view alone, knowing what the remembering bot knows, a search that wins when it sees
every card, the remembering bot's play in long games and in games of another deck.

Its search is compiled (numba, blink.games.goblink.fast.master) and cached on disk, so only the
first run on a machine pays the compile time.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from blink.cards import STANDARD_DECK, Card, Color, Shape
from blink.games.goblink.actions import Phase
from blink.games.goblink.bots import GoBot, MemoryBot, make_gobot
from blink.games.goblink.engine import GoGame
from blink.games.goblink.fast import belief, master, master_games, tree_search
from blink.games.goblink.fast.master_bot import MasterBot
from blink.games.goblink.fast.rules import N_VALUES, VALUES
from blink.games.goblink.record import GoRecord
from blink.games.goblink.view import GoView
from blink.sim.seeds import derive_seeds

from .helpers import skip_opening

SMALL = 24
"""A small budget of rollouts: the tests check the rules and the knowledge, not the strength."""


def _bots(names: list[str], seed: int, budget: int = SMALL) -> list[GoBot]:
    bots: list[GoBot] = [
        MasterBot(s, seed * 7 + s) if n == "master" else make_gobot(n, s, seed * 7 + s)
        for s, n in enumerate(names)
    ]
    for b in bots:
        if isinstance(b, MasterBot):
            b.BUDGET = budget
    return bots


def _play(names: list[str], seed: int, budget: int = SMALL) -> GoGame:
    game = GoGame.new(len(names), seed=seed, dealer=seed % len(names), turn_limit=300)
    bots = _bots(names, seed, budget)
    while not game.over:
        seat = game.current
        assert seat is not None
        action = bots[seat].act(game.view(seat))
        assert action.player == seat
        game.apply(action)  # raises if the bot ever chose an illegal action
    return game


def test_the_kernels_digest_matches_the_rules_and_bots_they_compile() -> None:
    from blink.games.goblink.fast import bots, rules

    data = Path(str(rules.__file__)).read_bytes() + Path(str(bots.__file__)).read_bytes()
    digest = hashlib.sha256(data).hexdigest()[:16]
    assert digest == belief.BELIEF_DIGEST, "update BELIEF_DIGEST in fast/belief.py"
    data += Path(str(belief.__file__)).read_bytes()
    digest = hashlib.sha256(data).hexdigest()[:16]
    assert digest == master.KERNELS_DIGEST, "update KERNELS_DIGEST in fast/master.py"
    data += Path(str(master.__file__)).read_bytes()
    digest = hashlib.sha256(data).hexdigest()[:16]
    assert digest == tree_search.SEARCH_DIGEST, "update SEARCH_DIGEST in fast/tree_search.py"
    data += Path(str(tree_search.__file__)).read_bytes()
    digest = hashlib.sha256(data).hexdigest()[:16]
    assert digest == master_games.SOURCES_DIGEST, "update SOURCES_DIGEST in fast/master_games.py"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_master_plays_only_legal_actions(players: int) -> None:
    for seed in range(3):
        names = ["master"] + ["memory", "greedy"][: players - 1] * players
        game = _play(names[:players], seed)
        assert game.outcome is not None


def test_master_is_deterministic_for_its_seed() -> None:
    a = GoRecord.from_game(_play(["master", "memory", "master"], 11)).to_dict()
    b = GoRecord.from_game(_play(["master", "memory", "master"], 11)).to_dict()
    assert a == b


def test_master_acts_from_its_view_alone() -> None:
    """Two deals that differ only in cards the seat cannot see give it the same view, and it
    answers both with the same action."""
    deck = list(GoGame.new(2, seed=3, dealer=1).deck)
    other = list(deck)
    # Dealer 1 deals from seat 0: seat 1 holds the deck's cards 1, 3, 5 and 7. Swap one of
    # them with a card deep in the draw pile.
    other[1], other[40] = other[40], other[1]
    seen = []
    for d in (deck, other):
        game = GoGame(d, 2, 1)
        skip_opening(game)
        assert game.current == 0
        view = game.view(0)
        seen.append((view, MasterBot(0, 9).act(view)))
    assert seen[0][0] == seen[1][0]
    assert seen[0][1] == seen[1][1]


def test_the_master_knows_what_the_remembering_bot_remembers() -> None:
    """learn_all rebuilds, from a view, the remembering bot's memory of the other seats."""
    for seed in range(6):
        players = 2 + seed % 3
        game = GoGame.new(players, seed=seed, dealer=0, turn_limit=200)
        bots = [MemoryBot(s, seed + s) for s in range(players)]
        while not game.over:
            seat = game.current
            assert seat is not None
            view = game.view(seat)
            bot = bots[seat]
            game.apply(bot.act(view))
            mem = bot.memory
            assert mem is not None
            known = np.zeros((players, players), dtype=np.uint64)
            least = np.zeros((players, players, N_VALUES), dtype=np.int64)
            none = np.zeros((players, players), dtype=np.int64)
            trace = belief.new_trace(players)
            belief.learn_all(seat, master.events_of(view), known, least, none, *trace)
            for p in range(players):
                if p == seat:
                    continue
                cards = {STANDARD_DECK[i] for i in range(60) if int(known[seat, p]) >> i & 1}
                assert cards == mem.known[p]
                for v in range(N_VALUES):
                    assert least[seat, p, v] == mem.at_least[p][VALUES[v]]
                    assert bool(none[seat, p] >> v & 1) == (VALUES[v] in mem.none[p])


def _wins(omni: int, n: int = 100, budget: int = 64, search: int = 0) -> int:
    """The master's wins (seat 0) in ``n`` fixed heads-up games against the remembering bot
    on the compiled loop (the same games on any machine), with the flat search (``search`` 0)
    or the tree search (1)."""
    seeds = np.array(derive_seeds(7, "goblink-master-test", 0, n), dtype=np.uint64)
    dealers = np.arange(n, dtype=np.int64) % 2
    out = np.zeros((n, 16), dtype=np.int64)
    counts = np.zeros((n, 2), dtype=np.int64)
    stats = np.zeros((n, 2), dtype=np.int64)
    bots = np.array([master.MASTER, 2], dtype=np.int64)
    master_games.play_master_games(
        seeds, dealers, bots, 1000, budget, omni, search, 0.7, out, counts, stats
    )
    assert not out[:, 15].any()  # no illegal action
    assert (stats[:, 0] > 0).all()  # it searched in every game
    return int((out[:, 8] == 1).sum())


def test_the_search_wins_when_it_sees_every_card() -> None:
    """Seeing every hand and the draw pile, the rollouts find what wins; from its view alone,
    with a budget this small, the master still plays far better than random play (which wins
    13% against the remembering bot; docs/strategy.md has the study at 1,000 rollouts)."""
    assert _wins(omni=2) >= 75
    assert _wins(omni=0) >= 25


def test_the_tree_search_plays_legally_and_wins_when_it_sees_every_card() -> None:
    """The tree search over the seat's own decisions (benchmarks/master_study.py --search tree)
    plays whole games legally, finds what wins when it sees every card, and from its view beats
    random play by far, as the flat search does."""
    assert _wins(omni=2, search=1) >= 75
    assert _wins(omni=0, search=1) >= 25


def _mid_game_view(seed: int) -> GoView:
    """Seat 0's view at its first ask with two or more legal actions, remembering bots playing."""
    game = GoGame.new(2, seed=seed, dealer=1)
    bots = [MemoryBot(s, seed + s) for s in range(2)]
    while True:
        seat = game.current
        assert seat is not None
        view = game.view(seat)
        if seat == 0 and view.phase is Phase.ASKING and len(view.legal_actions()) > 1:
            return view
        game.apply(bots[seat].act(view))


def test_from_its_patience_on_the_master_plays_the_remembering_bots_choice() -> None:
    """From turn PATIENCE on it does not search (its search could hold cards for ever where
    the remembering bot's random asks end a cycle): the same view, later, costs no rollout and
    gets the remembering bot's choice (the search's with no budget)."""
    for seed in range(4):
        view = _mid_game_view(seed)
        late = view._replace(turns=master.PATIENCE)
        assert master.choose(view, 0, 5, SMALL)[1] > 0
        assert master.choose(view._replace(turns=master.PATIENCE - 1), 0, 5, SMALL)[1] > 0
        action, used = master.choose(late, 0, 5, SMALL)
        assert used == 0
        assert action == master.choose(late, 0, 5, 0)[0]


def test_with_another_deck_the_registered_master_plays_as_the_remembering_bot() -> None:
    """The search knows the standard deck only. Dealt from a shorter deck, or one with a card
    the standard deck lacks (in its hand: it knows the deck only by what it sees), the
    registered master plays the remembering bot's action (a whole
    game, legally), and a bare MasterBot says so in a ValueError."""
    short = list(STANDARD_DECK[:-6])
    odd = [Card(Color.RED, Shape.STAR, 5), *STANDARD_DECK[1:]]  # the odd card: seat 0's
    assert odd[0] not in STANDARD_DECK
    for deck in (short, odd):
        game = GoGame(deck, 2, 1)
        first = game.view(0)
        assert not master.standard(first)
        bots = [make_gobot("master", 0, 3), MemoryBot(1, 4)]
        twin = MemoryBot(0, 3)
        while not game.over:
            seat = game.current
            assert seat is not None
            view = game.view(seat)
            action = bots[seat].act(view)
            if seat == 0 and len(view.legal_actions()) > 1:
                assert action == twin.act(view)
            game.apply(action)
        with pytest.raises(ValueError, match="standard deck"):
            skip = GoGame(deck, 2, 1)
            skip_opening(skip)
            MasterBot(0, 3).act(skip.view(0))
    assert master.standard(GoGame.new(2, seed=1).view(0))
