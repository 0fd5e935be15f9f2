"""The room core on its own: no socket, no database, no event loop.

A fake host records the storage jobs (and commits them when the test says), queues timers on
a virtual clock, and peers are plain outboxes. So the room's contract is checked directly:
nothing is sent before it is stored, an input that fails leaves the room exactly as it was,
resumes get exactly the frames missed, a game the server never heard of runs the same way, and
a game without a countdown of its own is held for the one its table asks for.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from highcard import HIGH_CARD, HIGH_CARD_GAME, HighCardTable, LayMsg, high_card_game
from srvkit import fast_settings

from blink.cards import Card
from blink.games.classic.engine import Phase, Play
from blink.games.classic.table import PlayMsg
from blink.games.goblink.engine import EndTurn
from blink.games.goblink.table import EndMsg
from blink.model.registry import register, unregister
from blink.model.table import PileTop
from blink.server.room.room import GameState, Room, Seat, hash_token
from blink.server.room.seats import Peer, Refusal
from blink.server.settings import Settings


@dataclass
class _Timer:
    when: float
    fire: Callable[[], None]
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


@dataclass
class FakeHost:
    """A :class:`blink.server.room.room.RoomHost` with a virtual clock and a manual store."""

    settings: Settings
    version: str = "test"
    game_end_hooks: list[Callable[[Room, GameState], None]] = field(default_factory=list)
    room_hooks: list[Callable[[Room], None]] = field(default_factory=list)
    profile_hashes: set[str] | None = None
    now: float = 100.0
    jobs: list[tuple[Any, Callable[[Any], None] | None]] = field(default_factory=list)
    timers: list[_Timer] = field(default_factory=list)
    next_id: int = 1

    failure: str | None = None

    def write_failure(self) -> str | None:
        return self.failure

    def take_game_id(self) -> int:
        gid = self.next_id
        self.next_id += 1
        return gid

    def store(
        self,
        job: Any,
        done: Callable[[Any], None] | None = None,
        room: str | None = None,
        received: float | None = None,
    ) -> None:
        self.jobs.append((job, done))

    def later(self, delay: float, fire: Callable[[], None]) -> _Timer:
        timer = _Timer(self.now + delay, fire)
        self.timers.append(timer)
        return timer

    def commit(self) -> None:
        """Every queued job "committed": their callbacks run, in order."""
        jobs, self.jobs = self.jobs, []
        for _job, done in jobs:
            if done is not None:
                done(None)

    def run_until(self, when: float) -> None:
        """Fire the due timers in order (committing after each), then stand at ``when``."""
        while True:
            due = [t for t in self.timers if not t.cancelled and t.when <= when]
            if not due:
                break
            timer = min(due, key=lambda t: t.when)
            self.timers.remove(timer)
            self.now = timer.when
            timer.fire()
            self.commit()
        self.now = when


class Outbox:
    """A peer whose frames stay in a list."""

    def __init__(self) -> None:
        self.room: Room | None = None
        self.seat: int | None = None
        self.spectator = False
        self.awaiting_snapshot = False
        self.frames: list[dict[str, Any]] = []

    def send(self, frame: str) -> None:
        self.frames.append(json.loads(frame))

    def take(self, kind: str | None = None) -> list[dict[str, Any]]:
        got, self.frames = self.frames, []
        return [f for f in got if kind is None or f["type"] == kind]


def _host() -> FakeHost:
    host = FakeHost(fast_settings("sqlite://", countdown=1.0, turn_time=30.0))
    host.settings.clock = lambda: host.now
    host.settings.wall_clock = lambda: 1_700_000_000.0 + host.now
    return host


def _room(host: FakeHost, game: str, options: dict[str, Any], players: int = 2) -> Room:
    seats = [Seat(i, "human", name=f"P{i}", token_hash=hash_token(f"t{i}")) for i in range(players)]
    return Room(host, "ABCDEF", game, players, 1, options, False, seats, 0.0)


def _seated(room: Room, seat: int | None) -> Outbox:
    peer = Outbox()
    p: Peer = peer
    room.attach(p, None if seat is None else room.seats[seat], None, None)
    return peer


def _revealed_classic() -> tuple[FakeHost, Room, list[Outbox]]:
    host = _host()
    room = _room(host, "classic", {"ruleset": "official", "sizes": None})
    peers = [_seated(room, 0), _seated(room, 1), _seated(room, None)]
    host.commit()
    host.run_until(host.now + 1.0)  # the countdown's end: the reveal
    assert room.game is not None and room.game.game.phase is Phase.PLAYING
    for p in peers:
        p.take()
    return host, room, peers


def _a_legal_play(room: Room) -> Play:
    assert room.game is not None
    for seat in range(room.players):
        plays = room.game.game.legal_plays(seat)
        if plays:
            return plays[0]
    raise AssertionError("no legal play")


def test_nothing_is_sent_before_it_is_stored() -> None:
    host, room, peers = _revealed_classic()
    play = _a_legal_play(room)
    msg = PlayMsg(id="m1", card=str(play.card), pile=play.pile)
    assert room.act(play.player, msg, "m1") is None
    assert all(p.frames == [] for p in peers), "a frame left before its commit"
    assert len(host.jobs) == 1
    host.commit()
    mover = peers[play.player]
    got = mover.take()
    assert [f["type"] for f in got] == ["ack", "update"] and got[0]["id"] == "m1"
    updates = [p.take("update") for p in peers if p is not mover]
    assert all(len(u) == 1 and u[0]["seq"] == got[1]["seq"] for u in updates)
    # A spectator's view holds no hand.
    assert updates[-1][0]["view"]["hand"] == []


def test_a_play_made_while_its_player_awaits_a_snapshot_is_still_acknowledged() -> None:
    # Seat 1 asks for a fresh snapshot while seat 0's play waits for its commit (so the
    # snapshot waits too), then plays: its play is stored with the others, and its ack must
    # reach it, or a client waiting for the answer to its play waits for ever.
    host, room, peers = _revealed_classic()
    g = room.game
    assert g is not None
    first = next(iter(g.game.legal_plays(0)), None)
    assert first is not None, "seat 0 has no play on this deal"
    assert room.act(0, PlayMsg(id="a1", card=str(first.card), pile=first.pile), "a1") is None
    room.resync(peers[1])
    assert peers[1].frames == [] and peers[1].awaiting_snapshot
    second = next(iter(g.game.legal_plays(1)), None)
    assert second is not None, "seat 1 has no play after seat 0's on this deal"
    assert room.act(1, PlayMsg(id="b1", card=str(second.card), pile=second.pile), "b1") is None
    host.commit()
    got = peers[1].take()
    acks = [f for f in got if f["type"] == "ack"]
    assert [a["id"] for a in acks] == ["b1"], [f["type"] for f in got]
    snapshots = [f for f in got if f["type"] == "snapshot"]
    assert len(snapshots) == 1 and snapshots[0]["seq"] >= acks[0]["seq"]
    assert not peers[1].awaiting_snapshot
    # Seat 0, who awaited nothing, has its ack and the two updates, as always.
    assert [f["type"] for f in peers[0].take()] == ["ack", "update", "update"]


def test_an_input_that_fails_while_building_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    host, room, peers = _revealed_classic()
    g = room.game
    assert g is not None
    before = (g.game.snapshot(), g.seq, g.last_t, list(g.actions_by_seat), len(g.pending))
    play = _a_legal_play(room)

    def broken(view: Any, full: bool) -> dict[str, Any]:
        raise RuntimeError("a frame could not be built")

    monkeypatch.setattr(room.definition, "view_to_wire", broken)
    with pytest.raises(RuntimeError):
        room.act(play.player, PlayMsg(id="m1", card=str(play.card), pile=play.pile), "m1")
    monkeypatch.undo()
    g = room.game
    assert g is not None
    after = (g.game.snapshot(), g.seq, g.last_t, list(g.actions_by_seat), len(g.pending))
    assert after == before and host.jobs == [] and all(p.frames == [] for p in peers)
    assert "m1" not in room.seats[play.player].pending_ids
    # The room goes on: the same play is accepted now.
    assert (
        room.act(play.player, PlayMsg(id="m2", card=str(play.card), pile=play.pile), "m2") is None
    )


def test_a_refusal_changes_nothing_and_names_the_reason() -> None:
    host, room, _peers = _revealed_classic()
    g = room.game
    assert g is not None
    before = g.game.snapshot()
    other_hand = g.game.hand(1)
    refused = room.act(0, PlayMsg(id="x", card=str(other_hand[0]), pile=0), "x")
    assert refused is not None and refused[0] == "card_not_in_hand" and refused[1]
    assert g.game.snapshot() == before and host.jobs == [] and g.seq == 0 + len(g.game.history)


def test_a_resume_gets_exactly_the_frames_it_missed() -> None:
    host, room, _peers = _revealed_classic()
    g = room.game
    assert g is not None
    seen = g.seq
    for i in range(3):
        play = _a_legal_play(room)
        room.apply(play, play.player, f"r{i}")
        host.commit()
    back = Outbox()
    room.attach(back, room.seats[0], g.id, seen)
    updates = back.take("update")
    assert [u["seq"] for u in updates] == [seen + 1, seen + 2, seen + 3]
    # From too far back (out of the ring): a snapshot instead.
    far = Outbox()
    room.attach(far, room.seats[0], g.id + 99, 0)
    assert [f["type"] for f in far.take() if f["type"] in ("snapshot", "update")] == ["snapshot"]


def test_a_spectator_resuming_after_unwatched_updates_gets_them_rebuilt() -> None:
    """Frames built for no one are rebuilt from the game's log (not a snapshot instead)."""
    host, room, peers = _revealed_classic()
    g = room.game
    assert g is not None
    room.detach(peers[2])  # the only spectator leaves: the next frames are built for no one
    seen = g.seq
    play = _a_legal_play(room)
    room.apply(play, play.player, None)
    host.commit()
    back = Outbox()
    room.attach(back, None, g.id, seen)
    got = [f for f in back.take() if f["type"] in ("snapshot", "update")]
    assert [f["type"] for f in got] == ["update"] and got[0]["seq"] == seen + 1


