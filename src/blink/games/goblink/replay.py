"""Go Blink's replay frames: a verified record laid out step by step for the viewer.

Besides the frames, a game holds its whole ask log and the matches laid down. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from blink.games.goblink.engine import Asked as GoAsked
from blink.games.goblink.engine import Dealt as GoDealt
from blink.games.goblink.engine import GoGame, Passed, event_to_dict, value_to_wire
from blink.games.goblink.record import GoRecord
from blink.model.replays import card_list, seat_names

__all__ = ["go_game_replay"]


def _go_frame(
    game: GoGame,
    action: dict[str, Any] | None,
    t: int | None,
    events: Sequence[Any],
    asks: int,
) -> dict[str, Any]:
    outcome = game.outcome
    return {
        "t": t,
        "action": action,
        "phase": game.phase.value,
        "current": game.current,
        "hands": [card_list(game.hand(p)) for p in range(game.players)],
        "draw": len(game.draw_pile()),
        "asks": asks,
        "matches": len(game.discard()),
        "turns": game.turns,
        "outcome": None
        if outcome is None
        else {"winners": list(outcome.winners), "reason": outcome.reason},
        "events": [event_to_dict(e) for e in events if not isinstance(e, GoDealt)],
    }


def go_game_replay(record: GoRecord) -> dict[str, Any]:
    """The frames of a Go Blink record, verified by the engine.

    Besides the frames, the game holds the whole ask log (``asks``: each ask with the cards
    passed) and the matches laid down (``matches``), in order; both only grow, so a frame gives
    how many of each have happened (``asks``, ``matches``). Raises
    :class:`~blink.games.goblink.record.GoRecordError` when the record does not verify.
    """
    record.verify()
    game = GoGame(record.deck, record.players, record.dealer, record.turn_limit)
    passed_cards: list[list[str]] = []
    frames = [_go_frame(game, None, None, game.events, 0)]
    for action, t in record.actions:
        events = game.apply(action, t)
        for e in events:
            if isinstance(e, GoAsked):
                passed_cards.append([])
            elif isinstance(e, Passed) and e.cards is not None:
                passed_cards[-1] = card_list(e.cards)
        frames.append(
            _go_frame(game, record.codec.encode_action(action, None), t, events, len(passed_cards))
        )
    view = game.view(None)
    asks = []
    for a, cards in zip(view.asks, passed_cards, strict=True):
        attribute, value = value_to_wire(a.value)
        asks.append(
            {
                "seat": a.player,
                "target": a.target,
                "attribute": attribute,
                "value": value,
                "passed": a.passed,
                "cards": cards,
                "drew": a.drew,
                "target_drew": a.target_drew,
            }
        )
    return {
        "players": game.players,
        "names": seat_names(record.names, game.players),
        "dealer": game.dealer,
        "turn_limit": game.turn_limit,
        "result": record.result,
        "asks": asks,
        "matches": [{"seat": p, "cards": card_list(cards)} for p, cards in game.discard()],
        "frames": frames,
    }
