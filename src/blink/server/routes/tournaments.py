"""The tournament endpoints: ``/api/tournaments`` (creating, signing up, the organiser's
requests, the state and its event stream, the export and the printable bracket).

The tournaments themselves are kept by :class:`blink.server.tournaments.manager.Manager`; each
request that changes one stores it (and syncs its rooms) before it is answered. Refusals are
:class:`~blink.server.errors.ProfileError`; a refusal of the tournament engine is ``409``.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from typing import Any, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, Field

from blink.model.registry import DEFAULT_GAME, NoTable, UnknownGame, game
from blink.ratings import Rating, suggest_handicap
from blink.server.bus import TOURNAMENTS, Event, Resync, TournamentChanged
from blink.server.errors import ProfileError
from blink.server.profiles import lookup_secret, profiles_by_id
from blink.server.room.room import hash_token
from blink.server.routes.bot_entrants import Entrants, check_entrant, secret_of, you
from blink.server.routes.bots import BotDep
from blink.server.routes.deps import ManagerDep, WritableManagerDep, check_room_creation
from blink.server.sse import event_stream, frame, last_event_id
from blink.server.tournaments.entry import KINDS, Entry, tournament_dict
from blink.server.tournaments.fences import TournamentFenced, refused
from blink.server.tournaments.manager import Manager
from blink.tournament import Entrant, GameError, Tournament, TournamentError, bracket
from blink.tournament.playing import deal_rules

__all__ = ["NewTournament", "OrgAction", "router"]

router = APIRouter()


async def _get(mgr: Manager, tid: str, change: bool = False) -> Entry:
    """Tournament ``tid`` (``404`` if none); to ``change`` it on a cluster node, as stored
    (another node may have changed it)."""
    e = await mgr.fresh(tid, None) if change and mgr.hub.leases.shared else await mgr.get(tid)
    if e is None:
        raise ProfileError(404, "no_such_tournament", f"there is no tournament {tid!r}")
    return e


def claim_url(e: Entry, name: str) -> str:
    """The link that gives a name-only player's seat to the profile that opens it."""
    return f"/tournament.html?id={e.id}&claim={e.claims[name]}"


def _claimable(e: Entry, name: str) -> None:
    """A player of an online tournament entered by name without a profile gets a claim."""
    if e.kind == "online" and name not in e.profiles and name not in e.claims:
        e.claims[name] = secrets.token_urlsafe(18)


def _by(body: OrgAction, default: str = "organiser") -> str:
    """Who the audit trail says made a change."""
    return (body.by or "").strip() or default


def _organiser(e: Entry, secret: str | None) -> None:
    if not secret or hash_token(secret) != e.organiser_hash:
        raise ProfileError(403, "not_organiser", "only the organiser (with its secret) may do this")


class NewTournament(BaseModel):
    """A tournament to create."""

    name: str = Field("Blink tournament", min_length=1, max_length=64)
    game: str = Field(DEFAULT_GAME, min_length=1, max_length=32)
    """The registered game its matches are played in (docs/new-game.md)."""
    kind: str = Field("online", max_length=16)
    players: list[dict[str, Any]] = Field(default_factory=list, max_length=64)
    no_show_after: float | None = Field(None, gt=0, le=7 * 24 * 3600)
    """Seconds a match room waits for its players before those not there forfeit."""
    entrants: Entrants = "people"
    """Who may enter: people, or bot accounts only (a bot tournament, online)."""


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
    players: list[str] | None = Field(None, max_length=4)
    game: int | None = None
    claim: str | None = Field(None, max_length=128)
    minutes: float | None = Field(None, gt=0, le=7 * 24 * 60)
    by: str | None = Field(None, max_length=40)
    note: str | None = Field(None, max_length=200)
    draw_at_close: bool = False


