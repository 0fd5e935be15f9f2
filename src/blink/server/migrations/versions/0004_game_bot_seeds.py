"""Each game keeps its bots' seeds: ``games.bot_seeds``.

Before, a bot's random generator was derived from the deal's seed, so knowing the deal told
the bot's choices. Now every game draws its bots' seeds apart (a JSON list, one per seat,
``null`` for a person's seat) and keeps them, so a restored game's bots go on as they began.
Existing rows keep ``NULL``: their bots are seeded as restores seeded them before.

Revision ID: 0004_game_bot_seeds
Revises: 0003_room_game
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_game_bot_seeds"
down_revision = "0003_room_game"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the column (existing games have none)."""
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("bot_seeds", sa.Text, nullable=True))


def downgrade() -> None:
    """Drop the column."""
    with op.batch_alter_table("games") as batch:
        batch.drop_column("bot_seeds")
