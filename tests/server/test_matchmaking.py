"""The quick play queue's core on virtual time (no server, no clock): who is paired, when, and
who is offered a bot."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from blink.server.matchmaking import Matchmaker, OfferBot, Paired, QueueError, Rules


@dataclass(frozen=True)
class Join:
    player: str
    rating: float
    game: str
    players: int


@dataclass(frozen=True)
class Leave:
    player: str


@dataclass(frozen=True)
class Wait:
    seconds: float


PLAYERS = [f"p{i}" for i in range(12)]

steps = hs.lists(
    hs.one_of(
        hs.builds(
            Join,
            hs.sampled_from(PLAYERS),
            hs.floats(-30, 50, allow_nan=False),
            hs.sampled_from(["classic", "other"]),
            hs.integers(2, 4),
        ),
        hs.builds(Leave, hs.sampled_from(PLAYERS)),
        hs.builds(Wait, hs.floats(0, 15, allow_nan=False)),
    ),
    max_size=60,
)
rules_st = hs.builds(
    Rules,
    base_gap=hs.floats(0, 5),
    widen_per_second=hs.floats(0, 2),
    max_gap=hs.just(60.0),
    bot_after=hs.one_of(hs.none(), hs.floats(0, 30)),
)


def _run(rules: Rules, script: list[Join | Leave | Wait]) -> None:
    """Play the script and check every property after each input."""
    mm = Matchmaker(rules)
    now = 0.0
    joined: dict[str, tuple[Join, float]] = {}  # waiting now: what it joined with, and when
    seated: set[str] = set()
    offered: dict[str, int] = {}
    for step in script:
        if isinstance(step, Join):
            if step.player in joined:
                with pytest.raises(QueueError):
                    mm.join(step.player, step.rating, step.game, step.players, now)
                continue
            if step.player in seated:
                continue  # the driver gives every connection a fresh id
            joined[step.player] = (step, now)
            events = mm.join(step.player, step.rating, step.game, step.players, now)
        elif isinstance(step, Leave):
            assert mm.leave(step.player) == (step.player in joined)
            joined.pop(step.player, None)
            continue
        else:
            now += step.seconds
            events = mm.tick(now)
        for e in events:
            if isinstance(e, Paired):
                # Never a player twice, never one not waiting, never across games or seats.
                assert len(e.members) == e.players == len(set(e.members))
                for m in e.members:
                    assert m in joined and m not in seated
                    j, since = joined[m]
                    assert (j.game, j.players) == (e.game, e.players)
                for a in e.members:
                    for b in e.members:
                        ja, sa = joined[a]
                        jb, sb = joined[b]
                        gap = min(rules.gap(now - sa), rules.gap(now - sb))
                        assert abs(ja.rating - jb.rating) <= gap
                for m in e.members:
                    seated.add(m)
                    del joined[m]
            else:
                assert isinstance(e, OfferBot)
                assert e.player in joined
                assert rules.bot_after is not None
                assert now - joined[e.player][1] >= rules.bot_after
                offered[e.player] = offered.get(e.player, 0) + 1
        assert set(mm.waiting) == set(joined)
        # Everyone waiting past the bot wait has been offered once, nobody twice.
        for p, (_, since) in joined.items():
            expected = rules.bot_after is not None and now - since >= rules.bot_after
            assert offered.get(p, 0) == (1 if expected else 0)
        # No two waiting players of the same game and seats that accept each other are left
        # waiting (for two seats: a group of two is all it takes).
        two = [(p, j, s) for p, (j, s) in joined.items() if j.players == 2]
        for i, (_, ja, sa) in enumerate(two):
            for _, jb, sb in two[i + 1 :]:
                if ja.game == jb.game:
                    gap = min(rules.gap(now - sa), rules.gap(now - sb))
                    assert abs(ja.rating - jb.rating) > gap


@given(rules_st, steps)
def test_queue_properties(rules: Rules, script: list[Join | Leave | Wait]) -> None:
    """Random joins, leaves and waits keep every promise of the queue."""
    _run(rules, script)


@given(rules_st, hs.floats(0, 1000), hs.floats(0, 1000))
def test_gap_only_widens(rules: Rules, a: float, b: float) -> None:
    """A longer wait never accepts a narrower rating gap."""
    lo, hi = sorted((a, b))
    assert rules.gap(lo) <= rules.gap(hi)
    assert rules.gap(0) == rules.base_gap


def test_far_ratings_wait_until_the_gap_reaches_them() -> None:
    """Two players 10 points apart, with a gap of 2 widening by 1 a second, are paired once
    both have waited 8 seconds, and not before; a bot is offered at 5 s."""
    mm = Matchmaker(Rules(base_gap=2, widen_per_second=1, bot_after=5))
    assert mm.join("a", 0.0, "classic", 2, 0.0) == []
    assert mm.join("b", 10.0, "classic", 2, 0.0) == []
    assert mm.tick(4.9) == []
    assert mm.tick(5.0) == [OfferBot("a", 5.0), OfferBot("b", 5.0)]
    assert mm.tick(7.9) == []
    assert mm.tick(8.0) == [Paired("classic", 2, ("a", "b"), 8.0)]
    assert mm.counts() == 0


def test_nearest_rating_first_and_no_crossing() -> None:
    """The longest waiting player is paired with the nearest rating; other games and seat
    counts are not mixed in."""
    mm = Matchmaker(Rules(base_gap=5, widen_per_second=0, bot_after=None))
    mm.join("old", 10.0, "classic", 2, 0.0)
    mm.join("other game", 10.0, "other", 2, 1.0)
    mm.join("three seats", 10.0, "classic", 3, 1.0)
    mm.join("far", 14.0, "classic", 2, 2.0)
    assert mm.counts() == 0 + 2  # "old" and "far" were paired on "far"'s join
    mm.join("near", 11.0, "classic", 3, 3.0)
    out = mm.join("third", 12.0, "classic", 3, 4.0)
    assert out == [Paired("classic", 3, ("three seats", "near", "third"), 4.0)]
    assert set(mm.waiting) == {"other game"}


def test_refusals() -> None:
    """Joining twice, a one-seat game and rules that narrow are refused with a code."""
    mm = Matchmaker()
    mm.join("a", 0.0, "classic", 2, 0.0)
    with pytest.raises(QueueError) as e:
        mm.join("a", 0.0, "classic", 2, 1.0)
    assert e.value.code == "already_queued"
    with pytest.raises(QueueError) as e:
        mm.join("b", 0.0, "classic", 1, 1.0)
    assert e.value.code == "bad_players"
    with pytest.raises(QueueError) as e:
        Rules(base_gap=5, max_gap=1)
    assert e.value.code == "bad_queue_rules"
    assert not mm.leave("nobody")
