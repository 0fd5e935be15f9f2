"""A tournament's row: the table ``tournaments`` (migration ``0002``) and how an
:class:`~blink.server.tournaments.entry.Entry` is read from a row and written into one.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from sqlalchemy import Column, Float, Integer, String, Table, Text

from blink.server.profiles import meta
from blink.server.tournaments.entry import Entry
from blink.tournament import Tournament

__all__ = ["entry_of", "row_of", "tournaments"]

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


def entry_of(r: Any) -> Entry | None:
    """The tournament of a stored row (``None``, logged, when it cannot be read): its state
    as :meth:`Entry.state_json <blink.server.tournaments.entry.Entry.state_json>` wrote it."""
    try:
        data = json.loads(r.state)
        t = Tournament.from_dict(data["tournament"])
    except Exception:
        log.exception("could not load tournament %s", r.id)
        return None
    return Entry(
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
        no_show_after=data.get("no_show_after"),
        opened={str(k): float(v) for k, v in (data.get("opened") or {}).items()},
        claims={str(k): str(v) for k, v in (data.get("claims") or {}).items()},
        check_in_closes=data.get("check_in_closes"),
        draw_at_close=bool(data.get("draw_at_close")),
        entrants=str(data.get("entrants") or "people"),
    )


def row_of(e: Entry) -> dict[str, Any]:
    """What is stored in ``e``'s row (its columns)."""
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
