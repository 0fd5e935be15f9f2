"""Conformance of every registered game (and the tests' own High Card) to the game model.

On the model of OpenSpiel's random simulation test: random games are played to the end through
``legal_actions`` and the referee only, and at every step

* every legal action (and every action the referee offers) is accepted;
* sampled illegal actions are refused with :class:`IllegalAction` and the state unchanged;
* no view and no redacted event, raw or in its wire form, holds a card its receiver may not see;
* actions round-trip through their wire form;

and at the end the game has ended, and its history replays to the same state.
"""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from highcard import HIGH_CARD, high_card_game
from hypothesis import given, settings
from hypothesis import strategies as st

from blink.cards import STANDARD_DECK, Card, CardError, parse_card
from blink.model import records
from blink.model.base import GameDefinition, IllegalAction, Timings
from blink.model.registry import games, get_game, register, unregister
from blink.model.replays import replay_document
from blink.sim.generic import RandomAgent, Stuck, play_out

MAX_STEPS = 5_000

# Sample option values per game (the definitions list the option names, not values to try).
OPTIONS: dict[str, list[dict[str, Any]]] = {
    "classic": [{}, {"ruleset": "dead-end"}],
    "goblink": [{}, {"dealer": 1}],
}


@pytest.fixture(autouse=True, scope="module")
def _high_card_registered() -> Iterator[None]:
    register(high_card_game())
    yield
    unregister(HIGH_CARD.info.name)


def _all_games() -> list[str]:
    register(high_card_game())
    try:
        return [g.info.name for g in games()]
    finally:
        unregister(HIGH_CARD.info.name)


GAME_NAMES = _all_games()


def _cards_in(value: object) -> Iterator[Card]:
    """Every card in a value: engine values (tuples of cards) and wire forms (card notation)."""
    if isinstance(value, Card):
        yield value
    elif isinstance(value, str):
        if 2 <= len(value) <= 4:
            with contextlib.suppress(CardError):
                yield parse_card(value)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _cards_in(v)
    elif isinstance(value, list | tuple | set | frozenset):
        for v in value:
            yield from _cards_in(v)


def _new_game(
    game: GameDefinition[Any, Any, Any, Any], rng: random.Random
) -> tuple[Any, int, dict[str, Any], tuple[Card, ...]]:
    info = game.info
    players = rng.randint(info.min_players, info.max_players)
    options = rng.choice(OPTIONS.get(info.name, [{}]))
    deck: tuple[Card, ...] = tuple(rng.sample(STANDARD_DECK, len(STANDARD_DECK)))
    if rng.random() < 0.6:  # small decks reach the end game (choosing stalls, empty draws)
        small = tuple(rng.sample(deck, rng.randint(4 * players, min(60, 4 * players + 12))))
        try:
            return game.new(players, deck=small, options=options), players, options, small
        except ValueError:
            pass
    return game.new(players, deck=deck, options=options), players, options, deck


def _check_no_leak(game: GameDefinition[Any, Any, Any, Any], state: Any, events: list[Any]) -> None:
    for viewer in [*range(state.players), None]:
        hidden = game.hidden_cards(state, viewer)
        view = game.view(state, viewer)
        seen = set(_cards_in(tuple(view))) | set(_cards_in(game.view_to_wire(view)))
        for e in events:
            r = game.redact(e, viewer)
            seen |= set(_cards_in(tuple(r)))
            seen |= set(_cards_in(game.event_to_wire(r)))
        leaked = seen & hidden
        assert not leaked, f"viewer {viewer} sees hidden {sorted(map(str, leaked))}"


def _illegal_candidates(state: Any, seen: list[Any], legal: list[Any]) -> list[Any]:
    """Actions likely to be illegal now: recent and older actions, and legal ones moved to
    another seat (every action here is a named tuple; most have a ``player`` field)."""
    rng = random.Random(len(seen))
    out = seen[-3:] + rng.sample(seen, min(6, len(seen)))
    for action in rng.sample(legal, min(3, len(legal))):
        if hasattr(action, "player"):
            for other in range(-1, state.players + 1):
                if other != action.player:
                    out.append(action._replace(player=other))
    return out


def _sample_illegal(
    game: GameDefinition[Any, Any, Any, Any], state: Any, seen: list[Any], allowed: list[Any]
) -> None:
    """Actions that are not allowed now must be refused with nothing changed."""
    for action in _illegal_candidates(state, seen, allowed):
        if action in allowed:
            continue
        before = state.snapshot()
        with pytest.raises(IllegalAction) as refused:
            game.apply(state, action)
        assert refused.value.code and str(refused.value)
        assert state.snapshot() == before, f"refused {action!r} changed the state"