def test_a_crowd_of_spectators_costs_the_players_one_room_frame_a_second() -> None:
    host, room, peers = _revealed_classic()
    crowd = [_seated(room, None) for _ in range(200)]
    for c in crowd[:150]:
        room.detach(c)
    assert peers[0].take("room") == [] and peers[1].take("room") == []
    assert all(len(c.take("room")) == 1 for c in crowd)  # each its own, when it came
    host.run_until(host.now + host.settings.spectator_updates)
    rooms = peers[0].take("room")
    assert len(rooms) == 1 and rooms[0]["room"]["spectators"] == 1 + 50
    host.run_until(host.now + 10.0)
    assert peers[0].take("room") == []


@pytest.fixture
def high_card() -> Iterator[None]:
    register(HIGH_CARD_GAME)
    yield
    unregister(HIGH_CARD.info.name)


def test_a_game_the_room_never_heard_of_with_its_turn_timer(high_card: None) -> None:
    host = _host()
    room = _room(host, "highcard", {})
    peers = [_seated(room, 0), _seated(room, 1)]
    host.commit()
    g = room.game
    assert g is not None and room.status == "playing"
    snap = peers[0].take("snapshot")[-1]
    assert snap["turn"] == {"seat": 0, "in_ms": 30_000}
    hand = snap["view"]["hand"]
    assert room.act(0, LayMsg(id="a", card=hand[1]), "a") is None
    host.commit()
    # Seat 1 does not act: its first card is laid for it exactly at the turn time.
    start = host.now
    host.run_until(start + 30.0 - 0.001)
    assert len(g.game.actions) == 1
    host.run_until(start + 30.0)
    assert len(g.game.actions) == 2 and g.game.actions[1][0].player == 1
    for _ in range(4):
        seat = g.game.current
        pending = g.table.pending
        assert seat is not None and pending is not None
        room.apply(pending.actions[0][1], seat, None)
        host.commit()
    assert g.game.over and room.status == "finished"
    end = peers[1].take("game_end")[-1]
    assert end["game_kind"] == "highcard" and len(end["figures"]["totals"]) == 2


