"""Retention: games nobody will finish are closed, and old ones deleted if the operator asks.

Without it nothing was ever deleted: abandoned games stayed "playing" for ever, and every
restart loaded each of them again. A game waiting or being played whose row has not changed
for the configured time *of service* is closed as ``abandoned`` (its version bumped, so every
kept snapshot of it is stale). Time counts only while a server ran on the database: each
server keeps a row of its run (its start, and when it last said it was up: every sweep), and
a game is stalled once the union of the runs since its last change is as long as the limit.
A server down for a week, or a week-old backup restored, closes nothing at its next start.
Finished and abandoned games are kept, for statistics and reviews, unless a limit for them is
set. Everything here runs in a worker thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Connection, delete, func, insert, select, update

from app.store.models import (
    ActionRecord,
    ClosedReason,
    GameRecord,
    GameStatus,
    PlayerRecord,
    ReviewRecord,
    ServiceRun,
)

BATCH = 500
MAX_RUNS = 1_000
"""Runs kept; beyond, the oldest are forgotten (which only makes games stall later: the
time they cover no longer counts)."""
"""Games changed per statement (SQLite caps the parameters of one statement)."""
_OPEN = (GameStatus.WAITING.value, GameStatus.PLAYING.value)
_CLOSED = (GameStatus.FINISHED.value, GameStatus.ABANDONED.value)


@dataclass(frozen=True)
class Swept:
    """What one sweep did: the games closed (with their new versions) and how many deleted."""

    abandoned: dict[str, int]
    deleted: int
    run: int | None = None
    """The id of the sweeping server's run (what its next sweep extends)."""


def note_run(connection: Connection, run: int | None, moment: datetime) -> int:
    """The server of ``run`` (None: a server starting) is up at ``moment``; its run's id."""
    if run is not None:
        updated = connection.execute(
            update(ServiceRun).where(ServiceRun.id == run).values(seen_at=moment)
        ).rowcount
        if updated:
            return run
    # A start (or a run forgotten meanwhile): a run of its own from now.
    inserted = connection.execute(insert(ServiceRun).values(started_at=moment, seen_at=moment))
    new_id = inserted.inserted_primary_key
    assert new_id is not None
    return int(new_id[0])


def served_since(connection: Connection, moment: datetime, span: timedelta) -> datetime | None:
    """The latest instant from which the servers' runs up to ``moment`` add up to ``span``
    (overlapping runs of several workers counted once), or None if they never do."""
    runs = connection.execute(
        select(ServiceRun.started_at, ServiceRun.seen_at).order_by(ServiceRun.seen_at.desc())
    ).all()
    left = span
    # Walk back from the latest run, merging overlaps: ``start`` is where the span reached.
    merged_start: datetime | None = None
    merged_end: datetime | None = None
    for started, seen in runs:
        started, seen = _utc(started), min(_utc(seen), moment)
        if merged_start is not None and seen >= merged_start:
            merged_start = min(merged_start, started)  # overlaps the one being merged
            continue
        if merged_start is not None and merged_end is not None:
            if merged_end - merged_start >= left:
                return merged_end - left
            left -= merged_end - merged_start
        merged_start, merged_end = started, seen
    if merged_start is not None and merged_end is not None and merged_end - merged_start >= left:
        return merged_end - left
    return None


def forget_runs(connection: Connection, before: datetime | None) -> None:
    """Forget the runs that ended before ``before`` (no longer needed) and, past
    :data:`MAX_RUNS`, the oldest."""
    if before is not None:
        connection.execute(delete(ServiceRun).where(ServiceRun.seen_at < before))
    kept = select(ServiceRun.id).order_by(ServiceRun.seen_at.desc()).limit(MAX_RUNS)
    connection.execute(delete(ServiceRun).where(ServiceRun.id.not_in(kept.scalar_subquery())))


def _utc(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes, stored in UTC."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def close_stalled(connection: Connection, before: datetime, moment: datetime) -> dict[str, int]:
    """Close every waiting or playing game unchanged since ``before``; their new versions."""
    stalled = connection.execute(
        select(GameRecord.id, GameRecord.version).where(
            GameRecord.status.in_(_OPEN), GameRecord.updated_at < before
        )
    ).all()
    return close(connection, dict(stalled), moment, ClosedReason.IDLE)


def close_in_play(connection: Connection, moment: datetime) -> dict[str, int]:
    """Close every game being played (a restore: its dice could repeat rolls already seen);
    their new versions."""
    playing = connection.execute(
        select(GameRecord.id, GameRecord.version).where(
            GameRecord.status == GameStatus.PLAYING.value
        )
    ).all()
    return close(connection, dict(playing), moment, ClosedReason.RESTORED)


def close(
    connection: Connection, versions: dict[str, int], moment: datetime, reason: ClosedReason
) -> dict[str, int]:
    """Close the games of ``versions`` (id: version) as abandoned for ``reason``; their new
    versions."""
    closed = {game_id: version + 1 for game_id, version in versions.items()}
    ids = list(closed)
    for start in range(0, len(ids), BATCH):
        connection.execute(
            update(GameRecord)
            .where(GameRecord.id.in_(ids[start : start + BATCH]), GameRecord.status.in_(_OPEN))
            .values(
                status=GameStatus.ABANDONED.value,
                closed_reason=reason.value,
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
    run: int | None = None,
) -> Swept:
    """Note the sweeping server's ``run`` as up now, close the games stalled for
    ``abandon_after`` of service and delete the closed ones older than ``delete_after`` (each
    step if its limit is set), in the connection's transaction."""
    run = note_run(connection, run, moment)
    abandoned: dict[str, int] = {}
    if abandon_after:
        since = served_since(connection, moment, abandon_after)
        if since is not None:
            abandoned = close_stalled(connection, since, moment)
        forget_runs(connection, since)
    deleted = delete_closed(connection, moment - delete_after) if delete_after else 0
    return Swept(abandoned, deleted, run)
