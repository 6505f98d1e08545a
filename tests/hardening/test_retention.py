"""Retention against a real uvicorn process: games that wait or stall for a week of service
are closed as abandoned at the next start (and every hour), a week the server was down
closes nothing, finished ones are kept unless the operator sets a limit, and a restart with
thousands of games in play keeps answering."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import Connection, func, insert, literal, select, update

from app.store.models import ActionRecord, GameRecord, PlayerRecord, ServiceRun
from tests.live_server import Server
from tests.web.helpers import served_for

pytestmark = pytest.mark.slow
ANSWER_TIMEOUT_SECONDS = 5.0


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _create(client: httpx.Client) -> tuple[str, str]:
    created = client.post("/api/v1/games", json={"name": "Ann"}).json()
    return created["game"]["id"], created["token"]


def _start(client: httpx.Client, game_id: str, token: str) -> None:
    assert client.post(f"/api/v1/games/{game_id}/start", headers=_auth(token)).status_code == 200


def _finish(client: httpx.Client, game_id: str, token: str) -> None:
    for _turn in range(13):
        for _roll in range(3):
            client.post(f"/api/v1/games/{game_id}/roll", json={}, headers=_auth(token))
        assert client.post(f"/api/v1/games/{game_id}/auto", headers=_auth(token)).status_code == 200


def _age(server: Server, game_ids: list[str], days: float) -> None:
    """Make the games look unchanged (and, if over, ended) ``days`` ago, with a server
    running all that time."""
    then = datetime.now(UTC) - timedelta(days=days)
    games = GameRecord.__table__.c
    chosen = games.id.in_(game_ids)
    with server.database() as connection:
        connection.execute(update(GameRecord).where(chosen).values(updated_at=then))
        ended = chosen & games.finished_at.is_not(None)
        connection.execute(update(GameRecord).where(ended).values(finished_at=then))
        served_for(connection, days + 1)


def _stopped_ago(server: Server, days: float) -> None:
    """Move the whole history back ``days``: the games' last changes and the servers' runs,
    as if the server had stopped that long ago."""
    shift = timedelta(days=days)
    with server.database() as connection:
        for game_id, updated in connection.execute(select(GameRecord.id, GameRecord.updated_at)):
            connection.execute(
                update(GameRecord)
                .where(GameRecord.id == game_id)
                .values(updated_at=updated - shift)
            )
        runs = connection.execute(select(ServiceRun.id, ServiceRun.started_at, ServiceRun.seen_at))
        for run, started, seen in runs.all():
            connection.execute(
                update(ServiceRun)
                .where(ServiceRun.id == run)
                .values(started_at=started - shift, seen_at=seen - shift)
            )


def _copy_game(connection: Connection, model: str, copy: str) -> None:
    """Copy the game ``model`` (row, seats, log) as ``copy``, due at its last change."""
    games = GameRecord.__table__
    columns = [
        literal(copy)
        if column.name == "id"
        else games.c.updated_at
        if column.name == "due_at"
        else column
        for column in games.c
    ]
    connection.execute(
        insert(games).from_select(list(games.c), select(*columns).where(games.c.id == model))
    )
    for table in (PlayerRecord.__table__, ActionRecord.__table__):
        columns = [literal(copy) if column.name == "game_id" else column for column in table.c]
        connection.execute(
            insert(table).from_select(
                list(table.c), select(*columns).where(table.c.game_id == model)
            )
        )


def test_stalled_games_are_closed_as_abandoned_and_finished_ones_kept_unless_told(
    start_server: Callable[..., Server],
) -> None:
    server = start_server()
    with httpx.Client(base_url=server.url, timeout=30) as client:
        waiting, _ = _create(client)
        stalled, stalled_token = _create(client)
        _start(client, stalled, stalled_token)
        finished, finished_token = _create(client)
        _start(client, finished, finished_token)
        _finish(client, finished, finished_token)
        recent, recent_token = _create(client)
        _start(client, recent, recent_token)
    server.stop()
    _age(server, [waiting, stalled], days=8)
    _age(server, [finished], days=40)
    _age(server, [recent], days=6)
    server.log = server.log_path.open("a")
    server.restart()
    with httpx.Client(base_url=server.url, timeout=30) as client:
        status = {
            game: client.get(f"/api/v1/games/{game}").json()["status"]
            for game in (waiting, stalled, finished, recent)
        }
        assert status == {
            waiting: "abandoned",
            stalled: "abandoned",
            finished: "finished",
            recent: "playing",
        }
        move = client.post(f"/api/v1/games/{stalled}/roll", json={}, headers=_auth(stalled_token))
        assert move.status_code == 409
        assert move.json()["error"]["code"] == "abandoned"
        page = client.get(f"/games/{stalled}", headers={"Accept-Language": "fr"})
        assert "Cette partie a été fermée après une longue pause." in page.text
        assert client.get(f"/games/{finished}/review").status_code == 200, "kept for reviews"
    server.stop()
    server.environment["PENTA_DELETE_FINISHED_AFTER_DAYS"] = "30"
    server.log = server.log_path.open("a")
    server.restart()
    with httpx.Client(base_url=server.url, timeout=30) as client:
        assert client.get(f"/api/v1/games/{finished}").status_code == 404, "40 days old: deleted"
        assert client.get(f"/api/v1/games/{stalled}").json()["status"] == "abandoned", (
            "closed today: kept for 30 days"
        )
        assert client.get(f"/api/v1/games/{recent}").json()["status"] == "playing"


def test_a_start_after_a_week_of_downtime_closes_no_game_in_play(
    start_server: Callable[..., Server],
) -> None:
    server = start_server()
    with httpx.Client(base_url=server.url, timeout=30) as client:
        game_id, token = _create(client)
        _start(client, game_id, token)
        assert client.post(f"/api/v1/games/{game_id}/roll", json={}, headers=_auth(token))
    server.stop()
    _stopped_ago(server, days=8)  # it played a little, then the server was down 8 days
    server.log = server.log_path.open("a")
    server.restart()
    with httpx.Client(base_url=server.url, timeout=30) as client:
        assert client.get(f"/api/v1/games/{game_id}").json()["status"] == "playing"
        move = client.post(f"/api/v1/games/{game_id}/roll", json={}, headers=_auth(token))
        assert move.status_code == 200, move.text
    server.stop()
    with server.database() as connection:
        runs = connection.scalar(select(func.count()).select_from(ServiceRun))
    assert runs == 2, "each start noted its own run"


def test_a_restart_with_three_thousand_games_in_play_keeps_answering(
    start_server: Callable[..., Server],
) -> None:
    server = start_server(PENTA_ABANDON_AFTER_DAYS="0")
    with httpx.Client(base_url=server.url, timeout=30) as client:
        model, token = _create(client)
        _start(client, model, token)
        for _roll in range(2):
            client.post(f"/api/v1/games/{model}/roll", json={}, headers=_auth(token))
    server.stop()
    with server.database() as connection:
        # Every copy is due (as migration 0003 makes every game in play): the scheduler
        # loads and looks at each of them at the start, the heaviest restart there is.
        for number in range(3000):
            _copy_game(connection, model, f"copy{number:05d}")
    server.log = server.log_path.open("a")
    server.restart()
    latencies = []
    # Each look must be answered within the client's timeout; how fast is printed, not
    # asserted (a test never asserts a wall-clock time: bench/ measures).
    with httpx.Client(base_url=server.url, timeout=ANSWER_TIMEOUT_SECONDS) as client:
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            began = time.monotonic()
            assert client.get("/healthz").status_code == 200
            latencies.append(time.monotonic() - began)
        assert client.get("/api/v1/games/copy02999").json()["rolls_left"] == 1
    print(
        f"\nafter a restart with 3,000 games: /healthz median "
        f"{statistics.median(latencies) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms"
    )
