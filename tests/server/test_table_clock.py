"""The table acts by itself at the settings' delays, to the millisecond, on virtual time.

Rooms run on the event loop with a real database, but the settings' injectable clock is a
virtual one and every room timer (``Hub.later``) is queued on that same clock, so a test
moves time by hand: the reveal comes exactly ``countdown`` after the deal, a flip exactly
``stall_pause`` after its stall, default choices exactly ``choice_deadline`` after a choosing
stall, a Go Blink game held for ``countdown`` after its deal, its defaults exactly ``turn_time``
after a turn began; and a restored room
starts the wait over at restore time. Every delay differs from the others and from the
defaults, so a room that restated a rule with its own delay would be caught.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from typing import Any

import pytest
from srvkit import fast_settings

from blink.cards import STANDARD_DECK, shuffled_deck
from blink.games.classic.engine import Choose, ClassicGame, Flip, Phase, Play, Reveal
from blink.games.classic.rules import OFFICIAL
from blink.games.goblink.engine import Ask, EndTurn, GoGame
from blink.games.goblink.table import EndMsg
from blink.server import storage as st
from blink.server.conn import Conn
from blink.server.hub import Hub
from blink.server.jobs import job_of
from blink.server.room.room import Room, Seat, hash_token
from blink.server.room.seats import Refusal
from blink.server.settings import Settings

pytestmark = pytest.mark.timeout(120)

COUNTDOWN = 0.75
STALL_PAUSE = 1.25
CHOICE_DEADLINE = 2.625
TURN_TIME = 2.375
STEP = 0.125
"""Seconds between the plays made by hand (every time here is exact in binary)."""
EPS = 1 / 64
SIZES = (10, 10)
OPTIONS = {"ruleset": "official", "sizes": list(SIZES)}


def _first_legal(g: ClassicGame) -> tuple[int, Play] | None:
    for seat in range(g.players):
        legal = g.legal_plays(seat)
        if legal:
            return seat, Play(seat, legal[0].card, legal[0].pile)
    return None


def _flip_then_choose(seed: int) -> bool:
    """The first game of a server with this deal seed, played by "the first legal play of
    seat 0, else seat 1's", stalls for a flip before it stalls for choices."""
    g = ClassicGame(shuffled_deck(seed + 1, STANDARD_DECK), 2, OFFICIAL, SIZES)
    g.reveal()
    flips = 0
    for _ in range(400):
        if g.phase is Phase.STALLED:
            flips += 1
            g.flip()
        elif g.phase is Phase.CHOOSING:
            return flips > 0
        elif g.phase is not Phase.PLAYING:
            return False
        else:
            step = _first_legal(g)
            if step is None:
                return False
            g.apply(step[1])
    return False


DEAL_SEED = next(s for s in range(100_000) if _flip_then_choose(s))


@dataclass
class _Timer:
    when: float
    order: int
    fn: Callable[[], None]
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


class VirtualTime:
    """The settings' clock and a queue of the rooms' timers, moved only by :meth:`run_until`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.now = 64.0
        self.timers: list[_Timer] = []
        self.hubs: list[Hub] = []
        monkeypatch.setattr(Hub, "later", lambda _hub, delay, fn: self.later(delay, fn))

    def clock(self) -> float:
        """The virtual time."""
        return self.now

    def later(self, delay: float, fn: Callable[[], None]) -> _Timer:
        """A timer ``delay`` virtual seconds from now."""
        timer = _Timer(self.now + max(0.0, delay), len(self.timers), fn)
        self.timers.append(timer)
        return timer

    async def settle(self) -> None:
        """Wait until every action applied so far is stored and its frames are sent."""
        deadline = time.monotonic() + 30
        await asyncio.sleep(0)
        rooms = [r for h in self.hubs for r in h.rooms.values()]
        while any(r.game is not None and r.game.pending for r in rooms):
            assert time.monotonic() < deadline, "the database did not commit"
            await asyncio.sleep(0.001)

    async def run_until(self, when: float) -> None:
        """Move to ``when``, running every timer due by then at its own time, in order."""
        await self.settle()
        while True:
            due = [t for t in self.timers if not t.cancelled and t.when <= when]
            if not due:
                break
            timer = min(due, key=lambda t: (t.when, t.order))
            self.timers.remove(timer)
            self.now = timer.when
            timer.fn()
            await self.settle()
        self.now = when

    def drop_timers(self) -> None:
        """Forget every timer (the server they belong to stopped)."""
        self.timers.clear()


@pytest.fixture
async def vt(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[VirtualTime]:
    """Virtual time; every hub opened on it is closed at the end."""
    v = VirtualTime(monkeypatch)
    yield v
    for hub in v.hubs:
        hub.storage.stop()


def _open_hub(vt: VirtualTime, settings: Settings) -> Hub:
    """A hub over the settings' database, its rooms restored (as a server start does)."""
    storage = st.Storage(settings.database_url, settings.commit_batch, settings.db_writer)
    storage.start(asyncio.get_running_loop())
    hub = Hub(settings, storage, "test")
    vt.hubs.append(hub)
    hub.restore()
    return hub


