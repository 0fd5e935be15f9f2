"""Players' archives: ``player_games``, one row a profile a finished game it sat in.

The table (``blink.server.archive.player_games``) is filled from what the database already
holds: each finished game of a room whose seat's token is a profile's secret now (a seat
token is the profile's secret), and each rated game (``profile_games``), whose seat is found by
the profile's name among the game's names. A game a profile played before its secret changed,
unrated, cannot be told apart and stays out.

Revision ID: 0011_players
Revises: 0010_accounts
Create Date: 2026-12-07
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0011_players"
down_revision = "0010_accounts"
branch_labels = None
depends_on = None


def _rows(bind: sa.Connection) -> dict[tuple[str, int], dict[str, Any]]:
    """The archive's rows that the stored seats and rated games give."""
    out: dict[tuple[str, int], dict[str, Any]] = {}
    finished = (
        "SELECT g.id, g.room_code, g.players, g.ruleset, g.names, g.result, g.ended_at "
        "FROM games g WHERE g.ended_at IS NOT NULL"
    )
    by_seat = bind.execute(
        sa.text(
            "SELECT p.id AS pid, s.room_code, s.seat FROM seats s "
            "JOIN profiles p ON p.secret_hash = s.token_hash WHERE s.kind = 'human'"
        )
    ).all()
    seated = {(r.room_code, r.seat): r.pid for r in by_seat}
    rated = bind.execute(
        sa.text(
            "SELECT pg.profile_id, pg.game_id, p.name FROM profile_games pg "
            "JOIN profiles p ON p.id = pg.profile_id"
        )
    ).all()
    rated_by_game: dict[int, list[tuple[str, str]]] = {}
    for r in rated:
        rated_by_game.setdefault(r.game_id, []).append((r.profile_id, r.name))
    for g in bind.execute(sa.text(finished)).all():
        names = json.loads(g.names)
        winners = list((json.loads(g.result) if g.result else {}).get("winners") or [])
        kind = str(json.loads(g.ruleset).get("game") or "classic")
        found = {
            seated[(g.room_code, i)]: i for i in range(g.players) if (g.room_code, i) in seated
        }
        for pid, name in rated_by_game.get(g.id, []):
            if pid not in found and name in names:
                found[pid] = names.index(name)
        for pid, seat in found.items():
            out[(pid, g.id)] = {
                "profile_id": pid,
                "game_id": g.id,
                "seat": seat,
                "room_code": g.room_code,
                "kind": kind[:16],
                "players": g.players,
                "at": g.ended_at,
                "won": seat in winners,
                "tie": seat in winners and len(winners) > 1,
            }
    return out


def upgrade() -> None:
    """Make the table and file every stored game whose profiles can be told."""
    table = op.create_table(
        "player_games",
        sa.Column("profile_id", sa.String(16), primary_key=True),
        sa.Column("game_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("room_code", sa.String(8), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("tie", sa.Boolean, nullable=False),
    )
    op.create_index("ix_player_games_profile_at", "player_games", ["profile_id", "at"])
    rows = list(_rows(op.get_bind()).values())
    if rows:
        op.bulk_insert(table, rows)


def downgrade() -> None:
    """Drop the table."""
    op.drop_index("ix_player_games_profile_at", table_name="player_games")
    op.drop_table("player_games")
