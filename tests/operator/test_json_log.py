"""``PENTA_LOG_FORMAT=json``: the log of a whole game is one JSON object a line, carries the
request id a trusted proxy gives, says the game, seat, route, status and duration of each
request, and holds no secret (seat tokens, the resume link, the server seed)."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.fairness.play import auth, play_to_the_end
from tests.live_server import Server


def test_the_json_log_of_a_whole_game(start_server: Callable[..., Server]) -> None:
    server = start_server(
        PENTA_LOG_FORMAT="json",
        PENTA_TRUSTED_PROXIES="127.0.0.1",
        PENTA_COMPUTER_PACE_SECONDS="0.02",
    )
    given = f"proxy-{uuid.uuid4().hex}"
    with httpx.Client(base_url=server.url) as client:
        created = client.post(
            "/api/v1/games", json={"name": "Ann"}, headers={"X-Request-ID": given}
        )
        assert created.headers["x-request-id"] == given
        game_id, token = created.json()["game"]["id"], created.json()["token"]
        joined = client.post(f"/api/v1/games/{game_id}/players", json={"name": "Bob"}).json()
        client.post(f"/api/v1/games/{game_id}/computers", headers=auth(token))
        client.post(f"/api/v1/games/{game_id}/start", headers=auth(token), json={})
        # The private link that holds Ann's seat, opened in another browser.
        resumed = httpx.get(f"{server.url}/games/{game_id}/resume/{token}")
        assert resumed.status_code < 500
        finished = play_to_the_end(
            client,
            game_id,
            {0: token, 1: joined["token"]},
            step_computer=lambda: time.sleep(0.02),
        )
        seed = client.get(f"/api/v1/games/{game_id}/log").json()["fairness"]["server_seed"]
    server.stop()
    assert finished["status"] == "finished"
    assert seed

    text = server.log_path.read_text()
    lines: list[dict[str, Any]] = [json.loads(line) for line in text.splitlines() if line]
    assert all({"time", "level", "logger", "message"} <= line.keys() for line in lines)
    requests = [line for line in lines if line["logger"] == "app.requests"]
    (first,) = [line for line in requests if line.get("request_id") == given]
    assert first["route"] == "/api/v1/games"
    assert first["status"] == 201
    assert first["method"] == "POST"
    assert first["duration_ms"] >= 0
    rolls = [line for line in requests if line["route"] == "/api/v1/games/{game_id}/roll"]
    assert rolls
    assert all(line["game"] == game_id for line in rolls)
    assert {line["seat"] for line in rolls} == {0, 1}
    assert len({line["request_id"] for line in requests}) == len(requests)  # one each
    assert any("/resume/[redacted]" in line["path"] for line in requests)
    for secret in (token, joined["token"], seed):
        assert secret not in text
    assert not [line for line in lines if line["logger"] == "uvicorn.access"]


@pytest.mark.single_kind
def test_only_a_trusted_proxy_names_the_request(make_client: Callable[..., TestClient]) -> None:
    client = make_client()  # no trusted proxy: the id is made here
    answer = client.get("/healthz", headers={"X-Request-ID": "chosen-by-the-client"})
    assert answer.headers["x-request-id"] not in ("", "chosen-by-the-client")
    trusting = make_client(trusted_proxies="*")
    assert trusting.get("/healthz", headers={"X-Request-ID": "a.b-c_1"}).headers[
        "x-request-id"
    ] == ("a.b-c_1")
    odd = trusting.get("/healthz", headers={"X-Request-ID": "spaces; and=signs"})
    assert odd.headers["x-request-id"] != "spaces; and=signs"
