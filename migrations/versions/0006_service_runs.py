"""retention by play time: the spans a server ran on the database; why a game was closed; the
dice scheme of each game

Before it, a game's idle time counted from its last change, downtime included. Databases
upgraded start with no run on record: their games in play get a full period of grace. The
games closed before it have no reason: a long pause, the only one there was.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03 18:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "service_runs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_service_runs_seen_at", "service_runs", ["seen_at"])
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("closed_reason", sa.String(length=16), nullable=True))
        # The games before keep the first way of combining seeds (NULL: scheme 1).
        batch.add_column(sa.Column("dice_scheme", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("dice_scheme")
        batch.drop_column("closed_reason")
    op.drop_index("ix_service_runs_seen_at", table_name="service_runs")
    op.drop_table("service_runs")
