"""Shared helpers for the Go Blink tests: deal chosen hands and draw piles; run a script with a
bot whose decision never ends."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence

from blink.cards import STANDARD_DECK, Card, parse_card
from blink.games.goblink.engine import GoGame


def cards(text: str) -> tuple[Card, ...]:
    """Cards from space-separated notation."""
    return tuple(parse_card(t) for t in text.split())


def deck_for(
    hands: Sequence[str], draw: str = "", dealer: int = 0, rest: bool = False
) -> list[Card]:
    """A deck order that deals ``hands`` (four cards each) and then ``draw`` (top first).

    With ``rest`` the unused standard cards follow the given draw cards.
    """
    n = len(hands)
    parsed = [cards(h) for h in hands]
    first = (dealer + 1) % n
    deck = [parsed[(first + i) % n][i // n] for i in range(4 * n)]
    deck.extend(cards(draw))
    if rest:
        used = set(deck)
        deck.extend(c for c in STANDARD_DECK if c not in used)
    return deck


def deal(
    hands: Sequence[str],
    draw: str = "",
    dealer: int = 0,
    rest: bool = False,
    turn_limit: int | None = None,
) -> GoGame:
    """A game dealt with the given hands and draw pile."""
    return GoGame(deck_for(hands, draw, dealer, rest), len(hands), dealer, turn_limit)


def skip_opening(game: GoGame) -> None:
    """Every player ends their opening decision without laying anything down."""
    from blink.games.goblink.engine import EndTurn, Phase

    while game.phase is Phase.OPENING:
        assert game.current is not None
        game.apply(EndTurn(game.current))


STUCK_BOT = """
import threading

class Stuck:
    name = "greedy"
    def __init__(self, seat):
        self.seat, self.deciding = seat, threading.Event()
    def act(self, view):
        self.deciding.set()
        threading.Event().wait()
"""
"""A bot class for a script: its ``deciding`` is set when it starts deciding, which never ends."""


def run_with_a_stuck_bot(script: str, says: str) -> None:
    """Run ``script`` (after :data:`STUCK_BOT`) in a Python process of its own, and check that
    it ends well and prints ``says``. The timeout only bounds a failure: a pass ends as soon as
    the process does."""
    done = subprocess.run(
        [sys.executable, "-c", STUCK_BOT + script],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=200,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert says in done.stdout
