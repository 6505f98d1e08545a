"""the quick match's queue: the browsers waiting for a table, and the game each one got;
public games (a quick match's tables), listed on the home page

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04 03:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "match_queue",
        sa.Column("secret_hash", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("client_seed", sa.String(length=64), nullable=True),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("game_id", sa.String(length=16), nullable=True),
        sa.PrimaryKeyConstraint("secret_hash"),
    )
    op.create_index("ix_match_queue_joined_at", "match_queue", ["joined_at"])
    with op.batch_alter_table("games") as batch:
        batch.add_column(
            sa.Column("public", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch.create_index("ix_games_public", ["public"])


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_index("ix_games_public")
        batch.drop_column("public")
    op.drop_index("ix_match_queue_joined_at", table_name="match_queue")
    op.drop_table("match_queue")
