"""Two workers on one database and one Redis: a move made on one reaches the other's streams
as its view, from the bus message alone, and the other's next move needs no catch-up; a
worker that writes a game another writes too follows that game's moves from then on."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.live.broker import Subscription
from app.store.cache import CacheCounts
from tests.redis_server import RedisServer
from tests.web.helpers import act

WAIT = 10.0


def _counts(client: TestClient) -> CacheCounts:
    counts: CacheCounts = client.app.state.service.changes.snapshots.counts  # type: ignore[attr-defined]
    return counts


def _bus_counts(client: TestClient) -> dict[str, int]:
    figures: dict[str, int] = client.app.state.bus.figures()  # type: ignore[attr-defined]
    return figures


def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def _until_up(client: TestClient) -> None:
    _until(lambda: client.app.state.bus.status == "up", "the bus never came up")  # type: ignore[attr-defined]


@pytest.fixture
def shared_database(database_url: str | None, tmp_path: Path) -> str:
    """One database for both apps: a SQLite file, or the test's PostgreSQL schema."""
    return database_url or f"sqlite:///{tmp_path / 'shared.db'}"


def test_a_move_on_one_worker_is_followed_by_the_other_from_its_message(
    redis_server: RedisServer,
    shared_database: str,
    make_client: Callable[..., TestClient],
    tmp_path: Path,
) -> None:
    # (In this order, the apps stop before their database and Redis do.)
    # Both apps on one database and one channel; no periodic check in the test's time: what B
    # learns comes over the bus.
    shared = {
        "database_url": shared_database,
        "bus_url": redis_server.url,
        "bus_channel": f"penta-test:{tmp_path.name}",
        "bus_check_seconds": 600,
        "computer_pace_seconds": 3600,
    }
    a, b = make_client(**shared), make_client(**shared)
    _until_up(a)
    _until_up(b)
    channel = f"{shared['bus_channel']}:"
    created = a.post("/api/v1/games", json={"name": "Ann"}).json()
    game_id, ann = created["game"]["id"], created["token"]
    channel += game_id
    started = act(a, game_id, ann, "start")
    # B keeps the game once it reads it; nothing of it comes to B over the bus until a stream
    # there watches it.
    assert b.get(f"/api/v1/games/{game_id}").json()["version"] == started["version"]
    assert redis_server.subscribers(channel) == 0
    before = replace(_counts(b))

    async def subscribe() -> Subscription:
        return b.app.state.broker.subscribe(game_id)  # type: ignore[attr-defined,no-any-return]

    stream = b.portal.call(subscribe)  # type: ignore[union-attr]
    redis_server.until_subscribers(channel)
    rolled = act(a, game_id, ann, "roll", {"hold": []})

    async def heard() -> int | None:
        return await stream.wait(started["version"], WAIT)

    assert b.portal.call(heard) == rolled["version"]  # type: ignore[union-attr]
    assert stream.view is not None, "the view came with the version: nobody reads it"
    assert (stream.view.version, list(stream.view.state.turn.dice or ())) == (
        rolled["version"],
        rolled["dice"],
    )
    counts = _counts(b)
    assert (counts.followed, counts.unfollowed, counts.catch_ups) == (1, 0, 0)
    assert counts.full_loads == before.full_loads
    assert (_bus_counts(b)["followed"], _bus_counts(b)["unfollowed"]) == (1, 0)

    # The next move lands on B: its kept snapshot is the game's version, no catch-up.
    held = act(b, game_id, ann, "roll", {"hold": [0]})
    assert held["version"] == rolled["version"] + 1  # the hold and the roll: one change
    counts = _counts(b)
    assert (counts.catch_ups, counts.full_loads) == (0, before.full_loads)
    assert counts.hits > before.hits

    # A, which no stream of the game makes listen, catches up on B's move at its next read:
    # the game is shared from then on, and A follows B's moves from their messages.
    assert a.get(f"/api/v1/games/{game_id}").json() == held
    assert _counts(a).catch_ups == 1
    redis_server.until_subscribers(channel, 2)
    scored = act(b, game_id, ann, "score", {"box": next(iter(held["options"]))})
    _until(lambda: _counts(a).followed == 1, "A never followed B's move")
    kept = a.app.state.service.changes.snapshots.peek(game_id)  # type: ignore[attr-defined]
    assert kept.version == scored["version"]
    assert a.get(f"/api/v1/games/{game_id}").json() == scored
    assert _counts(a).catch_ups == 1