async def _store(mgr: Manager, e: Entry, insert_row: bool = False) -> dict[str, Any]:
    """Sync the tournament's rooms (if this node organises it: on a cluster, the node that
    holds its lease; the change's event tells that node otherwise), store it and answer its
    view. On a cluster, ``409 tournament_changed`` when another node stored it meanwhile, or
    when a match room this node has in memory is served by another node now (its lease
    moved: :mod:`blink.server.tournaments.fences`)."""
    if mgr.organises(e.id):
        shared = mgr.hub.leases.shared
        mgr.sync(e, await asyncio.to_thread(mgr.stored_rooms, e) if shared else None)
    job = mgr.save(e, insert_row)
    try:
        stored = await mgr.hub.storage.run(job)
    except Exception:
        if mgr.hub.leases.shared:
            mgr.forget(e.id)  # not stored: read it back from its row next time
        raise
    if isinstance(stored, TournamentFenced):
        refused(mgr.hub, stored)  # the rooms whose leases moved leave this node's memory
        mgr.forget(e.id)
        raise ProfileError(
            409,
            "tournament_changed",
            "a match room of the tournament moved to another server meanwhile: please try again",
        )
    if not stored:
        mgr.forget(e.id)
        raise ProfileError(
            409, "tournament_changed", "the tournament changed meanwhile: please try again"
        )
    mgr.published(e)(None)
    return e.view()


def _engine_call(fn: Callable[[], Any]) -> Any:
    """``fn()``, with a refusal of the tournament engine answered as ``409``."""
    try:
        return fn()
    except TournamentError as exc:
        raise ProfileError(409, exc.code if hasattr(exc, "code") else "refused", str(exc)) from None


def _playable(name: str, kind: str) -> None:
    """A tournament may be of the game ``name``: it is registered (``400 unknown_game``) and,
    for an online tournament, it has a live table for its match rooms (``400 no_table``)."""
    try:
        found = game(name)
        if kind == "online":
            found.table  # noqa: B018 (imported here: a game without one raises NoTable)
    except UnknownGame as exc:
        raise ProfileError(400, "unknown_game", str(exc)) from None
    except NoTable as exc:
        raise ProfileError(400, "no_table", str(exc)) from None


@router.post("/api/tournaments", status_code=201, dependencies=[Depends(check_room_creation)])
async def create(mgr: WritableManagerDep, body: NewTournament) -> dict[str, Any]:
    """Create a tournament; the organiser's secret is returned this once."""
    if body.kind not in KINDS:
        raise ProfileError(400, "bad_kind", f"kind must be one of {', '.join(KINDS)}")
    if body.entrants == "bots" and (body.kind != "online" or body.players):
        raise ProfileError(
            400,
            "bot_tournament_setup",
            "a bot tournament is online, and its bots enter it themselves with their tokens",
        )
    _playable(body.game, body.kind)
    try:
        t = Tournament([], body.name.strip() or "Blink tournament", body.game)
    except GameError as exc:  # its player range seats no match of a tournament
        raise ProfileError(400, exc.code, str(exc)) from None
    for p in body.players:
        ent = _engine_call(lambda p=p: Entrant.from_dict(p))  # type: ignore[misc]
        _engine_call(lambda ent=ent: t.add_player(ent))  # type: ignore[misc]
    secret = secrets.token_urlsafe(24)
    e = Entry(secrets.token_hex(5), body.kind, hash_token(secret), time.time(), t)
    e.no_show_after = body.no_show_after
    e.entrants = body.entrants
    for ent in t.entrants:
        _claimable(e, ent.name)
    mgr.add(e)
    view = await _store(mgr, e, insert_row=True)
    return {
        "id": e.id,
        "organiser_secret": secret,
        "url": f"/tournament.html?id={e.id}",
        **view,
    }


@router.get("/api/tournaments")
async def list_all(mgr: ManagerDep) -> dict[str, Any]:
    """Every tournament, newest first (the 200 newest)."""
    rows = await asyncio.to_thread(mgr.newest, 200)
    return {"tournaments": mgr.listing(rows, 200)}


@router.get("/api/tournaments/{tid}")
async def get(mgr: ManagerDep, tid: str, bot: BotDep) -> dict[str, Any]:
    """The live state (its changes are pushed by ``GET /api/tournaments/{tid}/events``); asked
    with a bot's token, also ``you``: the bot's name in it."""
    e = await _get(mgr, tid)
    return {**e.view(), **you(e, bot)}


