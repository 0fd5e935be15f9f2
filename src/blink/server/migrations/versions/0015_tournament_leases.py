"""Fencing tokens for a cluster's tournament leases: ``tournament_leases`` (each tournament's
lease epoch).

A node that takes a tournament's lease (to organise it) adds one to its epoch in the same
step (:class:`blink.server.lease.PgLeases`); every store the organiser makes carries the epoch
it was made under, and is committed only if that is still the stored one, its row locked
``FOR SHARE`` in the same transaction (:mod:`blink.server.tournaments.fences`). A node that
lost the lease can never store the tournament as its organiser again (docs/cluster.md,
"Fencing").

Revision ID: 0015_tournament_leases
Revises: 0014_account_mail
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_tournament_leases"
down_revision = "0014_account_mail"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the table (both databases)."""
    op.create_table(
        "tournament_leases",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("epoch", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    """Drop the table."""
    op.drop_table("tournament_leases")
