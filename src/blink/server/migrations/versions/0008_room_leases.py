"""Fencing tokens for a cluster's room leases: ``room_leases`` (each room's lease epoch) and,
on PostgreSQL, the function ``blink_fence`` that a write batch calls first.

A node that takes a room's lease adds one to its epoch in the same step
(:class:`blink.server.lease.PgLeases`); every write of the room carries the epoch it was made
under, and its transaction commits only if that is still the stored one (the row is locked
``FOR SHARE`` in the same transaction, so no node can take the lease before it commits). A
node that lost the lease can never write into the room again (docs/cluster.md, "Fencing").

Revision ID: 0008_room_leases
Revises: 0007_daily_challenge
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_room_leases"
down_revision = "0007_daily_challenge"
branch_labels = None
depends_on = None

FENCE_FUNCTION = """
CREATE OR REPLACE FUNCTION blink_fence(codes text[], epochs bigint[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    stale text;
BEGIN
    -- Lock the rooms' lease rows first: no node takes one of these leases (which updates
    -- its row) until this transaction ends, so the epochs read next stay true until then.
    PERFORM 1 FROM room_leases WHERE code = ANY(codes) ORDER BY code FOR SHARE;
    SELECT string_agg(
               w.code || ' (epoch ' || w.epoch || ', now ' || coalesce(l.epoch::text, 'none')
               || ')', ', ')
      INTO stale
      FROM unnest(codes, epochs) AS w(code, epoch)
      LEFT JOIN room_leases l ON l.code = w.code
     WHERE l.epoch IS DISTINCT FROM w.epoch;
    IF stale IS NOT NULL THEN
        RAISE EXCEPTION 'fenced: another node took the lease of %', stale
            USING ERRCODE = 'BLF01';
    END IF;
END
$$
"""


def upgrade() -> None:
    """Create the table (both databases) and the fence function (PostgreSQL)."""
    op.create_table(
        "room_leases",
        sa.Column("code", sa.String(8), primary_key=True),
        sa.Column("epoch", sa.BigInteger, nullable=False),
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(FENCE_FUNCTION)


def downgrade() -> None:
    """Drop the function and the table."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS blink_fence(text[], bigint[])")
    op.drop_table("room_leases")
