"""The room core's cost per play, without sockets, a database or an event loop.

Plays ``--games`` two-player classic games through :class:`blink.server.room.room.Room` (the
room every server node runs), with a virtual clock and a host that "commits" every storage
job at once, two seated peers and a spectator that keep the frames they are sent. Each play
is a seat's first legal play, sent as the client's ``play`` message; flips, stall choices
and the next game come from the room's own timers. It prints the plays made and the CPU time
per play.

Its work depends on nothing but its arguments, so it also counts instructions, the same
on a busy machine as on a quiet one: run it under callgrind with ``--games 0`` and with
``--games N`` and divide the difference by the plays:

    python benchmarks/bench_room.py --games 200
    PY=$(python -c 'import sys; print(sys.executable)')   # the interpreter, not a shim
    valgrind --tool=callgrind --callgrind-out-file=/dev/null $PY benchmarks/bench_room.py --games 10
"""

from __future__ import annotations

import argparse
import gc
import json
import time
from collections.abc import Callable
from typing import Any

from blink.games.classic.engine import Phase
from blink.games.classic.table import PlayMsg
from blink.server.room.room import Room, Seat, hash_token
from blink.server.room.seats import Peer
from blink.server.settings import Settings


class _Timer:
    def __init__(self, when: float, fire: Callable[[], None]) -> None:
        self.when, self.fire, self.cancelled = when, fire, False

    def cancel(self) -> None:
        self.cancelled = True


class Host:
    """A room host on a virtual clock that commits every storage job at once."""

    def __init__(self) -> None:
        self.now = 100.0
        self.settings = Settings(
            database_url="sqlite://", countdown=1.0, stall_pause=0.5, between_games=0.5,
            deal_seed=1000, web_dir=None,
        )  # fmt: skip
        self.settings.clock = lambda: self.now
        self.settings.wall_clock = lambda: 1_700_000_000.0 + self.now
        self.version = "bench"
        self.game_end_hooks: list[Callable[[Room, Any], None]] = []
        self.room_hooks: list[Callable[[Room], None]] = []
        self.profile_hashes: set[str] | None = set()
        self.timers: list[_Timer] = []
        self.next_id = 1

    def write_failure(self) -> str | None:
        return None

    def take_game_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def store(
        self,
        job: Any,
        done: Callable[[Any], None] | None = None,
        room: str | None = None,
        received: float | None = None,
    ) -> None:
        if done is not None:
            done(None)

    def later(self, delay: float, fire: Callable[[], None]) -> _Timer:
        timer = _Timer(self.now + delay, fire)
        self.timers.append(timer)
        return timer

    def advance(self) -> bool:
        """Move the clock to the next timer and fire it (``False``: none is set)."""
        live = [t for t in self.timers if not t.cancelled]
        if not live:
            return False
        timer = min(live, key=lambda t: t.when)
        self.timers.remove(timer)
        self.now = max(self.now, timer.when)
        timer.fire()
        return True


class Outbox:
    """A peer that keeps its frames (as the server's connections queue them)."""

    def __init__(self) -> None:
        self.room: Room | None = None
        self.seat: int | None = None
        self.spectator = False
        self.awaiting_snapshot = False
        self.sent = 0

    def send(self, frame: str) -> None:
        self.sent += 1


def play(games: int) -> int:
    """Play ``games`` games (a series of them in one room); return the plays made."""
    host = Host()
    seats = [Seat(i, "human", name=f"P{i}", token_hash=hash_token(f"t{i}")) for i in range(2)]
    room = Room(host, "BENCH1", "classic", 2, 1, {"ruleset": "official", "sizes": None}, False,
                seats, 0.0)  # fmt: skip
    for seat in (0, 1, None):
        peer: Peer = Outbox()
        room.attach(peer, None if seat is None else room.seats[seat], None, None)
    plays = finished = 0
    last = None
    while finished < games:
        g = room.game
        if g is None or g.game.over or g.game.phase is not Phase.PLAYING:
            if g is not None and g.game.over and g is not last:
                finished += 1
                last = g
            if not host.advance():  # the series is over: both players ask for another
                room.vote_rematch(0)
                room.vote_rematch(1)
            continue
        for seat in (plays % 2, 1 - plays % 2):  # the seats take turns to go first
            legal = g.game.legal_plays(seat)
            if legal:
                p = legal[0]
                plays += 1
                mid = f"m{plays}"
                host.now += 0.4
                room.act(seat, PlayMsg(id=mid, card=str(p.card), pile=p.pile), mid)
                break
        else:
            host.advance()
    return plays


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200, help="games to play (0: set-up only)")
    args = ap.parse_args()
    gc.disable()  # collections would count by the heap's size, not by the room's work
    started = time.process_time()
    plays = play(args.games) if args.games else 0
    cpu = time.process_time() - started
    per_play = cpu / plays * 1e6 if plays else 0.0
    print(json.dumps({"games": args.games, "plays": plays, "cpu_us_per_play": round(per_play, 1)}))


if __name__ == "__main__":
    main()
