"""Rows of every game say what they hold: ``games.deal_options`` and ``rooms.options`` only.

The first (classic) rooms gave every row a ``ruleset`` and a ``sizes`` column. A game row's
``ruleset`` has since held the game's deal options (its name and the options part of its
record, ``{"game": ..., **encode_options}``), and a room's whole options are in ``options``.
So ``games.ruleset`` is renamed ``deal_options``, and the ``sizes`` columns of both tables and
``rooms.ruleset`` are dropped, their data moved:

* a game row written before games were named (a classic ruleset object, its draw-pile sizes
  in ``sizes``) becomes ``{"game": "classic", "variant": {"players", "sizes"}, "ruleset"}``,
  the form classic Blink's record codec writes;
* a room stored before rooms kept their options (``options`` null) gets them from its columns:
  a classic room ``{"ruleset", "sizes"}``, another game's ``{}``; ``options`` is then required.

The downgrade puts the columns back, filled from the options as the server wrote them before:
a room's ``ruleset`` is its ``ruleset`` option (its game's name when it has none) and its
``sizes`` option; a classic game's ``sizes`` is its deal's ``variant.sizes``. Game rows keep
the named form, which the older code reads too.

Revision ID: 0016_deal_options
Revises: 0015_tournament_leases
Create Date: 2026-12-07
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0016_deal_options"
down_revision = "0015_tournament_leases"
branch_labels = None
depends_on = None

CLASSIC = "classic"
"""The default game when this migration was written: the game of unnamed rows."""
PAGE = 500
"""Rows read at a time."""

_NAMED = '{"game": %'
"""How every named game row begins (``json.dumps`` of a dict with ``game`` first)."""


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _loads(text: str | None) -> Any:
    """The JSON value of a column, ``None`` for no value or one that is not JSON."""
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _pages(
    conn: sa.Connection, table: sa.TableClause, key: str, where: Any
) -> Iterator[Sequence[sa.Row[Any]]]:
    """The rows of ``table`` matching ``where``, a page at a time in ``key`` order (each page
    read whole before it is updated)."""
    column = table.c[key]
    last: Any = None
    while True:
        q = sa.select(table).where(where).order_by(column).limit(PAGE)
        if last is not None:
            q = q.where(column > last)
        rows = conn.execute(q).all()
        if not rows:
            return
        yield rows
        last = getattr(rows[-1], key)


def _rewrite(
    table: sa.TableClause,
    key: str,
    where: Any,
    change: Callable[[sa.Row[Any]], dict[str, Any] | None],
) -> None:
    """Update each row of ``table`` matching ``where`` with ``change(row)`` (``None``: keep)."""
    conn = op.get_bind()
    for rows in _pages(conn, table, key, where):
        for row in rows:
            values = change(row)
            if values is not None:
                conn.execute(
                    sa.update(table).where(table.c[key] == getattr(row, key)).values(**values)
                )


def _rooms(*extra: str) -> sa.TableClause:
    names = ("code", "game", "options", *extra)
    types = {"code": sa.String(8), "game": sa.String(16), "ruleset": sa.String(32)}
    return sa.table("rooms", *(sa.column(n, types.get(n, sa.Text)) for n in names))


def _games(deal: str, *extra: str) -> sa.TableClause:
    names = ("id", "players", deal, *extra)
    types = {"id": sa.Integer, "players": sa.Integer}
    return sa.table("games", *(sa.column(n, types.get(n, sa.Text)) for n in names))


def _named_game(row: sa.Row[Any]) -> dict[str, Any] | None:
    """A game row's deal options in the named form (``None``: already named or unreadable)."""
    stored = _loads(row.ruleset)
    if stored is None or (isinstance(stored, dict) and "game" in stored):
        return None
    sizes = _loads(row.sizes)
    return {
        "ruleset": json.dumps(
            {
                "game": CLASSIC,
                "variant": {"players": row.players, "sizes": sizes},
                "ruleset": stored if isinstance(stored, dict) else {},
            }
        )
    }


def _room_options(row: sa.Row[Any]) -> dict[str, Any]:
    """A room's options from its columns, for a room stored before rooms kept them."""
    if row.game != CLASSIC:
        return {"options": "{}"}
    return {"options": _compact({"ruleset": row.ruleset, "sizes": _loads(row.sizes)})}


def upgrade() -> None:
    """Move the columns' data into the options, then rename and drop the columns."""
    rooms = _rooms("ruleset", "sizes")
    _rewrite(rooms, "code", rooms.c.options.is_(None), _room_options)
    with op.batch_alter_table("rooms") as batch:
        batch.alter_column("options", existing_type=sa.Text, nullable=False)
        batch.drop_column("sizes")
        batch.drop_column("ruleset")
    games = _games("ruleset", "sizes")
    _rewrite(games, "id", games.c.ruleset.not_like(_NAMED), _named_game)
    with op.batch_alter_table("games") as batch:
        batch.alter_column(
            "ruleset", new_column_name="deal_options", existing_type=sa.Text, nullable=False
        )
        batch.drop_column("sizes")


def _room_columns(row: sa.Row[Any]) -> dict[str, Any]:
    """A room's ruleset and sizes columns from its options."""
    options = _loads(row.options)
    options = options if isinstance(options, dict) else {}
    sizes = options.get("sizes")
    return {
        "ruleset": str(options.get("ruleset", row.game))[:32],
        "sizes": None if sizes is None else _compact(sizes),
    }


def _game_sizes(row: sa.Row[Any]) -> dict[str, Any] | None:
    """A classic game row's sizes column from its deal options (``None``: none)."""
    stored = _loads(row.ruleset)
    if not isinstance(stored, dict) or stored.get("game") != CLASSIC:
        return None
    variant = stored.get("variant")
    sizes = variant.get("sizes") if isinstance(variant, dict) else None
    return None if sizes is None else {"sizes": _compact(sizes)}


def downgrade() -> None:
    """Put the columns back, filled from the options."""
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("ruleset", sa.String(32), nullable=True))
        batch.add_column(sa.Column("sizes", sa.Text, nullable=True))
        batch.alter_column("options", existing_type=sa.Text, nullable=True)
    rooms = _rooms("ruleset", "sizes")
    _rewrite(rooms, "code", sa.true(), _room_columns)
    with op.batch_alter_table("rooms") as batch:
        batch.alter_column("ruleset", existing_type=sa.String(32), nullable=False)
    with op.batch_alter_table("games") as batch:
        batch.alter_column(
            "deal_options", new_column_name="ruleset", existing_type=sa.Text, nullable=False
        )
        batch.add_column(sa.Column("sizes", sa.Text, nullable=True))
    games = _games("ruleset", "sizes")
    _rewrite(games, "id", games.c.ruleset.like('%"sizes"%'), _game_sizes)
