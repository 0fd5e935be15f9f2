"""Tournaments on the server: online (rooms opened for each pairing) and real cards (results
entered by the organiser), stored in the database, with a live state, an export, and the
printable bracket (HTML and PNG from :mod:`blink.bracket`).

The rules are :class:`blink.tournament.Tournament` (pure); this module keeps one per
tournament in memory (:class:`Manager`), stores its JSON after every change (table
``tournaments``, migration 0002), and, for an online tournament that has started, opens a
private room for each ready match (best of 3; the final round's three games in a best of 5
that is closed as soon as the tournament has its three decided games; a three-player
play-off as one game). Each seat's token is the player's profile secret, so players connect
to their match with the secret they already hold. Results come back from the rooms' finished
games (:meth:`Manager.sync`, run by a game-end hook and at start), each game entered once
(its reference is ``ROOM/game-id``).

See docs/protocol.md, "Tournaments and profiles".
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, Field
from sqlalchemy import Column, Connection, Float, Integer, String, Table, Text, select, update

from blink import bracket
from blink.games.classic.rules import get_ruleset
from blink.ratings import Rating, suggest_handicap
from blink.server import storage as st
from blink.server.errors import ProfileError
from blink.server.hub import Hub
from blink.server.profiles import lookup_secret, meta, on_game_end, profiles_by_id
from blink.server.profiles import router as profiles_router
from blink.server.rooms import GameState, Room, Seat, hash_token
from blink.tournament import FORMAT, VERSION, Entrant, MatchKind, Tournament, TournamentError

__all__ = ["Manager", "attach", "install", "tournaments"]

log = logging.getLogger("blink.server.tournaments")

tournaments = Table(
    "tournaments",
    meta,
    Column("id", String(16), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("organiser_hash", String(64), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("version", Integer, nullable=False),
    Column("state", Text, nullable=False),
)

KINDS = ("online", "cards")


def _best_of(kind: MatchKind) -> int:
    if kind is MatchKind.PLAYOFF:
        return 1
    if kind is MatchKind.FINAL_SET:
        return 5
    return 3


def _t_dict(t: Tournament) -> dict[str, Any]:
    if len(t.entrants) >= 2:
        return t.to_dict()
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": t.name,
        "players": [e.to_dict() for e in t.entrants],
        "plan": None,
        "draw": None,
        "results": {},
        "handicaps": {},
        "matches": [],
        "finished": False,
        "champion": None,
        "standings": [],
    }


@dataclass
class Entry:
    """A tournament as the server keeps it."""

    id: str
    kind: str
    organiser_hash: str
    created_at: float
    t: Tournament
    profiles: dict[str, str] = field(default_factory=dict)
    """Player name -> profile id (online)."""
    rooms: dict[str, list[str]] = field(default_factory=dict)
    """Match id -> room codes opened for it, oldest first."""
    started: bool = False
    version: int = 0
    updated_at: float = 0.0

    @property
    def status(self) -> str:
        """``signup``, ``drawn``, ``running`` or ``finished``."""
        if self.t.drawn and len(self.t.entrants) >= 2 and self.t.finished:
            return "finished"
        if self.started:
            return "running"
        return "drawn" if self.t.drawn else "signup"

    def state_json(self) -> str:
        """What is stored."""
        return json.dumps(
            {
                "tournament": _t_dict(self.t),
                "profiles": self.profiles,
                "rooms": self.rooms,
                "started": self.started,
            }
        )

    def view(self) -> dict[str, Any]:
        """The public state (``GET /api/tournaments/{id}``)."""
        td = _t_dict(self.t)
        rooms: dict[str, Any] = {}
        for mid, codes in self.rooms.items():
            code = codes[-1]
            rooms[mid] = {
                "code": code,
                "codes": codes,
                "play_url": f"/play/{code}",
                "watch_url": f"/watch/{code}",
            }
        return {
            "id": self.id,
            "name": self.t.name,
            "kind": self.kind,
            "status": self.status,
            "version": self.version,
            "updated_at": self.updated_at,
            "players": [
                {
                    "name": e.name,
                    "rank": e.rank,
                    "rating": e.rating,
                    "profile": self.profiles.get(e.name),
                }
                for e in self.t.entrants
            ],
            "rooms": rooms,
            "tournament": td,
            "bracket_html": f"/api/tournaments/{self.id}/bracket.html",
            "bracket_png": f"/api/tournaments/{self.id}/bracket.png",
            "export_url": f"/api/tournaments/{self.id}/export",
        }


def _row(e: Entry) -> dict[str, Any]:
    return {
        "id": e.id,
        "name": e.t.name[:64],
        "kind": e.kind,
        "status": e.status,
        "organiser_hash": e.organiser_hash,
        "created_at": e.created_at,
        "updated_at": e.updated_at,
        "version": e.version,
        "state": e.state_json(),
    }


class Manager:
    """Every tournament of one server, kept in memory and stored after each change."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.items: dict[str, Entry] = {}
        self.by_room: dict[str, str] = {}
        self.changed = asyncio.Event()

    # -- storage

    def load(self) -> None:
        """Load every tournament (at start)."""
        with self.hub.storage.engine.connect() as conn:
            rows = conn.execute(select(tournaments)).all()
        for r in rows:
            try:
                data = json.loads(r.state)
                t = Tournament.from_dict(data["tournament"])
            except Exception:
                log.exception("could not load tournament %s", r.id)
                continue
            e = Entry(
                r.id,
                r.kind,
                r.organiser_hash,
                r.created_at,
                t,
                dict(data.get("profiles") or {}),
                {k: list(v) for k, v in (data.get("rooms") or {}).items()},
                bool(data.get("started")),
                r.version,
                r.updated_at,
            )
            self.items[e.id] = e
            for codes in e.rooms.values():
                for c in codes:
                    self.by_room[c] = e.id

    def save(self, e: Entry, insert_row: bool = False) -> Callable[[Connection], None]:
        """Bump the version and return the job that stores the tournament."""
        e.version += 1
        e.updated_at = time.time()
        row = _row(e)
        self.changed.set()
        self.changed = asyncio.Event()

        def job(conn: Connection) -> None:
            if insert_row:
                conn.execute(tournaments.insert().values(**row))
            else:
                conn.execute(update(tournaments).where(tournaments.c.id == row["id"]).values(**row))

        return job

    # -- rooms

    def sync(self, e: Entry) -> bool:
        """Enter the results of finished games of the match rooms; open rooms for ready
        matches; close rooms whose match is decided. True if anything changed."""
        changed = False
        t = e.t
        if not t.drawn:
            return False
        refs = {g.ref for m in t.matches() for g in m.games if g.ref}
        for mid, codes in e.rooms.items():
            for code in codes:
                room = self.hub.rooms.get(code)
                if room is None:
                    continue
                for meta_ in room.games:
                    res = meta_.get("result")
                    if meta_.get("status") != "finished" or not res:
                        continue
                    ref = f"{code}/{meta_['id']}"
                    if ref in refs:
                        continue
                    m = t.match(mid)
                    if m.decided or not m.known:
                        continue
                    names = [room.seats[w].name or "" for w in res["winners"]]
                    try:
                        t.record_game(mid, names, ref)
                    except TournamentError:
                        log.exception("result of %s not entered in %s", ref, e.id)
                        continue
                    refs.add(ref)
                    changed = True
                if (
                    t.match(mid).decided
                    and room.status in ("between", "waiting", "countdown")
                    and (room.game is None or room.game.game.over)
                ):
                    room._cancel_timer()
                    room.set_status("finished")
        if e.started and e.kind == "online":
            for m in t.ready_matches():
                codes = e.rooms.get(m.id, [])
                last = self.hub.rooms.get(codes[-1]) if codes else None
                if last is not None and last.status not in ("finished", "closed"):
                    continue
                opened = self.open_room(e, m.id)
                if opened is not None:
                    e.rooms.setdefault(m.id, []).append(opened)
                    self.by_room[opened] = e.id
                    changed = True
        return changed

    def open_room(self, e: Entry, match_id: str) -> str | None:
        """Open a private room for a match, seats held by the players' profiles."""
        m = e.t.match(match_id)
        names = [p for p in m.players if p is not None]
        ids = [e.profiles.get(n) for n in names]
        if any(i is None for i in ids):
            return None
        rows = profiles_by_id(self.hub, [i for i in ids if i is not None])
        seat_list = []
        for i, (n, pid) in enumerate(zip(names, ids, strict=True)):
            row = rows.get(pid) if pid is not None else None
            if row is None:
                return None
            seat_list.append(Seat(i, "human", name=n, token_hash=row.secret_hash))
        sizes = None
        if m.handicap is not None:
            hc = dict(m.handicap)
            sizes = tuple(hc[n] for n in names)
        h = self.hub
        code = h.new_code()
        best_of = _best_of(m.kind)
        ruleset = get_ruleset("official").name
        room = Room(h, code, len(names), best_of, ruleset, sizes, False, seat_list, time.time())
        h.rooms[code] = room
        h.storage.submit(
            st.job_insert_room(
                {
                    "code": code,
                    "created_at": room.created_at,
                    "players": len(names),
                    "best_of": best_of,
                    "ruleset": ruleset,
                    "sizes": None if sizes is None else json.dumps(list(sizes)),
                    "public": False,
                    "status": "waiting",
                    "series_number": 1,
                },
                [
                    {
                        "room_code": code,
                        "seat": s.seat,
                        "kind": s.kind,
                        "bot": s.bot,
                        "name": s.name,
                        "token_hash": s.token_hash,
                        "left": False,
                    }
                    for s in seat_list
                ],
            )
        )
        return code

    def on_game_end(self, room: Room, _g: GameState) -> None:
        """A game ended: if it belongs to a tournament, bring the tournament up to date.

        Go Blink rooms are ignored: tournaments are classic Blink."""
        if getattr(room, "kind", None) == "goblink":
            return
        tid = self.by_room.get(room.code)
        e = self.items.get(tid) if tid else None
        if e is not None and self.sync(e):
            self.hub.storage.submit(self.save(e))