class _TournamentSource:
    """A tournament's stream: its state now (unless the browser already has this version:
    ``Last-Event-ID``), then its state at each new version."""

    def __init__(self, mgr: Manager, tid: str, last: str | None) -> None:
        self.mgr = mgr
        self.tid = tid
        self.sent = int(last) if last is not None and last.isdigit() else None

    def _frame(self, e: Entry) -> list[bytes]:
        if e.version == self.sent:
            return []
        self.sent = e.version
        return [frame("tournament", e.view(), e.version)]

    async def start(self) -> list[bytes]:
        e = await self.mgr.get(self.tid)
        return [] if e is None else self._frame(e)

    async def changed(self, events: list[Event]) -> list[bytes]:
        resync = any(isinstance(ev, Resync) for ev in events)
        versions = [
            ev.version for ev in events if isinstance(ev, TournamentChanged) and ev.id == self.tid
        ]
        if not resync and not versions:
            return []
        # After a resync, the stored one is looked at (changes may have been missed).
        newest = None if resync else max(versions)
        e = await self.mgr.fresh(self.tid, newest)
        if e is None or (self.sent is not None and e.version < self.sent):
            return []
        return self._frame(e)


@router.get("/api/tournaments/{tid}/events")
async def events(mgr: ManagerDep, tid: str, request: Request) -> Response:
    """The tournament's event stream (Server-Sent Events): ``tournament`` frames, each the
    whole state with its version as the event id."""
    await _get(mgr, tid)
    sub = mgr.hub.bus.subscribe(TOURNAMENTS)
    return event_stream(request, sub, _TournamentSource(mgr, tid, last_event_id(request)))


@router.get("/api/tournaments/{tid}/export")
async def export(mgr: ManagerDep, tid: str) -> JSONResponse:
    """The tournament as a blink-tournament JSON file (as `blink tournament` reads)."""
    e = await _get(mgr, tid)
    return JSONResponse(
        tournament_dict(e.t),
        headers={"Content-Disposition": f'attachment; filename="tournament-{e.id}.json"'},
    )


BracketLang = Literal["en", "es"]
"""The languages of the printable bracket (:data:`blink.tournament.bracket.LANGS`)."""


@router.get("/api/tournaments/{tid}/bracket.html")
async def bracket_html(mgr: ManagerDep, tid: str, lang: BracketLang = "en") -> HTMLResponse:
    """The printable bracket page, in English or Spanish (``?lang=es``)."""
    e = await _get(mgr, tid)
    if len(e.t.entrants) < 2:
        raise ProfileError(409, "too_few_players", "a bracket needs at least two players")
    return HTMLResponse(bracket.render_html(e.t, lang))


@router.get("/api/tournaments/{tid}/bracket.png")
async def bracket_png(mgr: ManagerDep, tid: str, lang: BracketLang = "en") -> Response:
    """The bracket as a PNG image, in English or Spanish (``?lang=es``)."""
    e = await _get(mgr, tid)
    if len(e.t.entrants) < 2:
        raise ProfileError(409, "too_few_players", "a bracket needs at least two players")
    data = await asyncio.to_thread(bracket.render_png, e.t.copy(), 150, lang)
    return Response(data, media_type="image/png")


@router.post("/api/tournaments/{tid}/join")
async def join(mgr: WritableManagerDep, tid: str, body: OrgAction, bot: BotDep) -> dict[str, Any]:
    """A player signs up with their profile (online tournaments, before the draw); a bot
    account with its token (``Authorization: Bearer``), in a bot tournament only."""
    e = await _get(mgr, tid, change=True)
    if e.kind != "online":
        raise ProfileError(
            409, "not_online", "players of a real-cards tournament are entered by the organiser"
        )
    secret = secret_of(bot, body.profile_secret)
    prof = lookup_secret(mgr.hub, secret) if secret else None
    if prof is None:
        raise ProfileError(400, "no_such_profile", "join with a valid profile_secret")
    check_entrant(mgr.hub, e, prof["id"])
    if prof["id"] in e.profiles.values():
        raise ProfileError(409, "already_joined", "this profile has already joined")
    rating = Rating(prof["rating"]["mu"], prof["rating"]["sigma"]).ordinal
    _engine_call(lambda: e.t.add_player(Entrant(prof["name"], None, float(rating))))
    name = e.t.entrant(prof["name"]).name
    e.profiles[name] = prof["id"]
    return {**await _store(mgr, e), **you(e, bot)}


