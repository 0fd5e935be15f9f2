"""Hypothesis properties of the tournament engine."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blink.tournament import (
    MatchDecidedError,
    MatchNotReadyError,
    NotInMatchError,
    Tournament,
    TournamentError,
    UnknownMatchError,
)

from .helpers import oracle

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

sizes = st.one_of(st.integers(2, 20), st.integers(2, 64))


def _check_places(t: Tournament) -> None:
    standings = t.standings()
    names = [s.name for s in standings]
    assert sorted(names) == sorted(e.name for e in t.entrants)
    counts = Counter(names)
    assert set(counts.values()) == {1}
    champion = t.champion
    assert champion is not None
    for s in standings:
        if s.name == champion:
            assert (s.status, s.place, s.place_to) == ("champion", 1, 1)
        else:
            assert s.status in ("eliminated", "placed"), s
    # places tile 1..n without gaps or overlaps
    covered: list[int] = []
    for s in standings:
        if s.status == "eliminated":
            continue
        covered.append(s.place)
    eliminated_ranges = {(s.place, s.place_to) for s in standings if s.status == "eliminated"}
    for a, b in eliminated_ranges:
        covered.extend(range(a, b + 1))
    assert sorted(covered) == list(range(1, len(t.entrants) + 1))


choices = st.lists(st.integers(0, 2**16), max_size=400)


def _pick(choices: list[int], i: int) -> int:
    """The i-th choice; past the end of the list, 1 (no tie, first match, first player)."""
    return choices[i] if i < len(choices) else 1


@SETTINGS
@given(n=sizes, seed=st.integers(0, 2**32), picks=choices)
def test_everyone_but_the_champion_is_eliminated_or_placed_once(
    n: int, seed: int, picks: list[int]
) -> None:
    t = Tournament.create([f"N{i}" for i in range(n)])
    t.draw(seed)
    steps = 0
    while not t.finished:
        ready = t.ready_matches()
        assert ready, "a tournament that is not finished always has a match to play"
        c = _pick(picks, steps)
        m = ready[c % len(ready)]
        players = [p for p in m.players if p is not None]
        if c % 10 == 0:
            t.record_tie(m.id)
        else:
            t.record_game(m.id, players[(c // 10) % len(players)])
        steps += 1
        assert steps < 2000
    _check_places(t)


@SETTINGS
@given(n=sizes, seed=st.integers(0, 2**32), salt=st.text(max_size=4), a=choices, b=choices)
def test_results_in_any_order_give_the_same_state(
    n: int, seed: int, salt: str, a: list[int], b: list[int]
) -> None:
    finals = []
    for picks in (a, b):
        t = Tournament.create([f"N{i}" for i in range(n)])
        t.draw(seed)
        step = 0
        while not t.finished:
            ready = t.ready_matches()
            m = ready[_pick(picks, step) % len(ready)]
            t.record_game(m.id, oracle(m, salt))
            step += 1
        finals.append(t.to_dict())
    assert finals[0] == finals[1]


@SETTINGS
@given(n=sizes, seed=st.integers(0, 2**32), data=st.data())
def test_invalid_results_are_refused_and_change_nothing(
    n: int, seed: int, data: st.DataObject
) -> None:
    t = Tournament.create([f"N{i}" for i in range(n)])
    t.draw(seed)
    for step in range(data.draw(st.integers(0, 250))):
        if t.finished:
            break
        ready = t.ready_matches()
        m = ready[step * 7 % len(ready)]
        t.record_game(m.id, oracle(m))
    before = t.to_dict()
    matches = t.matches()
    m = data.draw(st.sampled_from(matches))
    outsiders = [e.name for e in t.entrants if e.name not in m.players]
    attempts: list[tuple[str, object]] = [("Z9-9", "N0"), (m.id, "Nobody")]
    if outsiders:
        attempts.append((m.id, data.draw(st.sampled_from(outsiders))))
    if m.known:
        attempts.append((m.id, []))
    for mid, winners in attempts:
        try:
            t.record_game(mid, winners)  # type: ignore[arg-type]
        except TournamentError as e:
            assert e.code
            if mid == "Z9-9":
                assert isinstance(e, UnknownMatchError)
            elif m.decided:
                assert isinstance(e, MatchDecidedError)
            elif not m.known:
                assert isinstance(e, MatchNotReadyError)
            elif winners != []:
                assert isinstance(e, NotInMatchError)
        else:  # pragma: no cover - a refused result must raise
            raise AssertionError(f"accepted {winners!r} in {mid}")
        assert t.to_dict() == before
    # and the file form still loads to the same state
    assert Tournament.from_dict(before).to_dict() == before
