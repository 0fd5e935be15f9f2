"""The lag allowance's ordering (pure, on virtual time): a high-lag seat gains at most the
cap, a low-lag seat is never overtaken beyond it, and no play waits more than the cap."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from blink.server.lag import AllowanceRule, Held, RaceQueue

EPS = 1e-9


def run(
    rule: AllowanceRule, lags: list[float | None], plays: list[tuple[int, float]]
) -> list[tuple[float, Held[int]]]:
    """Offer ``plays`` (seat, arrival, in time order) and release them at their times; the
    plays as applied, with when."""
    q: RaceQueue[int] = RaceQueue(rule, len(lags))
    applied: list[tuple[float, Held[int]]] = []
    i = 0
    while i < len(plays) or q.held:
        arrival = plays[i][1] if i < len(plays) else math.inf
        release = q.next_release()
        if release is not None and release < arrival:
            applied += [(release, h) for h in q.due(release)]
            continue
        seat, now = plays[i]
        applied += [(now, h) for h in q.due(now)]
        q.offer(seat, i, now, lags)
        applied += [(now, h) for h in q.due(now)]
        i += 1
    return applied


def test_off_unless_asked() -> None:
    assert AllowanceRule.of({}) is None and AllowanceRule.of({"lag_allowance_ms": 0}) is None
    rule = AllowanceRule.of({"lag_allowance_ms": 100})
    assert rule is not None and rule.cap == 0.1 and math.isclose(rule.quota_max, 0.3)
    assert AllowanceRule.of({"lag_allowance_ms": 10_000}) == AllowanceRule.of(
        {"lag_allowance_ms": 250}
    )


def test_a_lagging_play_is_ordered_first_within_the_cap() -> None:
    rule = AllowanceRule(cap=0.1, quota_max=0.3, refill=0.05)
    # Seat 0 has 20 ms of one-way lag, seat 1 150 ms: seat 1 is compensated 100 ms (the cap).
    # Seat 0's play at 10.000 is held; seat 1's play at 10.070 counts as made at 9.970: first.
    order = run(rule, [0.02, 0.15], [(0, 10.0), (1, 10.07)])
    assert [h.seat for _, h in order] == [1, 0]
    # 110 ms later is beyond the cap (and seat 0's own 20 ms): seat 0 stays first.
    order = run(rule, [0.02, 0.15], [(0, 10.0), (1, 10.11)])
    assert [h.seat for _, h in order] == [0, 1]
    # Equal lag: nothing is held.
    order = run(rule, [0.05, 0.05], [(0, 10.0)])
    assert order[0][0] == 10.0


def test_the_quota_runs_out_and_refills() -> None:
    rule = AllowanceRule(cap=0.1, quota_max=0.3, refill=0.05)
    q: RaceQueue[int] = RaceQueue(rule, 2)
    lags: list[float | None] = [None, 0.2]
    comps = [q.offer(1, n, 1.0, lags).arrival - q.held[-1].effective for n in range(4)]
    assert [round(c, 6) for c in comps[:3]] == [0.1, 0.1, 0.1]
    assert q.most(1, 0.2, 1.0) == 0.0
    assert math.isclose(q.most(1, 0.2, 2.0), 0.05)


seats = st.integers(min_value=2, max_value=4)


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[AllowanceRule, list[float | None], list[tuple[int, float]]]:
    n = draw(seats)
    cap = draw(st.sampled_from([0.05, 0.1, 0.25]))
    rule = AllowanceRule(cap=cap, quota_max=3 * cap, refill=cap / 2)
    lags = draw(
        st.lists(
            st.one_of(st.none(), st.floats(min_value=0, max_value=0.5)), min_size=n, max_size=n
        )
    )
    gaps = draw(
        st.lists(
            st.tuples(st.integers(0, n - 1), st.floats(min_value=0, max_value=0.4)),
            min_size=1,
            max_size=25,
        )
    )
    t, plays = 100.0, []
    for seat, gap in gaps:
        t += gap
        plays.append((seat, t))
    return rule, lags, plays


@given(scenarios())
def test_nobody_gains_more_than_the_cap(
    scenario: tuple[AllowanceRule, list[float | None], list[tuple[int, float]]],
) -> None:
    rule, lags, plays = scenario
    applied = run(rule, lags, plays)
    assert sorted(h.item for _, h in applied) == list(range(len(plays)))
    position = {h.item: k for k, (_, h) in enumerate(applied)}
    for a, (_, ta) in enumerate(plays):
        for b, (seat_b, tb) in enumerate(plays):
            if position[b] < position[a] and tb > ta:
                # b overtook a: it came no more than its seat's compensation after a, which
                # is at most the cap and its one-way lag.
                gain = tb - ta
                assert gain <= rule.cap + EPS
                assert gain <= (lags[seat_b] or 0.0) + EPS
    # No play waits more than the cap, and none leaves before it came.
    for when, h in applied:
        assert h.arrival - EPS <= when <= h.arrival + rule.cap + EPS