# --- the countdown of a game that does not count down by itself -------------------------------


def test_a_go_blink_game_counts_down_before_its_first_turn() -> None:
    host = _host()
    room = _room(host, "goblink", {})
    peers = [_seated(room, 0), _seated(room, 1), _seated(room, None)]
    host.commit()
    g = room.game
    assert g is not None and room.status == "countdown" and g.t0 is None
    dealt = host.now
    for p in peers:
        frames = p.take()
        snap = [f for f in frames if f["type"] == "snapshot"][-1]
        assert (snap["countdown_ms"], snap["turn"], snap["stall"]) == (1000, None, None)
        assert [f["in_ms"] for f in frames if f["type"] == "countdown"] == [1000]
    seat = g.game.current
    assert seat is not None
    # Nobody acts during the countdown, and nothing happens by itself.
    refused = room.act(seat, EndMsg(id="early"), "early")
    assert refused == Refusal("not_started", "the game has not started: wait for the countdown")
    assert host.jobs == []
    host.run_until(dealt + 1.0 - 0.001)
    assert room.status == "countdown" and not g.game.history and peers[0].take("snapshot") == []
    # At its end everyone gets the game as it starts: the first turn and its time.
    host.run_until(dealt + 1.0)
    assert room.status == "playing" and g.t0 == dealt + 1.0
    for p in peers:
        snap = p.take("snapshot")[-1]
        assert snap["countdown_ms"] is None and snap["turn"] == {"seat": seat, "in_ms": 30_000}
    # The game's times run from there, and so does the turn's time.
    host.run_until(dealt + 1.5)
    assert room.act(seat, EndMsg(id="e"), "e") is None
    assert list(g.game.history) == [(EndTurn(seat), 500)]
    host.commit()
    nxt = g.game.current
    host.run_until(dealt + 1.5 + 30.0)
    assert g.game.history[-1] == (EndTurn(nxt), 30_500)


