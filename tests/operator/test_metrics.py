"""``/metrics``: after a scripted game against the computer, every family the operators'
dashboard reads is there with the right counts, parsed by prometheus-client's own parser;
401 without the token, 404 when none is set. A real uvicorn process (fresh counts), on
SQLite and on PostgreSQL."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from tests.fairness.play import auth
from tests.hardening.test_database_faults import HOLD_THE_LOCK
from tests.live_server import Server

TOKEN = "scrape-token-of-the-tests-0123"
FAMILIES = (
    "penta_actions",
    "penta_action_seconds",
    "penta_games",
    "penta_games_finished",
    "penta_live_streams",
    "penta_live_events",
    "penta_live_lag_seconds",
    "penta_database_wait_seconds",
    "penta_database_busy",
    "penta_deadline_lateness_seconds",
    "penta_limit_refusals",
    "process_cpu_seconds",
    "process_resident_memory_bytes",
    "process_open_fds",
)
"""What the dashboard and the alerts read (the bus's are in tests/cluster)."""

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(url: str, token: str = TOKEN) -> tuple[set[str], Samples]:
    """The families and the samples (by name and labels) of one scrape."""
    answer = httpx.get(f"{url}/metrics", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain; version=")
    families: set[str] = set()
    samples: Samples = {}
    for family in text_string_to_metric_families(answer.text):
        families.add(family.name)
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return families, samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def wait_for(check: Callable[[], bool], seconds: float = 10.0) -> None:
    """Until ``check()`` holds (a server still starting, not answering, counts as not yet)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if check():
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "not reached in time"
        time.sleep(0.05)


@pytest.fixture
def server(start_server: Callable[..., Server]) -> Server:
    return start_server(
        PENTA_METRICS_TOKEN=TOKEN,
        PENTA_COMPUTER_PACE_SECONDS="0.02",
        PENTA_AUTO_CONFIRM_SECONDS="60",
    )


def test_a_scripted_game_is_counted(server: Server) -> None:
    made: dict[tuple[str, str, str], int] = {}

    def count(kind: str, outcome: str = "ok", code: str = "") -> None:
        made[kind, outcome, code] = made.get((kind, outcome, code), 0) + 1

    with httpx.Client(base_url=f"{server.url}/api/v1") as client:
        seat = client.post("/games", json={"name": "Ann"}).json()
        count("create")
        game_id, token = seat["game"]["id"], seat["token"]
        assert client.post(f"/games/{game_id}/computers", headers=auth(token)).status_code == 200
        count("add_computer")
        started = client.post(f"/games/{game_id}/start", headers=auth(token), json={})
        count("start")
        version = started.json()["version"]
        refusal = client.post(f"/games/{game_id}/roll", headers=auth("x" * 30), json={"hold": []})
        assert refusal.status_code == 403
        count("roll", "refused", refusal.json()["error"]["code"])
        too_big = client.post(f"/games/{game_id}/roll", content=b"[" * 20_000)
        assert too_big.status_code == 413
        with client.stream("GET", f"/games/{game_id}/events", headers=auth(token)) as stream:
            lines = stream.iter_lines()
            assert next(lines).startswith("retry:")
            assert value(scrape(server.url)[1], "penta_live_streams", kind="api") == 1
            game: dict[str, Any] = client.get(f"/games/{game_id}").json()
            for turn in range(13):
                wait_for(lambda: client.get(f"/games/{game_id}").json()["turn"] == 0)
                for _roll in range(3 if turn == 0 else 1):
                    answer = client.post(
                        f"/games/{game_id}/roll", headers=auth(token), json={"hold": []}
                    )
                    game = answer.json()
                    count("roll")
                if turn == 0:  # a fourth roll: refused, with its code
                    fourth = client.post(
                        f"/games/{game_id}/roll", headers=auth(token), json={"hold": []}
                    )
                    assert fourth.status_code == 409
                    count("roll", "refused", fourth.json()["error"]["code"])
                if turn == 0:  # after the third roll: the computer's box
                    assert client.post(f"/games/{game_id}/auto", headers=auth(token)).is_success
                    count("auto")
                else:
                    box = max(game["options"], key=game["options"].get)
                    scored = client.post(
                        f"/games/{game_id}/score", headers=auth(token), json={"box": box}
                    )
                    assert scored.is_success, scored.text
                    count("score")
            wait_for(lambda: client.get(f"/games/{game_id}").json()["status"] == "finished")
            finished = client.get(f"/games/{game_id}").json()
    # Every change is a version: those the person did not make, the server did.
    person = sum(n for (kind, outcome, _), n in made.items() if kind in ("roll", "score", "auto"))
    person -= sum(n for (_, outcome, _), n in made.items() if outcome == "refused")
    computer_steps = finished["version"] - version - person
    assert computer_steps >= 13 * 2  # at least a roll and a box a turn

    families, samples = scrape(server.url)
    assert set(FAMILIES) <= families, set(FAMILIES) - families
    counted = {
        (labels["kind"], labels["outcome"], labels["code"]): int(number)
        for (name, pairs), number in samples.items()
        if name == "penta_actions_total" and number
        for labels in [dict(pairs)]
    }
    assert counted == {**made, ("server", "ok", ""): computer_steps}
    rolls = sum(number for (kind, _, _), number in made.items() if kind == "roll")
    assert value(samples, "penta_action_seconds_count", kind="roll") == rolls
    assert value(samples, "penta_deadline_lateness_seconds_count") == computer_steps
    assert value(samples, "penta_games", status="finished") == 1
    assert value(samples, "penta_games", status="playing") == 0
    assert value(samples, "penta_games_finished_total") == 1
    assert value(samples, "penta_limit_refusals_total", limit="too_large") == 1
    assert value(samples, "penta_database_busy_total") == 0
    writes = sum(number for (_, outcome, _), number in counted.items() if outcome == "ok")
    assert value(samples, "penta_database_wait_seconds_count") >= writes
    # The stream heard every version after it opened; the lag of those written while they
    # were the newest was measured (not the first, read when the stream opened).
    events = value(samples, "penta_live_events_total", kind="api")
    assert events >= 13 * 2
    assert events / 2 <= value(samples, "penta_live_lag_seconds_count") < events
    wait_for(lambda: value(scrape(server.url)[1], "penta_live_streams", kind="api") == 0)
    assert value(samples, "process_cpu_seconds_total") > 0


@pytest.mark.single_kind  # SQLite's write lock, held by another process
def test_a_busy_change_is_counted_once(start_server: Callable[..., Server]) -> None:
    """A roll that waited out ``PENTA_DATABASE_WAIT_SECONDS`` for another process's lock:
    one 503 ``busy``, one busy action (not also an error, nor counted on the loop)."""
    server = start_server(PENTA_METRICS_TOKEN=TOKEN, PENTA_DATABASE_WAIT_SECONDS="0.2")
    with httpx.Client(base_url=f"{server.url}/api/v1") as client:
        seat = client.post("/games", json={"name": "Ann"}).json()
        game_id, token = seat["game"]["id"], seat["token"]
        assert client.post(f"/games/{game_id}/start", headers=auth(token)).status_code == 200
        before = scrape(server.url)[1]
        database = Path(server.environment["PENTA_DATA_DIR"]) / "penta.db"
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLD_THE_LOCK, str(database), "30"],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert holder.stdout is not None
            assert holder.stdout.readline().strip() == "locked"
            rolled = client.post(f"/games/{game_id}/roll", headers=auth(token), json={})
        finally:
            holder.kill()
            holder.wait(timeout=30)
    assert rolled.status_code == 503
    assert rolled.json()["error"]["code"] == "busy"
    after = scrape(server.url)[1]
    busy = "penta_database_busy_total"
    assert value(after, busy) == value(before, busy) + 1
    moved = {
        labels: number - before.get((name, labels), 0.0)
        for (name, labels), number in after.items()
        if name == "penta_actions_total" and number != before.get((name, labels), 0.0)
    }
    assert moved == {(("code", "busy"), ("kind", "roll"), ("outcome", "busy")): 1}
    assert value(after, "penta_action_seconds_count", kind="roll") == 1


def test_the_token_is_asked_for(server: Server) -> None:
    assert httpx.get(f"{server.url}/metrics").status_code == 401
    wrong = httpx.get(f"{server.url}/metrics", headers=auth("not-the-token-0123456789"))
    assert wrong.status_code == 401
    assert wrong.headers["www-authenticate"] == "Bearer"
    # Scraped at a worker's own address, whatever Host it is given.
    other_host = httpx.get(f"{server.url}/metrics", headers={**auth(TOKEN), "Host": "app1:8000"})
    assert other_host.status_code == 200


def test_no_token_no_metrics(client: TestClient) -> None:
    assert client.get("/metrics").status_code == 404
    assert client.get("/metrics", headers=auth(TOKEN)).status_code == 404
    assert "/metrics" not in client.get("/openapi.json").json()["paths"]
