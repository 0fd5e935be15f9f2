"""The fair-play rules (blink.fair_play): reaction times measured from the action that made a
play possible, the sustained share under the floor that marks a seat as faster than a person,
and the caps on what a win gains."""

from __future__ import annotations

from typing import Any

from blink.fair_play import (
    FAST_SHARE,
    MIN_TIMED,
    PAIR_GAMES_A_DAY,
    PROVISIONAL_GAMES,
    REACTION_FLOOR_MS,
    capped,
    judge,
    opponent_weight,
    reactions,
    repeat_weight,
    too_fast,
)
from blink.model.registry import get_game
from blink.ratings import BOT_RATINGS, Rating, rate_game
from blink.server.settings import Settings


def _game(pace: dict[int, int], seed: int = 5) -> Any:
    """A classic two-player game where seat ``p`` makes each play ``pace[p]`` ms after the
    last action (the referee acts at once): its record."""
    definition = get_game("classic")
    state = definition.new(2, seed)
    t = 0
    for _ in range(2000):
        if state.over:
            break
        pending = definition.referee(state)
        moves = [(p, a) for p in (0, 1) for a in definition.legal_actions(state, p)]
        if moves:
            seat, action = min(moves, key=lambda m: pace[m[0]])
            t += pace[seat]
            definition.apply(state, action, t)
        elif pending is not None:
            for _, action in pending.actions:
                t += 1
                definition.apply(state, action, t)
    assert state.over
    return definition.record_codec.record(state, ["Script", "Person"], {})


def test_a_script_is_judged_faster_than_a_person_and_a_person_is_not() -> None:
    record = _game({0: 20, 1: 450})
    times = reactions(record)
    assert len(times[0]) >= MIN_TIMED and len(times[1]) >= 1
    assert min(times[1]) >= 450  # timed from the action that made each play possible
    (seat,) = judge(record, REACTION_FLOOR_MS)
    assert seat.seat == 0 and seat.fast == seat.timed and seat.median_ms is not None
    assert seat.median_ms < REACTION_FLOOR_MS
    assert judge(_game({0: 150, 1: 450}), REACTION_FLOOR_MS) == []
    assert judge(record, 0) == []  # a floor of 0 judges nobody


def test_the_share_and_the_minimum() -> None:
    assert not too_fast([10] * (MIN_TIMED - 1))  # too few actions to judge
    half = round(MIN_TIMED * FAST_SHARE)
    assert too_fast([10] * half + [500] * (MIN_TIMED - half))
    assert not too_fast([10] * (half - 1) + [500] * (MIN_TIMED - half + 1))


def test_gains_are_capped_and_losses_kept() -> None:
    me, them = Rating(), Rating(30, 3)
    won, lost = rate_game([me, them], [0])
    assert capped(me, won, 0.0) == me
    half = capped(me, won, 0.5)
    assert me.ordinal < half.ordinal < won.ordinal
    assert capped(them, lost, 0.0) == lost  # a loss is never scaled
    assert opponent_weight(PROVISIONAL_GAMES - 1) == 0.0
    assert opponent_weight(PROVISIONAL_GAMES) == 1.0
    assert [repeat_weight(k) for k in range(PAIR_GAMES_A_DAY + 1)] == [1.0, 0.5, 1 / 3, 0.0]
    vs_bot = rate_game([me, BOT_RATINGS["champion"]], [0], [False, True])[0]
    assert capped(me, vs_bot, 1.0) == vs_bot


def test_the_server_defaults_are_the_rules() -> None:
    s = Settings()
    assert (s.reaction_floor_ms, s.provisional_games) == (REACTION_FLOOR_MS, PROVISIONAL_GAMES)
