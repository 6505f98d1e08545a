"""server-owned deadlines, why the server acted, rematch offers, moved seats

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 01:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as games:
        games.add_column(sa.Column("due_at", sa.DateTime(timezone=True), nullable=True))
        games.create_index("ix_games_due_at", ["due_at"])
    # Games in play before this revision: the scheduler looks at each once, which plays what
    # is due (a computer seat, a timed-out turn) and stores the next moment from then on.
    op.execute(sa.text("UPDATE games SET due_at = CURRENT_TIMESTAMP WHERE status = 'playing'"))
    with op.batch_alter_table("actions") as actions:
        actions.add_column(sa.Column("reason", sa.String(length=16), nullable=True))
    with op.batch_alter_table("players") as players:
        players.add_column(sa.Column("rematch", sa.String(length=16), nullable=True))
        players.add_column(sa.Column("moved_hash", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("players") as players:
        players.drop_column("moved_hash")
        players.drop_column("rematch")
    with op.batch_alter_table("actions") as actions:
        actions.drop_column("reason")
    with op.batch_alter_table("games") as games:
        games.drop_index("ix_games_due_at")
        games.drop_column("due_at")