@dataclass
class _Bot:
    """A live bot that only notes when it was started."""

    started: list[float]
    clock: Callable[[], float]

    def start(self) -> None:
        self.started.append(self.clock())

    def notify(self) -> None:
        pass

    def stop(self) -> None:
        pass


class _HeldHighCard(HighCardTable):
    """High Card held for the countdown, with bots that note when they start."""

    def __init__(self) -> None:
        self.started: list[float] = []

    def countdown(self, seconds: float) -> float | None:
        return seconds

    def live_bot(self, spec: str, seat: int, seed: int, view: Any, submit: Any, clock: Any,
                 pace: float) -> _Bot:  # fmt: skip
        return _Bot(self.started, clock)


def _human_and_bot() -> list[Seat]:
    return [
        Seat(0, "human", name="P0", token_hash=hash_token("t0")),
        Seat(1, "bot", bot="any", name="B1"),
    ]


def test_any_game_whose_table_asks_for_it_is_held_and_its_bots_wait() -> None:
    """Nothing in the room names a game: a game it never heard of is held the same way; the
    countdown starts over after the database could not be written, and a game restored with
    no action yet counts down again."""
    table = _HeldHighCard()
    register(high_card_game(table))
    try:
        host = _host()
        room = Room(host, "HELDGM", "highcard", 2, 1, {}, False, _human_and_bot(), 0.0)
        peer = _seated(room, 0)
        host.commit()
        g = room.game
        assert g is not None and room.status == "countdown" and table.started == []
        assert peer.take("snapshot")[-1]["countdown_ms"] == 1000
        host.failure = "disk full"
        host.run_until(host.now + 1.0)
        assert room.status == "countdown" and g.table.holding  # it waits for the database
        host.failure = None
        room.resume()
        resumed = host.now
        assert peer.take("snapshot")[-1]["countdown_ms"] == 1000
        host.run_until(resumed + 1.0)
        assert room.status == "playing" and table.started == [resumed + 1.0]
        assert peer.take("snapshot")[-1]["turn"] == {"seat": 0, "in_ms": 30_000}
        # A stored game with no action yet is restored counting down, as after its deal.
        again = Room(host, "HELDGN", "highcard", 2, 1, {}, False, _human_and_bot(), 0.0)
        again.restore_game(9, 1, 1, 0.0, HIGH_CARD.new(2, seed=3), [])
        assert again.status == "countdown" and again.game is not None
        assert again.game.table.holding and len(table.started) == 1
        host.run_until(host.now + 1.0)
        assert again.status == "playing" and len(table.started) == 2
    finally:
        unregister(HIGH_CARD.info.name)


