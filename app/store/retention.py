"""Retention: games nobody will finish are closed, and old ones deleted if the operator asks.

Without it nothing was ever deleted: abandoned games stayed "playing" for ever, and every
restart loaded each of them again. A game waiting or being played whose row has not changed
for the configured time is closed as ``abandoned`` (its version bumped, so every kept
snapshot of it is stale). Finished and abandoned games are kept, for statistics and
reviews, unless a limit for them is set. Everything here runs in a worker thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Connection, delete, func, select, update

from app.store.models import ActionRecord, GameRecord, GameStatus, PlayerRecord, ReviewRecord

BATCH = 500
"""Games changed per statement (SQLite caps the parameters of one statement)."""
_OPEN = (GameStatus.WAITING.value, GameStatus.PLAYING.value)
_CLOSED = (GameStatus.FINISHED.value, GameStatus.ABANDONED.value)


@dataclass(frozen=True)
class Swept:
    """What one sweep did: the games closed (with their new versions) and how many deleted."""

    abandoned: dict[str, int]
    deleted: int


def close_stalled(connection: Connection, before: datetime, moment: datetime) -> dict[str, int]:
    """Close every waiting or playing game unchanged since ``before``; their new versions."""
    stalled = connection.execute(
        select(GameRecord.id, GameRecord.version).where(
            GameRecord.status.in_(_OPEN), GameRecord.updated_at < before
        )
    ).all()
    closed = {game_id: version + 1 for game_id, version in stalled}
    ids = list(closed)
    for start in range(0, len(ids), BATCH):
        connection.execute(
            update(GameRecord)
            .where(GameRecord.id.in_(ids[start : start + BATCH]), GameRecord.status.in_(_OPEN))
            .values(
                status=GameStatus.ABANDONED.value,
                version=GameRecord.version + 1,
                finished_at=moment,
                updated_at=moment,
                # Nothing is owed to a closed game: no turn timer, no deadline to play.
                due_at=None,
            )
        )
    return closed


def delete_closed(connection: Connection, before: datetime) -> int:
    """Delete the finished and abandoned games that ended before ``before``, with their
    seats, logs and reviews; how many."""
    ended = func.coalesce(GameRecord.finished_at, GameRecord.updated_at)
    ids = list(
        connection.scalars(
            select(GameRecord.id).where(GameRecord.status.in_(_CLOSED), ended < before)
        )
    )
    for start in range(0, len(ids), BATCH):
        batch = ids[start : start + BATCH]
        for table in (ReviewRecord, ActionRecord, PlayerRecord):
            connection.execute(delete(table).where(table.game_id.in_(batch)))
        connection.execute(delete(GameRecord).where(GameRecord.id.in_(batch)))
    return len(ids)


def sweep(
    connection: Connection,
    moment: datetime,
    *,
    abandon_after: timedelta | None,
    delete_after: timedelta | None,
) -> Swept:
    """Close the stalled games and delete the old closed ones (each step if its limit is
    set), in the connection's transaction."""
    abandoned = close_stalled(connection, moment - abandon_after, moment) if abandon_after else {}
    deleted = delete_closed(connection, moment - delete_after) if delete_after else 0
    return Swept(abandoned, deleted)
