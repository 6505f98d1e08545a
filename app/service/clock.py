"""The service's clock: now, in UTC, and the seconds left on a turn timer."""

from __future__ import annotations

from datetime import UTC, datetime

from app.store.models import GameRecord
from app.store.rows import GameRow


def now() -> datetime:
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """``moment`` with its time zone: SQLite hands back naive datetimes, stored in UTC."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def seconds_left(record: GameRow | GameRecord, at: datetime | None = None) -> float | None:
    """Seconds until the turn timer of the game runs out (negative when past) at ``at``
    (default now), or None."""
    if record.turn_seconds is None or record.turn_started_at is None:
        return None
    started = as_utc(record.turn_started_at)
    return record.turn_seconds - ((at or now()) - started).total_seconds()
