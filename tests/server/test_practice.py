"""Practice games against bots (blink.server.room.practice): never rated, refused for people's and
counted games, and a pause that stops the table's clock
and the bots while time passes.

The pause is checked on the room core with a virtual clock (the bots are driven by the same
clock's timers), then over a real server's WebSocket."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import create_engine, select
from srvkit import Client, ServerThread, play_series
from test_profiles import new_profile, wait_games
from test_room_core import FakeHost, _host, _seated

from blink.games.classic.engine import Phase
from blink.games.classic.table import ClassicTable, PlayMsg
from blink.server import schema
from blink.server.room.practice import set_paused
from blink.server.room.room import Room, Seat, hash_token

FAST = "@40"


@dataclass
class _ClockBot:
    """A bot on the host's virtual clock: ``pace`` seconds after each change it plays the
    first play its seat's rules allow (the game's own ``legal_plays``)."""

    host: FakeHost
    room: Room
    seat: int
    pace: float
    submit: Callable[[Any], None]
    running: bool = False
    timer: Any = None

    def start(self) -> None:
        self.running = True
        self.notify()

    def notify(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        if self.running:
            self.timer = self.host.later(self.pace, self._fire)

    def _fire(self) -> None:
        self.timer = None
        g = self.room.game
        plays = [] if g is None else g.game.legal_plays(self.seat)
        if self.running and plays:
            self.submit(plays[0])

    def stop(self) -> None:
        self.running = False
        if self.timer is not None:
            self.timer.cancel()


class _ClockBotTable(ClassicTable):
    """Classic Blink's table whose bots run on the virtual clock."""

    def __init__(self, host: FakeHost) -> None:
        self.host = host
        self.room: Room | None = None

    def live_bot(self, spec: str, seat: int, seed: int, view: Any, submit: Any, clock: Any,
                 pace: float) -> _ClockBot:  # fmt: skip
        assert self.room is not None
        return _ClockBot(self.host, self.room, seat, 0.3, submit)


def _practice_room(host: FakeHost, practice: bool = True) -> Room:
    seats = [
        Seat(0, "human", name="P0", token_hash=hash_token("t0")),
        Seat(1, "bot", bot="beginner", name="B1"),
    ]
    options: dict[str, Any] = {"ruleset": "official", "sizes": None}
    if practice:
        options["practice"] = True
    room = Room(host, "PRACTI", "classic", 2, 1, options, False, seats, 0.0)
    table = _ClockBotTable(host)
    table.room = room
    room.table = table
    return room


def _bot_plays(room: Room) -> int:
    assert room.game is not None
    return room.game.actions_by_seat[1]


def test_a_pause_stops_the_clock_and_the_bots_while_time_passes() -> None:
    host = _host()
    room = _practice_room(host)
    peer = _seated(room, 0)
    host.commit()
    host.run_until(host.now + 1.0)  # the countdown's end: the reveal
    g = room.game
    assert g is not None and g.game.phase is Phase.PLAYING
    revealed = host.now
    host.run_until(host.now + 0.7)
    assert _bot_plays(room) >= 1  # the bot plays while the game runs
    peer.take()

    assert set_paused(room, 0, True) is None
    assert room.info().paused and g.table.paused and g.bots == []
    assert [f["room"]["paused"] for f in peer.take("room")] == [True]
    history, plays = len(g.game.history), _bot_plays(room)
    host.run_until(host.now + 600.0)  # ten minutes: no bot play, no stall, no referee step
    assert len(g.game.history) == history and _bot_plays(room) == plays
    card = g.game.view(0).hand[0]
    refused = room.act(0, PlayMsg(id="p1", card=str(card), pile=0), "p1")
    assert refused is not None and refused.code == "paused"

    assert set_paused(room, 0, False) is None
    assert not room.info().paused and len(g.bots) == 1
    assert [f["room"]["paused"] for f in peer.take("room")] == [False]
    host.run_until(host.now + 0.7)
    assert _bot_plays(room) > plays  # the bots play again
    # The game's own time does not count the ten minutes.
    assert g.game.history[-1][1] <= (host.now - 600.0 - revealed) * 1000