@router.post("/api/tournaments/{tid}/players")
async def add_player(mgr: WritableManagerDep, tid: str, body: OrgAction) -> dict[str, Any]:
    """The organiser enters a player (name, optional rank or rating) before the draw."""
    e = await _get(mgr, tid, change=True)
    _organiser(e, body.organiser_secret)
    if body.name is None:
        raise ProfileError(400, "bad_name", "give the player's name")
    name = body.name.strip()
    prof = lookup_secret(mgr.hub, body.profile_secret) if body.profile_secret else None
    check_entrant(mgr.hub, e, None if prof is None else prof["id"])
    ent = Entrant(name, body.rank, None if body.rating is None else float(body.rating))
    _engine_call(lambda: e.t.add_player(ent))
    name = e.t.entrant(name).name
    if prof is not None:
        e.profiles[name] = prof["id"]
    _claimable(e, name)
    view = await _store(mgr, e)
    if name in e.claims:
        view["claim_url"] = claim_url(e, name)
    return view


@router.post("/api/tournaments/{tid}/remove")
async def remove_player(mgr: WritableManagerDep, tid: str, body: OrgAction) -> dict[str, Any]:
    """The organiser removes a player before the draw."""
    e = await _get(mgr, tid, change=True)
    _organiser(e, body.organiser_secret)
    name = _engine_call(lambda: e.t.entrant(body.name or "")).name
    _engine_call(lambda: e.t.remove_player(name))
    e.profiles.pop(name, None)
    e.claims.pop(name, None)
    return await _store(mgr, e)


@router.post("/api/tournaments/{tid}/draw")
async def draw(mgr: WritableManagerDep, tid: str, body: OrgAction) -> dict[str, Any]:
    """The organiser draws the first round (from ``seed``, random when not given)."""
    e = await _get(mgr, tid, change=True)
    _organiser(e, body.organiser_secret)
    seed = body.seed if body.seed is not None else secrets.randbits(31)
    if len(e.t.entrants) < 2:
        raise ProfileError(409, "too_few_players", "a tournament needs at least two players")
    _draw(mgr, e, seed, body)
    return await _store(mgr, e)


def _draw(mgr: Manager, e: Entry, seed: int, body: OrgAction) -> None:
    """Make the draw (over the players who checked in, when check-in is open)."""
    _engine_call(lambda: e.t.draw(seed, _by(body), mgr.hub.settings.wall_clock()))
    e.draw_at_close = False  # drawn now: nothing left for the close of check-in
    e.drop_left()


@router.post("/api/tournaments/{tid}/start")
async def start(mgr: WritableManagerDep, tid: str, body: OrgAction) -> dict[str, Any]:
    """The organiser starts an online tournament (drawing first if needed): rooms open."""
    e = await _get(mgr, tid, change=True)
    _organiser(e, body.organiser_secret)
    if e.kind != "online":
        raise ProfileError(409, "not_online", "a real-cards tournament has no rooms to open")
    if not e.t.drawn:
        if len(e.t.entrants) < 2:
            raise ProfileError(409, "too_few_players", "a tournament needs at least two players")
        seed = body.seed if body.seed is not None else secrets.randbits(31)
        _draw(mgr, e, seed, body)
    e.started = True
    return await _store(mgr, e)


@router.post("/api/tournaments/{tid}/result")
async def result(mgr: WritableManagerDep, tid: str, body: OrgAction) -> dict[str, Any]:
    """The organiser enters one game's result: ``winners`` (one name, several for a tie)
    or ``tie: true``."""
    e = await _get(mgr, tid, change=True)
    _organiser(e, body.organiser_secret)
    mid = body.match or ""
    if body.tie:
        _engine_call(lambda: e.t.record_tie(mid, "organiser"))
    else:
        _engine_call(lambda: e.t.record_game(mid, body.winners or [], "organiser"))
    return await _store(mgr, e)


