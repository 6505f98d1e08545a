"""verifiable dice: the game's server seed and each seat's client seed

Games from before have neither: their dice stay as they were and say "not verifiable".

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 01:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("server_seed", sa.String(length=64), nullable=True))
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("client_seed", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("client_seed")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("server_seed")