def test_only_a_practice_game_can_be_paused() -> None:
    host = _host()
    room = _practice_room(host, practice=False)
    _seated(room, 0)
    host.commit()
    host.run_until(host.now + 1.0)
    assert room.game is not None and room.game.game.phase is Phase.PLAYING
    refused = ("not_practice", "only a practice game against bots can be paused")
    assert set_paused(room, 0, True) == refused
    assert not room.game.table.paused and len(room.game.bots) == 1


async def test_practice_is_for_bots_only_and_never_rated(server: ServerThread) -> None:
    r = server.post("/api/rooms", {"players": 2, "practice": True})
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "practice_bots_only"
    ann = new_profile(server, "Ann")
    bot = f"beginner:first{FAST}"
    r = server.post(
        "/api/quick", {"bot": bot, "name": "Ann", "profile_secret": ann["secret"], "practice": True}
    )
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["room"]["options"]["practice"] is True
    a = await Client("A").connect(server.ws, room=body["code"], token=body["token"])
    await a.expect("snapshot")
    await a.send({"type": "pause", "paused": True})
    await a.wait(lambda m: m["type"] == "room" and m["room"]["paused"])
    await a.send({"type": "pause", "paused": False})
    await a.wait(lambda m: m["type"] == "room" and not m["room"]["paused"])
    # Each series to its end: a tied game is followed by another (rated, when the room is).
    practiced = await asyncio.wait_for(play_series([a]), 120)
    await a.close()
    # The same game without practice is rated; the practice game before it never was (the
    # database's writer runs the jobs in order).
    r = server.post("/api/quick", {"bot": bot, "name": "Ann", "profile_secret": ann["secret"]})
    c = await Client("C").connect(server.ws, room=r.json()["code"], token=r.json()["token"])
    await c.send({"type": "pause", "paused": True})
    await c.expect("error", code="not_practice")
    rated = await asyncio.wait_for(play_series([c]), 120)
    await c.close()
    p = await asyncio.to_thread(wait_games, server, ann["id"], len(rated))
    history = [h["game"] for h in p["history"]]
    assert history == [e["game"] for e in reversed(rated)]
    assert not set(history) & {e["game"] for e in practiced}


def _stored_paused(db_url: str, code: str) -> bool:
    """Whether the room's game is stored paused."""
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            return bool(
                conn.execute(
                    select(schema.games.c.paused).where(schema.games.c.room_code == code)
                ).scalar_one()
            )
    finally:
        engine.dispose()


async def test_a_paused_practice_game_is_still_paused_after_a_restart(
    make_server: Callable[..., ServerThread], db_url: str
) -> None:
    """The pause is stored with the game: a server started again on the same database
    restores the game paused (no bot running, plays refused with ``paused``), and it runs
    again when its player resumes it."""
    first = make_server()
    r = first.post("/api/quick", {"bot": "beginner:first", "name": "Ann", "practice": True})
    assert r.status_code == 201, r.text
    code, token = r.json()["code"], r.json()["token"]
    a = await Client("A").connect(first.ws, room=code, token=token)
    await a.expect("snapshot")
    await a.send({"type": "pause", "paused": True})
    await a.wait(lambda m: m["type"] == "room" and m["room"]["paused"])
    await a.close()
    first.stop()
    assert _stored_paused(db_url, code)

    again = make_server()
    room = again.app.state.hub.rooms[code]  # type: ignore[attr-defined]
    assert room.game is not None and room.game.table.paused and room.game.bots == []
    b = await Client("B").connect(again.ws, room=code, token=token)
    snap = await b.expect("snapshot")
    assert room.info().paused
    card = snap["view"]["hand"][0]
    await b.send({"type": "play", "id": "p1", "card": card, "pile": 0, "version": 0})
    await b.expect("refused", id="p1", code="paused")
    await b.send({"type": "pause", "paused": False})
    await b.wait(lambda m: m["type"] == "room" and not m["room"]["paused"])
    assert not room.game.table.paused and len(room.game.bots) == 1
    await b.close()
    again.stop()
    assert not _stored_paused(db_url, code)