def _get(mgr: Manager, tid: str) -> Entry:
    e = mgr.items.get(tid)
    if e is None:
        raise ProfileError(404, "no_such_tournament", f"there is no tournament {tid!r}")
    return e


def _organiser(e: Entry, secret: str | None) -> None:
    if not secret or hash_token(secret) != e.organiser_hash:
        raise ProfileError(403, "not_organiser", "only the organiser (with its secret) may do this")


class NewTournament(BaseModel):
    """A tournament to create."""

    name: str = Field("Blink tournament", min_length=1, max_length=64)
    kind: str = Field("online", max_length=16)
    players: list[dict[str, Any]] = Field(default_factory=list, max_length=64)


class OrgAction(BaseModel):
    """An organiser's request (every field optional; each endpoint says which it needs)."""

    organiser_secret: str | None = Field(None, max_length=128)
    profile_secret: str | None = Field(None, max_length=128)
    name: str | None = Field(None, max_length=40)
    rank: int | None = None
    rating: float | None = None
    seed: int | None = None
    match: str | None = Field(None, max_length=32)
    winners: list[str] | None = None
    tie: bool = False
    sizes: dict[str, int] | None = None
    suggest: bool = False


def router(mgr_of: Callable[[], Manager]) -> APIRouter:
    """The tournament endpoints."""
    r = APIRouter()

    async def store(e: Entry, insert_row: bool = False) -> dict[str, Any]:
        mgr = mgr_of()
        mgr.sync(e)
        await mgr.hub.storage.run(mgr.save(e, insert_row))
        return e.view()

    def engine_call(fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except TournamentError as exc:
            raise ProfileError(
                409, exc.code if hasattr(exc, "code") else "refused", str(exc)
            ) from None

    @r.post("/api/tournaments", status_code=201)
    async def create(body: NewTournament) -> dict[str, Any]:
        """Create a tournament; the organiser's secret is returned this once."""
        if body.kind not in KINDS:
            raise ProfileError(400, "bad_kind", f"kind must be one of {', '.join(KINDS)}")
        t = Tournament([], body.name.strip() or "Blink tournament")
        for p in body.players:
            ent = engine_call(lambda p=p: Entrant.from_dict(p))  # type: ignore[misc]
            engine_call(lambda ent=ent: t.add_player(ent))  # type: ignore[misc]
        secret = secrets.token_urlsafe(24)
        e = Entry(secrets.token_hex(5), body.kind, hash_token(secret), time.time(), t)
        mgr_of().items[e.id] = e
        view = await store(e, insert_row=True)
        return {
            "id": e.id,
            "organiser_secret": secret,
            "url": f"/tournament.html?id={e.id}",
            **view,
        }

    @r.get("/api/tournaments")
    async def list_all() -> dict[str, Any]:
        """Every tournament, newest first."""
        items = sorted(mgr_of().items.values(), key=lambda x: x.created_at, reverse=True)
        return {
            "tournaments": [
                {
                    "id": x.id,
                    "name": x.t.name,
                    "kind": x.kind,
                    "status": x.status,
                    "players": len(x.t.entrants),
                    "url": f"/tournament.html?id={x.id}",
                }
                for x in items[:200]
            ]
        }

    @r.get("/api/tournaments/{tid}")
    async def get(tid: str, since: int | None = None, wait: float = 0.0) -> dict[str, Any]:
        """The live state. With ``since`` (a version) and ``wait`` (seconds, at most 25), the
        answer waits until the version is newer (long polling)."""
        mgr = mgr_of()
        e = _get(mgr, tid)
        deadline = asyncio.get_running_loop().time() + max(0.0, min(wait, 25.0))
        while since is not None and e.version <= since:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                break
            try:
                await asyncio.wait_for(mgr.changed.wait(), left)
            except TimeoutError:
                break
        return e.view()

    @r.get("/api/tournaments/{tid}/export")
    async def export(tid: str) -> JSONResponse:
        """The tournament as a blink-tournament JSON file (as `blink tournament` reads)."""
        e = _get(mgr_of(), tid)
        return JSONResponse(
            _t_dict(e.t),
            headers={"Content-Disposition": f'attachment; filename="tournament-{e.id}.json"'},
        )

    @r.get("/api/tournaments/{tid}/bracket.html")
    async def bracket_html(tid: str) -> HTMLResponse:
        """The printable bracket page."""
        e = _get(mgr_of(), tid)
        if len(e.t.entrants) < 2:
            raise ProfileError(409, "too_few_players", "a bracket needs at least two players")
        return HTMLResponse(bracket.render_html(e.t))

    @r.get("/api/tournaments/{tid}/bracket.png")
    async def bracket_png(tid: str) -> Response:
        """The bracket as a PNG image."""
        e = _get(mgr_of(), tid)
        if len(e.t.entrants) < 2:
            raise ProfileError(409, "too_few_players", "a bracket needs at least two players")
        data = await asyncio.to_thread(bracket.render_png, e.t.copy())
        return Response(data, media_type="image/png")

    @r.post("/api/tournaments/{tid}/join")
    async def join(tid: str, body: OrgAction) -> dict[str, Any]:
        """A player signs up with their profile (online tournaments, before the draw)."""
        e = _get(mgr_of(), tid)
        if e.kind != "online":
            raise ProfileError(
                409, "not_online", "players of a real-cards tournament are entered by the organiser"
            )
        prof = (
            lookup_secret(mgr_of().hub, body.profile_secret or "") if body.profile_secret else None
        )
        if prof is None:
            raise ProfileError(400, "no_such_profile", "join with a valid profile_secret")
        if prof["id"] in e.profiles.values():
            raise ProfileError(409, "already_joined", "this profile has already joined")
        rating = Rating(prof["rating"]["mu"], prof["rating"]["sigma"]).ordinal
        engine_call(lambda: e.t.add_player(Entrant(prof["name"], None, float(rating))))
        e.profiles[prof["name"]] = prof["id"]
        return await store(e)

    @r.post("/api/tournaments/{tid}/players")
    async def add_player(tid: str, body: OrgAction) -> dict[str, Any]:
        """The organiser enters a player (name, optional rank or rating) before the draw."""
        e = _get(mgr_of(), tid)
        _organiser(e, body.organiser_secret)
        if body.name is None:
            raise ProfileError(400, "bad_name", "give the player's name")
        name = body.name.strip()
        ent = Entrant(name, body.rank, None if body.rating is None else float(body.rating))
        engine_call(lambda: e.t.add_player(ent))
        if body.profile_secret:
            prof = lookup_secret(mgr_of().hub, body.profile_secret)
            if prof is not None:
                e.profiles[name] = prof["id"]
        return await store(e)

    @r.post("/api/tournaments/{tid}/remove")
    async def remove_player(tid: str, body: OrgAction) -> dict[str, Any]:
        """The organiser removes a player before the draw."""
        e = _get(mgr_of(), tid)
        _organiser(e, body.organiser_secret)
        name = engine_call(lambda: e.t.entrant(body.name or "")).name
        engine_call(lambda: e.t.remove_player(name))
        e.profiles.pop(name, None)
        return await store(e)

    @r.post("/api/tournaments/{tid}/draw")
    async def draw(tid: str, body: OrgAction) -> dict[str, Any]:
        """The organiser draws the first round (from ``seed``, random when not given)."""
        e = _get(mgr_of(), tid)
        _organiser(e, body.organiser_secret)
        seed = body.seed if body.seed is not None else secrets.randbits(31)
        if len(e.t.entrants) < 2:
            raise ProfileError(409, "too_few_players", "a tournament needs at least two players")
        engine_call(lambda: e.t.draw(seed))
        return await store(e)

    @r.post("/api/tournaments/{tid}/start")
    async def start(tid: str, body: OrgAction) -> dict[str, Any]:
        """The organiser starts an online tournament (drawing first if needed): rooms open."""
        e = _get(mgr_of(), tid)
        _organiser(e, body.organiser_secret)
        if e.kind != "online":
            raise ProfileError(409, "not_online", "a real-cards tournament has no rooms to open")
        if not e.t.drawn:
            if len(e.t.entrants) < 2:
                raise ProfileError(
                    409, "too_few_players", "a tournament needs at least two players"
                )
            seed = body.seed if body.seed is not None else secrets.randbits(31)
            engine_call(lambda: e.t.draw(seed))
        e.started = True
        return await store(e)

    @r.post("/api/tournaments/{tid}/result")
    async def result(tid: str, body: OrgAction) -> dict[str, Any]:
        """The organiser enters one game's result: ``winners`` (one name, several for a tie)
        or ``tie: true``."""
        e = _get(mgr_of(), tid)
        _organiser(e, body.organiser_secret)
        mid = body.match or ""
        if body.tie:
            engine_call(lambda: e.t.record_tie(mid, "organiser"))
        else:
            engine_call(lambda: e.t.record_game(mid, body.winners or [], "organiser"))
        return await store(e)

    @r.post("/api/tournaments/{tid}/undo")
    async def undo(tid: str, body: OrgAction) -> dict[str, Any]:
        """The organiser takes back the last game they entered in a match (not a game that was
        played in a room: the room's record would enter it again)."""
        e = _get(mgr_of(), tid)
        _organiser(e, body.organiser_secret)
        m = engine_call(lambda: e.t.match(body.match or ""))
        if m.games and m.games[-1].ref not in (None, "organiser"):
            raise ProfileError(409, "played_online", "a game played in a room cannot be taken back")
        engine_call(lambda: e.t.undo_game(body.match or ""))
        return await store(e)

    @r.post("/api/tournaments/{tid}/handicap")
    async def handicap(tid: str, body: OrgAction) -> dict[str, Any]:
        """The organiser sets a match's handicap: ``sizes`` by name, ``null`` for an equal
        deal, or ``suggest: true`` for the one suggested from the players' ratings."""
        e = _get(mgr_of(), tid)
        _organiser(e, body.organiser_secret)
        mid = body.match or ""
        sizes = body.sizes
        if body.suggest:
            m = engine_call(lambda: e.t.match(mid))
            names = [p for p in m.players if p is not None]
            if len(names) != 2:
                raise ProfileError(409, "no_suggestion", "a handicap is suggested for two players")
            rows = profiles_by_id(mgr_of().hub, [e.profiles[n] for n in names if n in e.profiles])
            rs = []
            for n in names:
                row = rows.get(e.profiles.get(n, ""))
                rs.append(
                    Rating(row.mu, row.sigma)
                    if row is not None
                    else Rating(e.t.entrant(n).rating or 25.0, 1.0)
                )
            hc = suggest_handicap(rs[0], rs[1])
            sizes = None if hc.sizes is None else dict(zip(names, hc.sizes, strict=True))
        engine_call(lambda: e.t.set_handicap(mid, sizes))
        return await store(e)

    return r


async def attach(hub: Hub) -> None:
    """At start: load tournaments, hook game ends (ratings, tournament results), catch up."""
    mgr = Manager(hub)
    await asyncio.to_thread(mgr.load)
    hub.tournaments = mgr  # type: ignore[attr-defined]
    hub.game_end_hooks.append(on_game_end)
    hub.game_end_hooks.append(mgr.on_game_end)
    for e in mgr.items.values():
        if mgr.sync(e):
            hub.storage.submit(mgr.save(e))


def install(app: FastAPI, hub: Callable[[], Hub]) -> None:
    """Add the profile, leaderboard and tournament endpoints to ``app`` (their errors are
    answered by :func:`blink.server.errors.install`)."""

    def mgr() -> Manager:
        m: Manager = hub().tournaments  # type: ignore[attr-defined]
        return m

    app.include_router(profiles_router(hub))
    app.include_router(router(mgr))