# --- too slow: a play that names the version of the pile its player saw -------------------


@dataclass
class _Race:
    """Seat 0 plays ``first`` on ``pile``; seat 1 had ``second`` ready for the old top."""

    host: FakeHost
    room: Room
    peers: list[Outbox]
    pile: int
    first: Play
    second: Card
    seen: int


def _race(second_fits_the_new_top: bool) -> _Race:
    """The first deal (by seed) where both seats can go for the same pile and seat 1's card
    does (or does not) fit the card seat 0 covers the top with; seat 0 has played."""
    for seed in range(500):
        host = _host()
        host.settings.deal_seed = seed
        room = _room(host, "classic", {"ruleset": "official", "sizes": None})
        peers = [_seated(room, 0), _seated(room, 1)]
        host.commit()
        host.run_until(host.now + 1.0)
        g = room.game
        assert g is not None and g.game.phase is Phase.PLAYING
        for first in g.game.legal_plays(0):
            top = g.game.top(first.pile)
            seconds = [
                c
                for c in g.game.hand(1)
                if c.matches(top) and c.matches(first.card) is second_fits_the_new_top
            ]
            if not seconds:
                continue
            seen = room.definition.view(g.game, 1).versions[first.pile]
            msg = PlayMsg(id="a", card=str(first.card), pile=first.pile, version=seen)
            assert room.act(0, msg, "a") is None
            host.commit()
            if g.game.phase is not Phase.PLAYING:
                break  # the play stalled the game: another deal
            for p in peers:
                p.take()
            return _Race(host, room, peers, first.pile, first, seconds[0], seen)
    raise AssertionError("no deal with that race in 500 seeds")


def test_a_play_on_a_pile_that_changed_first_is_too_slow() -> None:
    race = _race(second_fits_the_new_top=False)
    g = race.room.game
    assert g is not None
    before = g.game.snapshot()
    msg = PlayMsg(id="b", card=str(race.second), pile=race.pile, version=race.seen)
    refused = race.room.act(1, msg, "b")
    assert refused is not None
    assert refused.code == "too_slow"
    assert refused.top == PileTop(pile=race.pile, card=str(race.first.card), version=race.seen + 1)
    assert str(race.first.card) in refused.message
    assert g.game.snapshot() == before and race.host.jobs == []


