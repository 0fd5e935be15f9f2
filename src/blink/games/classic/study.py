"""Classic Blink's study: a record laid out as :class:`~blink.model.study.Step` values.

What a seat could do is its legal plays (and its choices in a choosing stall); its chances are
its legal plays grouped by pile and top card (a new top card is a new chance); a play takes
its seat's chances. The analysis itself is :func:`blink.model.study.analyse`. Pure.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator

from blink.games.classic.engine import ClassicGame, Play
from blink.games.classic.record import GameRecord
from blink.model.study import Chance, GameStudy, Step, analyse

__all__ = ["chances", "steps", "study"]


def chances(game: ClassicGame, seat: int) -> tuple[Chance, ...]:
    """``seat``'s chances now: for each pile it could play on, the hand cards that fit it."""
    by_pile: dict[int, list[str]] = {}
    for play in game.legal_plays(seat):
        by_pile.setdefault(play.pile, []).append(str(play.card))
    return tuple(
        Chance((pile, str(game.top(pile))), tuple(cards), pile)
        for pile, cards in sorted(by_pile.items())
    )


def _step(game: ClassicGame, t: int | None, seat: int | None, play: bool) -> Step:
    n = game.players
    can: tuple[frozenset[Hashable], ...] = tuple(frozenset(game.legal_actions(p)) for p in range(n))
    return Step(
        t=t,
        action_seat=seat,
        play=play,
        takes=play,
        can=can,
        chances=tuple(chances(game, p) for p in range(n)),
        hands=tuple(len(game.hand(p)) for p in range(n)),
        left=tuple(game.cards_left(p) for p in range(n)),
    )


def steps(record: GameRecord) -> Iterator[Step]:
    """The deal, then the table after each action of ``record`` (verified first)."""
    record.verify()
    game = ClassicGame(record.deck, record.players, record.ruleset, record.sizes)
    yield _step(game, None, None, False)
    for action, t in record.actions:
        game.apply(action, t)
        seat = getattr(action, "player", None)
        yield _step(game, t, seat, isinstance(action, Play))


def study(record: GameRecord) -> GameStudy:
    """The study of a classic record; its :class:`~blink.model.records.RecordError` when the
    record does not verify."""
    return analyse(steps(record), record.players, record.names)
