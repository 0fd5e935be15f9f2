"""Go Blink's study: a record laid out as :class:`~blink.model.study.Step` values.

Go Blink is turn-based: what a seat could do is its legal actions (nothing outside its turn,
so a reaction is timed from its turn's start or its last action's answer). Its plays are its
asks and its lay-downs. Its chance, in each of its turns, is the matches it could lay down
(``cards``: every card of them); laying one down takes it, and ending the turn (or the turn
running out) with a match still in hand misses it. The analysis itself is
:func:`blink.model.study.analyse`. Pure.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator

from blink.games.goblink.engine import Ask, GoGame, LayDown, Phase
from blink.games.goblink.record import GoRecord
from blink.model.study import Chance, GameStudy, Step, analyse

__all__ = ["steps", "study"]


def _step(game: GoGame, t: int | None, seat: int | None, action: object) -> Step:
    n = game.players
    legal = [game.legal_actions(p) for p in range(n)]
    can: tuple[frozenset[Hashable], ...] = tuple(frozenset(a) for a in legal)
    chances: list[tuple[Chance, ...]] = []
    for p in range(n):
        cards = {str(c) for a in legal[p] if isinstance(a, LayDown) for c in a.cards}
        key = ("turn", game.turns, game.phase is Phase.OPENING)
        chances.append((Chance(key, tuple(sorted(cards))),) if cards else ())
    sizes = tuple(len(game.hand(p)) for p in range(n))
    return Step(
        t=t,
        action_seat=seat,
        play=isinstance(action, Ask | LayDown),
        takes=isinstance(action, LayDown),
        can=can,
        chances=tuple(chances),
        hands=sizes,
        left=sizes,
    )


def steps(record: GoRecord) -> Iterator[Step]:
    """The deal, then the table after each action of ``record`` (verified first)."""
    record.verify()
    game = GoGame(record.deck, record.players, record.dealer, record.turn_limit)
    yield _step(game, None, None, None)
    for action, t in record.actions:
        game.apply(action, t)
        yield _step(game, t, action.player, action)


def study(record: GoRecord) -> GameStudy:
    """The study of a Go Blink record; its :class:`~blink.model.records.RecordError` when the
    record does not verify."""
    return analyse(steps(record), record.players, record.names)
