"""Small helpers for driving the bot API in tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Connection, insert
from sqlalchemy.orm import Session

from app.store.models import ServiceRun


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def started_game(client: TestClient, name: str = "Ann") -> tuple[str, str, dict[str, Any]]:
    """A solo game that has started: its id, the host's token and its JSON."""
    created = client.post("/api/v1/games", json={"name": name})
    assert created.status_code == 201, created.text
    game_id, token = created.json()["game"]["id"], created.json()["token"]
    started = client.post(f"/api/v1/games/{game_id}/start", headers=auth(token))
    assert started.status_code == 200, started.text
    return game_id, token, started.json()


def act(
    client: TestClient, game_id: str, token: str, action: str, body: Any = None, status: int = 200
) -> dict[str, Any]:
    """POST an action and check its status; the JSON answer."""
    response = client.post(f"/api/v1/games/{game_id}/{action}", json=body, headers=auth(token))
    assert response.status_code == status, response.text
    result: dict[str, Any] = response.json()
    return result


def served_for(connection: Connection | Session, days: float) -> None:
    """Note that a server ran on the database for the last ``days`` (retention counts idle
    time only while one did)."""
    moment = datetime.now(UTC)
    connection.execute(
        insert(ServiceRun).values(started_at=moment - timedelta(days=days), seen_at=moment)
    )
