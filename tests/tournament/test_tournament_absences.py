"""Withdrawals, no-show forfeits, corrections and check-in in the tournament engine: examples,
and Hypothesis properties (any sequence of results, withdrawals and forfeits leaves a valid
bracket that finishes, and reads back from its JSON the same)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blink.tournament import (
    AbsenceError,
    CheckInError,
    CorrectionError,
    MatchDecidedError,
    ResultError,
    Tournament,
    UndoError,
)

from .helpers import ranked

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _roundtrip(t: Tournament) -> Tournament:
    back = Tournament.from_dict(json.loads(json.dumps(t.to_dict())))
    assert back.to_dict() == t.to_dict()
    return back


def _check_valid(t: Tournament) -> None:
    """What must hold at every step."""
    gone = set(t.withdrawn)
    for m in t.matches():
        players = [p for p in m.players if p is not None]
        if m.ready:
            assert not gone & set(players), f"{m.id} is to be played by a withdrawn player"
            assert not m.forfeits and not m.vacant
        if m.walkover:
            assert m.decided
            assert m.awarded is None or m.awarded not in m.forfeits
            assert m.awarded is None or m.awarded in players
    names = [s.name for s in t.standings()]
    assert sorted(names) == sorted(e.name for e in t.entrants)
    if not t.finished:
        assert t.ready_matches(), "an unfinished tournament always has a match to play"


def test_a_withdrawal_gives_the_opponent_a_walkover_and_the_bracket_goes_on() -> None:
    t = Tournament.create(ranked(8))
    t.draw(seed=3)
    first = t.ready_matches()[0]
    a, b = first.players
    assert a is not None and b is not None
    t.record_game(first.id, a)
    change = t.withdraw(a, by="organiser", at=1000.0)
    assert (change.kind, change.players, change.at) == ("withdrawal", (a,), 1000.0)
    m = t.match(first.id)
    assert (m.walkover, m.winner, m.forfeits, m.status) == (True, b, (a,), "decided")
    with pytest.raises(MatchDecidedError):
        t.record_game(first.id, a)
    with pytest.raises(AbsenceError) as e:
        t.withdraw(a)
    assert e.value.code == "already-withdrawn"
    with pytest.raises(AbsenceError) as e2:
        t.withdraw(b.swapcase() if False else a)
    assert e2.value.code == "already-withdrawn"
    back = _roundtrip(t)
    assert back.match(first.id).winner == b
    assert back.changes == t.changes
    assert next(s for s in t.standings() if s.name == a).status == "eliminated"


def test_a_player_already_out_cannot_withdraw() -> None:
    t = Tournament.create(ranked(5))
    t.draw(seed=1)
    m = t.ready_matches()[0]
    a, b = m.players
    assert a is not None and b is not None
    t.record_game(m.id, a)
    t.record_game(m.id, a)
    with pytest.raises(AbsenceError) as e:
        t.withdraw(b)
    assert e.value.code == "not-playing"


def test_both_absent_is_a_double_forfeit_and_the_next_seat_is_vacant() -> None:
    t = Tournament.create(ranked(16))
    t.draw(seed=5)
    m1 = t.match("R1-1")
    m2 = t.match("R1-2")
    t.forfeit("R1-1", [p for p in m1.players if p is not None], by="clock", at=5.0)
    assert t.match("R1-1").decided and t.match("R1-1").winner is None
    for _ in range(2):
        t.record_game("R1-2", m2.players[0] or "")
    nxt = t.match("R2-1")
    assert nxt.vacant == (0,) and nxt.walkover and nxt.winner == m2.players[0]
    standings = {s.name: s for s in t.standings()}
    for p in m1.players:
        assert p is not None and standings[p].status == "eliminated"
    _roundtrip(t)


def test_a_finalist_withdrawing_leaves_a_final_round_that_finishes() -> None:
    t = Tournament.create(ranked(4))
    t.draw(seed=2)
    gone = t.finalists[0]
    assert gone is not None
    t.withdraw(gone)
    while not t.finished:
        m = t.ready_matches()[0]
        t.record_game(m.id, m.players[0] or "")
    assert t.champion != gone
    wins = {s.name: s.final_wins for s in t.standings()}
    assert wins[gone] == 0
    _roundtrip(t)


def test_a_correction_is_in_the_audit_trail_and_refused_when_the_result_is_used() -> None:
    t = Tournament.create(ranked(8))
    t.draw(seed=4)
    m = t.ready_matches()[0]
    a, b = m.players
    assert a is not None and b is not None
    t.record_game(m.id, a)
    c = t.correct_game(m.id, 1, [b], by="organiser", at=7.5)
    assert (c.kind, c.match, c.game, c.before, c.after, c.by) == (
        "correction",
        m.id,
        1,
        (a,),
        (b,),
        "organiser",
    )
    assert t.match(m.id).score == {a: 0, b: 1}
    t.record_game(m.id, b)
    nxt = next(x for x in t.matches() if f"winner:{m.id}" in x.sources)
    if nxt.known:
        t.record_game(nxt.id, b)
        with pytest.raises(CorrectionError) as e:
            t.correct_game(m.id, 2, [a])
        assert e.value.code == "result-in-use"
    with pytest.raises(CorrectionError) as e2:
        t.correct_game(m.id, 9, [a])
    assert e2.value.code == "no-such-game"
    back = _roundtrip(t)
    assert back.changes[0] == c


def test_a_correction_cannot_leave_a_game_after_the_match_was_decided() -> None:
    t = Tournament.create(["Ann", "Bo"])
    t.draw(seed=1)
    t.record_game("F1-2", "Ann")
    t.record_game("F1-2", "Bo")
    t.record_game("F1-2", "Ann")
    with pytest.raises(CorrectionError) as e:
        t.correct_game("F1-2", 2, ["Ann"])
    assert e.value.code == "decided-earlier"


def test_the_draw_is_over_the_players_who_checked_in() -> None:
    t = Tournament.create(["Ann", "Bo", "Cy", "Di", "Ed"])
    t.open_check_in()
    for n in ("Ann", "bo", "Di"):
        t.check_in(n)
    assert t.checked_in == ["Ann", "Bo", "Di"]
    t.draw(seed=9)
    assert [e.name for e in t.entrants] == ["Ann", "Bo", "Di"]
    assert t.changes[-1].kind == "check-in-missed"
    assert t.changes[-1].players == ("Cy", "Ed")
    with pytest.raises(CheckInError):
        t.check_in("Ann")
    _roundtrip(t)


def test_a_draw_with_fewer_than_two_checked_in_is_refused_and_changes_nothing() -> None:
    t = Tournament.create(["Ann", "Bo", "Cy"])
    t.open_check_in()
    t.check_in("Cy")
    with pytest.raises(CheckInError) as e:
        t.draw(seed=1)
    assert e.value.code == "too-few-checked-in"
    assert len(t.entrants) == 3 and not t.drawn


def test_an_old_stored_tournament_without_the_new_keys_reads_back() -> None:
    t = Tournament.create(ranked(6))
    t.draw(seed=8)
    m = t.ready_matches()[0]
    t.record_game(m.id, m.players[0] or "")
    old = t.to_dict()
    for key in ("withdrawn", "forfeits", "check_in", "changes"):
        del old[key]
    back = Tournament.from_dict(old)
    assert back.match(m.id).games == t.match(m.id).games
    assert back.withdrawn == [] and back.changes == []


sizes = st.one_of(st.integers(2, 12), st.integers(2, 64))
actions = st.lists(st.integers(0, 2**16), max_size=300)


def _amend(t: Tournament, c: int, correct: bool) -> None:
    """A correction (or a take-back) of some game entered so far; a refusal changes nothing."""
    played = [m for m in t.matches() if m.games]
    if not played:
        return
    m = played[c % len(played)]
    before = t.to_dict()
    try:
        if correct:
            players = [p for p in m.players if p is not None]
            t.correct_game(m.id, 1 + c % len(m.games), [players[c % len(players)]])
        else:
            t.undo_game(m.id)
    except (CorrectionError, UndoError, ResultError):
        assert t.to_dict() == before


def _pick(picks: list[int], i: int) -> int:
    return picks[i] if i < len(picks) else 1


@SETTINGS
@given(n=sizes, seed=st.integers(0, 2**32), picks=actions)
def test_any_results_withdrawals_and_forfeits_leave_a_bracket_that_finishes(
    n: int, seed: int, picks: list[int]
) -> None:
    t = Tournament.create([f"N{i}" for i in range(n)])
    t.draw(seed)
    steps = 0
    while not t.finished:
        _check_valid(t)
        ready = t.ready_matches()
        c = _pick(picks, steps)
        m = ready[c % len(ready)]
        players = [p for p in m.players if p is not None]
        kind = (c // 7) % 20
        if kind == 0:
            still_in = [
                e.name for e in t.entrants if e.name not in t.withdrawn and not t._out(e.name)
            ]
            t.withdraw(still_in[c % len(still_in)], by="test", at=float(steps))
        elif kind == 1:
            t.forfeit(m.id, players[: 1 + c % len(players)], by="test", at=float(steps))
        elif kind == 2:
            t.record_tie(m.id)
        elif kind in (3, 4):
            _amend(t, c, kind == 3)
        else:
            t.record_game(m.id, players[(c // 3) % len(players)])
        steps += 1
        assert steps < 3000
        if steps % 25 == 0:
            t = _roundtrip(t)
    _check_valid(t)
    _roundtrip(t)
    standings = t.standings()
    assert all(s.status in ("champion", "placed", "eliminated") for s in standings), standings
    champion = t.champion
    if champion is not None:
        assert sum(1 for s in standings if s.status == "champion") == 1


@SETTINGS
@given(n=st.integers(2, 40), seed=st.integers(0, 2**32), picks=actions)
def test_everyone_withdrawing_still_finishes(n: int, seed: int, picks: list[int]) -> None:
    t = Tournament.create([f"N{i}" for i in range(n)])
    t.draw(seed)
    order = [e.name for e in t.entrants]
    k = _pick(picks, 0) % n
    for name in order[k:] + order[:k]:
        if not t.finished and not t._out(name):
            t.withdraw(name)
        _check_valid(t)
    assert t.finished
    assert t.champion is None or t.champion in order
    _roundtrip(t)


def test_the_printable_bracket_shows_walkovers_and_vacant_seats() -> None:
    from blink.tournament.bracket import final_table, render_html

    t = Tournament.create(ranked(8))
    t.draw(seed=11)
    gone = t.match("R1-1").players[1]
    assert gone is not None
    t.withdraw(gone)
    t.forfeit("R1-2", [p for p in t.match("R1-2").players if p is not None])
    html = render_html(t)
    assert "nobody (double forfeit)" in html
    assert f"{gone} (forfeit)" in html
    assert "R1-1, walkover" in html and "R1-2, double forfeit" in html
    ft = final_table(t)
    assert "3–0 w/o" in ft["cells"][0]


def test_a_walkover_given_stands_when_its_player_withdraws_later() -> None:
    t = Tournament.create([f"N{i}" for i in range(5)])
    t.draw(0)
    a, b = t.match("R1-1").players
    assert a is not None and b is not None
    t.withdraw(a)
    assert t.match("R1-1").awarded == b
    final_sets = [m.id for m in t.matches() if "winner:R1-1" in m.sources]
    t.record_game(final_sets[0], b)
    t.withdraw(b)  # b's walkover in R1-1 stands: b's final-round game still counts
    m = t.match("R1-1")
    assert (m.awarded, m.winner) == (b, b)
    assert t.match(final_sets[0]).score[b] >= 1
    assert _roundtrip(t).match("R1-1").awarded == b


def test_a_player_removed_during_check_in_leaves_the_check_in_list() -> None:
    t = Tournament.create(["Ann", "Bo", "Cy"])
    t.open_check_in()
    t.check_in("Bo")
    t.check_in("Cy")
    t.remove_player("Bo")
    assert t.checked_in == ["Cy"]
    assert _roundtrip(t).checked_in == ["Cy"]


def test_a_take_back_with_its_author_goes_in_the_audit_trail() -> None:
    t = Tournament.create(["Ann", "Bo"])
    t.draw(seed=1)
    t.record_game("F1-2", "Ann")
    t.record_game("F1-2", "Bo")
    t.undo_game("F1-2", by="Maria", at=3.0)
    c = t.changes[-1]
    assert (c.kind, c.match, c.game, c.before, c.by, c.at) == (
        "take-back",
        "F1-2",
        2,
        ("Bo",),
        "Maria",
        3.0,
    )
    t.undo_game("F1-2")  # without an author: not in the trail
    assert len(t.changes) == 1
