"""Rooms, seats, connections and the live game loop.

The rooms of a server are kept by :class:`blink.server.hub.Hub` (the room table, restoring
rooms from the database); a room reaches the server around it only through :class:`RoomHost`.
Everything here runs on the event loop and is synchronous: an action is judged by the engine,
its frames are built for every receiver from that receiver's view, and it is queued for the
database. Frames are sent only once the database has committed the action (the storage
callback), in sequence order. What the table does by itself (the reveal after the countdown, a
flip after a stall's pause, default choices at a choosing stall's deadline; Go Blink's default
actions when a turn's time is up) comes from the game's referee on the delays of
:class:`Settings` (:mod:`blink.server.table_clock`): one timer per game, armed at the referee's
deadline, applies the referee's actions through :meth:`Room.apply` like any other action.
Timers are ``loop.call_later`` handles (``Room._later``); engine times come from
``settings.clock``.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any, Protocol

from blink.cards import STANDARD_DECK, parse_card, shuffled_deck
from blink.games.classic.engine import (
    Action,
    ChoiceMade,
    Choose,
    ClassicGame,
    Event,
    IllegalAction,
    Phase,
    Play,
    Reason,
    Refilled,
    Reveal,
    redact,
)
from blink.games.classic.record import GameRecord, action_from_dict, action_to_dict
from blink.games.classic.rules import Ruleset, get_ruleset
from blink.games.classic.wire import event_to_wire, outcome_to_wire
from blink.match import Series
from blink.model.base import Timer, Timings
from blink.model.registry import get_game
from blink.server import storage as st
from blink.server.bots import live_bot
from blink.server.protocol import PROTOCOL, dumps, view_to_wire
from blink.server.seats import ANSWERS_KEPT, Conn, GameState, NoGame, Pending, Seat, hash_token
from blink.server.settings import Settings
from blink.server.table_clock import TableClock, ms_left, timings

__all__ = [
    "ANSWERS_KEPT",
    "Conn",
    "GameState",
    "NoGame",
    "Pending",
    "Room",
    "RoomHost",
    "Seat",
    "hash_token",
]

log = logging.getLogger("blink.server")

class RoomHost(Protocol):
    """The server around a room, as the room and its game-end hooks use it: the settings, the
    storage, game ids and the hooks (:class:`blink.server.hub.Hub` is the one there is)."""

    settings: Settings
    storage: st.Storage
    version: str
    """The server's version (sent in ``welcome``)."""
    game_end_hooks: list[Callable[[Room, GameState], None]]
    """Called (on the loop) after each game ends: ratings, tournaments."""
    profile_hashes: set[str] | None
    """The secret hashes of the server's profiles once read (see blink.server.profiles)."""

    def take_game_id(self) -> int:
        """A new game id."""
        ...


