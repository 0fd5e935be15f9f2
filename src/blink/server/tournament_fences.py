"""Fenced tournament writes on a cluster: what a node takes from match rooms in its memory
is stored only while it still holds those rooms' leases.

A tournament's row is written by whichever node organises it (its periodic check, a match's
end) or answers an organiser's request. Two things keep such a write honest:

- its **version**: the row is updated only if it is still at the version the node read
  (:meth:`Manager.save <blink.server.tournaments.Manager.save>`), so no write is lost and none
  is made over a state the node did not see;
- the **lease epochs of the match rooms it read from memory**
  (:class:`~blink.server.jobs.Fenced`'s tokens, ``room_leases``): the results of games in
  memory, who connected to a room (the no-show forfeits), a room's status. A node cut off from
  the database keeps its rooms in memory after their leases went; another node serves them
  meanwhile, and what the first node's copy says (a game finished that was never stored, a
  player who never came, while they play elsewhere) is false. So the write first locks those
  rooms' ``room_leases`` rows ``FOR SHARE`` in its own transaction and reads their epochs
  (:func:`~blink.server.jobs.stale_fences`); if one is no longer the epoch the node held when
  it read the room, nothing is written and the job's result is :class:`TournamentFenced`.

A refused write is logged (:func:`refused`), the stale rooms are dropped from the node's
memory (their clients reconnect to the node that serves them now) and the tournament is read
again: the organiser starts over from the stored one, a request answers ``409
tournament_changed``. A single node fences nothing (no other node writes).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection

from blink.server.jobs import stale_fences

if TYPE_CHECKING:
    from blink.server.hub import Hub

__all__ = ["TournamentFenced", "fenced_job", "refused", "room_fences"]

log = logging.getLogger("blink.server.tournaments")


class TournamentFenced:
    """The result of a tournament write refused by the leases of match rooms: ``stale`` maps
    each (room code, epoch this node held) to the room's stored epoch now (``None``: none).
    It is falsy, as a write refused by the version is (``False``): nothing was stored."""

    __slots__ = ("stale", "tid")

    def __init__(self, tid: str, stale: dict[tuple[str, int], int | None]) -> None:
        self.tid, self.stale = tid, stale

    def __bool__(self) -> bool:
        return False

    def rooms(self) -> str:
        """The stale rooms, for a log line (``K7QX2M (epoch 1, now 2)``)."""
        return ", ".join(f"{c} (epoch {e}, now {n})" for (c, e), n in sorted(self.stale.items()))


def room_fences(hub: Hub, codes: list[str]) -> set[tuple[str, int]]:
    """The fences of the match rooms ``codes`` that this node has in memory: (code, the lease
    epoch it holds the room at now; 0 once the lease went). Empty on a single node."""
    out = set()
    for code in codes:
        if dict.get(hub.rooms, code) is None:
            continue
        epoch = hub.leases.fence(code)
        if epoch is not None:
            out.add((code, epoch))
    return out


def fenced_job(
    tid: str, fences: set[tuple[str, int]], job: Callable[[Connection], bool]
) -> Callable[[Connection], bool | TournamentFenced]:
    """``job`` (a tournament's store), run only after ``fences`` are found to hold in its own
    transaction (their rows locked until it ends); else :class:`TournamentFenced`."""
    if not fences:
        return job

    def fenced(conn: Connection) -> bool | TournamentFenced:
        cur: Any = conn.connection.cursor()
        try:
            stale = stale_fences(cur, conn.dialect, fences)
        finally:
            cur.close()
        if stale:
            return TournamentFenced(tid, stale)
        return job(conn)

    return fenced


def refused(hub: Hub, result: TournamentFenced) -> None:
    """Say that a store of the tournament was refused by its match rooms' leases, and drop
    those rooms from this node's memory (:meth:`Hub.fenced <blink.server.hub.Hub.fenced>`:
    their clients reconnect to the node that serves them now)."""
    log.warning(
        "tournament %s: not stored: its match rooms %s are served by another node now "
        "(their leases moved); what this node held of them is dropped",
        result.tid,
        result.rooms(),
    )
    for code, epoch in result.stale:
        try:
            hub.fenced(code, epoch)
        except Exception:
            log.exception("the fenced room %s could not be dropped", code)
