"""``PENTA_LOG_FORMAT=json``: the log of a whole game is one JSON object a line, carries the
request id a trusted proxy gives, says the game, seat, route, status and duration of each
request, and holds no secret (seat tokens, the resume link's token as the game page hands it
out, the server seed, the metrics token of a scrape)."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.web.deps import seat_cookie
from tests.fairness.play import auth, play_to_the_end
from tests.live_server import Server
from tests.operator.test_metrics import TOKEN as METRICS_TOKEN


def test_the_json_log_of_a_whole_game(start_server: Callable[..., Server]) -> None:
    server = start_server(
        PENTA_LOG_FORMAT="json",
        PENTA_TRUSTED_PROXIES="127.0.0.1",
        PENTA_COMPUTER_PACE_SECONDS="0.02",
        PENTA_METRICS_TOKEN=METRICS_TOKEN,
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
        # A live stream's line is written as it opens, not when the page leaves.
        opened = f"stream-{uuid.uuid4().hex}"
        stream_headers = {"X-Request-ID": opened, "Accept": "text/event-stream"}
        with client.stream("GET", f"/games/{game_id}/events", headers=stream_headers) as events:
            assert next(events.iter_lines()) == "retry: 1000"
            assert _logged_within(server, opened, seconds=5), "the open stream's line"
        # The private link that holds Ann's seat, as her game page hands it out ("Continue on
        # another device"), opened in another browser (a look: the seat stays hers).
        page = httpx.get(
            f"{server.url}/games/{game_id}", cookies={seat_cookie(game_id): token}
        ).text
        link = re.search(r'id="resume-link" readonly value="([^"]+)"', page)
        assert link, "Ann's page offers her the link"
        resume = link.group(1).rsplit("/", 1)[1]
        assert link.group(1) == f"{server.url}/games/{game_id}/resume/{resume}"
        assert "Continue here" in httpx.get(link.group(1)).text, "a link to Ann's seat"
        scraped = httpx.get(f"{server.url}/metrics", headers=auth(METRICS_TOKEN))
        assert scraped.status_code == 200
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
    (stream,) = [line for line in requests if line.get("request_id") == opened]
    assert (stream["route"], stream["status"], stream["game"]) == (
        "/games/{game_id}/events",
        200,
        game_id,
    )
    resumed = [line for line in requests if line["route"] == "/games/{game_id}/resume/{token}"]
    assert [line["path"] for line in resumed] == [f"/games/{game_id}/resume/[redacted]"]
    assert [line["status"] for line in requests if line["route"] == "/metrics"] == [200]
    for secret in (token, joined["token"], seed, resume, METRICS_TOKEN):
        assert secret not in text
    assert not [line for line in lines if line["logger"] == "uvicorn.access"]


def _logged_within(server: Server, request_id: str, seconds: float) -> dict[str, Any] | None:
    """The ``app.requests`` line of ``request_id`` once the server has written it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for text in server.log_path.read_text().splitlines():
            if request_id in text:
                line: dict[str, Any] = json.loads(text)
                if line["logger"] == "app.requests" and line.get("request_id") == request_id:
                    return line
        time.sleep(0.05)
    return None


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
