"""SQL statements per move, counted (issue 25): a guard on the hot path's design, not a timing.
A page's roll, hold and score and the API's each read the game once and write once; the
answer is built from the view the move made, with no second read for the seat."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pytest
from fastapi.testclient import TestClient
from psycopg.pq import Trace
from sqlalchemy import event

from app.store import database as database_module
from app.store.driver import DriverStatement
from tests import databases
from tests.fairness.play import post
from tests.web.test_pages import HTMX, csrf, new_solo_game

ONE_MOVE = ["SELECT games.version FROM", "UPDATE games SET", "INSERT INTO actions"]
"""A move's statements."""


def _first_words(statement: str) -> str:
    return " ".join(statement.split()[:3])


@contextmanager
def statements(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The SQL statements the app sends meanwhile, each as its first words: those through
    SQLAlchemy (its cursor events) and the hot path's, run on the driver's cursor
    (:class:`app.store.driver.DriverStatement`, counted as they are asked for: the log's
    insert even where SQLite skips it after a stale update).
    A transaction's begin is no statement here (SQLite's is run on the driver's connection,
    PostgreSQL's is the driver's own)."""
    engine = client.app.state.service.database.engine  # type: ignore[attr-defined]
    sent: list[str] = []

    def note(_connection: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        sent.append(_first_words(statement))

    real_fetch, real_run = DriverStatement.fetch_one, DriverStatement.run_then_many

    def fetch_one(self: DriverStatement, *args: Any) -> Any:
        sent.append(_first_words(self.sql))
        return real_fetch(self, *args)

    def run_then_many(
        self: DriverStatement, connection: Any, values: Any, then: DriverStatement, rows: Any
    ) -> int:
        sent.append(_first_words(self.sql))
        sent.extend([_first_words(then.sql)] if rows else [])
        return real_run(self, connection, values, then, rows)

    with monkeypatch.context() as patch:
        patch.setattr(DriverStatement, "fetch_one", fetch_one)
        patch.setattr(DriverStatement, "run_then_many", run_then_many)
        event.listen(engine, "before_cursor_execute", note)
        try:
            yield sent
        finally:
            event.remove(engine, "before_cursor_execute", note)


def test_a_page_move_costs_one_read_and_one_write(
    make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    client = make_client()
    game_id = new_solo_game(client)
    token = csrf(client)
    headers = {**HTMX, "X-CSRF-Token": token}
    counts = {}
    for move, path, data in (
        ("roll", f"/games/{game_id}/roll", {}),
        ("hold", f"/games/{game_id}/dice/0", {"held": "true"}),
        ("score", f"/games/{game_id}/score", {"box": "chance"}),
    ):
        with statements(client, monkeypatch) as sent:
            answer = client.post(path, data=data, headers=headers)
        assert answer.status_code == 200, answer.text
        counts[move] = sent
    # The version checked, the row updated, the action logged; the board answered from the
    # view the move made (its seat read there: 4 statements a move before, one a read).
    assert counts == dict.fromkeys(("roll", "hold", "score"), ONE_MOVE), counts


def test_an_api_move_costs_one_read_and_one_write(
    make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    client = make_client()
    created = post(client, "/api/v1/games", body={"name": "Bot"})
    game_id, token = created["game"]["id"], created["token"]
    post(client, f"/api/v1/games/{game_id}/start", token)
    with statements(client, monkeypatch) as sent:
        post(client, f"/api/v1/games/{game_id}/roll", token, {"hold": []})
    assert sent == ONE_MOVE


def test_an_api_move_on_postgresql_takes_four_round_trips(
    make_client: Callable[..., TestClient],
    database_kind: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On PostgreSQL each statement waits for the server's reply (1.3 ms under load on two
    cores, docs/performance.md): a move's transaction takes four, its ``BEGIN``, the version's
    read, the row's update sent with the log's insert, and ``COMMIT``. Counted in psycopg's
    trace of the protocol: each round trip ends with the server's ``ReadyForQuery``. The
    connection, used a moment before, is not pinged as the pool hands it out (six round trips
    a move before)."""
    if database_kind != databases.POSTGRESQL:
        pytest.skip("round trips are PostgreSQL's: SQLite runs in the process")
    client = make_client()
    created = post(client, "/api/v1/games", body={"name": "Bot"})
    game_id, token = created["game"]["id"], created["token"]
    post(client, f"/api/v1/games/{game_id}/start", token)
    engine = client.app.state.service.database.engine  # type: ignore[attr-defined]
    traces: dict[int, tuple[Any, IO[str]]] = {}

    def trace(driver: Any, _record: Any, _proxy: Any) -> None:
        if id(driver) not in traces:
            traces[id(driver)] = driver, (tmp_path / f"trace-{len(traces)}").open("w")
        driver.pgconn.trace(traces[id(driver)][1].fileno())
        driver.pgconn.set_trace_flags(Trace.SUPPRESS_TIMESTAMPS | Trace.REGRESS_MODE)

    def untrace(driver: Any, _record: Any) -> None:
        driver.pgconn.untrace()

    pings: list[object] = []
    monkeypatch.setattr(engine.dialect, "do_ping", pings.append)
    # However slow the machine between the start and the roll (which second is idle enough
    # is tests/store/test_shared_database.py's).
    monkeypatch.setattr(database_module, "PING_IDLE_SECONDS", 3600.0)
    event.listen(engine, "checkout", trace)
    event.listen(engine, "checkin", untrace)
    try:
        post(client, f"/api/v1/games/{game_id}/roll", token, {"hold": []})
    finally:
        event.remove(engine, "checkout", trace)
        event.remove(engine, "checkin", untrace)
        for driver, written in traces.values():
            driver.pgconn.untrace()  # (libpq would write on to a closed file)
            written.close()
    moves = [_move_round_trips(Path(written.name).read_text()) for _, written in traces.values()]
    assert [trips for trips in moves if trips is not None] == [4], moves
    assert pings == []


def _move_round_trips(trace: str) -> int | None:
    """The round trips of the transaction that updated a game's row in ``trace``, from its
    ``BEGIN`` to its ``COMMIT`` (None if there is none)."""
    lines = trace.splitlines()
    update = next((n for n, line in enumerate(lines) if "UPDATE games" in line), None)
    if update is None:
        return None
    begin = max(n for n in range(update) if lines[n].startswith("F") and '"BEGIN' in lines[n])
    end = next(n for n in range(update, len(lines)) if 'CommandComplete\t "COMMIT"' in lines[n])
    return sum("\tReadyForQuery\t" in line for line in lines[begin : end + 2])