def _close_hub(vt: VirtualTime, hub: Hub) -> None:
    """Stop a hub as a crash would: its timers never fire."""
    vt.drop_timers()
    vt.hubs.remove(hub)
    hub.storage.stop()


def _classic_settings(db_url: str, vt: VirtualTime) -> Settings:
    return fast_settings(
        db_url,
        countdown=COUNTDOWN,
        stall_pause=STALL_PAUSE,
        choice_deadline=CHOICE_DEADLINE,
        deal_seed=DEAL_SEED,
        clock=vt.clock,
    )


async def _new_room(hub: Hub, room: Room) -> None:
    """Store a new room and its seats, as creating it through the API does."""
    hub.rooms[room.code] = room
    await hub.storage.run(job_of(room.new_room_write()))


def _seats(players: int) -> list[Seat]:
    return [Seat(i, "human", name=f"P{i}", token_hash=hash_token(f"t{i}")) for i in range(players)]


def _connect(room: Room, seat: int | None) -> Conn:
    """A connection for ``seat`` (``None``: a spectator) whose frames stay in its queue."""
    conn = Conn(100_000)
    room.attach(conn, None if seat is None else room.seats[seat], None, None)
    return conn


def _msgs(conn: Conn, kind: str) -> list[dict[str, Any]]:
    got = [json.loads(f) for f in conn.queue if isinstance(f, str)]
    return [m for m in got if m["type"] == kind]


def _at(moment: float) -> int:
    """A moment of the virtual clock as frames announce it (milliseconds)."""
    return round(moment * 1000)


def _ms(seconds: float) -> int:
    ms = seconds * 1000
    assert ms == int(ms), "a test time that is not exact"
    return int(ms)


