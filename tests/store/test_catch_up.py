"""The snapshot cache across workers: one behind the game's version reads only what it missed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient

from app.store.cache import Snapshots
from app.store.snapshots import load_snapshot
from tests.web.helpers import act

IDLE_RUNNER = {"computer_pace_seconds": 3600}


def _snapshots(client: TestClient) -> Snapshots:
    snapshots: Snapshots = client.app.state.service.changes.store.snapshots  # type: ignore[attr-defined]
    return snapshots


def test_a_worker_behind_catches_up_from_the_entries_after_its_version(
    make_client: Callable[..., TestClient], database_url: str | None, tmp_path: Path
) -> None:
    # Two apps on one database are two workers, each with its own cache.
    url = database_url or f"sqlite:///{tmp_path / 'shared.db'}"
    mover, watcher = (make_client(database_url=url, **IDLE_RUNNER) for _ in range(2))
    created = mover.post("/api/v1/games", json={"name": "Ann"}).json()
    game_id, ann = created["game"]["id"], created["token"]
    act(mover, game_id, ann, "start")
    act(mover, game_id, ann, "roll", {"hold": []})
    act(mover, game_id, ann, "score", {"box": "chance"})
    assert watcher.get(f"/api/v1/games/{game_id}").status_code == 200  # kept at this version
    before = _snapshots(watcher).counts
    full_loads, entries_read = before.full_loads, before.entries_read

    act(mover, game_id, ann, "roll", {"hold": []})
    act(mover, game_id, ann, "roll", {"hold": [0, 1]})  # a hold and a roll
    game = act(mover, game_id, ann, "score", {"box": "ones"})
    seen = watcher.get(f"/api/v1/games/{game_id}").json()

    counts = _snapshots(watcher).counts
    assert counts.catch_ups == 1
    assert counts.full_loads == full_loads, "no full replay"
    assert counts.entries_read - entries_read == 4  # roll, hold, roll, score: not the 6 in all
    assert seen == mover.get(f"/api/v1/games/{game_id}").json()
    assert seen["version"] == game["version"]
    kept = _snapshots(watcher).peek(game_id)
    service = watcher.app.state.service  # type: ignore[attr-defined]
    with service.database.read_connection() as connection:
        replayed = load_snapshot(connection, game_id)
    assert replayed == kept  # state, log length, rolls, holds this turn, activity, row


def test_a_game_another_worker_moved_is_shared_from_the_catch_up_until_it_is_dropped(
    make_client: Callable[..., TestClient], database_url: str | None, tmp_path: Path
) -> None:
    # The bus makes a worker listen to its shared games: those it writes beside another.
    url = database_url or f"sqlite:///{tmp_path / 'shared.db'}"
    mover, watcher = (make_client(database_url=url, **IDLE_RUNNER) for _ in range(2))
    told: list[list[str]] = []
    _snapshots(watcher).shared_listeners.append(
        lambda: told.append(_snapshots(watcher).shared_ids())
    )
    created = mover.post("/api/v1/games", json={"name": "Ann"}).json()
    game_id, ann = created["game"]["id"], created["token"]
    act(mover, game_id, ann, "start")
    assert watcher.get(f"/api/v1/games/{game_id}").status_code == 200  # read in full: its own
    act(mover, game_id, ann, "roll", {"hold": []})
    assert _snapshots(watcher).shared_ids() == []
    assert watcher.get(f"/api/v1/games/{game_id}").status_code == 200  # caught up: shared
    assert _snapshots(watcher).shared_ids() == [game_id]
    assert _snapshots(mover).shared_ids() == [], "the mover never found its copy moved on"
    assert told == [[game_id]]

    _snapshots(watcher).size = 1  # another game pushes this one out of the cache
    other = watcher.post("/api/v1/games", json={"name": "Bo"}).json()["game"]["id"]
    assert _snapshots(watcher).peek(other) is not None
    assert _snapshots(watcher).peek(game_id) is None
    assert _snapshots(watcher).shared_ids() == []
    assert told == [[game_id], []]