@router.post("/api/tournaments/{tid}/undo")
async def undo(mgr: WritableManagerDep, tid: str, body: OrgAction) -> dict[str, Any]:
    """The organiser takes back the last game they entered in a match (not a game that was
    played in a room: the room's record would enter it again)."""
    e = await _get(mgr, tid, change=True)
    _organiser(e, body.organiser_secret)
    m = _engine_call(lambda: e.t.match(body.match or ""))
    if m.games and m.games[-1].ref not in (None, "organiser"):
        raise ProfileError(409, "played_online", "a game played in a room cannot be taken back")
    now = mgr.hub.settings.wall_clock()
    _engine_call(lambda: e.t.undo_game(body.match or "", _by(body), now))
    return await _store(mgr, e)


@router.post("/api/tournaments/{tid}/handicap")
async def handicap(mgr: WritableManagerDep, tid: str, body: OrgAction) -> dict[str, Any]:
    """The organiser sets a match's handicap: ``sizes`` by name, ``null`` for an equal
    deal, or ``suggest: true`` for the one suggested from the players' ratings."""
    e = await _get(mgr, tid, change=True)
    _organiser(e, body.organiser_secret)
    mid = body.match or ""
    sizes = body.sizes
    if body.suggest:
        deals = _engine_call(lambda: deal_rules(e.t.game))
        m = _engine_call(lambda: e.t.match(mid))
        names = [p for p in m.players if p is not None]
        if len(names) != 2:
            raise ProfileError(409, "no_suggestion", "a handicap is suggested for two players")
        rows = profiles_by_id(mgr.hub, [e.profiles[n] for n in names if n in e.profiles])
        rs = []
        for n in names:
            row = rows.get(e.profiles.get(n, ""))
            rs.append(
                Rating(row.mu, row.sigma)
                if row is not None
                else Rating(e.t.entrant(n).rating or 25.0, 1.0)
            )
        hc = suggest_handicap(rs[0], rs[1], deals.deck_size)
        sizes = None if hc.sizes is None else dict(zip(names, hc.sizes, strict=True))
    _engine_call(lambda: e.t.set_handicap(mid, sizes))
    return await _store(mgr, e)


# -- withdrawals, forfeits, corrections, check-in and claims


@router.post("/api/tournaments/{tid}/withdraw")
async def withdraw(
    mgr: WritableManagerDep, tid: str, body: OrgAction, bot: BotDep
) -> dict[str, Any]:
    """A player withdraws after the draw: the organiser names them (``name``), or the player
    withdraws themselves with their ``profile_secret`` (a bot: its token). The rest of their
    matches are walkovers."""
    e = await _get(mgr, tid, change=True)
    if body.organiser_secret:
        _organiser(e, body.organiser_secret)
        name = _engine_call(lambda: e.t.entrant(body.name or "")).name
        by = _by(body)
    else:
        secret = secret_of(bot, body.profile_secret)
        prof = lookup_secret(mgr.hub, secret) if secret else None
        name = next((n for n, pid in e.profiles.items() if prof and pid == prof["id"]), "")
        if not name:
            raise ProfileError(
                403, "not_organiser", "only the organiser or the player may withdraw a player"
            )
        by = name
    now = mgr.hub.settings.wall_clock()
    _engine_call(lambda: e.t.withdraw(name, by, now, body.note))
    return await _store(mgr, e)


@router.post("/api/tournaments/{tid}/forfeit")
async def forfeit(mgr: WritableManagerDep, tid: str, body: OrgAction) -> dict[str, Any]:
    """The organiser enters a no-show: ``players`` of ``match`` forfeit it (a walkover; a
    double forfeit when all of them do)."""
    e = await _get(mgr, tid, change=True)
    _organiser(e, body.organiser_secret)
    if not body.players:
        raise ProfileError(400, "no_player", "name the players who forfeit the match")
    players = body.players
    now = mgr.hub.settings.wall_clock()
    _engine_call(lambda: e.t.forfeit(body.match or "", players, _by(body), now, body.note))
    return await _store(mgr, e)


