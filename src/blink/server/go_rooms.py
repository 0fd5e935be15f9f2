"""Go Blink rooms: the turn-based game (:mod:`blink.games.goblink`) on the classic room machinery.

A :class:`GoRoom` is a :class:`~blink.server.rooms.Room` (same seats, tokens, connections,
welcome/resume/snapshot path, per-client send queues, durable log "stored before sent",
sequence numbers, rematch and leave) whose game is a :class:`~blink.games.goblink.engine.GoGame`:

* the room row stores ``ruleset = "goblink"`` and each game row stores
  ``{"game": "goblink", "dealer": d}`` in its ``ruleset`` JSON column, the deck order in
  ``deck`` and every accepted action as :func:`~blink.games.goblink.record.go_action_to_dict`, so no
  schema change is needed and a restarted server replays unfinished games;
* every frame is built per receiver from :func:`~blink.games.goblink.engine.redact` (plus a second
guard
  here) and that receiver's :class:`~blink.games.goblink.engine.GoView`: no frame ever holds another
  player's hand or the draw pile;
* a turn timer (:class:`GoSettings.go_turn_time`) applies the referee's default actions
  (:meth:`~blink.games.goblink.definition.GoBlinkDefinition.referee`) for a player who does not
  act in time, until their turn is over;
* bot seats are played by :mod:`blink.games.goblink.bots` bots after
:attr:`GoSettings.go_bot_delay`.

The wire messages are documented in docs/protocol.md, section "Go Blink".
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from blink.cards import STANDARD_DECK, CardError, parse_card, shuffled_deck
from blink.games.goblink.bots import GOBOTS, GoBot, GoBotError, make_gobot
from blink.games.goblink.engine import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Ask,
    Drew,
    EndTurn,
    GoAction,
    GoEvent,
    GoGame,
    IllegalAction,
    LayDown,
    Passed,
    event_to_dict,
    redact,
    value_from_wire,
    view_to_dict,
)
from blink.games.goblink.record import GoRecord, go_action_from_dict, go_action_to_dict
from blink.model.base import Timer, Timings
from blink.server import storage as st
from blink.server.protocol import MAX_ID, dumps
from blink.server.rooms import Conn, GameState, NoGame, Pending, Room, RoomHost, Seat
from blink.server.settings import Settings
from blink.server.table_clock import timings

__all__ = [
    "GAME_KIND",
    "ClientSession",
    "GoBotSeat",
    "GoGameState",
    "GoRoom",
    "GoSettings",
    "check_gobot",
    "go_record",
    "gobot_names",
    "handle_go_message",
    "is_go_game",
]

log = logging.getLogger("blink.server.goblink")

GAME_KIND = "goblink"
"""The ``game`` of a Go Blink room (``POST /api/rooms``) and its stored ``ruleset``."""
DEFAULT_TURN_TIME = 60.0
DEFAULT_BOT_DELAY = 0.8
CLIENT_TYPES = ("ask", "lay", "end", "play", "choose")


@dataclass
class GoSettings(Settings):
    """Server settings with the Go Blink delays (a plain :class:`Settings` uses the defaults)."""

    go_turn_time: float = DEFAULT_TURN_TIME
    """Seconds a player has for a turn (or their opening decision) before the default."""
    go_bot_delay: float = DEFAULT_BOT_DELAY
    """Seconds a bot waits before each of its actions (so people can follow)."""


def _turn_time(settings: Settings) -> float:
    return float(getattr(settings, "go_turn_time", DEFAULT_TURN_TIME))


def _bot_delay(settings: Settings) -> float:
    return float(getattr(settings, "go_bot_delay", DEFAULT_BOT_DELAY))


def check_gobot(name: str) -> str:
    """Validate a Go Blink bot name (``random``, ``greedy``, ``memory``); return it normalised.

    Raises :class:`~blink.games.goblink.bots.GoBotError` for an unknown name.
    """
    return make_gobot(name, 0, 0).name


@dataclass
class GoGameState(GameState):
    """A live Go Blink game of a room (``game`` holds a :class:`GoGame`)."""

    started_clock: float = 0.0
    actions_by_seat: list[int] = field(default_factory=list)


class GoBotSeat:
    """A Go Blink bot playing one seat live: acts after a delay whenever it is its turn."""

    def __init__(self, room: GoRoom, g: GoGameState, seat: int, bot: GoBot, delay: float) -> None:
        self.room = room
        self.g = g
        self.seat = seat
        self.bot = bot
        self.delay = delay
        self.handle: asyncio.TimerHandle | None = None
        self.stopped = False

    def start(self) -> None:
        """Begin playing (acts at once if it is already this seat's turn)."""
        self.notify()

    def notify(self) -> None:
        """The game changed: plan an action if it is this seat's turn."""
        game: GoGame = self.g.game  # type: ignore[assignment]
        if self.stopped or self.handle is not None or game.over or game.current != self.seat:
            return
        self.handle = asyncio.get_running_loop().call_later(self.delay, self._act)

    def stop(self) -> None:
        """Stop for good."""
        self.stopped = True
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def _act(self) -> None:
        self.handle = None
        game: GoGame = self.g.game  # type: ignore[assignment]
        if self.stopped or self.room.game is not self.g or game.over:
            return
        if game.current != self.seat:
            return
        try:
            action = self.bot.act(game.view(self.seat))
            self.room.apply(action, self.seat, None)
        except IllegalAction as exc:
            log.warning("Go Blink bot of seat %d was refused (%s); default", self.seat, exc.code)
            pending = self.g.table.pending  # the referee's default for the current player
            for seat, fallback in pending.actions[:1] if pending is not None else ():
                self.room.apply(fallback, seat, None)
        except NoGame:
            return
        except Exception:
            log.exception("Go Blink bot of seat %d failed", self.seat)


def _hide(event: GoEvent, viewer: int | None) -> GoEvent:
    """The engine's redaction plus a second guard: never another seat's drawn or passed cards."""
    e = redact(event, viewer)
    if isinstance(e, Drew) and e.player != viewer and e.card is not None:
        return e._replace(card=None)
    if isinstance(e, Passed) and viewer not in (e.giver, e.receiver) and e.cards is not None:
        return e._replace(cards=None)
    return e


class GoRoom(Room):
    """A room playing Go Blink (2 to 6 seats, people and :mod:`blink.games.goblink.bots` bots)."""

    kind = GAME_KIND
    _log = log

    def __init__(
        self,
        hub: RoomHost,
        code: str,
        players: int,
        best_of: int,
        public: bool,
        seats: list[Seat],
        created_at: float,
    ) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"Go Blink is for {MIN_PLAYERS} to {MAX_PLAYERS} players")
        super().__init__(hub, code, players, best_of, GAME_KIND, None, public, seats, created_at)

    # -- descriptions --------------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        """The room as a JSON object, with ``game: "goblink"`` and the turn time."""
        d = super().info()
        d["game"] = GAME_KIND
        d["turn_ms"] = round(_turn_time(self.settings) * 1000)
        d["join_url"] = f"/?go={self.code}"
        d["watch_url"] = f"/?gowatch={self.code}"
        return d

    def summary(self) -> dict[str, Any]:
        """The room as listed, with ``game: "goblink"``."""
        d = super().summary()
        d["game"] = GAME_KIND
        return d

    def _turn_wire(self, g: GoGameState) -> dict[str, Any] | None:
        pending = g.table.pending
        deadline = g.table.deadline_of(Timer.TURN)
        if pending is None or deadline is None or not pending.actions:
            return None
        return {"seat": pending.actions[0][0], "in_ms": self._ms_left(deadline)}

    def _view_wire(self, g: GoGameState, seat: int | None) -> dict[str, Any]:
        game: GoGame = g.game  # type: ignore[assignment]
        view = view_to_dict(game.view(seat))
        return view

    def _snapshot_frame(self, g: GameState, seat: int | None) -> str:
        assert isinstance(g, GoGameState)
        view = self._view_wire(g, seat)
        view["seats"] = [s.info() for s in self.seats]
        return dumps(
            {
                "type": "snapshot",
                "game_kind": GAME_KIND,
                "game": g.id,
                "number": g.number,
                "seq": g.seq,
                "view": view,
                "turn": self._turn_wire(g),
                "stall": None,
                "countdown_ms": None,
                "series": self.series.to_dict(),
            }
        )

    # -- starting ------------------------------------------------------------------------

    def start_game(self) -> None:
        """Deal a new Go Blink game of the series and start it at once."""
        self._cancel_timer()
        hub = self.hub
        gid = hub.take_game_id()
        seed = (
            hub.settings.deal_seed + gid
            if hub.settings.deal_seed is not None
            else secrets.randbits(64)
        )
        deck = shuffled_deck(seed, STANDARD_DECK)
        number = self.series.games_played + 1
        dealer = (number - 1) % self.players
        game = GoGame(deck, self.players, dealer)
        g = GoGameState(
            id=gid,
            number=number,
            series_number=self.series_number,
            game=game,  # type: ignore[arg-type]
            started_wall=time.time(),
            table=self._new_table(),
            plays_by_seat=[0] * self.players,
            started_clock=self.settings.clock(),
        )
        self._submit(
            st.job_insert_game(
                {
                    "id": gid,
                    "room_code": self.code,
                    "series_number": self.series_number,
                    "number": number,
                    "players": self.players,
                    "ruleset": json.dumps({"game": GAME_KIND, "dealer": dealer}),
                    "sizes": None,
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
        self._referee_update(g, self.settings.clock())  # the first player's opening decision
        self.set_status("playing")
        for c in self.conns:
            self._send_snapshot(c)
        self._start_bots(g, seed)

    def _start_bots(self, g: GameState, seed: int) -> None:
        assert isinstance(g, GoGameState)
        for s in self.seats:
            if s.kind != "bot" or s.bot is None:
                continue
            try:
                bot = make_gobot(s.bot, s.seat, seed + 1000 * (s.seat + 1))
            except GoBotError:
                log.exception("no Go Blink bot %r for seat %d", s.bot, s.seat)
                continue
            live = GoBotSeat(self, g, s.seat, bot, _bot_delay(self.settings))
            g.bots.append(live)
            live.start()

    # -- the turn timer ------------------------------------------------------------------

    def _timings(self) -> Timings:
        """The referee's delays: the turn time (a turn or opening decision) of the settings."""
        return timings(self.settings, turn=_turn_time(self.settings))

    # -- applying ------------------------------------------------------------------------

    def apply(self, action: Any, seat: int | None, msg_id: str | None) -> int:
        """Judge and apply one Go Blink action; queue it for storage; return its sequence.

        Raises :class:`~blink.games.goblink.engine.IllegalAction` (nothing changes) or ``NoGame``.
        """
        g = self.game
        if g is None or g.game.over:
            raise NoGame()
        assert isinstance(g, GoGameState)
        if not isinstance(action, Ask | LayDown | EndTurn):
            raise TypeError(f"not a Go Blink action: {action!r}")
        game: GoGame = g.game  # type: ignore[assignment]
        now = self.settings.clock()
        t = max(g.last_t, int((now - g.started_clock) * 1000))
        events = game.apply(action, t)
        g.last_t = t
        g.seq += 1
        seq = g.seq
        if action.player < len(g.plays_by_seat):
            g.plays_by_seat[action.player] += 1
        self._referee_update(g, now)  # a new turn restarts the turn timer
        turn = self._turn_wire(g)
        receivers: list[int | None] = list(range(self.players))
        if self.spectators:
            receivers.append(None)
        frames: dict[int | None, str] = {}
        for r in receivers:
            frames[r] = dumps(
                {
                    "type": "update",
                    "game_kind": GAME_KIND,
                    "game": g.id,
                    "seq": seq,
                    "t": t,
                    "events": [event_to_dict(_hide(e, r)) for e in events],
                    "view": self._view_wire(g, r),
                    "turn": turn,
                    "stall": None,
                }
            )
        ack = None
        if msg_id is not None and seat is not None:
            ack = dumps({"type": "ack", "id": msg_id, "game": g.id, "seq": seq})
            self.seats[seat].pending_ids.add(msg_id)
        ended = game.over
        self._submit(
            st.job_append_action(g.id, seq, go_action_to_dict(action, t), seat, msg_id),
            lambda result: self._persisted(g, seq, result),
        )
        if ended:
            record = GoRecord.from_game(game, self._names())
            self._submit(st.job_finish_game(g.id, time.time(), record.result or {}))
        g.pending.append(Pending(seq, frames, seat, msg_id, ack, ended))
        return seq

    # -- ending --------------------------------------------------------------------------

    def _game_ended(self, g: GameState) -> None:
        assert isinstance(g, GoGameState)
        if g.ended_sent:
            return
        g.ended_sent = True
        g.table.cancel()
        self._stop_bots(g)
        game: GoGame = g.game  # type: ignore[assignment]
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
        frame = dumps(
            {
                "type": "game_end",
                "game_kind": GAME_KIND,
                "game": g.id,
                "number": g.number,
                "seq": g.seq,
                "outcome": {
                    "winners": list(outcome.winners),
                    "reason": outcome.reason,
                    "tie": outcome.is_tie,
                },
                "figures": {
                    "turns": game.turns,
                    "asks": game.asks,
                    "matches": len(game.discard()),
                    "actions_by_seat": list(g.plays_by_seat),
                    "hand_counts": [len(game.hand(p)) for p in range(game.players)],
                    "duration_ms": g.last_t,
                },
                "series": self.series.to_dict(),
                "record_url": f"/api/games/{g.id}/record",
                "next_in_ms": next_in,
            }
        )
        self._broadcast(frame)
        if self.series.over:
            self.set_status("finished")
            self._broadcast(self._rematch_frame())
        else:
            self.set_status("between")
            self._cancel_timer()
            self.timer = self._later(self.settings.between_games, self._next_game)
        for hook in self.hub.game_end_hooks:  # ratings (profiles); tournaments ignore Go rooms
            try:
                hook(self, g)
            except Exception:
                log.exception("a game-end hook failed")

    # -- recovery ------------------------------------------------------------------------

    def restore_game(self, lg: st.LoadedGame) -> None:
        """Rebuild an unfinished Go Blink game from its stored deal and action log."""
        deck = [parse_card(c) for c in lg.deck]
        dealer = int(lg.ruleset.get("dealer", 0))
        game = GoGame(deck, lg.players, dealer)
        g = GoGameState(
            id=lg.id,
            number=lg.number,
            series_number=lg.series_number,
            game=game,  # type: ignore[arg-type]
            started_wall=lg.started_at,
            table=self._new_table(),
            plays_by_seat=[0] * lg.players,
        )
        for seq, raw, seat, client_id in lg.actions:
            action, t = go_action_from_dict(raw, seq)
            game.apply(action, t)
            g.seq = seq
            g.last_t = t or 0
            g.plays_by_seat[action.player] += 1
            if client_id is not None and seat is not None:
                self.seats[seat].remember(
                    client_id, dumps({"type": "ack", "id": client_id, "game": g.id, "seq": seq})
                )
        g.persisted = g.seq
        g.started_clock = self.settings.clock() - g.last_t / 1000
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
        self.status = "playing"
        self._referee_update(g, self.settings.clock())  # the turn's time starts over now
        seed = secrets.randbits(32) if self.settings.deal_seed is None else self.settings.deal_seed
        self._start_bots(g, seed)


def is_go_game(lg: st.LoadedGame) -> bool:
    """True when a stored game is a Go Blink game."""
    return isinstance(lg.ruleset, Mapping) and lg.ruleset.get("game") == GAME_KIND


def go_record(lg: st.LoadedGame) -> GoRecord:
    """The :class:`~blink.games.goblink.record.GoRecord` of a stored Go Blink game."""
    return GoRecord(
        deck=[parse_card(c) for c in lg.deck],
        players=lg.players,
        dealer=int(lg.ruleset.get("dealer", 0)),
        actions=[go_action_from_dict(a, i) for i, (_s, a, _seat, _cid) in enumerate(lg.actions)],
        names=list(lg.names),
        meta={
            "game": lg.id,
            "number": lg.number,
            "series": lg.series_number,
            "started": lg.started_at,
            "ended": lg.ended_at,
        },
        result=lg.result,
    )


# --- client messages -------------------------------------------------------------------------


class ClientSession(Protocol):
    """The connection a message came from, as :func:`handle_go_message` uses it (the
    WebSocket session, :class:`blink.server.session.Session`)."""

    conn: Conn
    errors: int
    """Bad messages so far (the session closes the connection past a limit)."""

    def error(self, code: str, message: str, msg_id: str | None = None) -> None:
        """Send an ``error`` frame (and count it)."""
        ...

    def refuse(self, msg_id: str, code: str, message: str) -> str:
        """Send a ``refused`` frame for action ``msg_id``; return the frame."""
        ...


@dataclass(frozen=True)
class _Bad:
    code: str
    message: str


def _parse_action(d: Mapping[str, Any], seat: int) -> GoAction | _Bad:
    """The action a client message asks for, or a ``_Bad(code, message)`` when it is malformed."""
    kind = d.get("type")
    if kind in ("play", "choose"):
        return _Bad("wrong_game", "this room plays Go Blink: send ask, lay or end")
    if kind == "ask":
        target = d.get("target")
        if not isinstance(target, int) or isinstance(target, bool):
            return _Bad("bad_field", "'target' must be a seat number")
        try:
            value = value_from_wire(d.get("attribute"), d.get("value"))
        except ValueError as exc:
            return _Bad("bad_value", str(exc))
        return Ask(seat, target, value)
    if kind == "lay":
        raw = d.get("cards")
        if not isinstance(raw, list) or not raw or len(raw) > 60:
            return _Bad("bad_field", "'cards' must be a list of card codes")
        try:
            cards = tuple(parse_card(str(c)[:32]) for c in raw)
        except CardError as exc:
            return _Bad("bad_card", str(exc))
        return LayDown(seat, cards)
    return EndTurn(seat)


def handle_go_message(session: ClientSession, room: Room, text: str | bytes) -> bool:
    """Handle a Go Blink action message (``ask``, ``lay``, ``end``) of a client in a Go room.

    Returns ``False`` for any other message (hello, ping, resync, rematch, leave, malformed
    JSON...), which the classic path then handles. ``play`` and ``choose`` are refused here
    with ``wrong_game``.
    """
    if not isinstance(room, GoRoom):
        return False
    try:
        d = json.loads(text)
    except (ValueError, RecursionError, UnicodeDecodeError):
        return False
    if not isinstance(d, dict) or d.get("type") not in CLIENT_TYPES:
        return False
    msg_id = d.get("id")
    if not isinstance(msg_id, str) or not 1 <= len(msg_id) <= MAX_ID:
        session.error("bad_field", "'id' is required (a string of 1 to 64 characters)")
        return True
    seat_no = session.conn.seat
    if seat_no is None:
        session.refuse(msg_id, "not_a_player", "spectators cannot play")
        session.errors += 1
        return True
    seat = room.seats[seat_no]
    answer = seat.answers.get(msg_id)
    if answer is not None:
        session.conn.send(answer)
        return True
    if msg_id in seat.pending_ids:
        return True
    parsed = _parse_action(d, seat_no)
    if isinstance(parsed, _Bad):
        seat.remember(msg_id, session.refuse(msg_id, parsed.code, parsed.message))
        session.errors += 1
        return True
    try:
        room.apply(parsed, seat_no, msg_id)
    except IllegalAction as exc:
        seat.remember(msg_id, session.refuse(msg_id, exc.code, exc.message))
    except NoGame:
        seat.remember(msg_id, session.refuse(msg_id, "no_game", "no game is in progress"))
    return True


def gobot_names() -> list[str]:
    """The Go Blink bot names a seat may hold."""
    return list(GOBOTS)
