"""The room: seats, connections, the series and its live game, for every game (sans-I/O).

A room runs any registered game through its definition (:func:`blink.model.registry.get_game`)
and its live table (:func:`blink.model.registry.get_table`): nothing here knows a game.

It does no I/O. Its inputs are a connection's message (:meth:`Room.attach`,
:meth:`Room.act`, :meth:`Room.resync`, :meth:`Room.vote_rematch`, :meth:`Room.leave`,
:meth:`Room.detach`), the time (``settings.clock``; a timer the room asked for firing) and a
stored record's result (:meth:`Room._persisted`). Its outputs are frames queued on each
connection's outbox (:class:`blink.server.room.seats.Peer`), storage records
(:mod:`blink.server.room_writes`) and timers, given to its :class:`RoomHost` (the hub, whose
drivers carry them out: the storage driver turns each record into SQL). Frames are sent only
once the database has committed the action they show, in sequence order.

An input builds everything it produces (every receiver's frame, the ack, the storage record)
before it changes the room; when building fails, the engine's state is rebuilt as it was and
nothing else has changed (:meth:`Room.apply`).

What the table does by itself (a countdown's end, a stall's flip, a turn's default) comes
from the game's referee on the delays of :class:`Settings` (:mod:`blink.server.room.clock`):
one timer per game, armed at the referee's deadline, applies the referee's actions through
:meth:`Room.apply` like any other action. A game that does not count down by itself is held
for the countdown its table asks for (:meth:`blink.model.table.Table.countdown`): nobody acts,
and its clock, its bots and its referee start when the countdown ends.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from blink.cards import STANDARD_DECK, shuffled_deck
from blink.match import Series
from blink.model.base import IllegalAction, Outcome, Timer
from blink.model.registry import get_game, get_table
from blink.model.table import BadMessage
from blink.server import links
from blink.server import room_writes as rw
from blink.server.chat import QuickChat
from blink.server.message_limits import MessageLimiter
from blink.server.protocol import (
    PROTOCOL,
    ChatFrame,
    Countdown,
    ErrorFrame,
    GameEnd,
    GameMeta,
    Refused,
    RematchFrame,
    RoomFrame,
    RoomInfo,
    RoomSummary,
    Welcome,
    encode,
)
from blink.server.room import practice, races, resume
from blink.server.room import seats as seating
from blink.server.room.clock import Cancellable, TableClock, ms_left, server_ms, timings
from blink.server.room.host import GameOver, NotStarted, RoomHost, Unsaved
from blink.server.room.info import fixed_deal_seed, new_room_write, room_info, room_summary
from blink.server.room.live_bots import start_bots, stop_bots
from blink.server.room.recovery import Step, rebuilt_game
from blink.server.room.seats import ANSWERS_KEPT, GameState, NoGame, Peer, Pending, Seat, hash_token
from blink.server.room.updates import build_game_end, build_snapshot, build_update, undo_last
from blink.server.settings import Settings

__all__ = [
    "ANSWERS_KEPT",
    "PLAY_ALL",
    "GameState",
    "NoGame",
    "Pending",
    "Room",
    "RoomHost",
    "Seat",
    "hash_token",
]

log = logging.getLogger("blink.server")

PLAY_ALL = "play_all"
"""The room option of a set whose every game is played (a tournament's final-round set):
the series is over when ``best_of`` games have a winner (:attr:`blink.match.Series.play_all`)."""


class Room:
    """A room: seats, connections, the series and its current game."""

    def __init__(
        self,
        hub: RoomHost[Room],
        code: str,
        game: str,
        players: int,
        best_of: int,
        options: dict[str, Any],
        public: bool,
        seats: list[Seat],
        created_at: float,
    ) -> None:
        self.hub = hub
        self.code = code
        self.game_name = game
        self.definition = get_game(game)
        self.table = get_table(game)
        self.players = self.definition.info.check_players(players)
        self.best_of = best_of
        self.options = options
        """The options the room was opened with (its table's ``room_options``)."""
        self.public = public
        self.seats = seats
        self.created_at = created_at
        self.status = "waiting"
        self.series_number = 1
        self.series = self._new_series()
        self.game: GameState | None = None
        self.games: list[GameMeta] = []
        self.conns: set[Peer] = set()
        self.spectators: set[Peer] = set()
        self.timer: Cancellable | None = None
        self._deal_options_of: dict[bytes, str] = {}
        self._count_timer: Cancellable | None = None
        self.races = races.races_for(options, len(seats))
        """The plays held for the lag allowance (``None``: the allowance is off)."""
        self.idle_since: float | None = None
        """When the room was first seen idle by :meth:`Hub.evict_idle` (settings clock)."""
        limiter = MessageLimiter(self.settings.chat_rate, lambda: self.settings.clock())
        self.quick_chat = QuickChat(limiter)

    def _new_series(self) -> Series:
        return Series(self.best_of, self.players, play_all=bool(self.options.get(PLAY_ALL)))

    # -- descriptions --------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        """The server settings."""
        return self.hub.settings

    def info(self) -> RoomInfo:
        """The room: its game, options, seats, status, series and games."""
        return room_info(self)

    def summary(self) -> RoomSummary:
        """The room as ``GET /api/rooms`` lists it."""
        return room_summary(self)

    def new_room_write(self) -> rw.NewRoom:
        """The record that keeps this new room and its seats."""
        return new_room_write(self)

    def _store(
        self,
        write: rw.RoomWrite,
        done: Callable[[Any], None] | None = None,
        received: float | None = None,
    ) -> None:
        self.hub.store(write, done, self.code, received)

    def set_status(self, status: str) -> None:
        """Change the status (stored) and tell everyone."""
        if status != self.status:
            self.status = status
            self._store(rw.RoomStatus(self.code, status))
        self.broadcast_room()

    def broadcast_room(self) -> None:
        """Send the room to every connection (and tell the host's room hooks)."""
        if self.conns:
            self._broadcast(encode(RoomFrame(self.info())))
        for hook in self.hub.room_hooks:
            try:
                hook(self)
            except Exception:
                log.exception("a room hook failed")

    def _broadcast(self, frame: str) -> None:
        for c in self.conns:
            c.send(frame)

    def _cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def seat_for_token(self, token: str) -> Seat | None:
        """The seat this token owns, or ``None``."""
        h = hash_token(token)
        for s in self.seats:
            if s.token_hash is not None and hmac.compare_digest(s.token_hash, h):
                return s
        return None

    def _names(self) -> list[str]:
        return [
            s.name or (f"Bot ({s.bot})" if s.bot else f"Player {s.seat + 1}") for s in self.seats
        ]

    # -- connections ---------------------------------------------------------------------

    def attach(self, conn: Peer, seat: Seat | None, game: int | None, last_seq: int | None) -> None:
        """A client said hello: welcome it and bring it up to date."""
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
            encode(
                Welcome(
                    protocol=PROTOCOL,
                    server=self.hub.version,
                    room=self.code,
                    seat=conn.seat,
                    role="spectator" if seat is None else "player",
                    name=None if seat is None else seat.name,
                )
            )
        )
        if seat is None:
            conn.send(encode(RoomFrame(self.info())))
            self._spectators_changed()
        else:
            self.broadcast_room()
        g = self.game
        if g is not None:
            if not self._resume(conn, g, game, last_seq):
                self.send_snapshot(conn)
            elif not g.pending:
                self._send_end_again(conn, g)
        elif self.status == "finished":
            conn.send(self._rematch_frame())
        self.maybe_start()

    def detach(self, conn: Peer) -> None:
        """A client went away (nothing, unless it is attached here)."""
        if conn not in self.conns:
            return
        self.conns.discard(conn)
        self.spectators.discard(conn)
        if conn.seat is not None:
            self.seats[conn.seat].conns.discard(conn)
            self.broadcast_room()
        else:
            self._spectators_changed()

    def _spectators_changed(self) -> None:
        """A spectator came or went: everyone learns the new count once, at most every
        ``settings.spectator_updates`` seconds, so that a crowd coming and going costs the
        players one frame a second, not one per spectator."""
        if self._count_timer is None:
            self._count_timer = self.hub.later(self.settings.spectator_updates, self._send_count)

    def _send_count(self) -> None:
        self._count_timer = None
        self.broadcast_room()

    def resync(self, conn: Peer) -> None:
        """A client asks for a fresh snapshot (the room, when no game is in progress)."""
        self.send_snapshot(conn)
        if self.game is None:
            conn.send(encode(RoomFrame(self.info())))

    def _resume(self, conn: Peer, g: GameState, game: int | None, last_seq: int | None) -> bool:
        if game != g.id or last_seq is None or last_seq > g.persisted:
            return False
        if last_seq == g.persisted:
            return True
        frames = resume.missed(self, g, conn.seat, last_seq)
        if frames is None:
            return False
        for f in frames:
            conn.send(f)
        return True

    def send_in_order(self, conn: Peer, frame: str) -> None:
        """Send ``frame`` to ``conn`` after the frames of the actions not yet stored (so an
        answer judged against the newest state never arrives before the updates that show
        that state); at once when nothing is waiting."""
        g = self.game
        if g is not None and g.pending:
            g.pending[-1].after.append((conn, frame))
        else:
            conn.send(frame)

    def send_snapshot(self, conn: Peer) -> None:
        """Send the game as ``conn`` may see it (once everything applied is stored)."""
        g = self.game
        if g is None:
            return
        if g.pending:
            # The game is ahead of the database: wait until it is not, so a snapshot never
            # shows anything that was not stored.
            conn.awaiting_snapshot = True
            return
        conn.awaiting_snapshot = False
        now = self.settings.clock()
        conn.send(
            build_snapshot(
                self.definition, self.game_name, self.seats, self.series, g, conn.seat, now
            )
        )
        deadline = g.table.deadline_of(Timer.COUNTDOWN)
        if deadline is not None:
            left = self._ms_left(deadline)
            at = server_ms(deadline)
            conn.send(encode(Countdown(game=g.id, number=g.number, seq=g.seq, in_ms=left, at=at)))
        self._send_end_again(conn, g)

    def _send_end_again(self, conn: Peer, g: GameState) -> None:
        """Send an ended game's ``game_end`` again (marked ``again``), with a fresh
        ``next_in_ms``, so a client that reconnects or resyncs after the end has its figures."""
        end: GameEnd | None = g.end_msg
        if end is None:
            return
        next_in = end.next_in_ms
        if next_in is not None and g.next_at is not None:
            next_in = self._ms_left(g.next_at)
        conn.send(encode(msgspec.structs.replace(end, again=True, next_in_ms=next_in)))

    def _table_clock(self, held: bool) -> TableClock:
        """A new game's table clock, held for the countdown its table asks for (``held``)."""
        delays = timings(self.settings, self.definition.info.timings)
        hold = self.table.countdown(delays.countdown or 0.0) if held else None
        return TableClock(self.definition, delays, hold)

    def _ms_left(self, deadline: float) -> int:
        return ms_left(deadline, self.settings.clock())

    # -- starting games ------------------------------------------------------------------

    def maybe_start(self) -> None:
        """Start the first game once every seat is taken and every person has connected."""
        if self.status != "waiting" or self.game is not None:
            return
        if not all(s.taken for s in self.seats):
            return
        if not all(s.connected_once for s in self.seats if s.kind == "human"):
            return
        self.start_game()

    def start_game(self) -> None:
        """Deal a new game of the series and start it (its countdown, for a game with one)."""
        self._cancel_timer()
        hub = self.hub
        gid = hub.take_game_id()
        seed = self._deal_seed(gid)
        number = self.series.games_played + 1
        options = self.table.deal_options(self.options, number, self.players)
        deck = shuffled_deck(seed, STANDARD_DECK)
        state = self.definition.new(self.players, deck=deck, options=options)
        now = self.settings.clock()
        g = GameState(
            id=gid,
            number=number,
            series_number=self.series_number,
            game=state,
            started_wall=self.settings.wall_clock(),
            table=self._table_clock(held=True),
            actions_by_seat=[0] * self.players,
            bot_seeds=seating.draw_bot_seeds(self.seats, fixed_deal_seed(self.options)),
        )
        self._store(
            rw.GameDealt(
                id=gid,
                room_code=self.code,
                series_number=self.series_number,
                number=number,
                players=self.players,
                deal_options=self._deal_options(options, state),
                deck=tuple(str(c) for c in deck),
                names=self._names(),
                started_at=g.started_wall,
                bot_seeds=g.bot_seeds,
            )
        )
        self.game = g
        meta = GameMeta(id=gid, number=number, series=self.series_number, status="playing")
        self.games.append(meta)
        self._referee_update(g, now)
        g.t0 = None if g.table.deadline_of(Timer.COUNTDOWN) is not None else now
        self.set_status("countdown" if g.t0 is None else "playing")
        for c in self.conns:
            self.send_snapshot(c)
        self._start_bots(g)

    def _deal_seed(self, gid: int) -> int:
        """The seed of game ``gid``'s deck: the room's own (option ``deal_seed``: every game
        of the room is the same deal), else ``settings.deal_seed + gid`` (tests), else drawn."""
        fixed = fixed_deal_seed(self.options)
        if fixed is not None:
            return fixed
        deal_seed = self.settings.deal_seed
        return deal_seed + gid if deal_seed is not None else secrets.randbits(64)

    def _deal_options(self, options: dict[str, Any], state: Any) -> str:
        """The stored deal options of a new game (the same for every game of a room dealt
        with the same options: worked out once)."""
        key = msgspec.json.encode(options, order="sorted")
        column = self._deal_options_of.get(key)
        if column is None:
            column = self._deal_options_of[key] = rw.deal_options(self.game_name, state)
        return column

    # -- when nothing can be stored ------------------------------------------------------

    def pause(self, failure: str) -> None:
        """The database cannot be written: tell everyone that the game waits."""
        message = f"the game waits: the server cannot save it now ({failure})"
        self._broadcast(encode(ErrorFrame(code="storage_unavailable", message=message)))

    def resume(self) -> None:
        """The database can be written again: the referee's wait starts over (as after a
        restart), everyone gets the game as stored, and the bots look again."""
        g = self.game
        if g is None or g.game.over:
            return
        g.table.restart()
        self._referee_update(g, self.settings.clock())
        for c in self.conns:
            self.send_snapshot(c)
        for b in g.bots:
            b.notify()

    def pause_changed(self, g: GameState, now: float, delay: float | None) -> None:
        """``g``'s table clock was paused or resumed at ``now`` (a practice game's pause:
        :func:`blink.server.room.practice.set_paused`, which stops the bots on pausing): on
        resuming, the referee's timer is armed again, in ``delay`` seconds (what was left of
        its wait) or as the referee says at ``now`` (``None``), and the bots start again; the
        pause is stored, and everyone gets the room and the game."""
        if not g.table.paused:
            if delay is not None:
                g.table.handle = self.hub.later(delay, lambda: self._referee_due(g))
            else:
                self._referee_update(g, now)
            self._start_bots(g)
        self._store(rw.GamePaused(g.id, g.table.paused))
        self.broadcast_room()
        for c in self.conns:
            self.send_snapshot(c)

    # -- what the table does by itself -----------------------------------------------------

    def _referee_update(self, g: GameState, now: float) -> None:
        """Ask the referee after a change at ``now``; arm the timer when a new wait began."""
        delay = g.table.update(g.game, now)
        if delay is not None:
            g.table.handle = self.hub.later(delay, lambda: self._referee_due(g))

    def _referee_due(self, g: GameState) -> None:
        """The referee's deadline came: take its actions for their seats, each through
        :meth:`apply`, until its wait is over (a refused one is logged and ends it)."""
        g.table.handle = None
        if self.hub.write_failure() is not None:
            return  # the wait starts over when the database can be written (resume)
        if g.table.holding:
            self._countdown_over(g)
            return
        wait = g.table.pending
        took = False
        for seat, action in g.table.due_actions():
            if self.game is not g or g.game.over:
                return
            try:
                self.apply(action, seat, None, default=True)
            except (IllegalAction, NoGame):
                log.exception("the referee's action was refused in room %s", self.code)
                return
            took = True
        if took and wait is not None and wait.timer is Timer.COUNTDOWN:
            self.set_status("playing")

    def _countdown_over(self, g: GameState) -> None:
        """A held game's countdown ended: its clock starts, and the referee's first wait with
        it; everyone gets the game as it starts, and the bots begin."""
        if self.game is not g or g.game.over:
            return
        now = self.settings.clock()
        g.table.release()
        g.t0 = now
        self._referee_update(g, now)
        self.set_status("playing")
        for c in self.conns:
            self.send_snapshot(c)
        self._start_bots(g)

    def _start_bots(self, g: GameState) -> None:
        def submit(seat: int, action: Any) -> None:
            self._bot_submit(g, seat, action)

        start_bots(g, self.seats, self.table, self.definition, self.settings, submit, self.code)

    def _bot_submit(self, g: GameState, seat: int, action: Any) -> None:
        if self.game is not g or g.game.over:
            raise IllegalAction(GameOver(), "that game is over")
        if self.definition.seat_of(action) != seat:
            raise TypeError(f"the bot of seat {seat} may only act for its seat, not {action!r}")
        try:
            self.apply(action, seat, None)
        except NoGame:
            raise IllegalAction(GameOver(), "that game is over") from None

    # -- applying actions ----------------------------------------------------------------

    def act(
        self,
        seat: int,
        message: Any,
        msg_id: str,
        received: float | None = None,
        conn: Peer | None = None,
    ) -> seating.Refusal | None:
        """A player's action message (one of the table's), applied. Returns why it was
        refused (:class:`Refusal`), or ``None`` when it was accepted. A refusal is answered
        to ``conn`` (the connection it came on, after the updates waiting for their commit)
        and kept as the id's answer, unless it is ``storage_unavailable`` (the same action
        may be sent again once it can be stored). ``received``: when the message came
        (``time.perf_counter`` seconds; ``None``: not measured), handed to the host with the
        action's write, whose commit sends the ack."""
        refusal = self._judge(seat, message, msg_id, received)
        if refusal is not None:
            self.answer_refusal(seat, msg_id, refusal, () if conn is None else (conn,))
        return refusal

    def _judge(
        self, seat: int, message: Any, msg_id: str, received: float | None
    ) -> seating.Refusal | None:
        try:
            action = self.table.action_of(message, seat)
            if self.races is not None and races.offer(
                self, self.races, action, seat, msg_id, message
            ):
                return None
            self.apply(action, seat, msg_id, received=received)
        except IllegalAction as exc:
            return self.refusal(seat, message, exc)
        except NoGame:
            return seating.Refusal("no_game", "no game is in progress")
        except BadMessage as exc:
            return seating.Refusal(exc.code, exc.message)
        return None

    def answer_refusal(
        self, seat: int, msg_id: str, refusal: seating.Refusal, conns: Iterable[Peer]
    ) -> None:
        """Answer ``seat``'s action ``msg_id`` with ``refusal`` on ``conns`` (after the updates
        waiting for their commit, so that an answer judged against the newest state never
        arrives before the updates that show it; at once for ``storage_unavailable``, which
        is not judged against the game) and keep it as the id's answer (but
        ``storage_unavailable``: the same action may be sent again once it can be stored)."""
        top = msgspec.UNSET if refusal.top is None else refusal.top
        frame = encode(Refused(id=msg_id, code=refusal.code, message=refusal.message, top=top))
        judged = refusal.code != "storage_unavailable"
        for c in conns:
            if judged:
                self.send_in_order(c, frame)
            else:
                c.send(frame)
        if judged:
            self.seats[seat].remember(msg_id, frame)

    def refusal(self, seat: int, message: Any, exc: IllegalAction) -> seating.Refusal:
        """The game's refusal, or ``too_slow`` when the table says the message lost the race
        for a pile (:meth:`blink.model.table.Table.lost_race`)."""
        g = self.game
        view = None if g is None else self.definition.view(g.game, seat)
        won = None if g is None else self.table.lost_race(message, view, exc)
        return seating.Refusal(exc.code, exc.message) if won is None else seating.too_slow(won)

    def apply(
        self,
        action: Any,
        seat: int | None,
        msg_id: str | None,
        default: bool = False,
        received: float | None = None,
    ) -> int:
        """Judge and apply one action; queue it for storage; return its sequence number.
        ``default``: the referee takes it at its deadline, for ``seat`` when it has one (its
        update says so in ``default_for``); ``received``: as for :meth:`act`.

        Raises the definition's ``IllegalAction`` or :class:`NoGame`; then nothing changed.
        """
        g = self.game
        if g is None or g.game.over:
            raise NoGame()
        if g.table.holding:
            raise IllegalAction(NotStarted(), "the game has not started: wait for the countdown")
        if g.table.paused:
            raise IllegalAction(practice.Paused(), "the game is paused: resume it to play")
        failure = self.hub.write_failure()
        if failure is not None:
            raise IllegalAction(
                Unsaved(), f"the game waits: the server cannot save it now ({failure})"
            )
        now = self.settings.clock()
        t0 = now if g.t0 is None else g.t0
        t = max(g.last_t, int((now - t0) * 1000))
        events = self.definition.apply(g.game, action, t)
        try:
            pending, job = self._outputs(
                g, action, events, seat, msg_id, t, seat if default else None
            )
        except Exception:
            self._rebuild(g)
            raise
        # Nothing has changed but the engine's state so far; now the room follows.
        g.t0 = t0
        g.last_t = t
        g.seq = pending.seq
        actor = self.definition.seat_of(action)
        if actor is not None:
            g.actions_by_seat[actor] += 1
        if pending.ack is not None and seat is not None and msg_id is not None:
            self.seats[seat].pending_ids.add(msg_id)
        g.pending.append(pending)
        self._store(job, lambda result: self._persisted(g, pending.seq, result), received)
        if pending.ended:
            result = self.definition.record_codec.result(g.game) or {}
            self._store(rw.GameFinished(g.id, self.settings.wall_clock(), result))
        self._referee_update(g, now)
        return pending.seq

    def _outputs(
        self,
        g: GameState,
        action: Any,
        events: list[Any],
        seat: int | None,
        msg_id: str | None,
        t: int,
        default_for: int | None = None,
    ) -> tuple[Pending, rw.ActionAppended]:
        """Every frame an applied action sends, its ack and its storage record."""
        receivers: list[int | None] = list(range(self.players))
        if self.spectators:
            receivers.append(None)
        return build_update(
            self.definition, self.game_name, g, receivers, action, events, seat,
            msg_id, t, self.settings.clock(), default_for,
        )  # fmt: skip

    def _rebuild(self, g: GameState) -> None:
        """Put the engine back as it was before the last action (building its frames
        failed)."""
        g.game = undo_last(self.definition, self.players, g.game)
        log.error("room %s: an action's frames could not be built; it was undone", self.code)

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
                    # Even to a connection awaiting a snapshot (it asked for one while this
                    # action waited): the snapshot shows the action, but only the ack answers
                    # it, and a client may wait for that answer before it plays again.
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
                    self.send_snapshot(c)
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
        # is freed by reference counting when the next one replaces it.
        g.table.cancel()
        stop_bots(g)
        outcome: Outcome | None = g.game.outcome
        if outcome is None:  # pragma: no cover - only called for finished games
            return
        self.series.record(outcome.winners)
        record_url = links.record_url(g.id, self.code, self.public)
        for meta in self.games:
            if meta.id == g.id:
                meta.status = "finished"
                meta.result = {"winners": list(outcome.winners), "reason": outcome.reason}
                meta.record_url = record_url
        between = self.settings.between_games
        g.next_at = None if self.series.over else self.settings.clock() + between
        g.end_msg = build_game_end(
            self.game_name, self.table, self.series, g, outcome, record_url, between
        )
        self._broadcast(encode(g.end_msg))
        if self.series.over:
            self.set_status("finished")
            self._broadcast(self._rematch_frame())
        else:
            self.set_status("between")
            self._cancel_timer()
            self.timer = self.hub.later(between, self._next_game)
        for hook in self.hub.game_end_hooks:
            try:
                hook(self, g)
            except Exception:
                log.exception("a game-end hook failed")

    def _next_game(self) -> None:
        if self.status == "between" and not self.series.over:
            self.start_game()

    def _rematch_frame(self) -> str:
        votes = [s.kind == "bot" or s.rematch for s in self.seats]
        return encode(RematchFrame(votes=votes, available=self.rematch_available()))

    def rematch_available(self) -> bool:
        """True when a new series may be voted for (never in a tournament's match room: its
        match is played, and the tournament goes on in other rooms)."""
        if self.options.get("tournament"):
            return False
        return self.status == "finished" and not any(s.left for s in self.seats)

    def say(self, seat: int, phrase: str) -> tuple[str, str] | None:
        """A player's quick chat phrase, sent to everyone in the room (not stored); why it
        was refused, ``(code, message)``, else ``None``."""
        refused = self.quick_chat.judge(seat, phrase)
        if refused is None:
            self._broadcast(encode(ChatFrame(seat=seat, phrase=phrase)))
        return refused

    def vote_rematch(self, seat: int) -> None:
        """A player asks for a new series; start it once every person has."""
        self.seats[seat].rematch = True
        if all(s.rematch for s in self.seats if s.kind == "human"):
            for s in self.seats:
                s.rematch = False
            self.series_number += 1
            self.series = self._new_series()
            self.games = []
            self._store(rw.RoomSeries(self.code, self.series_number))
            self.start_game()
        else:
            self._broadcast(self._rematch_frame())

    def leave(self, seat: int) -> None:
        """A player gives up their seat: before the first game it is free again (its token
        stops working); later the player has left for good (the token is refused, the game
        goes on without them). A seat bound to a profile (a tournament's, ``fixed_seats``)
        is never freed: leaving it before the first game only disconnects."""
        s = self.seats[seat]
        before_play = self.game is None and self.status == "waiting" and not self.games
        if before_play and self.options.get("fixed_seats"):
            self.broadcast_room()
            return
        if before_play:
            s.token_hash = None
            s.name = None
            s.connected_once = False
            self._store(rw.SeatFreed(self.code, seat))
        else:
            s.left = True
            self._store(rw.SeatLeft(self.code, seat))
            if self.status == "finished":
                self._broadcast(self._rematch_frame())
        if all(x.left for x in self.seats if x.kind == "human") and self.status == "finished":
            self.set_status("closed")
        else:
            self.broadcast_room()

    # -- recovery ----------------------------------------------------------------------------

    def restore_game(
        self,
        gid: int,
        number: int,
        series_number: int,
        started_wall: float,
        state: Any,
        steps: list[Step],
        bot_seeds: list[int | None] | None = None,
        paused: bool = False,
    ) -> None:
        """Take back an unfinished game, rebuilt from its stored deal, action log (``steps``:
        each action's ``(seq, action, t, seat, client id)``) and bot seeds (or ``None``); a
        practice game its player had paused (``paused``) stays paused, its wait starting over
        when it is resumed."""
        g = rebuilt_game(
            self.definition,
            self.seats,
            self._table_clock(held=not steps),  # no action yet: a countdown again
            self.settings.deal_seed,
            (gid, number, series_number),
            started_wall,
            state,
            steps,
            bot_seeds,
        )
        self.game = g
        self.games.append(GameMeta(id=gid, number=number, series=series_number, status="playing"))
        now = self.settings.clock()
        # The referee's wait (a countdown, a stall, a turn) starts over now, as after a deal.
        self._referee_update(g, now)
        if g.table.deadline_of(Timer.COUNTDOWN) is not None:
            self.set_status("countdown")
            for c in self.conns:
                self.send_snapshot(c)
        else:
            g.t0 = now - g.last_t / 1000
            self.status = "playing"
        if paused and practice.is_practice(self.options):
            g.table.pause(now)
            return
        self._start_bots(g)
        for b in g.bots:
            b.notify()
