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
from app.fairness.verifier import Malformed, check
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


_FINISHED: dict[str, dict[str, Any]] = {}
"""One finished game's log per database kind, played once per test process: the tests read
or forge copies of it (a whole game through the API costs a second or two each time)."""


@pytest.fixture
def log(database_kind: str, request: pytest.FixtureRequest) -> dict[str, Any]:
    if database_kind not in _FINISHED:
        make_client: Callable[..., TestClient] = request.getfixturevalue("make_client")
        _FINISHED[database_kind] = finished_game(make_client(**IDLE_RUNNER))[1]
    return copy.deepcopy(_FINISHED[database_kind])


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


def _forged(log: dict[str, Any], forge: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    forged = copy.deepcopy(log)
    forge(forged)
    return forged


def _merge_seeds(log: dict[str, Any]) -> None:
    """Both people's seeds in seat 0, seat 1's dropped (scheme 1 made the same message)."""
    seeds = log["fairness"]["client_seeds"]
    seeds[:] = [{"seat": 0, "client_seed": f"{seeds[0]['client_seed']}:{seeds[1]['client_seed']}"}]


def _first_roll_of(log: dict[str, Any], turn: int) -> int:
    return next(n for n, roll in enumerate(log["rolls"]) if roll["turn"] == turn)


def _hold_on_a_first_roll(log: dict[str, Any]) -> None:
    """Turn 4's first roll keeps a die of turn 3's last: the dice carried over."""
    log["rolls"][_first_roll_of(log, 4)]["held"][0] = True


def _swap_turns_1_and_2(log: dict[str, Any]) -> None:
    """Seat 2's turn played before seat 1's, the rolls numbered again from 0."""
    one, two, three = (_first_roll_of(log, turn) for turn in (1, 2, 3))
    log["rolls"][one:three] = log["rolls"][two:three] + log["rolls"][one:two]
    for n, roll in enumerate(log["rolls"]):
        roll["n"] = n


def _swap_seats_of_turns_1_and_2(log: dict[str, Any]) -> None:
    """Turns in order, but seat 2 rolls in seat 1's turn and seat 1 in seat 2's."""
    for roll in log["rolls"]:
        if roll["turn"] in (1, 2):
            roll["seat"] = 3 - roll["seat"]


def _skip_turn_1(log: dict[str, Any]) -> None:
    """No turn 1: every later turn one on, each still rolled by the seat whose turn it is."""
    for roll in log["rolls"]:
        if roll["turn"] >= 1:
            roll["turn"] += 1
            roll["seat"] = roll["turn"] % log["seats"]


FORGERIES: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "no rolls": (lambda log: log.update(rolls=[]), "a finished game without every turn"),
    "cut to 5 rolls": (lambda log: log.update(rolls=log["rolls"][:5]), "without every turn"),
    "seeds merged into one seat": (_merge_seeds, "not one seed per person's seat"),
    "a wrong seat": (lambda log: log["rolls"][7].update(seat=9), "roll 7: not the seat of"),
    "a wrong number": (lambda log: log["rolls"][3].update(n=4), "roll 3 is out of sequence"),
    "a bad hex seed": (
        lambda log: log["fairness"].update(server_seed="zz" * 32),
        "the server_seed is not 64 hex digits",
    ),
    "a null seed": (
        lambda log: log["fairness"].update(server_seed=None),
        "no server_seed: is the game over?",
    ),
    "a short held": (lambda log: log["rolls"][1]["held"].pop(), "roll 1: not five held flags"),
    "a seventh face": (lambda log: log["rolls"][2]["dice"].__setitem__(0, 7), "not 1 to 6"),
    "a fourth roll": (
        lambda log: log["rolls"].insert(3, dict(log["rolls"][2])),
        "out of sequence",
    ),
    "held dice on a turn's first roll": (
        _hold_on_a_first_roll,
        "dice held on a turn's first roll",
    ),
    "turns out of order": (_swap_turns_1_and_2, "turns out of sequence"),
    "seats out of turn order": (_swap_seats_of_turns_1_and_2, "not the seat of turn 1"),
    "a turn skipped": (_skip_turn_1, "turns out of sequence"),
    "no computers said": (lambda log: log.pop("computers"), "which seats are computers"),
    "an unknown scheme": (lambda log: log["fairness"].update(scheme=7), "an unknown dice scheme"),
}


@pytest.mark.parametrize("forgery", FORGERIES)
def test_a_malformed_transcript_cannot_be_checked_exit_2_with_its_reason(
    log: dict[str, Any], tmp_path: Path, forgery: str
) -> None:
    forge, reason = FORGERIES[forgery]
    result = run_verifier(tmp_path, _forged(log, forge))
    assert (result.returncode, result.stderr) == (2, ""), result.stderr
    assert result.stdout.startswith("cannot be checked: ")
    assert reason in result.stdout


def test_a_fourth_roll_in_one_turn_is_refused_even_when_numbered(log: dict[str, Any]) -> None:
    turn = next(roll["turn"] for roll in log["rolls"] if roll["n"] == 0)
    rolls = [roll for roll in log["rolls"] if roll["turn"] == turn]
    forged = _forged(log, lambda forged: None)
    extra = [dict(rolls[-1]) for _ in range(4 - len(rolls))]
    forged["rolls"] = rolls + extra + log["rolls"][len(rolls) :]
    for n, roll in enumerate(forged["rolls"]):
        roll["n"] = n
    with pytest.raises(Malformed, match="a fourth roll in turn 0"):
        check(forged)


def test_what_the_player_saw_and_gave_is_compared(log: dict[str, Any], tmp_path: Path) -> None:
    path = write_docs_verifier(tmp_path)
    shown = log["fairness"]["commitment"]

    def run(*arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(path), *arguments],
            input=json.dumps(log),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    assert run("--commitment", shown, "--seed", "0:ann-1", "--seed", "1:B0b's ~").returncode == 0
    other = run("--commitment", "0" * 64)
    assert (other.returncode, other.stdout) == (
        1,
        "the commitment is not the one shown before the first roll\n",
    )
    mine = run("--seed", "1:not-mine")
    assert (mine.returncode, mine.stdout) == (1, "the seed of seat 1 is not the one it gave\n")
    broken = subprocess.run(
        [sys.executable, str(path)], input="{not json", capture_output=True, text=True, check=False
    )
    assert broken.returncode == 2
    assert broken.stdout.startswith("cannot be checked: ")
    assert "Traceback" not in broken.stderr


def test_a_game_of_the_first_scheme_still_verifies(make_client: Callable[..., TestClient]) -> None:
    client = make_client(**IDLE_RUNNER)
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    created = post(client, "/api/v1/games", body={"name": "Ann"})
    game_id, ann = created["game"]["id"], created["token"]
    # As a game created before scheme 2 (the migration leaves their scheme NULL).
    service.changes.change_records(game_id, lambda record: setattr(record, "dice_scheme", None))
    post(client, f"/api/v1/games/{game_id}/start", ann, {"client_seed": "a:b"})
    play_to_the_end(client, game_id, {0: ann})
    log: dict[str, Any] = client.get(f"/api/v1/games/{game_id}/log").json()
    assert log["fairness"]["scheme"] == 1
    assert check(log) == []
    log["fairness"]["scheme"] = 2
    assert check(log), "read under the other scheme, the rolls do not match"