def test_a_stale_play_that_still_fits_the_new_top_is_accepted() -> None:
    race = _race(second_fits_the_new_top=True)
    msg = PlayMsg(id="b", card=str(race.second), pile=race.pile, version=race.seen)
    assert race.room.act(1, msg, "b") is None
    race.host.commit()
    update = race.peers[1].take("update")[-1]
    assert update["view"]["tops"][race.pile] == str(race.second)
    assert update["view"]["versions"][race.pile] == race.seen + 2


def test_a_play_on_the_current_version_keeps_the_engine_reason() -> None:
    race = _race(second_fits_the_new_top=False)
    g = race.room.game
    assert g is not None
    current = race.room.definition.view(g.game, 1).versions[race.pile]
    assert current == race.seen + 1
    for version in (current, None):  # named the pile it is judged on, or named nothing
        msg = PlayMsg(id=f"b{version}", card=str(race.second), pile=race.pile, version=version)
        refused = race.room.act(1, msg, f"b{version}")
        assert refused is not None
        assert (refused.code, refused.top) == ("no_common_attribute", None)


# --- quick chat --------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["classic", "goblink"])
def test_quick_chat_reaches_everyone_a_few_at_a_time(game: str) -> None:
    host = _host()
    options = {"ruleset": "official", "sizes": None} if game == "classic" else {}
    room = _room(host, game, options)
    peers = [_seated(room, 0), _seated(room, 1), _seated(room, None)]
    host.commit()
    for p in peers:
        p.take()
    # A phrase goes to every connection, the spectator's too, and nothing is stored.
    assert room.say(1, "good_game") is None
    assert all(p.take() == [{"type": "chat", "seat": 1, "phrase": "good_game"}] for p in peers)
    assert host.jobs == []
    # Only the fixed phrases.
    assert room.say(0, "you are bad")[0] == "unknown_phrase"  # type: ignore[index]
    # A burst of three in the seat's window (one was seat 1's), then it waits.
    assert room.say(0, "oops") is None and room.say(0, "rematch") is None
    assert room.say(0, "well_played") is None
    assert room.say(0, "oops") == ("chat_too_fast", "too many quick chat phrases: wait a moment")
    assert room.say(1, "oops") is None  # every seat has its own window
    for p in peers:
        assert [f["phrase"] for f in p.take()] == ["oops", "rematch", "well_played", "oops"]
    host.now += 6.0  # the window is over
    assert room.say(0, "well_played") is None


def test_every_game_of_one_fixed_deal_meets_the_same_bot() -> None:
    """A room dealt one fixed deal (the daily challenge's ``deal_seed``) gets its bots' seeds
    from it: every player of that deal meets the same bot; other rooms draw fresh seeds."""

    def bot_seeds(options: dict[str, Any]) -> list[int | None]:
        host = _host()
        seats = [Seat(0, "human", name="P0"), Seat(1, "bot", bot="expert:first", name="B1")]
        room = Room(host, "DAYDAY", "classic", 2, 1, options, False, seats, 0.0)
        room.start_game()
        assert room.game is not None
        return room.game.bot_seeds

    day = {"ruleset": "official", "sizes": None, "deal_seed": 123456789}
    first, again = bot_seeds(day), bot_seeds(day)
    assert first == again and first[0] is None and isinstance(first[1], int)
    assert bot_seeds({**day, "deal_seed": 987654321}) != first
    plain = {"ruleset": "official", "sizes": None}
    assert bot_seeds(plain) != bot_seeds(plain)


def test_the_room_core_loads_no_web_framework() -> None:
    """Importing the room core (in a fresh interpreter) loads neither FastAPI, Starlette nor
    uvicorn: the endpoints' rate checks are FastAPI dependencies of ``routes.deps``, and the
    room uses only the limiter of its messages. (SQLAlchemy is still loaded, by the storage
    jobs the room builds.)"""
    import subprocess

    code = (
        "import sys, blink.server.room.room; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'fastapi', 'starlette', 'uvicorn'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
