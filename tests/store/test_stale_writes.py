"""A write planned on an old snapshot never lands (``write_actions``), on each database: on
PostgreSQL its log entries are sent with the row's update, before the update's count is known
(``DriverStatement.run_then_many``), and must still leave nothing behind."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from app.rules import Roll
from app.store.game_store import GameStore
from app.store.models import ActionRecord, GameRecord
from app.store.snapshots import Snapshot, StaleWriteError
from tests.web.helpers import act


def _store(client: TestClient) -> GameStore:
    store: GameStore = client.app.state.service.changes.store  # type: ignore[attr-defined]
    return store


def _roll(store: GameStore, snapshot: Snapshot) -> Snapshot:
    with store.writing() as writing:
        return writing.append(
            snapshot,
            0,
            [Roll((1, 2, 3, 4, 5))],
            snapshot.state,
            {"version": snapshot.version + 1},
            reason=None,
        )


def _logged(store: GameStore, game_id: str) -> tuple[int, int]:
    """The game's row's version and its log's length, as committed."""
    with store.database.read_connection() as connection:
        version = connection.scalar(select(GameRecord.version).where(GameRecord.id == game_id))
        logged = connection.scalar(
            select(func.count()).select_from(ActionRecord).where(ActionRecord.game_id == game_id)
        )
    assert version is not None
    assert logged is not None
    return version, logged


@pytest.mark.parametrize("moved_by", ["a move", "a change that logs nothing"])
def test_a_write_on_an_old_snapshot_is_refused_and_leaves_nothing(
    make_client: Callable[..., TestClient], moved_by: str
) -> None:
    client = make_client()
    created = client.post("/api/v1/games", json={"name": "Ann"}).json()
    game_id, token = created["game"]["id"], created["token"]
    act(client, game_id, token, "start")
    store = _store(client)
    with store.writing() as writing:
        old = writing.snapshot(game_id)
    if moved_by == "a move":  # its entry takes the number the stale write's would take
        _roll(store, old)
    else:
        with store.database.write_connection() as connection:
            connection.execute(
                update(GameRecord)
                .where(GameRecord.id == game_id)
                .values(version=GameRecord.version + 1)
            )
    before = _logged(store, game_id)
    with pytest.raises(StaleWriteError):
        _roll(store, old)
    assert _logged(store, game_id) == before
    # The game goes on from where it is.
    act(client, game_id, token, "roll", {"hold": []})
    assert _logged(store, game_id) == (before[0] + 1, before[1] + 1)
