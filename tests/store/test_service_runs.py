"""Retention's clock of service: the runs of the servers, merged where several workers
overlap, add up to the span from the latest instant they can; downtime never counts."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Connection, create_engine, func, insert, select

from app.store.models import ServiceRun
from app.store.retention import MAX_RUNS, forget_runs, note_run, served_since

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)


@pytest.fixture
def connection() -> Iterator[Connection]:
    engine = create_engine("sqlite://")
    ServiceRun.__table__.create(engine)
    with engine.begin() as connection:
        yield connection
    engine.dispose()


def ran(connection: Connection, start_days_ago: float, end_days_ago: float) -> None:
    connection.execute(
        insert(ServiceRun).values(
            started_at=NOW - start_days_ago * DAY, seen_at=NOW - end_days_ago * DAY
        )
    )


def test_no_run_on_record_never_adds_up(connection: Connection) -> None:
    assert served_since(connection, NOW, 7 * DAY) is None
    ran(connection, 3, 0)
    assert served_since(connection, NOW, 7 * DAY) is None, "three days of service are not seven"


def test_downtime_between_runs_is_skipped(connection: Connection) -> None:
    ran(connection, 20, 15)  # five days, then ten days down
    ran(connection, 5, 0)  # five more days
    assert served_since(connection, NOW, 7 * DAY) == NOW - 17 * DAY


def test_overlapping_workers_count_once(connection: Connection) -> None:
    ran(connection, 10, 0)
    ran(connection, 9, 1)  # a second worker, inside the first's run
    ran(connection, 12, 8)  # one that began earlier and overlaps its start
    assert served_since(connection, NOW, 7 * DAY) == NOW - 7 * DAY
    assert served_since(connection, NOW, 12 * DAY) == NOW - 12 * DAY
    assert served_since(connection, NOW, 13 * DAY) is None


def test_a_run_is_extended_by_its_server_and_a_start_makes_its_own(
    connection: Connection,
) -> None:
    run = note_run(connection, None, NOW - DAY)
    assert note_run(connection, run, NOW) == run
    assert served_since(connection, NOW, DAY) == NOW - DAY
    other = note_run(connection, 999, NOW)  # a run forgotten meanwhile: a new one
    assert other != run


def test_runs_no_longer_needed_are_forgotten_and_at_most_max_runs_kept(
    connection: Connection,
) -> None:
    runs = MAX_RUNS + 50
    for number in range(runs):  # one a day, ending half a day after it began
        ran(connection, runs - number, runs - number - 0.5)
    forget_runs(connection, None)
    assert connection.scalar(select(func.count()).select_from(ServiceRun)) == MAX_RUNS
    forget_runs(connection, NOW - 100 * DAY)
    left = connection.scalar(select(func.count()).select_from(ServiceRun))
    assert left == 100, "the runs that ended before the cut-off are gone"