async def test_classic_table_acts_at_the_settings_delays(db_url: str, vt: VirtualTime) -> None:
    hub = _open_hub(vt, _classic_settings(db_url, vt))
    room = Room(hub, hub.new_code(), "classic", 2, 1, OPTIONS, False, _seats(2), time.time())
    await _new_room(hub, room)
    conns = [_connect(room, 0), _connect(room, 1)]
    g = room.game
    assert g is not None and room.status == "countdown"
    dealt = vt.now
    # The countdown: announced with the settings' delay, the reveal (t = 0) exactly at its end.
    assert _msgs(conns[1], "snapshot")[-1]["countdown_ms"] == _ms(COUNTDOWN)
    assert _msgs(conns[1], "countdown")[-1]["in_ms"] == _ms(COUNTDOWN)
    # ... and as the moment on the server's clock (what clients show it at, by their offset).
    assert _msgs(conns[1], "countdown")[-1]["at"] == _at(dealt + COUNTDOWN)
    assert _msgs(conns[1], "snapshot")[-1]["countdown_at"] == _at(dealt + COUNTDOWN)
    await vt.run_until(dealt + COUNTDOWN - EPS)
    assert g.game.phase is Phase.DEALT and room.status == "countdown"
    await vt.run_until(dealt + COUNTDOWN)
    assert list(g.game.history) == [(Reveal(), 0)] and room.status == "playing"
    revealed = vt.now

    def t_of(now: float) -> int:
        return _ms(now - revealed)

    # Plays by hand until a choosing stall; each flip stall is flipped exactly after the pause.
    flips = 0
    while g.game.phase is not Phase.CHOOSING:
        if g.game.phase is Phase.STALLED:
            stalled = vt.now
            stall = _msgs(conns[0], "update")[-1]["stall"]
            assert stall == {
                "kind": "flip",
                "in_ms": _ms(STALL_PAUSE),
                "waiting": [],
                "at": _at(stalled + STALL_PAUSE),
            }
            await vt.run_until(stalled + STALL_PAUSE - EPS)
            assert g.game.phase is Phase.STALLED
            await vt.run_until(stalled + STALL_PAUSE)
            assert g.game.history[len(g.game.history) - 1] == (Flip(), t_of(stalled + STALL_PAUSE))
            flips += 1
            continue
        assert g.game.phase is Phase.PLAYING
        await vt.run_until(vt.now + STEP)
        step = _first_legal(g.game)
        assert step is not None
        room.apply(step[1], step[0], None)
        await vt.settle()
    assert flips > 0
    # The choosing stall: the deadline stands when one player chooses; the other one's first
    # hand card is placed for them exactly at the deadline.
    stalled = vt.now
    stall = _msgs(conns[0], "update")[-1]["stall"]
    assert stall == {
        "kind": "choose",
        "in_ms": _ms(CHOICE_DEADLINE),
        "waiting": [0, 1],
        "at": _at(stalled + CHOICE_DEADLINE),
    }
    await vt.run_until(stalled + 1.0)
    mine = g.game.hand(0)[-1]
    room.apply(Choose(0, mine), 0, "c1")
    await vt.settle()
    stall = _msgs(conns[0], "update")[-1]["stall"]
    assert stall == {
        "kind": "choose",
        "in_ms": _ms(CHOICE_DEADLINE - 1.0),
        "waiting": [1],
        "at": _at(stalled + CHOICE_DEADLINE),
    }
    default = g.game.hand(1)[0]
    await vt.run_until(stalled + CHOICE_DEADLINE - EPS)
    assert 1 not in g.game.choices
    await vt.run_until(stalled + CHOICE_DEADLINE)
    chose = [(a.player, a.card, t) for a, t in g.game.history if isinstance(a, Choose)]
    assert chose == [(0, mine, t_of(stalled + 1.0)), (1, default, t_of(stalled + CHOICE_DEADLINE))]


async def test_a_restored_room_starts_the_wait_over(db_url: str, vt: VirtualTime) -> None:
    settings = _classic_settings(db_url, vt)
    hub = _open_hub(vt, settings)
    room = Room(hub, hub.new_code(), "classic", 2, 1, OPTIONS, False, _seats(2), time.time())
    await _new_room(hub, room)
    _connect(room, 0)
    _connect(room, 1)
    await vt.settle()
    _close_hub(vt, hub)
    # Restarted during the countdown: it starts again, whole, at restore time.
    vt.now += 10.0
    hub = _open_hub(vt, settings)
    back = hub.rooms[room.code]
    g = back.game
    assert g is not None and back.status == "countdown" and g.game.phase is Phase.DEALT
    restored = vt.now
    watcher = _connect(back, None)
    assert _msgs(watcher, "snapshot")[-1]["countdown_ms"] == _ms(COUNTDOWN)
    await vt.run_until(restored + COUNTDOWN - EPS)
    assert g.game.phase is Phase.DEALT
    await vt.run_until(restored + COUNTDOWN)
    assert list(g.game.history) == [(Reveal(), 0)] and back.status == "playing"
    while g.game.phase is Phase.PLAYING:
        await vt.run_until(vt.now + STEP)
        step = _first_legal(g.game)
        assert step is not None
        back.apply(step[1], step[0], None)
    assert g.game.phase is Phase.STALLED
    await vt.settle()
    last_t = g.last_t
    _close_hub(vt, hub)
    # Restarted during a flip stall: the whole pause again from restore time.
    vt.now += 0.5
    hub = _open_hub(vt, settings)
    back = hub.rooms[room.code]
    g = back.game
    assert g is not None and g.game.phase is Phase.STALLED and back.status == "playing"
    restored = vt.now
    stall = _msgs(_connect(back, None), "snapshot")[-1]["stall"]
    assert stall == {
        "kind": "flip",
        "in_ms": _ms(STALL_PAUSE),
        "waiting": [],
        "at": _at(restored + STALL_PAUSE),
    }
    await vt.run_until(restored + STALL_PAUSE - EPS)
    assert g.game.phase is Phase.STALLED
    await vt.run_until(restored + STALL_PAUSE)
    assert g.game.history[len(g.game.history) - 1] == (Flip(), last_t + _ms(STALL_PAUSE))


