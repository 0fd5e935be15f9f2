"""The no-show deadline of online tournaments, and the draw at the close of check-in, on the
server's sweeps.

A tournament created with ``no_show_after`` (seconds) gives each match room that long, from
when it opened (``Settings.wall_clock``), for its players to come: once the deadline passes
with no game started, the players who never connected forfeit the match (a walkover to the
one who came; a double forfeit when nobody did: :meth:`blink.tournament.Tournament.forfeit`),
the room is closed and the next rooms open. The check runs on the hub's sweeps
(:meth:`Manager.check_no_shows <blink.server.tournaments.manager.Manager.check_no_shows>`) on
a single node, and in the organiser's periodic check on a cluster
(:meth:`Manager.organise <blink.server.tournaments.manager.Manager.organise>`), over the match rooms
the node serves. See docs/rules.md, "Withdrawals and no-shows".
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING

from blink.tournament import TournamentError

if TYPE_CHECKING:
    from blink.server.room.room import Room
    from blink.server.tournaments.entry import Entry

__all__ = ["CHECK_IN_BY", "NO_SHOW_BY", "draw_at_close", "no_shows"]

log = logging.getLogger("blink.server.tournaments")

NO_SHOW_BY = "no-show deadline"
"""Who the audit trail says entered a forfeit of the deadline."""
CHECK_IN_BY = "check-in window"
"""Who the audit trail says made a draw at the close of check-in."""


def draw_at_close(e: Entry, now: float) -> bool:
    """Make ``e``'s draw if its check-in window closed at ``now`` and the organiser asked for
    the draw then (a random seed, recorded); True if it was made. Fewer than two players
    checked in: no draw (logged), check-in stays closed to players and the organiser decides."""
    closes = e.check_in_closes
    if not e.draw_at_close or closes is None or now < closes or not e.t.check_in_open:
        return False
    e.draw_at_close = False
    try:
        e.t.draw(secrets.randbits(31), CHECK_IN_BY, now)
    except TournamentError:
        log.warning("no draw at the close of check-in of %s", e.id, exc_info=True)
        return True  # the flag changed: stored
    e.drop_left()
    return True


def no_shows(room_of: Callable[[str], Room | None], e: Entry, now: float) -> bool:
    """Enter the forfeits of ``e``'s match rooms whose deadline passed at ``now`` with no
    game started (``room_of``: a match room by its code, when this node serves it); True if
    any was entered."""
    if e.no_show_after is None or not e.started or e.kind != "online" or not e.t.drawn:
        return False
    changed = False
    for m in e.t.ready_matches():
        codes = e.rooms.get(m.id)
        if not codes or m.games:
            continue
        code = codes[-1]
        opened = e.opened.get(code)
        room = room_of(code)
        if opened is None or room is None or now < opened + e.no_show_after:
            continue
        if room.games or room.status not in ("waiting",):
            continue
        absent = [s.name for s in room.seats if s.kind == "human" and not s.connected_once]
        if not absent:
            continue
        names = [n for n in absent if n is not None]
        try:
            e.t.forfeit(m.id, names, by=NO_SHOW_BY, at=now, note="no-show")
        except TournamentError:
            log.exception("no-show forfeit of %s not entered in %s", m.id, e.id)
            continue
        changed = True
    return changed
