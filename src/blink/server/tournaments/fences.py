"""Fenced tournament writes on a cluster: what a node takes from match rooms in its memory
is stored only while it still holds those rooms' leases.

A tournament's row is written by whichever node organises it (its periodic check, a match's
end) or answers an organiser's request. Two things keep such a write honest:

- its **version**: the row is updated only if it is still at the version the node read
  (:meth:`Store.save <blink.server.tournaments.store.Store.save>`), so no write is lost
  and none is made over a state the node did not see;
- the **lease epochs of the match rooms it read from memory**
  (:class:`~blink.server.jobs.Fenced`'s tokens, ``room_leases``): the results of games in
  memory, who connected to a room (the no-show forfeits), a room's status. A node cut off from
  the database keeps its rooms in memory after their leases went; another node serves them
  meanwhile, and what the first node's copy says (a game finished that was never stored, a
  player who never came, while they play elsewhere) is false. So the write first locks those
  rooms' ``room_leases`` rows ``FOR SHARE`` in its own transaction and reads their epochs
  (:func:`~blink.server.jobs.stale_fences`); if one is no longer the epoch the node held when
  it read the room, nothing is written and the job's result is :class:`TournamentFenced`.

The organiser's own stores (:meth:`Manager.organise
<blink.server.tournaments.manager.Manager.organise>`) are fenced by **the tournament's lease epoch**
as well (``tournament_leases``, taken with the lease by :class:`blink.server.lease.PgLeases`):
the row is locked ``FOR SHARE`` and read in the store's transaction, and a store made under an
epoch that is no longer the stored one (another node took the lease since) is refused, so a
node that lost the lease while it organised never stores what it decided as organiser; it
gives the lease up and leaves the tournament to the node that holds it.

A refused write is logged (:func:`refused`), the stale rooms are dropped from the node's
memory (their clients reconnect to the node that serves them now) and the tournament is read
again: the organiser starts over from the stored one, a request answers ``409
tournament_changed``. A single node fences nothing (no other node writes).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, select

from blink.server.jobs import stale_fences
from blink.server.lease import TOURNAMENT_NAMESPACE
from blink.server.schema import tournament_leases

if TYPE_CHECKING:
    from blink.server.hub import Hub

__all__ = ["TournamentFenced", "fenced_job", "refused", "room_fences"]

log = logging.getLogger("blink.server.tournaments")


class TournamentFenced:
    """The result of a tournament write refused by the leases of match rooms or of the
    tournament: ``stale`` maps each (room code, epoch this node held) to the room's stored
    epoch now (``None``: none); ``lease`` is (the tournament's lease epoch this node stored
    under, the stored one now) when that lease moved (``None``: it did not). It is falsy, as
    a write refused by the version is (``False``): nothing was stored."""

    __slots__ = ("lease", "stale", "tid")

    def __init__(
        self,
        tid: str,
        stale: dict[tuple[str, int], int | None],
        lease: tuple[int, int | None] | None = None,
    ) -> None:
        self.tid, self.stale, self.lease = tid, stale, lease

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


def _stored_lease(conn: Connection, tid: str) -> int | None:
    """Tournament ``tid``'s stored lease epoch (``None``: none), its row locked ``FOR SHARE``
    until the transaction ends on PostgreSQL: no node takes the lease meanwhile."""
    q = select(tournament_leases.c.epoch).where(tournament_leases.c.id == tid)
    if conn.dialect.name == "postgresql":
        q = q.with_for_update(read=True)
    epoch = conn.execute(q).scalar()
    return None if epoch is None else int(epoch)


def fenced_job(
    tid: str,
    fences: set[tuple[str, int]],
    job: Callable[[Connection], bool],
    lease: int | None = None,
) -> Callable[[Connection], bool | TournamentFenced]:
    """``job`` (a tournament's store), run only after ``fences`` (match rooms) and ``lease``
    (the tournament's lease epoch, for an organiser's store; ``None``: not checked) are found
    to hold in its own transaction (their rows locked until it ends); else
    :class:`TournamentFenced`."""
    if not fences and lease is None:
        return job

    def fenced(conn: Connection) -> bool | TournamentFenced:
        moved = None
        if lease is not None:
            now = _stored_lease(conn, tid)
            if now != lease:
                moved = (lease, now)
        stale: dict[tuple[str, int], int | None] = {}
        if fences:
            cur: Any = conn.connection.cursor()
            try:
                stale = stale_fences(cur, conn.dialect, fences)
            finally:
                cur.close()
        if stale or moved is not None:
            return TournamentFenced(tid, stale, moved)
        return job(conn)

    return fenced


def refused(hub: Hub, result: TournamentFenced) -> None:
    """Say that a store of the tournament was refused by its lease or its match rooms'; give
    the tournament's lease up when it moved (another node organises it now), and drop the
    stale rooms from this node's memory (:meth:`Hub.fenced <blink.server.hub.Hub.fenced>`:
    their clients reconnect to the node that serves them now)."""
    if result.lease is not None:
        mine, now = result.lease
        log.warning(
            "tournament %s: another node took its lease (epoch %s, this node's was %d): "
            "dropped the store this node made as its organiser",
            result.tid,
            "none" if now is None else now,
            mine,
        )
        try:
            hub.leases.release(result.tid, TOURNAMENT_NAMESPACE)
        except Exception:
            log.exception("the lease of tournament %s could not be given up", result.tid)
    if not result.stale:
        return
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