async def test_go_turn_defaults_at_the_turn_time(db_url: str, vt: VirtualTime) -> None:
    base = fast_settings(db_url, countdown=COUNTDOWN, stall_pause=0.25, clock=vt.clock)
    settings = replace(base, turn_time=TURN_TIME, bot_delay=0.0)
    hub = _open_hub(vt, settings)
    room = Room(hub, hub.new_code(), "goblink", 2, 1, {}, False, _seats(2), time.time())
    await _new_room(hub, room)
    conns = [_connect(room, 0), _connect(room, 1)]
    g = room.game
    assert g is not None
    game: GoGame = g.game  # type: ignore[assignment]
    dealt = vt.now
    first = game.current
    assert first is not None
    # The game counts down first, as a classic game does before its reveal: no turn yet.
    snap = _msgs(conns[0], "snapshot")[-1]
    assert (snap["turn"], snap["countdown_ms"]) == (None, _ms(COUNTDOWN))
    assert _msgs(conns[1], "countdown")[-1]["in_ms"] == _ms(COUNTDOWN)
    assert room.status == "countdown"
    assert room.act(first, EndMsg(id="early"), "early") == Refusal(
        "not_started",
        "the game has not started: wait for the countdown",
    )
    await vt.run_until(dealt + COUNTDOWN - EPS)
    assert room.status == "countdown" and g.t0 is None
    await vt.run_until(dealt + COUNTDOWN)
    began = vt.now
    assert room.status == "playing" and g.t0 == began
    snap = _msgs(conns[0], "snapshot")[-1]
    assert (snap["turn"], snap["countdown_ms"]) == ({"seat": first, "in_ms": _ms(TURN_TIME)}, None)
    assert room.info().turn_ms == _ms(TURN_TIME)
    # The first opening decision times out: the default ends it, exactly at the turn time.
    await vt.run_until(began + TURN_TIME - EPS)
    assert list(game.history) == []
    await vt.run_until(began + TURN_TIME)
    assert list(game.history) == [(EndTurn(first), _ms(TURN_TIME))]
    second = game.current
    assert second is not None and second != first
    turn = _msgs(conns[0], "update")[-1]["turn"]
    assert turn == {"seat": second, "in_ms": _ms(TURN_TIME)}
    # The second player decides by hand; the first real turn's time runs from then.
    await vt.run_until(vt.now + 1.0)
    room.apply(EndTurn(second), second, "e1")
    await vt.settle()
    began = vt.now
    asker = game.current
    assert asker is not None and game.phase.value == "asking"
    # Its defaults (an ask, then the end of the turn) are all taken at the turn time.
    await vt.run_until(began + TURN_TIME - EPS)
    assert len(game.history) == 2
    await vt.run_until(began + TURN_TIME)
    assert g.t0 is not None
    t = _ms(began + TURN_TIME - g.t0)
    taken = game.history[2:]
    assert [type(a) for a, _ in taken] == [Ask, EndTurn] and all(x == t for _, x in taken)
    assert all(a.player == asker for a, _ in taken)
    turn = _msgs(conns[0], "update")[-1]["turn"]
    assert turn == {"seat": game.current, "in_ms": _ms(TURN_TIME)}
    assert game.current != asker
