"""The standalone verifier of docs/fairness.md, run as written on a whole game played through
the API (two people, one computer): it reproduces every roll, and reports a changed die or a
wrong seed."""

from __future__ import annotations

import copy
import json
import secrets
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.fairness import commitment
from app.fairness.verifier import check
from app.service.games import GameService
from app.settings import ROOT
from tests.fairness.play import docs_verifier, play_to_the_end, post, write_docs_verifier

# The tests step the computer seat themselves; the server's runner stays out of the way.
IDLE_RUNNER = {"computer_pace_seconds": 3600}


def finished_game(client: TestClient) -> tuple[str, dict[str, Any]]:
    """Ann (host) and Bob, who give their own seeds, and a computer play a whole game."""
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    created = post(client, "/api/v1/games", body={"name": "Ann"})
    game_id, ann = created["game"]["id"], created["token"]
    bob = post(
        client, f"/api/v1/games/{game_id}/players", body={"name": "Bob", "client_seed": "B0b's ~"}
    )["token"]
    post(client, f"/api/v1/games/{game_id}/computers", ann)
    post(client, f"/api/v1/games/{game_id}/start", ann, {"client_seed": "ann-1"})
    play_to_the_end(client, game_id, {0: ann, 1: bob}, lambda: service.play_for_computer(game_id))
    log: dict[str, Any] = client.get(f"/api/v1/games/{game_id}/log").json()
    return game_id, log


@pytest.fixture
def log(make_client: Callable[..., TestClient]) -> dict[str, Any]:
    return finished_game(make_client(**IDLE_RUNNER))[1]


def run_verifier(folder: Path, log: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """The docs' verifier, saved as a file and run with the log on its standard input."""
    return subprocess.run(
        [sys.executable, str(write_docs_verifier(folder))],
        input=json.dumps(log),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_log_of_a_finished_game_has_the_seeds_and_every_roll(log: dict[str, Any]) -> None:
    fairness = log["fairness"]
    assert fairness["verifiable"] is True
    assert fairness["commitment"] == commitment(bytes.fromhex(fairness["server_seed"]))
    assert fairness["client_seeds"] == [
        {"seat": 0, "client_seed": "ann-1"},
        {"seat": 1, "client_seed": "B0b's ~"},
    ]
    rolls = log["rolls"]
    assert [roll["n"] for roll in rolls] == list(range(len(rolls)))
    assert {roll["seat"] for roll in rolls} == {0, 1, 2}
    assert len(rolls) >= 3 * 13
    assert any(any(roll["held"]) for roll in rolls if roll["seat"] == 2)
    assert any(any(roll["held"]) for roll in rolls if roll["seat"] == 0)


def test_the_docs_verifier_reproduces_every_roll(log: dict[str, Any], tmp_path: Path) -> None:
    result = run_verifier(tmp_path, log)
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        f"all {len(log['rolls'])} rolls match\n",
        "",
    )


def test_the_docs_verifier_reports_a_changed_die(log: dict[str, Any], tmp_path: Path) -> None:
    tampered = copy.deepcopy(log)
    number, roll = next(
        (n, roll) for n, roll in enumerate(tampered["rolls"]) if n > 5 and not roll["held"][2]
    )
    logged = list(roll["dice"])
    roll["dice"][2] = roll["dice"][2] % 6 + 1
    result = run_verifier(tmp_path, tampered)
    assert result.returncode == 1
    assert result.stdout == (
        f"roll {number} (seat {roll['seat']}): {roll['dice']}, seeds give {logged}\n"
    )


def test_the_docs_verifier_reports_a_changed_held_die(log: dict[str, Any], tmp_path: Path) -> None:
    tampered = copy.deepcopy(log)
    number, roll = next((n, roll) for n, roll in enumerate(tampered["rolls"]) if roll["held"][0])
    logged = list(roll["dice"])
    roll["dice"][0] = roll["dice"][0] % 6 + 1
    result = run_verifier(tmp_path, tampered)
    assert result.returncode == 1
    assert result.stdout == (
        f"roll {number} (seat {roll['seat']}): {roll['dice']}, seeds give {logged}\n"
    )


def test_the_docs_verifier_reports_a_wrong_seed(log: dict[str, Any], tmp_path: Path) -> None:
    wrong = copy.deepcopy(log)
    wrong["fairness"]["server_seed"] = secrets.token_hex(32)
    result = run_verifier(tmp_path, wrong)
    lines = result.stdout.splitlines()
    assert result.returncode == 1
    assert lines[0] == "the server seed does not match the commitment"
    # One face in six matches by chance: nearly every roll is reported.
    assert len(lines) > len(log["rolls"]) // 2


def test_a_wrong_seed_with_a_matching_commitment_still_fails_every_roll(
    log: dict[str, Any], tmp_path: Path
) -> None:
    """A server that swapped its seed and published the new one's commitment afterwards."""
    forged = copy.deepcopy(log)
    seed = secrets.token_bytes(32)
    forged["fairness"].update(server_seed=seed.hex(), commitment=commitment(seed))
    result = run_verifier(tmp_path, forged)
    assert result.returncode == 1
    assert result.stdout.startswith("roll 0 (seat 0): ")


def test_the_docs_print_the_verifier_the_app_runs() -> None:
    module = (ROOT / "app" / "fairness" / "verifier.py").read_text()
    assert module.endswith(docs_verifier())
    assert module.startswith('"""')


def test_every_roll_still_verifies_after_a_seat_is_handed_over_and_taken_back(
    make_client: Callable[..., TestClient],
) -> None:
    # The hand-over and the return are logged between rolls but are no rolls: the roll
    # numbers the server deals from and those the log shows must not shift by them.
    client = make_client(absent_seconds=0.001, **IDLE_RUNNER)
    state = client.app.state  # type: ignore[attr-defined]
    service: GameService = state.service
    created = post(client, "/api/v1/games", body={"name": "Ann"})
    game_id, ann = created["game"]["id"], created["token"]
    bob = post(client, f"/api/v1/games/{game_id}/players", body={"name": "Bob"})["token"]
    post(client, f"/api/v1/games/{game_id}/start", ann)
    post(client, f"/api/v1/games/{game_id}/roll", ann, {"hold": []})
    post(client, f"/api/v1/games/{game_id}/stand-in", bob, {"seat": 0})
    while client.get(f"/api/v1/games/{game_id}").json()["turn"] == 0:
        service.play_for_computer(game_id)  # the computer finishes Ann's turn
    assert state.stand_ins.take_back(game_id, ann) is not None
    play_to_the_end(client, game_id, {0: ann, 1: bob})
    log: dict[str, Any] = client.get(f"/api/v1/games/{game_id}/log").json()
    assert check(log) == []
    assert [roll["n"] for roll in log["rolls"]] == list(range(len(log["rolls"])))