def _play_random_game(name: str, seed: int) -> None:
    game = get_game(name)
    rng = random.Random(seed)
    state, players, options, deck = _new_game(game, rng)
    seen: list[Any] = []
    steps = 0
    while not state.over:
        steps += 1
        assert steps < MAX_STEPS, f"{name} seed {seed}: no end after {MAX_STEPS} actions"
        legal = [a for seat in range(players) for a in game.legal_actions(state, seat)]
        pending = game.referee(state)
        offered = [a for _, a in pending.actions] if pending is not None else []
        assert legal or offered, f"{name} seed {seed}: nobody can act and no referee step"
        _sample_illegal(game, state, seen, legal + offered)
        chosen = offered[0] if offered and (not legal or rng.random() < 0.2) else rng.choice(legal)
        assert game.action_from_wire(game.action_to_wire(chosen)) == chosen
        events = game.apply(state, chosen, steps)
        _check_no_leak(game, state, events)
        seen.append(chosen)
    assert state.outcome is not None and state.outcome.winners
    assert all(0 <= w < players for w in state.outcome.winners)
    # The history replays to the same state.
    again = game.new(players, deck=deck, options=options)
    for action, t in game.history(state):
        game.apply(again, action, t)
    assert again.snapshot() == state.snapshot()
    assert again.outcome == state.outcome
    _check_record(game, state)
    with pytest.raises(IllegalAction):
        game.apply(state, seen[-1])


def _check_record(game: GameDefinition[Any, Any, Any, Any], state: Any) -> None:
    """The record round-trips through JSON and the generic loader, and replays to the state."""
    codec = game.record_codec
    names = [f"P{i}" for i in range(state.players)]
    record = codec.record(state, names)
    text = record.to_json()
    loaded = records.loads(text)
    assert not isinstance(loaded, records.SeriesRecord)
    assert loaded.game_name == game.info.name and loaded.to_json() == text
    final = loaded.verify()
    assert final.snapshot() == state.snapshot()
    assert codec.winners(final) == state.outcome.winners
    doc = replay_document(json.loads(text))
    assert doc["game"] == game.info.name
    assert len(doc["games"][0]["frames"]) == len(game.history(state)) + 1


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("seed", range(30))
def test_random_games_conform(name: str, seed: int) -> None:
    _play_random_game(name, seed)


@pytest.mark.parametrize("name", GAME_NAMES)
@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_conform_for_any_seed(name: str, seed: int) -> None:
    _play_random_game(name, seed)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_facts_are_consistent(name: str) -> None:
    game = get_game(name)
    info = game.info
    assert info.min_players <= info.default_players <= info.max_players
    for bad in (info.min_players - 1, info.max_players + 1, "2", True):
        with pytest.raises(ValueError, match="players"):
            game.new(bad, seed=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="option"):
        game.new(info.default_players, seed=1, options={"no-such-option": 1})
    for players in range(info.min_players, info.max_players + 1):
        state = game.new(players, seed=1)
        assert state.players == players
        for seat in range(players):
            assert all(0 <= p < players for p in game.reach(players, seat))


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_generic_simulator_plays_every_game(name: str) -> None:
    game = get_game(name)
    for seed in range(5):
        rng = random.Random(seed)
        players = game.info.default_players
        state = game.new(players, seed=seed)
        agents = {s: RandomAgent(random.Random(seed * 10 + s)) for s in range(players)}
        run = play_out(game, state, agents, rng=rng)
        assert run.state.over and run.outcome == state.outcome
        assert run.actions + run.referee_actions == len(game.history(state))
        # Deterministic: the same seeds give the same game.
        again = play_out(
            game,
            game.new(players, seed=seed),
            {s: RandomAgent(random.Random(seed * 10 + s)) for s in range(players)},
            rng=random.Random(seed),
        )
        assert again.state.snapshot() == state.snapshot() and again.duration == run.duration


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_referee_finishes_a_game_nobody_plays(name: str) -> None:
    """With no agent at all, only a turn-based game's clock can move it."""
    game = get_game(name)
    state = game.new(game.info.default_players, seed=3)
    if game.info.real_time:
        with pytest.raises(Stuck):
            play_out(game, state, {}, rng=random.Random(1))
    else:
        run = play_out(game, state, {}, rng=random.Random(1), timings=Timings(turn=5.0))
        assert run.state.over and run.actions == 0 and run.referee_actions > 0