@router.post("/api/tournaments/{tid}/correct")
async def correct(mgr: WritableManagerDep, tid: str, body: OrgAction) -> dict[str, Any]:
    """The organiser corrects game ``game`` (1 = the first) of ``match``: its winners become
    ``winners`` (every player of the match with ``tie: true``). Kept in the audit trail."""
    e = await _get(mgr, tid, change=True)
    _organiser(e, body.organiser_secret)
    m = _engine_call(lambda: e.t.match(body.match or ""))
    winners = [p for p in m.players if p is not None] if body.tie else (body.winners or [])
    if body.game is None:
        raise ProfileError(400, "no_such_game", "say which game to correct (1 = the first)")
    game = body.game
    now = mgr.hub.settings.wall_clock()
    _engine_call(lambda: e.t.correct_game(m.id, game, winners, _by(body), now, body.note))
    return await _store(mgr, e)


@router.post("/api/tournaments/{tid}/check-in/open")
async def open_check_in(mgr: WritableManagerDep, tid: str, body: OrgAction) -> dict[str, Any]:
    """The organiser opens check-in before the draw (for ``minutes``, or until the draw):
    the draw is then made over the players who checked in; with ``draw_at_close`` the server
    makes it when check-in closes."""
    e = await _get(mgr, tid, change=True)
    _organiser(e, body.organiser_secret)
    if body.draw_at_close and body.minutes is None:
        raise ProfileError(400, "no_closing_time", "a draw at the close needs minutes")
    _engine_call(e.t.open_check_in)
    now = mgr.hub.settings.wall_clock()
    e.check_in_closes = None if body.minutes is None else now + body.minutes * 60
    e.draw_at_close = body.draw_at_close
    return await _store(mgr, e)


@router.post("/api/tournaments/{tid}/check-in")
async def check_in(
    mgr: WritableManagerDep, tid: str, body: OrgAction, bot: BotDep
) -> dict[str, Any]:
    """A player checks in with their ``profile_secret`` (a bot: its token), or the organiser
    checks in a player by ``name`` (a player at the venue without a profile)."""
    e = await _get(mgr, tid, change=True)
    if body.organiser_secret:
        _organiser(e, body.organiser_secret)
        name = body.name or ""
    else:
        secret = secret_of(bot, body.profile_secret)
        prof = lookup_secret(mgr.hub, secret) if secret else None
        name = next((n for n, pid in e.profiles.items() if prof and pid == prof["id"]), "")
        if not name:
            raise ProfileError(
                403, "not_in_tournament", "check in with the profile you signed up with"
            )
        closes = e.check_in_closes
        if closes is not None and mgr.hub.settings.wall_clock() >= closes:
            raise ProfileError(409, "check-in-closed", "check-in is closed")
    _engine_call(lambda: e.t.check_in(name))
    return await _store(mgr, e)


@router.post("/api/tournaments/{tid}/claims")
async def claims(mgr: ManagerDep, tid: str, body: OrgAction) -> dict[str, Any]:
    """The organiser's claim links: one for each player entered by name without a profile."""
    e = await _get(mgr, tid)
    _organiser(e, body.organiser_secret)
    return {"claims": {n: claim_url(e, n) for n in e.claims}}


@router.post("/api/tournaments/{tid}/claim")
async def claim(mgr: WritableManagerDep, tid: str, body: OrgAction) -> dict[str, Any]:
    """A player opens their claim link: the seat entered by name becomes their profile's
    (``claim`` and ``profile_secret``); the link works once."""
    e = await _get(mgr, tid, change=True)
    prof = lookup_secret(mgr.hub, body.profile_secret or "") if body.profile_secret else None
    if prof is None:
        raise ProfileError(400, "no_such_profile", "claim the seat with a valid profile_secret")
    check_entrant(mgr.hub, e, prof["id"])
    token = body.claim or ""
    name = next((n for n, c in e.claims.items() if secrets.compare_digest(c, token)), None)
    if name is None:
        raise ProfileError(404, "no_such_claim", "this claim link is not valid (or was used)")
    if prof["id"] in e.profiles.values():
        raise ProfileError(409, "already_joined", "this profile already plays in the tournament")
    del e.claims[name]
    e.profiles[name] = prof["id"]
    return await _store(mgr, e)
