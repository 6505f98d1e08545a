"""The server's deadlines in the games' rows: which games are due, the claim on one that a
worker plays, and a deadline that passed with nothing due (see :mod:`app.service.runner`)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Connection, func, literal, select, update

from app.store.models import GameRecord
from app.store.snapshots import Snapshot


def due_games(
    connection: Connection, *, before: datetime | None = None, limit: int | None = None
) -> list[tuple[str, datetime]]:
    """The games where the server has something to do, soonest first, with when: every one,
    or the first ``limit`` due before ``before`` (on the ``due_at`` index)."""
    query = select(GameRecord.id, GameRecord.due_at).where(GameRecord.due_at.is_not(None))
    if before is not None:
        query = query.where(GameRecord.due_at < before)
    rows = connection.execute(query.order_by(GameRecord.due_at).limit(limit))
    return [(game_id, due_at) for game_id, due_at in rows if due_at is not None]


def forget_due(connection: Connection, snapshot: Snapshot) -> None:
    """Clear the game's ``due_at`` if the row is still the snapshot's version: a moment that
    passed with nothing due (a migration's look at every game, a seat taken back), which
    the scheduler's look for overdue games would otherwise find again and again. The version
    stays: no move was made, and a newer move's deadline is never cleared."""
    connection.execute(
        update(GameRecord)
        .where(GameRecord.id == snapshot.record.id, GameRecord.version == snapshot.version)
        .values(due_at=None)
    )


def claim_due(connection: Connection, game_id: str) -> datetime | None:
    """Hold the game's row for the rest of the transaction, unless another holds it: the
    database's clock if claimed (the moment every worker agrees on), else None.

    ``FOR UPDATE SKIP LOCKED`` lets several workers share the due games on a database that has
    it (a game another worker is playing is skipped, not waited for); SQLite compiles it away,
    its write transaction (``BEGIN IMMEDIATE``) holding the whole database already, and its
    clock is this machine's (its ``CURRENT_TIMESTAMP`` counts whole seconds).
    """
    sqlite = connection.dialect.name == "sqlite"
    clock = literal(None) if sqlite else func.now()
    claimed = connection.execute(
        select(GameRecord.id, clock)
        .where(GameRecord.id == game_id)
        .with_for_update(skip_locked=True)
    ).first()
    if claimed is None:
        return None
    moment = claimed[1]
    return datetime.now(UTC) if moment is None else moment.astimezone(UTC)
