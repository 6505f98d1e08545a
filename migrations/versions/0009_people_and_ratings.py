"""players without accounts (``people``), who sat in each seat, the Pentas each seat scored,
what each rated game did to its players' ratings (``ratings``), and the quick match's
waiting players' own (who they are, "two players only", their language), and the language
each game is played in

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04 06:20:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "people",
        sa.Column("id", sa.String(length=16), nullable=False),
        sa.Column("secret_hash", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("rated_games", sa.Integer(), nullable=False),
        sa.Column("link_hash", sa.String(length=64), nullable=True),
        sa.Column("link_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("secret_hash"),
        sa.UniqueConstraint("link_hash"),
    )
    op.create_table(
        "ratings",
        sa.Column("game_id", sa.String(length=16), nullable=False),
        sa.Column("person_id", sa.String(length=16), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "person_id"),
    )
    op.create_index("ix_ratings_person_id", "ratings", ["person_id"])
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("person_id", sa.String(length=16), nullable=True))
        batch.add_column(sa.Column("pentas", sa.Integer(), nullable=True))
        batch.create_index("ix_players_person_id", ["person_id"])
    with op.batch_alter_table("match_queue") as batch:
        batch.add_column(sa.Column("person_id", sa.String(length=16), nullable=True))
        batch.add_column(sa.Column("most", sa.Integer(), server_default="4", nullable=False))
        batch.add_column(sa.Column("language", sa.String(length=8), nullable=True))
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("language", sa.String(length=8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("language")
    with op.batch_alter_table("match_queue") as batch:
        batch.drop_column("language")
        batch.drop_column("most")
        batch.drop_column("person_id")
    with op.batch_alter_table("players") as batch:
        batch.drop_index("ix_players_person_id")
        batch.drop_column("pentas")
        batch.drop_column("person_id")
    op.drop_index("ix_ratings_person_id", table_name="ratings")
    op.drop_table("ratings")
    op.drop_table("people")
