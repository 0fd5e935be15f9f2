"""A tournament as the server keeps it (:class:`Entry`): the tournament of the rules
(:class:`blink.tournament.Tournament`, pure) and what the server adds to it (the players'
profiles, the match rooms, the deadlines, who may enter), as it is stored (its JSON) and as the
endpoints show it (:meth:`Entry.view`, :func:`summary`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from blink.tournament import Tournament
from blink.tournament.playing import has_deal_rules

__all__ = ["KINDS", "Entry", "summary", "tournament_dict"]

KINDS = ("online", "cards")
"""The kinds of tournament: ``online`` (a room opened for each pairing) and ``cards`` (real
cards, the results entered by the organiser)."""


def tournament_dict(t: Tournament) -> dict[str, Any]:
    """The tournament's JSON document (as ``blink tournament`` reads it), also before it has
    two players (:meth:`Tournament.to_dict` has no plan for it yet)."""
    return t.to_dict()


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
    touched: float = 0.0
    """When it was last asked for or changed (``Settings.clock``)."""
    no_show_after: float | None = None
    """Seconds a match room waits for its players before those not there forfeit
    (``None``: no deadline)."""
    opened: dict[str, float] = field(default_factory=dict)
    """Room code -> when it was opened (``Settings.wall_clock``), for the no-show deadline."""
    claims: dict[str, str] = field(default_factory=dict)
    """Player name -> the claim token of a player entered by name without a profile."""
    check_in_closes: float | None = None
    """When check-in closes (``Settings.wall_clock``; ``None``: when the organiser draws)."""
    draw_at_close: bool = False
    """Make the draw when check-in closes (on the sweeps), over the players who checked in."""
    entrants: str = "people"
    """Who may enter: ``people``, or ``bots`` (bot accounts only, docs/bot-api.md)."""

    def drop_left(self) -> None:
        """Forget the profiles and claims of players no longer in the field (after a draw
        over those who checked in)."""
        present = {x.name for x in self.t.entrants}
        for name in [n for n in self.profiles if n not in present]:
            del self.profiles[name]
        for name in [n for n in self.claims if n not in present]:
            del self.claims[name]

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
                "tournament": tournament_dict(self.t),
                "profiles": self.profiles,
                "rooms": self.rooms,
                "started": self.started,
                "no_show_after": self.no_show_after,
                "opened": self.opened,
                "claims": self.claims,
                "check_in_closes": self.check_in_closes,
                "draw_at_close": self.draw_at_close,
                "entrants": self.entrants,
            }
        )

    def view(self) -> dict[str, Any]:
        """The public state (``GET /api/tournaments/{id}``)."""
        td = tournament_dict(self.t)
        rooms: dict[str, Any] = {}
        for mid, codes in self.rooms.items():
            code = codes[-1]
            opened = self.opened.get(code)
            rooms[mid] = {
                "code": code,
                "codes": codes,
                "play_url": f"/play/{code}",
                "watch_url": f"/watch/{code}",
                "opened_at": opened,
                "no_show_at": None
                if opened is None or self.no_show_after is None
                else opened + self.no_show_after,
            }
        return {
            "id": self.id,
            "name": self.t.name,
            "game": self.t.game,
            "handicaps": has_deal_rules(self.t.game),
            "kind": self.kind,
            "entrants": self.entrants,
            "status": self.status,
            "version": self.version,
            "updated_at": self.updated_at,
            "players": [
                {
                    "name": e.name,
                    "rank": e.rank,
                    "rating": e.rating,
                    "profile": self.profiles.get(e.name),
                    "claimable": e.name in self.claims,
                    "bot": self.entrants == "bots",
                    "withdrawn": e.name in self.t.withdrawn,
                    "checked_in": None
                    if self.t.checked_in is None
                    else e.name in self.t.checked_in,
                }
                for e in self.t.entrants
            ],
            "no_show_after": self.no_show_after,
            "check_in": {
                "open": self.t.check_in_open,
                "players": self.t.checked_in,
                "closes_at": self.check_in_closes,
                "draw_at_close": self.draw_at_close,
            },
            "changes": [c.to_dict() for c in self.t.changes],
            "rooms": rooms,
            "tournament": td,
            "bracket_html": f"/api/tournaments/{self.id}/bracket.html",
            "bracket_png": f"/api/tournaments/{self.id}/bracket.png",
            "export_url": f"/api/tournaments/{self.id}/export",
        }


def summary(
    tid: str, name: str, game: str, kind: str, status: str, players: int, who: str
) -> dict[str, Any]:
    """A tournament as ``GET /api/tournaments`` lists it (``game``: its game's registry name,
    ``who``: its entrants)."""
    url = f"/tournament.html?id={tid}"
    out = {"id": tid, "name": name, "game": game, "kind": kind, "status": status}
    return {**out, "players": players, "entrants": who, "url": url}
