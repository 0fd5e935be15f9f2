"""Online play: a :class:`Table` that speaks the server's WebSocket protocol (docs/protocol.md).

The server is authoritative. This table sends intentions (``play``, ``choose``, ``rematch``) and
draws what the server sends: each ``snapshot``/``update`` view becomes an engine
:class:`~blink.games.classic.engine.PlayerView`, so the screen and the key router work exactly as
they do
offline. Refusals arrive as ``refused`` frames and are shown on the line under the table.

:func:`prepare` does the HTTP part first (create a room, take a seat, or check a room to
watch), so that an unreachable server or a wrong code is reported as one line before the
full-screen app opens; :func:`run_online` then runs the app.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import httpx

from blink import profile_store
from blink.cards import Card, CardError, parse_card
from blink.games.classic.engine import Outcome, Phase, PlayerView, reach
from blink.games.classic.rules import OFFICIAL, Ruleset, RulesetError, get_ruleset
from blink.model.netclock import ClockOffset
from blink.profile_store import StoredProfile
from blink.tui.render import pile_name
from blink.tui.table import PHRASES, Clock, Figures, Notice, Stage, Status, Table

__all__ = [
    "PROFILE_REFUSALS",
    "PROTOCOL",
    "OnlineError",
    "OnlineTable",
    "Seat",
    "fetch_profile",
    "prepare",
    "refused_words",
    "resolve_profile",
    "room_title",
    "run_online",
    "run_seat",
]

PROTOCOL = 1
"""The protocol version this client speaks."""

HTTP_TIMEOUT = 10.0

PING_EVERY = 2.0
"""Seconds between two pings (the latency shown, the server's clock estimated)."""

PROFILE_REFUSALS = frozenset({"no_such_profile", "profile_seated"})
"""Error codes with which a server refuses a profile secret (the seat is then taken anonymously)."""


class OnlineError(Exception):
    """The server cannot be reached, or refused the room, code or seat: ``str()`` says why."""

    def __init__(self, message: str, code: str = "unreachable") -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class Seat:
    """Where to connect: the room, and the seat token (``None`` to watch)."""

    base_url: str
    code: str
    seat: int | None
    token: str | None
    notice: str | None = None
    """A line for the player about the seat (the stored profile was refused, for example)."""

    @property
    def ws_url(self) -> str:
        """The WebSocket endpoint of the room on the server (``/ws/CODE``)."""
        parts = urlsplit(self.base_url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        path = parts.path.rstrip("/") + "/ws/" + quote(self.code.upper(), safe="")
        return urlunsplit((scheme, parts.netloc, path, "", ""))


def _base_url(server: str) -> str:
    raw = server.strip()
    if "://" not in raw:
        raw = "http://" + raw
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise OnlineError(f"{server!r} is not a server address (for example http://localhost:8000)")
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


def _request(method: str, url: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    try:
        r = httpx.request(method, url, json=body, timeout=HTTP_TIMEOUT)
    except httpx.HTTPError as exc:
        host = urlsplit(url).netloc
        raise OnlineError(f"cannot reach the server at {host} ({type(exc).__name__})") from None
    try:
        data = r.json()
    except ValueError:
        data = None
    if r.status_code >= 400:
        err = data.get("error") if isinstance(data, dict) else None
        if isinstance(err, dict):
            raise OnlineError(str(err.get("message")), str(err.get("code")))
        raise OnlineError(f"the server answered {r.status_code} to {urlsplit(url).path}", "http")
    if not isinstance(data, dict):
        raise OnlineError(f"the server sent something other than JSON for {urlsplit(url).path}")
    return data


def prepare(
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
    profile_secret: str | None = None,
    public: bool = False,
) -> Seat:
    """Create a room and take seat 0, take a seat in room ``join``, or check room ``watch``.

    A room made here is private (joined by its code) unless ``public``: then the lobby lists it
    among the live games, as the browser's "list it" box does.

    With ``profile_secret`` the seat carries that profile (its games are rated). If the server
    refuses the secret (:data:`PROFILE_REFUSALS`) the seat is taken anonymously instead and
    :attr:`Seat.notice` says so. Raises :class:`OnlineError` with one sentence when the server
    cannot be reached or refuses.
    """
    base = _base_url(server)
    if watch is not None:
        code = watch.strip().upper()
        _request("GET", f"{base}/api/rooms/{code}")
        return Seat(base, code, None, None)
    notice = None
    if profile_secret:
        try:
            return _take_seat(
                base,
                join,
                name,
                players,
                seats,
                best_of,
                handicap,
                ruleset,
                {"profile_secret": profile_secret},
                public,
            )
        except OnlineError as exc:
            if exc.code not in PROFILE_REFUSALS:
                raise
            notice = f"the server refused your profile ({exc}): playing anonymously, not rated"
    seat = _take_seat(base, join, name, players, seats, best_of, handicap, ruleset, {}, public)
    return Seat(seat.base_url, seat.code, seat.seat, seat.token, notice)


def _take_seat(
    base: str,
    join: str | None,
    name: str,
    players: int,
    seats: list[str | None] | None,
    best_of: int,
    handicap: str,
    ruleset: str,
    extra: dict[str, Any],
    public: bool,
) -> Seat:
    if join is not None:
        code = join.strip().upper()
        data = _request("POST", f"{base}/api/rooms/{code}/join", {"name": name, **extra})
        return Seat(base, str(data["code"]), int(data["seat"]), str(data["token"]))
    body: dict[str, Any] = {
        "players": players,
        "seats": seats or [None] * players,
        "best_of": best_of,
        "handicap": handicap,
        "ruleset": ruleset,
        "name": name,
        "take_seat": 0,
        "public": public,
        **extra,
    }
    data = _request("POST", f"{base}/api/rooms", body)
    seat = data.get("seat")
    token = data.get("token")
    return Seat(
        base,
        str(data["code"]),
        None if seat is None else int(seat),
        None if not token else str(token),
    )


def fetch_profile(server: str, pid: str) -> dict[str, Any]:
    """``GET /api/profiles/{pid}``: the profile's rating, games and latest rated games."""
    return _request("GET", f"{_base_url(server)}/api/profiles/{pid}")


def resolve_profile(
    server: str,
    *,
    create: str | None = None,
    anonymous: bool = False,
    home: Path | None = None,
) -> tuple[StoredProfile | None, str | None]:
    """The profile to play with on ``server``, and a line for the player (or ``None``).

    The stored profile for the server is used. With ``create`` (a name) and no stored profile,
    or a stored one the server no longer knows, a profile is made on the server and stored.
    ``anonymous`` plays without a profile. Raises :class:`OnlineError` (server) or
    :class:`~blink.profile_store.ProfileStoreError` (the file).
    """
    if anonymous:
        return None, None
    base = _base_url(server)
    stored = profile_store.load(base, home)
    if create is None:
        return stored, None
    if stored is not None:
        try:
            fetch_profile(base, stored.id)
        except OnlineError as exc:
            if exc.code != "no_such_profile":
                raise
        else:
            note = None
            if stored.name != create.strip():
                note = f"using your stored profile {stored.name!r} on this server"
            return stored, note
    data = _request("POST", f"{base}/api/profiles", {"name": create})
    made = StoredProfile(
        server=profile_store.server_key(base),
        id=str(data["id"]),
        name=str(data["name"]),
        secret=str(data["secret"]),
    )
    path = profile_store.save(made, home)
    return made, f"profile {made.name!r} created and kept in {path}"


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
        return Outcome.of(data.get("winners", ()), str(data.get("reason", "")))
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
        self._ended = False
        self._votes: list[bool] = []
        self._ids = 0
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
            "names": self.names or tuple(f"Seat {i}" for i in range(self.players)),
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
                return (
                    f"Room {code}: waiting for players. Join with: blink play --server "
                    f"{base} --join {code}  (or open {base}/play/{code})"
                )
            return f"Room {code}: waiting for everyone to connect…"
        if any(self._votes):
            votes = sum(1 for v in self._votes if v)
            return f"Room {code}: rematch asked by {votes} of {len(self._votes)}"
        return f"Room {code}"

    def lag_line(self) -> str:
        """Every measured seat's round trip and jitter, as the server measured them."""
        parts = []
        for seat, figures in enumerate(self.lag):
            if not isinstance(figures, dict):
                continue
            who = "you" if seat in self.local_seats else self._name(seat)
            parts.append(f"{who} {figures.get('rtt_ms')}±{figures.get('jitter_ms')} ms")
        return "lag: " + ", ".join(parts) if parts else ""

    def _name(self, seat: int) -> str:
        return self.names[seat] if seat < len(self.names) else f"Seat {seat}"

    # -- acting -----------------------------------------------------------------------------

    def _next_id(self) -> str:
        self._ids += 1
        return str(self._ids)

    def _send(self, msg: dict[str, Any], quiet: bool = False) -> None:
        ws = self._ws
        if ws is None:
            if not quiet:
                self.notify_player(Notice("not connected to the server", refused=True))
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
            if 0 <= pile < len(self._versions):
                msg["version"] = self._versions[pile]
            self._send(msg)

    def choose(self, seat: int, card: Card) -> None:
        """Send a stall choice."""
        if seat in self.local_seats:
            self._send({"type": "choose", "id": self._next_id(), "card": str(card)})

    def say(self, phrase: str) -> None:
        """Send a quick chat phrase; every connection of the room gets it (this one too)."""
        if self.local_seats and phrase in PHRASES:
            self._send({"type": "chat", "phrase": phrase})

    def rematch(self) -> None:
        """Once the series is over: vote for a new series with the same seats."""
        if self.local_seats and self.series.get("winner") is not None:
            self._send({"type": "rematch", "id": self._next_id()})
            self.notify_player(Notice("rematch asked: waiting for the others"))

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
                    if code in (1000, 4000, 4003, 4004, 4010, 1008, 1009):
                        self._lost(f"the server closed the connection ({code})")
                        return
            except (OSError, WebSocketException, ConnectionClosed, TimeoutError):
                pass
            finally:
                self._ws = None
            if self._closing:
                return
            attempts += 1
            if attempts > 5:
                self._lost("the connection to the server is lost")
                return
            self._lost(f"connection lost: reconnecting (try {attempts} of 5)…")
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
                names.append("You")
            elif info.get("kind") == "bot":
                names.append(str(info.get("bot") or "bot").replace(":", " "))
            else:
                names.append(str(info.get("name") or f"Seat {i}"))
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
        self.notify_player(Notice(refused_words(msg), seat, refused=True))

    def _on_chat(self, msg: dict[str, Any]) -> None:
        seat = msg.get("seat")
        words = PHRASES.get(str(msg.get("phrase")))
        if words is None or not isinstance(seat, int):
            return
        who = self.names[seat] if 0 <= seat < len(self.names) else f"Seat {seat + 1}"
        self.notify_player(Notice(f"{who}: “{words}”"))

    def _on_error(self, msg: dict[str, Any]) -> None:
        self.notify_player(Notice(str(msg.get("message", msg.get("code"))), refused=True))

    def _on_game_end(self, msg: dict[str, Any]) -> None:
        f = msg.get("figures") or {}
        self._figures = Figures(
            time_ms=int(f.get("duration_ms", 0)),
            plays=int(f.get("plays", 0)),
            plays_by_seat=tuple(int(n) for n in f.get("plays_by_seat", [])),
        )
        if isinstance(msg.get("series"), dict):
            self.series = msg["series"]
        self._ended = True
        nxt = msg.get("next_in_ms")
        if nxt is not None:
            self.notify_player(Notice(f"next game in {int(nxt) / 1000:.0f} s"))

    def _on_rematch(self, msg: dict[str, Any]) -> None:
        self._votes = [bool(v) for v in msg.get("votes", [])]

    def _on_left(self, msg: dict[str, Any]) -> None:
        self._closing = True

    def reach(self, seat: int) -> tuple[int, int]:
        """The piles ``seat`` may play on."""
        return reach(self.players, seat)


def refused_words(msg: dict[str, Any]) -> str:
    """A ``refused`` frame in the table's words: a lost race names the card that won the
    pile; anything else is the server's sentence."""
    top = msg.get("top")
    won = _card(top.get("card")) if isinstance(top, dict) else None
    if msg.get("code") == "too_slow" and won is not None and isinstance(top, dict):
        return f"Too slow: {pile_name(int(top.get('pile', 0)))} now has {won.long_name} on top"
    if msg.get("code") == "too_slow":
        return "Too slow: the pile changed first"
    return str(msg.get("message", msg.get("code")))


def _ignore_errors(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


def room_title(code: str, seat: int | None) -> str:
    """The header of an online table: the room and your seat, numbered from one."""
    return f"watching room {code}" if seat is None else f"room {code} · seat {seat + 1}"


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
    return run_seat(seat, name, colorblind, ascii_symbols)


def run_seat(seat: Seat, name: str, colorblind: bool = False, ascii_symbols: bool = False) -> int:
    """Run the app at a prepared seat (its notice to stderr and the table); the exit code."""
    import sys

    from blink.tui.app import BlinkApp

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
