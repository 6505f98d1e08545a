"""a rematch knows the game it follows (its seats are laid out from that game's, the starter
moved on by one); the computer players' pace of each game

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04 03:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        # The rematches offered before it start with the seats as they joined, as they did.
        batch.add_column(sa.Column("previous_id", sa.String(length=16), nullable=True))
        # NULL: the normal pace, every game's before it.
        batch.add_column(sa.Column("computer_pace", sa.String(length=8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("computer_pace")
        batch.drop_column("previous_id")
