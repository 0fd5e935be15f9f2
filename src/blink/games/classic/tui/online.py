"""Online play: a :class:`Table` that speaks the server's WebSocket protocol (docs/protocol.md).

The server is authoritative. This table sends intentions (``play``, ``choose``, ``rematch``) and
draws what the server sends: each ``snapshot``/``update`` view becomes an engine
:class:`~blink.games.classic.engine.PlayerView`, so the screen and the key router work exactly as
they do
offline. Refusals arrive as ``refused`` frames and are shown on the line under the table.

:func:`prepare` (in :mod:`blink.tui.seats`, offered here too) does the HTTP part first
(create a room, take a seat, or check a room to watch), so that an unreachable server or a
wrong code is reported as one line before the full-screen app opens; :func:`run_online` then
runs the app.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from typing import Any

from blink.cards import Card, CardError, parse_card
from blink.games.classic.engine import ClassicEnd, Outcome, Phase, PlayerView, reach
from blink.games.classic.rules import OFFICIAL, Ruleset, RulesetError, get_ruleset
from blink.games.classic.tui.table import (
    PHRASES,
    Clock,
    Figures,
    Notice,
    RatingLine,
    Stage,
    Status,
    Table,
    phrase_words,
)
from blink.model.netclock import ClockOffset
from blink.tui.i18n import _, bot_title, card_name
from blink.tui.render import Subjects, pile_name, refusal_sentence
from blink.tui.seats import (
    HTTP_TIMEOUT,
    PROFILE_REFUSALS,
    OnlineError,
    Seat,
    base_url,
    fetch_profile,
    prepare,
    resolve_profile,
)

__all__ = [
    "PROFILE_REFUSALS",
    "PROTOCOL",
    "OnlineError",
    "OnlineTable",
    "Seat",
    "base_url",
    "bot_name",
    "fetch_profile",
    "play_seat",
    "prepare",
    "refused_words",
    "resolve_profile",
    "room_title",
    "run_online",
]

PROTOCOL = 1
"""The protocol version this client speaks."""

PING_EVERY = 2.0
"""Seconds between two pings (the latency shown, the server's clock estimated)."""

SENT_KEPT = 64
"""How many sent plays and choices are remembered, to name the card a refusal is about."""


def _card(text: Any) -> Card | None:
    if text is None:
        return None
    try:
        return parse_card(str(text))
    except CardError:
        return None


def _outcome(data: Any) -> Outcome | None:
    if not isinstance(data, dict):
        return None
    try:
        return Outcome.of(data.get("winners", ()), str(data.get("reason", "")), ClassicEnd)
    except (TypeError, ValueError):
        return None


_PHASES = {p.value: p for p in Phase}


class OnlineTable(Table):
    """A seat (or a spectator's place) in a room on a server, driven by its WebSocket."""

    def __init__(self, seat: Seat, *, name: str = "Player", clock: Clock = time.monotonic) -> None:
        super().__init__(clock)
        self.where = seat
        self.name = name
        self.local_seats = () if seat.seat is None else (seat.seat,)
        self.phrases = () if seat.seat is None else tuple(PHRASES)
        self.players = 2
        self.ruleset: Ruleset = OFFICIAL
        self.names: tuple[str, ...] = ()
        self.room: dict[str, Any] = {}
        self.series: dict[str, Any] = {}
        self.game_id: int | None = None
        self.number = 1
        self.seq = 0
        self._view: PlayerView | None = None
        self._piles: list[list[Card]] = []
        self._versions: tuple[int, ...] = ()
        self._countdown_until: float | None = None
        self._stall_until: float | None = None
        self._stall_kind: str | None = None
        self._figures: Figures | None = None
        self._ratings: tuple[RatingLine, ...] = ()
        self._ended = False
        self._votes: list[bool] = []
        self._ids = 0
        self._sent: dict[str, tuple[Card, int | None]] = {}
        """The card (and pile) of each play and choice sent, by id: what a refusal names."""
        self._ws: Any = None
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self.connected = asyncio.Event()
        self.closed_reason: str | None = None
        self.offset = ClockOffset()
        """The server's clock minus ours, in milliseconds (from the pings)."""
        self.lag: list[Any] = []
        """Every seat's round trip and jitter as the server measured them (the last pong)."""

    # -- reading ----------------------------------------------------------------------------

    def view(self, seat: int | None) -> PlayerView | None:
        """The latest view from the server (for this client's seat)."""
        return self._view

    def status(self) -> Status:
        """What the screen shows besides the cards."""
        now = self.clock()
        room_status = str(self.room.get("status", "waiting"))
        score = tuple(int(s) for s in self.series.get("score", [])) or (0,) * self.players
        winner = self.series.get("winner")
        series_over = winner is not None
        base: dict[str, Any] = {
            "players": self.players,
            "names": self.names or tuple(self._name(i) for i in range(self.players)),
            "local_seats": self.local_seats,
            "best_of": int(self.series.get("best_of", self.room.get("best_of", 1)) or 1),
            "score": score,
            "game_number": self.number,
            "series_winner": None if winner is None else int(winner),
            "series_over": series_over,
            "info": self._info(room_status),
        }
        v = self._view
        if self.closed_reason is not None and (v is None or v.phase is not Phase.OVER):
            return Status(stage=Stage.WAITING, **{**base, "info": self.closed_reason})
        if self._countdown_until is not None and (v is None or v.phase is Phase.DEALT):
            to_go = max(0.0, self._countdown_until - now)
            return Status(stage=Stage.COUNTDOWN, seconds_left=to_go, **base)
        if v is None or room_status == "waiting" or v.phase is Phase.DEALT:
            return Status(stage=Stage.WAITING, **base)
        if v.phase is Phase.OVER:
            return Status(
                stage=Stage.OVER,
                outcome=v.outcome,
                figures=self._figures,
                ratings=self._ratings,
                can_rematch=series_over and bool(self.local_seats),
                **base,
            )
        until = self._stall_until
        left = None if until is None else max(0.0, until - now)
        stage = {
            Phase.PLAYING: Stage.PLAYING,
            Phase.STALLED: Stage.STALLED,
            Phase.CHOOSING: Stage.CHOOSING,
        }[v.phase]
        return Status(stage=stage, seconds_left=None if stage is Stage.PLAYING else left, **base)

    def _info(self, room_status: str) -> str:
        info = self._room_info(room_status)
        lag = self.lag_line()
        return f"{info}  ·  {lag}" if lag and room_status != "waiting" else info

    def _room_info(self, room_status: str) -> str:
        code = self.where.code
        if room_status == "waiting":
            open_seats = [
                s
                for s in self.room.get("seats", [])
                if s.get("kind") == "human" and not s.get("taken")
            ]
            if open_seats:
                base = self.where.base_url
                return _(
                    "Room {code}: waiting for players. Join with: blink play --server "
                    "{base} --join {code}  (or open {base}/play/{code})"
                ).format(code=code, base=base)
            return _("Room {code}: waiting for everyone to connect…").format(code=code)
        if any(self._votes):
            votes = sum(1 for v in self._votes if v)
            return _("Room {code}: rematch asked by {votes} of {seats}").format(
                code=code, votes=votes, seats=len(self._votes)
            )
        return _("Room {code}").format(code=code)

    def lag_line(self) -> str:
        """Every measured seat's round trip and jitter, as the server measured them."""
        parts = []
        for seat, figures in enumerate(self.lag):
            if not isinstance(figures, dict):
                continue
            who = _("you") if seat in self.local_seats else self._name(seat)
            parts.append(f"{who} {figures.get('rtt_ms')}±{figures.get('jitter_ms')} ms")
        return _("lag: {seats}").format(seats=", ".join(parts)) if parts else ""

    def _name(self, seat: int) -> str:
        if 0 <= seat < len(self.names):
            return self.names[seat]
        return _("Seat {n}").format(n=seat + 1)

    # -- acting -----------------------------------------------------------------------------

    def _next_id(self) -> str:
        self._ids += 1
        return str(self._ids)

    def _send(self, msg: dict[str, Any], quiet: bool = False) -> None:
        ws = self._ws
        if ws is None:
            if not quiet:
                self.notify_player(Notice(_("not connected to the server"), refused=True))
            return
        task = asyncio.ensure_future(ws.send(json.dumps(msg)))
        task.add_done_callback(_ignore_errors)

    def _ping(self, echo: int | None = None) -> None:
        msg: dict[str, Any] = {"type": "ping", "t": self.clock() * 1000}
        if echo is not None:
            msg["echo"] = echo
        self._send(msg, quiet=True)

    async def _pings(self) -> None:
        while True:
            self._ping()
            await asyncio.sleep(PING_EVERY)

    def deadline(self, at: Any, in_ms: Any) -> float:
        """Our clock's time of a moment the server announced: ``at`` on its clock once the
        offset is known, else ``in_ms`` from now."""
        local = self.offset.local(float(at)) if isinstance(at, (int, float)) else None
        if local is not None:
            return local / 1000
        return self.clock() + int(in_ms or 0) / 1000

    def play(self, seat: int, card: Card, pile: int) -> None:
        """Send a play, naming the version of the pile it was chosen on; the server answers
        ``ack`` or ``refused`` (``too_slow`` when the pile changed first)."""
        if seat in self.local_seats:
            msg: dict[str, Any] = {"type": "play", "id": self._next_id(), "card": str(card)}
            msg["pile"] = pile
            self._remember(msg["id"], card, pile)
            if 0 <= pile < len(self._versions):
                msg["version"] = self._versions[pile]
            self._send(msg)

    def choose(self, seat: int, card: Card) -> None:
        """Send a stall choice."""
        if seat in self.local_seats:
            msg = {"type": "choose", "id": self._next_id(), "card": str(card)}
            self._remember(msg["id"], card, None)
            self._send(msg)

    def _remember(self, msg_id: str, card: Card, pile: int | None) -> None:
        self._sent[msg_id] = (card, pile)
        while len(self._sent) > SENT_KEPT:
            del self._sent[next(iter(self._sent))]

    def refusal_subjects(self, msg_id: object) -> Subjects:
        """What the play or choice sent with ``msg_id`` was about: its card, its pile, the
        pile's top as this client saw it, and the piles this seat reaches."""
        sent = self._sent.pop(str(msg_id), None)
        if sent is None:
            return {}
        card, pile = sent
        subjects: dict[str, Card | int | tuple[int, ...]] = {"card": card}
        if pile is not None:
            subjects["pile"] = pile
            view = self._view
            top = view.tops[pile] if view is not None and 0 <= pile < len(view.tops) else None
            if top is not None:
                subjects["top"] = top
            if self.local_seats:
                subjects["reach"] = tuple(sorted(reach(self.players, self.local_seats[0])))
        return subjects

    def say(self, phrase: str) -> None:
        """Send a quick chat phrase; every connection of the room gets it (this one too)."""
        if self.local_seats and phrase in PHRASES:
            self._send({"type": "chat", "phrase": phrase})

    def rematch(self) -> None:
        """Once the series is over: vote for a new series with the same seats."""
        if self.local_seats and self.series.get("winner") is not None:
            self._send({"type": "rematch", "id": self._next_id()})
            self.notify_player(Notice(_("rematch asked: waiting for the others")))

    # -- the connection ---------------------------------------------------------------------

    async def start(self) -> None:
        """Connect and say hello; frames are then read in a background task."""
        self._task = asyncio.create_task(self._run())

    async def close(self) -> None:
        """Close the connection; leaving before the first game frees the seat for others."""
        self._closing = True
        ws = self._ws
        if ws is not None and self.local_seats and self.room.get("status") == "waiting":
            with contextlib.suppress(Exception):
                await ws.send(json.dumps({"type": "leave", "id": self._next_id()}))
                await asyncio.wait_for(ws.wait_closed(), 2.0)
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task

    async def _run(self) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed, WebSocketException

        attempts = 0
        while not self._closing:
            try:
                async with connect(self.where.ws_url, open_timeout=HTTP_TIMEOUT) as ws:
                    self._ws = ws
                    hello: dict[str, Any] = {"type": "hello", "protocol": PROTOCOL}
                    hello["room"] = self.where.code
                    if self.where.token:
                        hello["token"] = self.where.token
                    else:
                        hello["spectate"] = True
                    if self.game_id is not None:
                        hello["game"] = self.game_id
                        hello["last_seq"] = self.seq
                    await ws.send(json.dumps(hello))
                    attempts = 0
                    self.closed_reason = None
                    pinger = asyncio.create_task(self._pings())
                    try:
                        async for frame in ws:
                            if isinstance(frame, str):
                                self._handle(frame)
                    finally:
                        pinger.cancel()
                    code = ws.close_code
                    if not self._closing and code in (1000, 4000, 4003, 4004, 4010, 1008, 1009):
                        self._lost(_("the server closed the connection ({code})").format(code=code))
                        return
            except (OSError, WebSocketException, ConnectionClosed, TimeoutError):
                pass
            finally:
                self._ws = None
            if self._closing:
                return
            attempts += 1
            if attempts > 5:
                self._lost(_("the connection to the server is lost"))
                return
            self._lost(_("connection lost: reconnecting (try {n} of 5)…").format(n=attempts))
            await asyncio.sleep(min(2.0, 0.2 * 2**attempts))

    def _lost(self, reason: str) -> None:
        self.closed_reason = reason
        self.notify_player(Notice(reason))

    # -- frames -----------------------------------------------------------------------------

    def _handle(self, frame: str) -> None:
        try:
            msg = json.loads(frame)
        except ValueError:
            return
        if not isinstance(msg, dict):
            return
        kind = msg.get("type")
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            handler(msg)
            self.changed()

    def _on_pong(self, msg: dict[str, Any]) -> None:
        received = self.clock() * 1000
        probe = msg.get("probe")
        if isinstance(probe, int):
            self._ping(echo=probe)  # the server measures our round trip with it
        lag = msg.get("lag")
        if isinstance(lag, list):
            self.lag = lag
        t, server = msg.get("t"), msg.get("server_ms")
        if isinstance(t, (int, float)) and isinstance(server, (int, float)):
            self.offset.sample(float(t), float(server), received)

    def _on_welcome(self, msg: dict[str, Any]) -> None:
        seat = msg.get("seat")
        self.local_seats = () if seat is None else (int(seat),)
        self.connected.set()

    def _on_room(self, msg: dict[str, Any]) -> None:
        room = msg.get("room") or {}
        self.room = room
        self.players = int(room.get("players", self.players))
        with contextlib.suppress(RulesetError):
            self.ruleset = get_ruleset(str(room.get("ruleset", "official")))
        if isinstance(room.get("series"), dict):
            self.series = room["series"]
        names: list[str] = []
        for info in room.get("seats", []):
            i = int(info.get("seat", len(names)))
            if i in self.local_seats:
                names.append(_("You"))
            elif info.get("kind") == "bot":
                names.append(bot_name(info.get("bot")))
            else:
                names.append(str(info.get("name") or _("Seat {n}").format(n=i + 1)))
        if names:
            self.names = tuple(names)

    def _on_snapshot(self, msg: dict[str, Any]) -> None:
        self._new_game(msg)
        self.seq = int(msg.get("seq", 0))
        full = msg.get("view") or {}
        self.players = int(full.get("players", self.players))
        with contextlib.suppress(RulesetError):
            self.ruleset = get_ruleset(str(full.get("ruleset", self.ruleset.name)))
        self._piles = [
            [c for c in (_card(x) for x in pile) if c is not None] for pile in full.get("piles", [])
        ]
        if isinstance(msg.get("series"), dict):
            self.series = msg["series"]
        cd = msg.get("countdown_ms")
        self._countdown_until = None if cd is None else self.deadline(msg.get("countdown_at"), cd)
        self._set_view(full)
        self._set_stall(msg.get("stall"))

    def _new_game(self, msg: dict[str, Any]) -> None:
        game = msg.get("game")
        if game is not None and game != self.game_id:
            self.game_id = int(game)
            self._figures = None
            self._ratings = ()
            self._ended = False
            self._piles = [[] for _ in range(self.players)]
            self._view = None
        if msg.get("number") is not None:
            self.number = int(msg["number"])

    def _on_countdown(self, msg: dict[str, Any]) -> None:
        self._new_game(msg)
        self._countdown_until = self.deadline(msg.get("at"), msg.get("in_ms", 0))

    def _on_update(self, msg: dict[str, Any]) -> None:
        game = msg.get("game")
        seq = int(msg.get("seq", 0))
        if game is not None and game != self.game_id:
            self._new_game(msg)
        elif seq <= self.seq:
            return  # already applied (a resumed connection)
        elif seq > self.seq + 1:
            self._send({"type": "resync"})
        self.seq = seq
        for event in msg.get("events", []):
            self._on_event(event)
        self._countdown_until = None
        self._set_view(msg.get("view") or {})
        self._set_stall(msg.get("stall"))

    def _on_event(self, e: dict[str, Any]) -> None:
        kind = e.get("type")
        if kind == "revealed":
            tops = [_card(c) for c in e.get("tops", [])]
            self._piles = [[c] if c is not None else [] for c in tops]
        elif kind in ("played", "flipped", "placed"):
            card = _card(e.get("card"))
            pile = int(e.get("pile", -1))
            if card is not None and 0 <= pile < len(self._piles):
                self._piles[pile].append(card)

    def _set_view(self, v: dict[str, Any]) -> None:
        if not v:
            return
        seat = v.get("seat")
        phase = _PHASES.get(str(v.get("phase")), Phase.DEALT)
        tops = tuple(_card(c) for c in v.get("tops", []))
        players = len(tops) or self.players
        self.players = players
        while len(self._piles) < players:
            self._piles.append([])
        hand = tuple(c for c in (_card(x) for x in v.get("hand", [])) if c is not None)
        self._versions = tuple(int(n) for n in v.get("versions", []))
        self._view = PlayerView(
            seat=None if seat is None else int(seat),
            players=players,
            phase=phase,
            ruleset=self.ruleset,
            hand=hand,
            tops=tops,
            piles=tuple(tuple(p) for p in self._piles[:players]),
            hand_counts=tuple(int(n) for n in v.get("hand_counts", [])),
            draw_counts=tuple(int(n) for n in v.get("draw_counts", [])),
            set_aside=int(v.get("set_aside", 0)),
            chosen=tuple(bool(b) for b in v.get("chosen", [])),
            my_choice=_card(v.get("my_choice")),
            outcome=_outcome(v.get("outcome")),
            plays=int(v.get("plays", 0)),
        )

    def _set_stall(self, stall: Any) -> None:
        if isinstance(stall, dict):
            self._stall_kind = str(stall.get("kind"))
            self._stall_until = self.deadline(stall.get("at"), stall.get("in_ms", 0))
        elif self._view is not None and self._view.phase not in (Phase.STALLED, Phase.CHOOSING):
            self._stall_kind = None
            self._stall_until = None

    def _on_ack(self, msg: dict[str, Any]) -> None:
        pass

    def _on_refused(self, msg: dict[str, Any]) -> None:
        seat = self.local_seats[0] if self.local_seats else None
        subjects = self.refusal_subjects(msg.get("id"))
        self.notify_player(Notice(refused_words(msg, subjects), seat, refused=True))

    def _on_chat(self, msg: dict[str, Any]) -> None:
        seat = msg.get("seat")
        words = phrase_words(str(msg.get("phrase")))
        if words is None or not isinstance(seat, int):
            return
        self.notify_player(Notice(f"{self._name(seat)}: “{words}”"))

    def _on_error(self, msg: dict[str, Any]) -> None:
        text = refusal_sentence(str(msg.get("code")), None, str(msg.get("message", "")))
        self.notify_player(Notice(text, refused=True))

    def _on_game_end(self, msg: dict[str, Any]) -> None:
        f = msg.get("figures") or {}
        self._figures = Figures(
            time_ms=int(f.get("duration_ms", 0)),
            plays=int(f.get("plays", 0)),
            plays_by_seat=tuple(int(n) for n in f.get("plays_by_seat", [])),
            cards_left=tuple(int(n) for n in f.get("cards_left", [])),
        )
        if isinstance(msg.get("series"), dict):
            self.series = msg["series"]
        self._take_ratings(msg.get("ratings"))
        self._ended = True
        nxt = msg.get("next_in_ms")
        if nxt is not None:
            line = _("next game in {s} s").format(s=f"{int(nxt) / 1000:.0f}")
            self.notify_player(Notice(line))

    def _on_ratings(self, msg: dict[str, Any]) -> None:
        if msg.get("game") in (None, self.game_id):
            self._take_ratings(msg.get("ratings"))

    def _take_ratings(self, ratings: object) -> None:
        """Keep a rated game's rating changes (the ``ratings`` frame, or a ``game_end`` sent
        again with them) for the end screen."""
        if not isinstance(ratings, list) or not ratings:
            return
        lines = []
        for r in ratings:
            try:
                before = float(r["before"]["ordinal"])
                after = float(r["after"]["ordinal"])
                lines.append(RatingLine(int(r["seat"]), before, after, float(r["delta"])))
            except (KeyError, TypeError, ValueError):
                continue
        self._ratings = tuple(lines)

    def _on_rematch(self, msg: dict[str, Any]) -> None:
        self._votes = [bool(v) for v in msg.get("votes", [])]

    def _on_left(self, msg: dict[str, Any]) -> None:
        self._closing = True

    def reach(self, seat: int) -> tuple[int, int]:
        """The piles ``seat`` may play on."""
        return reach(self.players, seat)


def bot_name(spec: object) -> str:
    """A bot seat's name at the table, from its ``level:strategy`` as the room lists it."""
    from blink.games.classic.bots import BotConfigError, BotSpec

    text = str(spec or "bot")
    try:
        return bot_title(BotSpec.parse(text))
    except BotConfigError:
        return text.replace(":", " ")


def refused_words(msg: dict[str, Any], subjects: Subjects | None = None) -> str:
    """A ``refused`` frame in the table's words, by its code (never the server's sentence
    with card codes): a lost race names the card that won the pile; a refused play names
    its card and pile in words when ``subjects`` says what was sent
    (:meth:`OnlineTable.refusal_subjects`)."""
    top = msg.get("top")
    won = _card(top.get("card")) if isinstance(top, dict) else None
    code = str(msg.get("code"))
    if code == "too_slow" and won is not None and isinstance(top, dict):
        return _("Too slow: {pile} now has {card} on top").format(
            pile=pile_name(int(top.get("pile", 0))), card=card_name(won)
        )
    return refusal_sentence(code, subjects, str(msg.get("message", "")))


def _ignore_errors(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


def room_title(code: str, seat: int | None) -> str:
    """The header of an online table: the room and your seat, numbered from one."""
    if seat is None:
        return _("watching room {code}").format(code=code)
    return _("room {code} · seat {n}").format(code=code, n=seat + 1)


def run_online(
    server: str,
    *,
    join: str | None = None,
    watch: str | None = None,
    name: str = "Player",
    players: int = 2,
    seats: list[str | None] | None = None,
    best_of: int = 1,
    handicap: str = "",
    ruleset: str = "official",
    colorblind: bool = False,
    ascii_symbols: bool = False,
    profile_secret: str | None = None,
    public: bool = False,
) -> int:
    """Prepare the seat (one clear :class:`OnlineError` if that fails), then run the app.

    With ``profile_secret`` the seat carries that profile; if the server refuses it, the seat
    is anonymous and a one-line notice goes to stderr (and to the table's notice line).
    """
    seat = prepare(
        server,
        join=join,
        watch=watch,
        name=name,
        players=players,
        seats=seats,
        best_of=best_of,
        handicap=handicap,
        ruleset=ruleset,
        profile_secret=profile_secret,
        public=public,
    )
    return play_seat(seat, name=name, colorblind=colorblind, ascii_symbols=ascii_symbols)


def play_seat(seat: Seat, *, name: str, colorblind: bool, ascii_symbols: bool) -> int:
    """Run the full-screen table at ``seat`` until the player quits: 0, or 1 (said on stderr)
    when the connection was lost before the game ended."""
    from blink.games.classic.tui.app import BlinkApp

    table = OnlineTable(seat, name=name)
    if seat.notice:
        print(f"blink play: {seat.notice}", file=sys.stderr)
        table.notify_player(Notice(seat.notice))
    title = room_title(seat.code, seat.seat)
    app = BlinkApp(table, title=title, colorblind=colorblind, ascii_symbols=ascii_symbols)
    app.run()
    if table.closed_reason is not None and not table._ended:
        print(f"blink play: {table.closed_reason}", file=sys.stderr)
        return 1
    return 0
