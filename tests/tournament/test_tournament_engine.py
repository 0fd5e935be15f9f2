"""The tournament engine: plans, byes, the hat draw, advancing, the final round, tie-breaks."""

from __future__ import annotations

import json

import pytest

from blink.tournament import (
    Draw,
    DrawError,
    Entrant,
    FieldError,
    MatchDecidedError,
    MatchKind,
    MatchNotReadyError,
    NotInMatchError,
    ResultError,
    Tournament,
    TournamentError,
    UndoError,
    UnknownMatchError,
    bracket_slots,
    plan,
)

from .helpers import favourite_wins, play_match, play_set, ranked


def _reducible(m: int) -> bool:
    while m > 4:
        if m % 2:
            return False
        m //= 2
    return m >= 3


def _halve_to_final(field: int) -> bool:
    """Whole rounds of pairs take the field to exactly 3 or 4."""
    return _reducible(field)


# ----------------------------------------------------------------- the plan


@pytest.mark.parametrize("n", range(2, 65))
def test_plan_uses_the_fewest_byes(n: int) -> None:
    p = plan(n)
    if n <= 4:
        assert (p.byes, p.pairings, p.rounds, p.finalists) == (0, 0, 0, n)
        return
    assert p.byes + 2 * p.pairings == n
    assert p.finalists in (3, 4)
    # every later round is whole: the field halves exactly down to the finalists
    for a, b in zip(p.fields[1:], p.fields[2:], strict=False):
        assert a == 2 * b
    assert p.fields[1] == p.byes + p.pairings
    # brute force: no smaller number of first-round byes works
    for b in range(p.byes):
        if (n - b) % 2 == 0 and n - b >= 2:
            assert not _halve_to_final((n + b) // 2), (n, b)
    assert _halve_to_final((n + p.byes) // 2)


def test_plan_table_examples() -> None:
    assert (plan(5).byes, plan(5).fields) == (1, (5, 3))
    assert (plan(7).byes, plan(7).fields) == (1, (7, 4))
    assert (plan(9).byes, plan(9).fields) == (3, (9, 6, 3))
    assert (plan(12).byes, plan(12).fields) == (0, (12, 6, 3))
    assert (plan(17).byes, plan(17).fields) == (7, (17, 12, 6, 3))
    assert (plan(33).byes, plan(33).fields) == (15, (33, 24, 12, 6, 3))
    assert (plan(64).byes, plan(64).fields) == (0, (64, 32, 16, 8, 4))


@pytest.mark.parametrize("n", [0, 1, 65, 100])
def test_plan_refuses_impossible_fields(n: int) -> None:
    with pytest.raises(FieldError) as e:
        plan(n)
    assert e.value.code == "field-size"


@pytest.mark.parametrize("n", range(5, 65))
def test_bracket_slots_are_a_permutation_and_spread_the_top_seeds(n: int) -> None:
    p = plan(n)
    slots = bracket_slots(p)
    assert sorted(slots) == list(range(p.fields[1]))
    size = p.fields[1] // p.finalists
    # the first `finalists` seeds land in different final groups
    groups = {slots[s] // size for s in range(min(p.finalists, len(slots)))}
    assert len(groups) == min(p.finalists, len(slots))


# ----------------------------------------------------------------- every size, played out


@pytest.mark.parametrize("n", range(2, 65))
def test_every_field_size_plays_to_a_champion(n: int) -> None:
    t = Tournament.create(ranked(n))
    p = t.plan
    draw = t.draw(seed=n)
    # byes go to the best-ranked players
    assert list(draw.byes) == [f"P{i}" for i in range(1, p.byes + 1)]
    # every non-bye player is in exactly one first-round pairing
    r1 = [m for m in t.matches() if m.round == 1 and m.kind is MatchKind.ELIMINATION]
    assert len(r1) == p.pairings
    seen = [pl for m in r1 for pl in m.players]
    if n <= 4:
        assert t.finalists == list(draw.order)
    else:
        assert sorted(seen + list(draw.byes), key=lambda s: int(s[1:] or 0)) == [
            e.name for e in t.entrants
        ]
    # the elimination matches per round follow the plan
    for r in range(1, p.rounds + 1):
        ms = [m for m in t.matches() if m.kind is MatchKind.ELIMINATION and m.round == r]
        assert len(ms) == (p.fields[r - 1] - p.fields[r])
    favourite_wins(t)
    # with the favourite winning every game, the top seeds finish in order
    assert t.champion == "P1"
    standings = t.standings()
    top = [int(s.name[1:]) for s in standings[: p.finalists]]
    assert top == sorted(top)
    assert [s.place for s in standings[: p.finalists]] == list(range(1, p.finalists + 1))
    assert sorted(s.name for s in standings) == sorted(e.name for e in t.entrants)
    assert [s.status for s in standings].count("champion") == 1
    # shared places are the right size
    for s in standings:
        if s.status == "eliminated":
            assert s.round_out is not None
            assert s.place_to - s.place + 1 == p.fields[s.round_out - 1] - p.fields[s.round_out]
    # JSON round trip
    text = json.dumps(t.to_dict())
    again = Tournament.from_dict(json.loads(text))
    assert again.to_dict() == t.to_dict()


def test_two_players_play_one_two_out_of_three() -> None:
    t = Tournament.create(["Ann", "Bo"])
    t.draw(seed=1)
    (m,) = t.matches()
    assert m.kind is MatchKind.FINAL and m.id == "F1-2"
    t.record_game("F1-2", "Bo")
    t.record_tie("F1-2")
    t.record_game("F1-2", "Ann")
    assert not t.finished
    t.record_game("f1-2", "ann")
    assert t.finished and t.champion == "Ann"
    assert [(s.name, s.place, s.status) for s in t.standings()] == [
        ("Ann", 1, "champion"),
        ("Bo", 2, "placed"),
    ]
    with pytest.raises(MatchDecidedError):
        t.record_game("F1-2", "Bo")


def test_four_players_go_straight_to_the_final_round() -> None:
    t = Tournament.create(ranked(4))
    t.draw(seed=3)
    assert [m.id for m in t.matches()] == ["F1-2", "F1-3", "F1-4", "F2-3", "F2-4", "F3-4"]
    assert all(m.kind is MatchKind.FINAL_SET for m in t.matches())


# ----------------------------------------------------------------- byes and the draw


def test_byes_follow_rank_then_rating_then_lot() -> None:
    players = [
        Entrant("New1"),
        Entrant("Rated40", rating=40.0),
        Entrant("Rank2", rank=2),
        Entrant("Rated30", rating=30.0),
        Entrant("Rank1", rank=1),
        Entrant("New2"),
        Entrant("New3"),
        Entrant("New4"),
        Entrant("New5"),
    ]
    t = Tournament.create(players)
    d = t.draw(seed=11)
    assert t.plan.byes == 3
    assert d.byes == ("Rank1", "Rank2", "Rated40")
    assert d.order[:4] == ("Rank1", "Rank2", "Rated40", "Rated30")
    assert set(d.order[4:]) == {"New1", "New2", "New3", "New4", "New5"}


def test_equal_experience_is_broken_by_lot_reproducibly() -> None:
    names = [f"B{i}" for i in range(17)]
    byes = set()
    for seed in range(12):
        a = Tournament.create(names)
        b = Tournament.create(names)
        assert a.draw(seed) == b.draw(seed)
        byes.add(a.draw_record.byes if a.draw_record else ())
    assert len(byes) > 1  # different seeds, different lots


@pytest.mark.parametrize("n", [5, 6, 9, 12, 13, 17, 33, 64])
def test_hat_draw_is_recorded_and_reproducible(n: int) -> None:
    t1 = Tournament.create(ranked(n))
    t2 = Tournament.create(ranked(n))
    d1, d2 = t1.draw(seed=99), t2.draw(seed=99)
    assert d1 == d2
    numbers = sorted(k for _, k in d1.hat)
    assert numbers == sorted(list(range(1, t1.plan.pairings + 1)) * 2)
    # drawing order is the order of entry, byes excluded
    assert [name for name, _ in d1.hat] == [e.name for e in t1.entrants if e.name not in d1.byes]
    # matching numbers play each other
    for name, k in d1.hat:
        assert name in t1.match(f"R1-{k}").players
    assert Draw.from_dict(json.loads(json.dumps(d1.to_dict()))) == d1
    others = {Tournament.create(ranked(n)).draw(seed=s).hat for s in range(5)}
    assert len(others) > 1


def test_bye_players_meet_pairing_winners_in_round_two() -> None:
    t = Tournament.create(ranked(13))  # 3 byes, 5 pairings, 8 after round one
    d = t.draw(seed=5)
    r2 = [m for m in t.matches() if m.round == 2]
    for m in r2:
        assert sum(1 for s in m.sources if s in d.byes) <= 1
    # P1 and P2 can only meet in the final round
    r2_p1 = next(m for m in r2 if "P1" in m.sources)
    assert "P2" not in r2_p1.sources


def test_draw_twice_and_no_draw_are_refused() -> None:
    t = Tournament.create(ranked(6))
    with pytest.raises(DrawError) as e:
        t.match("R1-1")
    assert e.value.code == "not-drawn"
    t.draw(seed=1)
    before = t.to_dict()
    with pytest.raises(DrawError) as e:
        t.draw(seed=2)
    assert e.value.code == "already-drawn"
    with pytest.raises(DrawError):
        t.add_player("Late")
    assert t.to_dict() == before


def test_players_are_checked() -> None:
    with pytest.raises(FieldError) as e:
        Tournament.create(["Ann", "ann"])
    assert e.value.code == "duplicate-name"
    with pytest.raises(FieldError):
        Tournament.create(["Ann"])
    with pytest.raises(FieldError):
        Tournament.create([f"P{i}" for i in range(65)])
    with pytest.raises(FieldError) as e:
        Tournament.create(["Ann", " Bo"])
    assert e.value.code == "bad-name"
    with pytest.raises(FieldError) as e:
        Tournament.create([Entrant("Ann", rank=0), Entrant("Bo")])
    assert e.value.code == "bad-rank"
    t = Tournament.create(["Ann", "Bo"])
    t.add_player("Cy")
    t.remove_player("ann")
    assert [e.name for e in t.entrants] == ["Bo", "Cy"]


# ----------------------------------------------------------------- advancing


def test_winners_advance_through_the_bracket() -> None:
    t = Tournament.create(ranked(9))  # 3 byes, 3 pairings -> 6 -> 3
    t.draw(seed=4)
    r2 = [m for m in t.matches() if m.round == 2]
    feeding = {m.id: [s for s in m.sources if s.startswith("winner:")] for m in r2}
    m = t.match("R1-1")
    assert m.status == "ready"
    a, b = m.players
    assert a is not None and b is not None
    t.record_game("R1-1", b)
    t.record_tie("R1-1")
    assert t.match("R1-1").status == "playing"
    assert t.match("R1-1").score == {a: 0, b: 1} and t.match("R1-1").ties == 1
    play_match(t, "R1-1", a, loser_games=0)
    assert t.match("R1-1").winner == a
    nxt = next(mid for mid, srcs in feeding.items() if "winner:R1-1" in srcs)
    assert a in t.match(nxt).players
    assert t.match(nxt).known
    standing = {s.name: s for s in t.standings()}
    assert standing[b].status == "eliminated" and standing[b].place_text == "7-9"
    assert standing[a].status == "playing"


# ----------------------------------------------------------------- the final round and ties


def _three() -> Tournament:
    t = Tournament.create([Entrant("A", rank=1), Entrant("B", rank=2), Entrant("C", rank=3)])
    t.draw(seed=0)
    assert t.finalists == ["A", "B", "C"]
    return t


def test_final_round_standings_by_wins() -> None:
    t = _three()
    play_set(t, "F1-2", 3)
    play_set(t, "F1-3", 2)
    play_set(t, "F2-3", 1)  # A 5, B 1, C 3
    assert t.finished
    assert [(s.name, s.place, s.final_wins) for s in t.standings()] == [
        ("A", 1, 5),
        ("C", 2, 3),
        ("B", 3, 1),
    ]
    assert not any(m.kind is MatchKind.TIEBREAK for m in t.matches())


def test_tied_games_in_the_final_round_are_replayed() -> None:
    t = _three()
    t.record_tie("F1-2")
    t.record_game("F1-2", "A")
    t.record_tie("F1-2")
    t.record_game("F1-2", "A")
    assert not t.match("F1-2").decided
    t.record_game("F1-2", "B")
    m = t.match("F1-2")
    assert m.decided and m.score == {"A": 2, "B": 1} and m.ties == 2


def test_two_tied_play_a_two_out_of_three() -> None:
    t = _three()
    play_set(t, "F1-2", 2)
    play_set(t, "F1-3", 2)
    play_set(t, "F2-3", 3)  # A 4, B 4, C 1
    assert not t.finished
    assert [s.status for s in t.standings()] == ["finalist", "finalist", "placed"]
    assert t.standings()[0].place_text == "1-2"
    tb = t.match("T1")
    assert tb.kind is MatchKind.TIEBREAK and set(tb.players) == {"A", "B"}
    play_match(t, "T1", "B", loser_games=1)
    assert t.finished and t.champion == "B"
    assert [s.name for s in t.standings()] == ["B", "A", "C"]


def test_two_pairs_tied_with_four_finalists() -> None:
    t = Tournament.create(ranked(4))
    t.draw(seed=0)
    a, b, c, d = (f or "" for f in t.finalists)
    assert (a, b, c, d) == ("P1", "P2", "P3", "P4")
    play_set(t, "F1-2", 1)
    play_set(t, "F1-3", 3)
    play_set(t, "F1-4", 2)
    play_set(t, "F2-3", 2)
    play_set(t, "F2-4", 2)
    play_set(t, "F3-4", 2)  # A 6, B 6, C 3, D 3
    ids = [m.id for m in t.matches() if m.kind is MatchKind.TIEBREAK]
    assert ids == ["T1", "T3"]
    play_match(t, "T3", d)
    assert not t.finished
    play_match(t, "T1", a)
    assert [s.name for s in t.standings()] == [a, b, d, c]


def test_three_tied_play_in_turn_and_an_order_settles_it() -> None:
    t = _three()
    play_set(t, "F1-2", 2)
    play_set(t, "F1-3", 1)
    play_set(t, "F2-3", 2)  # A 3, B 3, C 3
    ids = [m.id for m in t.matches() if m.kind is MatchKind.TIEBREAK]
    assert ids == ["T1-12", "T1-13", "T1-23"]
    assert [s.place_text for s in t.standings()] == ["1-3"] * 3
    play_match(t, "T1-12", "B")
    play_match(t, "T1-13", "C")
    assert not t.finished
    play_match(t, "T1-23", "B")  # B 2, C 1, A 0
    assert t.finished
    assert [s.name for s in t.standings()] == ["B", "C", "A"]


def test_three_tied_in_a_circle_go_to_a_three_player_game() -> None:
    t = _three()
    play_set(t, "F1-2", 2)
    play_set(t, "F1-3", 1)
    play_set(t, "F2-3", 2)
    play_match(t, "T1-12", "A")
    play_match(t, "T1-13", "C")
    play_match(t, "T1-23", "B")  # A>B, B>C, C>A
    po = t.match("T1-P")
    assert po.kind is MatchKind.PLAYOFF and set(po.players) == {"A", "B", "C"}
    t.record_tie("T1-P")  # all three tie: replay
    t.record_game("T1-P", ["A", "C"])  # two tie: replay
    assert not t.finished
    t.record_game("T1-P", "C")
    assert t.finished
    # C first; A and B keep the order of their own match (A beat B)
    assert [s.name for s in t.standings()] == ["C", "A", "B"]


def test_three_tied_below_a_leader_with_four_finalists() -> None:
    t = Tournament.create(ranked(4))
    t.draw(seed=0)
    for mid in ("F1-2", "F1-3", "F1-4"):
        play_set(t, mid, 2)
    play_set(t, "F2-3", 2)
    play_set(t, "F3-4", 2)
    play_set(t, "F2-4", 1)  # P1 6; P2 1+2+1=4; P3 1+1+2=4; P4 1+2+1=4
    ids = [m.id for m in t.matches() if m.kind is MatchKind.TIEBREAK]
    assert ids == ["T2-23", "T2-24", "T2-34"]
    assert t.standings()[0].status == "champion"
    play_match(t, "T2-23", "P2")
    play_match(t, "T2-24", "P4")
    play_match(t, "T2-34", "P3")
    t.record_game("T2-P", "P4")
    assert [s.name for s in t.standings()] == ["P1", "P4", "P2", "P3"]


# ----------------------------------------------------------------- refused results


def test_invalid_results_are_refused_and_change_nothing() -> None:
    t = Tournament.create(ranked(9))
    t.draw(seed=8)
    m = t.match("R1-1")
    a = m.players[0]
    assert a is not None
    play_match(t, "R1-1", a)
    before = t.to_dict()
    outsider = next(e.name for e in t.entrants if e.name not in m.players)
    waiting = next(x for x in t.matches() if not x.known)
    cases: list[tuple[type[TournamentError], str, object]] = [
        (UnknownMatchError, "R9-9", a),
        (MatchDecidedError, "R1-1", a),
        (NotInMatchError, "R1-2", outsider),
        (NotInMatchError, "R1-2", "Nobody"),
        (ResultError, "R1-2", []),
        (MatchNotReadyError, waiting.id, a),
    ]
    p2 = t.match("R1-2").players[0]
    assert p2 is not None
    cases.append((ResultError, "R1-2", [p2, p2]))
    for kind, mid, winners in cases:
        with pytest.raises(kind) as e:
            t.record_game(mid, winners)  # type: ignore[arg-type]
        assert e.value.code and str(e.value)
        assert t.to_dict() == before, (kind, mid)


def test_undo_takes_back_the_last_game_unless_it_is_used() -> None:
    t = Tournament.create(ranked(5))  # 1 bye, R1-1 and R1-2 -> 3 finalists
    t.draw(seed=2)
    m1 = t.match("R1-1")
    w = m1.players[0]
    assert w is not None
    play_match(t, "R1-1", w)
    play_match(t, "R1-2", t.match("R1-2").players[0] or "")
    g = t.undo_game("R1-2")
    assert not t.match("R1-2").decided and g.winners == (t.match("R1-2").players[0],)
    play_match_again = t.match("R1-2").players[0]
    assert play_match_again is not None
    t.record_game("R1-2", play_match_again)
    fin = next(m for m in t.ready_matches() if m.kind is MatchKind.FINAL_SET)
    p = fin.players[0]
    assert p is not None
    t.record_game(fin.id, p)
    before = t.to_dict()
    src = next(s[len("winner:") :] for s in fin.sources if s.startswith("winner:"))
    with pytest.raises(UndoError) as e:
        t.undo_game(src)
    assert e.value.code == "result-in-use"
    assert t.to_dict() == before
    with pytest.raises(UndoError) as e:
        t.undo_game(next(m.id for m in t.matches() if m.known and not m.games))
    assert e.value.code == "nothing-to-undo"


# ----------------------------------------------------------------- files


def test_from_dict_checks_what_it_reads() -> None:
    t = Tournament.create(ranked(6))
    t.draw(seed=3)
    data = t.to_dict()
    bad = json.loads(json.dumps(data))
    bad["draw"]["byes"] = ["P6"]
    with pytest.raises(DrawError):
        Tournament.from_dict(bad)
    bad = json.loads(json.dumps(data))
    bad["results"] = {"R7-1": [{"winners": ["P1"]}]}
    with pytest.raises(UnknownMatchError):
        Tournament.from_dict(bad)
    bad = json.loads(json.dumps(data))
    a = t.match("R1-1").players[0]
    bad["results"] = {"R1-1": [{"winners": [a]}] * 3}
    with pytest.raises(MatchDecidedError):
        Tournament.from_dict(bad)
    with pytest.raises(TournamentError):
        Tournament.from_dict({"format": "something-else"})


@pytest.mark.parametrize("n", [0, 1])
def test_a_field_still_signing_up_round_trips_at_any_size(n: int) -> None:
    t = Tournament([], "Club")
    for e in ranked(n):
        t.add_player(e)
    data = json.loads(json.dumps(t.to_dict()))
    assert data["plan"] is None and data["matches"] == [] and data["standings"] == []
    again = Tournament.from_dict(data)
    assert again.to_dict() == data
    assert [e.name for e in again.entrants] == [e.name for e in t.entrants]
    # It goes on signing up, and is drawn once it has enough players.
    for e in ranked(3)[n:]:
        again.add_player(e)
    again.draw(seed=1)
    assert Tournament.from_dict(again.to_dict()).to_dict() == again.to_dict()
    # A drawn or played field still needs two players.
    bad = dict(data, results={"R1-1": [{"winners": ["P1"]}]})
    with pytest.raises(TournamentError):
        Tournament.from_dict(bad)


# ----------------------------------------------------------------- handicaps


def test_handicap_per_pairing() -> None:
    t = Tournament.create(ranked(6))
    t.draw(seed=1)
    m = t.match("R1-1")
    a, b = m.players
    assert a is not None and b is not None
    m = t.set_handicap("r1-1", {a.lower(): 36, b: 24})
    assert m.handicap == ((a, 36), (b, 24))
    assert t.to_dict()["handicaps"] == {"R1-1": {a: 36, b: 24}}
    again = Tournament.from_dict(json.loads(json.dumps(t.to_dict())))
    assert again.match("R1-1").handicap == m.handicap
    before = t.to_dict()
    outsider = next(e.name for e in t.entrants if e.name not in (a, b))
    for sizes, kind in [
        ({a: 36}, ResultError),
        ({a: 36, outsider: 24}, NotInMatchError),
        ({a: 58, b: 2}, ResultError),
        ({a: 40, b: 30}, ResultError),
    ]:
        with pytest.raises(kind):
            t.set_handicap("R1-1", sizes)
        assert t.to_dict() == before
    with pytest.raises(MatchNotReadyError):
        t.set_handicap("R2-1" if t.plan.rounds > 1 else "F1-2", {a: 36, b: 24})
    t.set_handicap("R1-1", None)
    assert t.match("R1-1").handicap is None


def test_undo_drops_a_handicap_whose_players_change() -> None:
    t = Tournament.create(ranked(5))
    t.draw(seed=2)
    w = t.match("R1-1").players[0]
    assert w is not None
    play_match(t, "R1-1", w)
    fin = next(m for m in t.matches() if m.known and m.kind is MatchKind.FINAL_SET)
    x, y = fin.players
    assert x is not None and y is not None
    t.set_handicap(fin.id, {x: 34, y: 26})
    t.undo_game("R1-1")
    assert fin.id not in t.to_dict()["handicaps"]
    assert t.match(fin.id).handicap is None


def test_a_version_1_file_reads_and_a_newer_version_is_refused_in_words() -> None:
    t = Tournament.create(ranked(5))
    t.draw(seed=4)
    data = json.loads(json.dumps(t.to_dict()))
    assert data["version"] == 2
    old = {**data, "version": 1}  # before the operations of real events: read the same
    assert Tournament.from_dict(old).to_dict() == data
    with pytest.raises(TournamentError, match=r"unsupported version 4.*upgrade blink"):
        Tournament.from_dict({**data, "version": 4})


# ----------------------------------------------------------------- a match's set in a room


@pytest.mark.parametrize(
    ("field", "results"),
    [
        (2, ["a", "a"]),
        (2, ["a", "tie", "b", "b"]),
        (3, ["a", "a", "b"]),
        (3, ["a", "a", "a"]),
        (3, ["tie", "b", "a", "tie", "a"]),
        (6, ["b", "a", "a"]),
    ],
)
def test_a_room_series_of_the_match_set_ends_when_the_match_is_decided(
    field: int, results: list[str]
) -> None:
    """The series a match room plays (``Match.best_of``, ``Match.plays_all``) is over after
    exactly the game that decides the match, and not before: a final set goes on at 2-0."""
    from blink.match import Series

    t = Tournament.create(ranked(field))
    t.draw(seed=5)
    m = t.ready_matches()[0]
    players = [p for p in m.players if p is not None]
    series = Series(m.best_of, len(players), play_all=m.plays_all)
    assert series.to_dict()["first_to"] == (None if m.kind is MatchKind.FINAL_SET else 2)
    for r in results:
        seats = (0, 1) if r == "tie" else ((0,) if r == "a" else (1,))
        if r == "tie":
            t.record_tie(m.id)
        else:
            t.record_game(m.id, players[seats[0]])
        series.record(seats)
        assert series.over == t.match(m.id).decided
    assert series.over
    if m.kind is MatchKind.FINAL_SET:
        assert m.best_of == 3 and sum(series.score) == 3