class Room:
    """A room: seats, connections, the series and its current game."""

    kind = "classic"
    """The room's game: its name in :mod:`blink.model.registry`."""
    _log = log
    """Where a room's failures are logged."""

    def __init__(
        self,
        hub: RoomHost,
        code: str,
        players: int,
        best_of: int,
        ruleset: str,
        sizes: tuple[int, ...] | None,
        public: bool,
        seats: list[Seat],
        created_at: float,
    ) -> None:
        self.hub = hub
        self.code = code
        self.players = players
        self.best_of = best_of
        self.ruleset = ruleset
        self.sizes = sizes
        self.public = public
        self.seats = seats
        self.created_at = created_at
        self.status = "waiting"
        self.series_number = 1
        self.series = Series(best_of, players)
        self.game: GameState | None = None
        self.games: list[dict[str, Any]] = []
        self.conns: set[Conn] = set()
        self.spectators: set[Conn] = set()
        self.timer: asyncio.TimerHandle | None = None
        self.idle_since: float | None = None
        """When the room was first seen idle by :meth:`Hub.evict_idle` (settings clock)."""

    # -- helpers -------------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        """The server settings."""
        return self.hub.settings

    def _submit(
        self, job: Callable[[Any], None], done: Callable[[Any], None] | None = None
    ) -> None:
        self.hub.storage.submit(job, done)

    def set_status(self, status: str) -> None:
        """Change the status (stored) and tell everyone."""
        if status != self.status:
            self.status = status
            self._submit(st.job_update_room(self.code, status=status))
        self.broadcast_room()

    def info(self) -> dict[str, Any]:
        """The room as a JSON object (``RoomInfo``)."""
        return {
            "code": self.code,
            "players": self.players,
            "best_of": self.best_of,
            "ruleset": self.ruleset,
            "sizes": list(self.sizes) if self.sizes else None,
            "status": self.status,
            "seats": [s.info() for s in self.seats],
            "spectators": len(self.spectators),
            "series": self.series.to_dict(),
            "series_number": self.series_number,
            "games": self.games,
            "join_url": f"/play/{self.code}",
            "watch_url": f"/watch/{self.code}",
            "public": self.public,
        }

    def summary(self) -> dict[str, Any]:
        """The room as listed by ``GET /api/rooms``."""
        return {
            "code": self.code,
            "players": self.players,
            "best_of": self.best_of,
            "ruleset": self.ruleset,
            "status": self.status,
            "open_seats": [s.seat for s in self.seats if not s.taken],
            "seats": [s.info() for s in self.seats],
            "spectators": len(self.spectators),
        }

    def broadcast_room(self) -> None:
        """Send the room info to every connection."""
        if not self.conns:
            return
        frame = dumps({"type": "room", "room": self.info()})
        for c in self.conns:
            c.send(frame)

    def _broadcast(self, frame: str) -> None:
        for c in self.conns:
            c.send(frame)

    def _cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _later(self, delay: float, fn: Callable[[], None]) -> asyncio.TimerHandle:
        return asyncio.get_running_loop().call_later(max(0.0, delay), fn)

    def seat_for_token(self, token: str) -> Seat | None:
        """The seat this token owns, or ``None``."""
        h = hash_token(token)
        for s in self.seats:
            if s.token_hash is not None and hmac.compare_digest(s.token_hash, h):
                return s
        return None

    # -- connections ---------------------------------------------------------------------

    def attach(self, conn: Conn, seat: Seat | None, game: int | None, last_seq: int | None) -> None:
        """A client said hello: welcome it and bring it up to date."""
        conn.room = self
        conn.seat = None if seat is None else seat.seat
        conn.spectator = seat is None
        self.idle_since = None
        self.conns.add(conn)
        if seat is None:
            self.spectators.add(conn)
        else:
            seat.conns.add(conn)
            seat.connected_once = True
        conn.send(
            dumps(
                {
                    "type": "welcome",
                    "protocol": PROTOCOL,
                    "server": self.hub.version,
                    "room": self.code,
                    "seat": conn.seat,
                    "role": "spectator" if seat is None else "player",
                    "name": None if seat is None else seat.name,
                }
            )
        )
        self.broadcast_room()
        g = self.game
        if g is not None:
            if not self._resume(conn, g, game, last_seq):
                self._send_snapshot(conn)
            elif not g.pending:
                self._send_end_again(conn, g)
        elif self.status == "finished":
            conn.send(self._rematch_frame())
        self.maybe_start()

    def detach(self, conn: Conn) -> None:
        """A client went away."""
        if conn.room is not self:
            return
        self.conns.discard(conn)
        self.spectators.discard(conn)
        if conn.seat is not None:
            self.seats[conn.seat].conns.discard(conn)
        conn.room = None
        self.broadcast_room()

    def _resume(self, conn: Conn, g: GameState, game: int | None, last_seq: int | None) -> bool:
        if game != g.id or last_seq is None or last_seq > g.persisted:
            return False
        if last_seq == g.persisted:
            return True
        if not g.ring or g.ring[0][0] > last_seq + 1:
            return False
        key = conn.seat
        frames = [f[key] for s, f in g.ring if s > last_seq]
        if any(f is None for f in frames) or len(frames) != g.persisted - last_seq:
            return False
        for f in frames:
            conn.send(f)
        return True

    def send_in_order(self, conn: Conn, frame: str) -> None:
        """Send ``frame`` to ``conn`` after the frames of the actions not yet stored (so an
        answer judged against the newest state never arrives before the updates that show
        that state); at once when nothing is waiting."""
        g = self.game
        if g is not None and g.pending:
            g.pending[-1].after.append((conn, frame))
        else:
            conn.send(frame)

    def _send_snapshot(self, conn: Conn) -> None:
        g = self.game
        if g is None:
            return
        if g.pending:
            # The game is ahead of the database: wait until it is not, so a snapshot never
            # shows anything that was not stored.
            conn.awaiting_snapshot = True
            return
        conn.awaiting_snapshot = False
        conn.send(self._snapshot_frame(g, conn.seat))
        if g.table.deadline_of(Timer.COUNTDOWN) is not None:
            conn.send(self._countdown_frame(g))
        self._send_end_again(conn, g)

    def _send_end_again(self, conn: Conn, g: GameState) -> None:
        """Send an ended game's ``game_end`` again (marked ``again``), with a fresh
        ``next_in_ms``, so a client that reconnects or resyncs after the end has its figures."""
        if g.end_msg is None:
            return
        msg = dict(g.end_msg, again=True)
        if msg.get("next_in_ms") is not None and g.next_at is not None:
            msg["next_in_ms"] = self._ms_left(g.next_at)
        conn.send(dumps(msg))

    def _snapshot_frame(self, g: GameState, seat: int | None) -> str:
        view = view_to_wire(g.game.view(seat), full=True)
        view["seats"] = [s.info() for s in self.seats]
        deadline = g.table.deadline_of(Timer.COUNTDOWN)
        countdown = None if deadline is None else self._ms_left(deadline)
        return dumps(
            {
                "type": "snapshot",
                "game": g.id,
                "number": g.number,
                "seq": g.seq,
                "view": view,
                "stall": self._stall_wire(g),
                "countdown_ms": countdown,
                "series": self.series.to_dict(),
            }
        )

    def _countdown_frame(self, g: GameState) -> str:
        deadline = g.table.deadline_of(Timer.COUNTDOWN)
        left = 0 if deadline is None else self._ms_left(deadline)
        return dumps(
            {"type": "countdown", "game": g.id, "number": g.number, "seq": g.seq, "in_ms": left}
        )

    def _ms_left(self, deadline: float) -> int:
        return ms_left(deadline, self.settings.clock())

    def _stall_wire(self, g: GameState) -> dict[str, Any] | None:
        return g.table.stall_wire(self.settings.clock())

    # -- starting games ------------------------------------------------------------------

    def maybe_start(self) -> None:
        """Start the first game once every seat is taken and every person has connected."""
        if self.status != "waiting" or self.game is not None:
            return
        humans = [s for s in self.seats if s.kind == "human"]
        if not all(s.taken for s in self.seats):
            return
        if not all(s.connected_once for s in humans):
            return
        self.start_game()

    def start_game(self) -> None:
        """Deal a new game of the series and start its countdown."""
        self._cancel_timer()
        hub = self.hub
        gid = hub.take_game_id()
        seed = (
            hub.settings.deal_seed + gid
            if hub.settings.deal_seed is not None
            else secrets.randbits(64)
        )
        deck = shuffled_deck(seed, STANDARD_DECK)
        ruleset = get_ruleset(self.ruleset)
        game = ClassicGame(deck, self.players, ruleset, self.sizes)
        number = self.series.games_played + 1
        g = GameState(
            id=gid,
            number=number,
            series_number=self.series_number,
            game=game,
            started_wall=time.time(),
            table=self._new_table(),
            plays_by_seat=[0] * self.players,
        )
        self._submit(
            st.job_insert_game(
                {
                    "id": gid,
                    "room_code": self.code,
                    "series_number": self.series_number,
                    "number": number,
                    "players": self.players,
                    "ruleset": json.dumps(ruleset.to_dict()),
                    "sizes": json.dumps(list(game.sizes)) if self.sizes else None,
                    "deck": " ".join(str(c) for c in deck),
                    "names": json.dumps(self._names()),
                    "started_at": g.started_wall,
                }
            )
        )
        self.game = g
        self.games.append(
            {
                "id": gid,
                "number": number,
                "series": self.series_number,
                "status": "playing",
                "result": None,
                "record_url": None,
            }
        )
        self._referee_update(g, self.settings.clock())  # the countdown to the reveal
        self._announce_countdown(g)
        self._start_bots(g, seed)

    def _names(self) -> list[str]:
        return [
            s.name or (f"Bot ({s.bot})" if s.bot else f"Player {s.seat + 1}") for s in self.seats
        ]

    def _announce_countdown(self, g: GameState) -> None:
        """The referee counts down to the reveal: say so to everyone."""
        self.set_status("countdown")
        for c in self.conns:
            self._send_snapshot(c)

    # -- what the table does by itself -----------------------------------------------------

    def _timings(self) -> Timings:
        """The referee's delays in this room (the settings'; no turn timer)."""
        return timings(self.settings)

    def _new_table(self) -> TableClock:
        """A new game's referee clock: this room's game, on this room's delays."""
        return TableClock(get_game(self.kind), self._timings())

    def _referee_update(self, g: GameState, now: float) -> None:
        """Ask the referee after a change at ``now``; arm the timer when a new wait began."""
        delay = g.table.update(g.game, now)
        if delay is not None:
            g.table.handle = self._later(delay, lambda: self._referee_due(g))

    def _referee_due(self, g: GameState) -> None:
        """The referee's deadline came: take its actions for their seats, each through
        :meth:`apply`, until its wait is over (a refused one is logged and ends it)."""
        g.table.handle = None
        wait = g.table.pending
        took = False
        for seat, action in g.table.due_actions():
            if self.game is not g or g.game.over:
                return
            try:
                self.apply(action, seat, None)
            except (IllegalAction, NoGame):
                self._log.exception("the default action was refused")
                return
            took = True
        if took and wait is not None and wait.timer is Timer.COUNTDOWN:
            self.set_status("playing")  # revealed

    def _start_bots(self, g: GameState, seed: int) -> None:
        for s in self.seats:
            if s.kind != "bot" or s.bot is None:
                continue
            seat = s.seat
            try:
                bot = live_bot(
                    s.bot,
                    seat,
                    seed + 1000 * (seat + 1),
                    lambda seat=seat: g.game.view(seat),  # type: ignore[misc]
                    lambda action, seat=seat: self._bot_submit(g, seat, action),  # type: ignore[misc]
                    self.settings.clock,
                )
                bot.start()
            except Exception:
                log.exception("could not start the bot of seat %d in room %s", seat, self.code)
                continue
            g.bots.append(bot)

    def _bot_submit(self, g: GameState, seat: int, action: Play | Choose) -> None:
        if self.game is not g or g.game.over:
            raise IllegalAction(_reason("game_over"), "that game is over")
        try:
            if isinstance(action, Play):
                self.apply(Play(seat, action.card, action.pile), seat, None)
            elif isinstance(action, Choose):
                self.apply(Choose(seat, action.card), seat, None)
            else:
                raise TypeError(f"a bot may only play or choose, not {action!r}")
        except NoGame:
            raise IllegalAction(_reason("game_over"), "that game is over") from None

    def _stop_bots(self, g: GameState) -> None:
        for b in g.bots:
            try:
                b.stop()
            except Exception:
                log.exception("bot stop failed")
        g.bots.clear()

    # -- applying actions ----------------------------------------------------------------

    def apply(self, action: Action, seat: int | None, msg_id: str | None) -> int:
        """Judge and apply one action; queue it for storage; return its sequence number.

        Raises :class:`IllegalAction` (nothing changes) or :class:`NoGame`.
        """
        g = self.game
        if g is None or g.game.over:
            raise NoGame()
        if g.game.phase is Phase.DEALT and not isinstance(action, Reveal):
            raise IllegalAction(_reason("not_revealed"), "the game has not started yet")
        game = g.game
        now = self.settings.clock()
        if isinstance(action, Reveal):
            g.reveal_at = now
            t = 0
        else:
            base = g.reveal_at if g.reveal_at is not None else now
            t = max(g.last_t, int((now - base) * 1000))
        events = game.apply(action, t)
        g.last_t = t
        g.seq += 1
        seq = g.seq
        if isinstance(action, Play):
            g.plays_by_seat[action.player] += 1
        self._referee_update(g, now)
        stall = self._stall_wire(g)
        frames: dict[int | None, str] = {}
        receivers: list[int | None] = list(range(self.players))
        if self.spectators:
            receivers.append(None)
        # Each event is turned into JSON once; a receiver gets that shared form only when the
        # redaction leaves the event as it is for them (nothing hidden), else its own form.
        shared = [(e, event_to_wire(e)) for e in events]
        for r in receivers:
            wire: list[dict[str, Any]] = []
            for e, w in shared:
                h = _hide(e, r)
                if h is not e:
                    w = event_to_wire(h)
                if w is not None:
                    wire.append(w)
            frames[r] = dumps(
                {
                    "type": "update",
                    "game": g.id,
                    "seq": seq,
                    "t": t,
                    "events": wire,
                    "view": view_to_wire(game.view(r)),
                    "stall": stall,
                }
            )
        ack = None
        if msg_id is not None and seat is not None:
            ack = dumps({"type": "ack", "id": msg_id, "game": g.id, "seq": seq})
            self.seats[seat].pending_ids.add(msg_id)
        ended = game.over
        self._submit(
            st.job_append_action(g.id, seq, action_to_dict(action, t), seat, msg_id),
            lambda result: self._persisted(g, seq, result),
        )
        if ended:
            record = GameRecord.from_game(game)
            self._submit(st.job_finish_game(g.id, time.time(), record.result or {}))
        g.pending.append(Pending(seq, frames, seat, msg_id, ack, ended))
        return seq

    def _persisted(self, g: GameState, seq: int, result: Any) -> None:
        if isinstance(result, BaseException):
            log.error("game %d action %d was not stored: %s", g.id, seq, result)
        while g.pending and g.pending[0].seq <= seq:
            p = g.pending.popleft()
            g.persisted = p.seq
            if p.ack_id is not None and p.ack_seat is not None and p.ack is not None:
                seat = self.seats[p.ack_seat]
                seat.pending_ids.discard(p.ack_id)
                seat.remember(p.ack_id, p.ack)
                for c in seat.conns:
                    if not c.awaiting_snapshot:
                        c.send(p.ack)
            for c in self.conns:
                if c.awaiting_snapshot:
                    continue
                f = p.frames.get(c.seat)
                if f is None:
                    c.awaiting_snapshot = True
                    continue
                c.send(f)
            for c, f in p.after:
                c.send(f)
            g.ring.append((p.seq, p.frames))
            if len(g.ring) > self.settings.resume_buffer:
                g.ring.popleft()
            if p.ended:
                self._game_ended(g)
        if not g.pending:
            for c in self.conns:
                if c.awaiting_snapshot:
                    self._send_snapshot(c)
        if self.game is g and not g.game.over:
            for b in g.bots:
                try:
                    b.notify()
                except Exception:
                    log.exception("bot notify failed")

    # -- ending ----------------------------------------------------------------------------

    def _game_ended(self, g: GameState) -> None:
        if g.ended_sent:
            return
        g.ended_sent = True
        # The timer's callback refers to g: dropping it breaks the cycle, so the finished game
        # is freed by reference counting when the next one replaces it, not by a (long, under
        # load) garbage collection.
        g.table.cancel()
        self._stop_bots(g)
        game = g.game
        outcome = game.outcome
        if outcome is None:  # pragma: no cover - only called for finished games
            return
        self.series.record(outcome.winners)
        for meta in self.games:
            if meta["id"] == g.id:
                meta["status"] = "finished"
                meta["result"] = {"winners": list(outcome.winners), "reason": outcome.reason}
                meta["record_url"] = f"/api/games/{g.id}/record"
        next_in = None if self.series.over else round(self.settings.between_games * 1000)
        g.next_at = (
            None if self.series.over else self.settings.clock() + self.settings.between_games
        )
        g.end_msg = {
            "type": "game_end",
            "game": g.id,
            "number": g.number,
            "seq": g.seq,
            "outcome": outcome_to_wire(outcome),
            "figures": {
                "plays": game.plays,
                "duration_ms": g.last_t,
                "plays_by_seat": list(g.plays_by_seat),
                "cards_left": [game.cards_left(p) for p in range(game.players)],
                "stalls": game.stalls,
            },
            "series": self.series.to_dict(),
            "record_url": f"/api/games/{g.id}/record",
            "next_in_ms": next_in,
        }
        self._broadcast(dumps(g.end_msg))
        if self.series.over:
            self.set_status("finished")
            self._broadcast(self._rematch_frame())
        else:
            self.set_status("between")
            self._cancel_timer()
            self.timer = self._later(self.settings.between_games, self._next_game)
        for hook in self.hub.game_end_hooks:
            try:
                hook(self, g)
            except Exception:
                log.exception("a game-end hook failed")

    def _next_game(self) -> None:
        if self.status == "between" and not self.series.over:
            self.start_game()

    def _rematch_frame(self) -> str:
        return dumps(
            {
                "type": "rematch",
                "votes": [s.kind == "bot" or s.rematch for s in self.seats],
                "available": self.rematch_available(),
            }
        )

    def rematch_available(self) -> bool:
        """True when a new series may be voted for."""
        return self.status == "finished" and not any(s.left for s in self.seats)

    def vote_rematch(self, seat: int) -> None:
        """A player asks for a new series; start it once every person has."""
        self.seats[seat].rematch = True
        if all(s.rematch for s in self.seats if s.kind == "human"):
            for s in self.seats:
                s.rematch = False
            self.series_number += 1
            self.series = Series(self.best_of, self.players)
            self.games = []
            self._submit(st.job_update_room(self.code, series_number=self.series_number))
            self.start_game()
        else:
            self._broadcast(self._rematch_frame())

    def leave(self, seat: int) -> None:
        """A player gives up their seat."""
        s = self.seats[seat]
        before_play = self.game is None and self.status == "waiting" and not self.games
        if before_play:
            s.token_hash = None
            s.name = None
            s.connected_once = False
            self._submit(st.job_update_seat(self.code, seat, token_hash=None, name=None))
        else:
            s.left = True
            self._submit(st.job_update_seat(self.code, seat, left=True))
            if self.status == "finished":
                self._broadcast(self._rematch_frame())
        if all(x.left for x in self.seats if x.kind == "human") and self.status == "finished":
            self.set_status("closed")
        else:
            self.broadcast_room()

    # -- recovery ----------------------------------------------------------------------------

    def restore_game(self, lg: st.LoadedGame) -> None:
        """Rebuild an unfinished game from its stored deal and action log."""
        deck = [parse_card(c) for c in lg.deck]
        ruleset = Ruleset.from_dict(lg.ruleset)
        game = ClassicGame(deck, lg.players, ruleset, lg.sizes)
        g = GameState(
            id=lg.id,
            number=lg.number,
            series_number=lg.series_number,
            game=game,
            started_wall=lg.started_at,
            table=self._new_table(),
            plays_by_seat=[0] * lg.players,
        )
        for seq, raw, seat, client_id in lg.actions:
            action, t = action_from_dict(raw, seq)
            game.apply(action, t)
            g.seq = seq
            g.last_t = t or 0
            if isinstance(action, Play):
                g.plays_by_seat[action.player] += 1
            if client_id is not None and seat is not None:
                self.seats[seat].remember(
                    client_id, dumps({"type": "ack", "id": client_id, "game": g.id, "seq": seq})
                )
        g.persisted = g.seq
        self.game = g
        self.games.append(
            {
                "id": g.id,
                "number": g.number,
                "series": g.series_number,
                "status": "playing",
                "result": None,
                "record_url": None,
            }
        )
        seed = secrets.randbits(32) if self.settings.deal_seed is None else self.settings.deal_seed
        now = self.settings.clock()
        # The referee's wait (the countdown, a stall) starts over now, as after a deal.
        self._referee_update(g, now)
        if g.table.deadline_of(Timer.COUNTDOWN) is not None:
            self._announce_countdown(g)
        else:
            g.reveal_at = now - g.last_t / 1000
            self.status = "playing"
        self._start_bots(g, seed)
        for b in g.bots:
            b.notify()


def _hide(event: Event, viewer: int | None) -> Event:
    """The engine's ``redact``, plus a second guard: a drawn or chosen card of another seat is
    never sent, whatever the engine's redaction does."""
    e = redact(event, viewer)
    if isinstance(e, Refilled | ChoiceMade) and e.player != viewer and e.card is not None:
        return e._replace(card=None)
    return e


def _reason(code: str) -> Any:
    return Reason(code)
