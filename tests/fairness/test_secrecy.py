"""Against a real server: before the end the server seed is in no answer (JSON, log, page,
fragment, live event) and in no line of the server's log; after it, anyone can verify the
game with ``python -m app.fairness verify``."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from app.settings import ROOT
from tests.fairness.play import auth, play_to_the_end, post
from tests.live_server import Server


def stored_server_seed(server: Server, game_id: str) -> str:
    ((seed,),) = server.query("SELECT server_seed FROM games WHERE id = :game", game=game_id)
    return str(seed)


def first_event(client: httpx.Client, path: str) -> str:
    """The first server-sent event with data of a stream, as sent."""
    with client.stream("GET", path) as stream:
        lines: Iterator[str] = stream.iter_lines()
        event: list[str] = []
        for line in lines:
            if line:
                event.append(line)
            elif any(field.startswith("data:") for field in event):
                return "\n".join(event)
            else:
                event = []  # the stream's opening "retry:"
    raise AssertionError("the stream ended without an event")


def everything_shown(client: httpx.Client, game_id: str, cookies: dict[str, str]) -> list[str]:
    """Every answer a player or a spectator can get about the game, as text."""
    browser = httpx.Client(base_url=str(client.base_url), cookies=cookies, timeout=30)
    spectator = httpx.Client(base_url=str(client.base_url), timeout=30)
    with browser, spectator:
        answers = [
            client.get(f"/api/v1/games/{game_id}").text,
            client.get(f"/api/v1/games/{game_id}/log").text,
            first_event(client, f"/api/v1/games/{game_id}/events"),
        ]
        for viewer in (browser, spectator):
            answers += [
                viewer.get(f"/games/{game_id}").text,
                viewer.get(f"/games/{game_id}/board", headers={"HX-Request": "true"}).text,
                first_event(viewer, f"/games/{game_id}/events?version=0"),
            ]
    return answers


def test_the_seed_is_shown_only_once_the_game_is_over(
    start_server: Callable[..., Server], tmp_path: Path
) -> None:
    server = start_server()
    with httpx.Client(base_url=server.url, timeout=30) as client:
        created = post(client, "/api/v1/games", body={"name": "Ann"})
        game_id, ann = created["game"]["id"], created["token"]
        seed = stored_server_seed(server, game_id)
        cookies = {f"penta_seat_{game_id}": ann}
        shown = everything_shown(client, game_id, cookies)
        post(client, f"/api/v1/games/{game_id}/start", ann, {"client_seed": "ann"})
        post(client, f"/api/v1/games/{game_id}/roll", ann, {"hold": []})
        shown += everything_shown(client, game_id, cookies)
        assert all(len(answer) > 100 for answer in shown)
        assert not [answer for answer in shown if seed in answer.lower()]

        play_to_the_end(client, game_id, {0: ann})
        game = client.get(f"/api/v1/games/{game_id}", headers=auth(ann)).json()
        assert game["fairness"]["server_seed"] == seed
        assert seed in client.get(f"/games/{game_id}").text
    server.stop()
    log = server.log_path.read_text()
    assert f"/api/v1/games/{game_id}/roll" in log, "the server logs its requests"
    assert seed not in log.lower()


def run_verify(program: str, *arguments: str) -> tuple[int, str]:
    """``python -m PROGRAM verify ARGUMENTS``: its exit status and what it printed."""
    result = subprocess.run(
        [sys.executable, "-m", program, "verify", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return result.returncode, result.stdout + result.stderr


@pytest.mark.parametrize("program", ["app.fairness", "app.cli"], ids=["module", "penta"])
def test_python_m_app_fairness_verify_checks_a_game_on_a_server(
    start_server: Callable[..., Server], program: str
) -> None:
    """``python -m app.fairness verify`` and the operator's ``penta verify`` alike."""
    server = start_server()

    def verify(*arguments: str) -> tuple[int, str]:
        return run_verify(program, *arguments)

    with httpx.Client(base_url=server.url, timeout=30) as client:
        created = post(client, "/api/v1/games", body={"name": "Ann"})
        game_id, ann = created["game"]["id"], created["token"]
        post(client, f"/api/v1/games/{game_id}/start", ann)
        assert verify(game_id, "--server", server.url) == (
            2,
            "the game is not over yet: the server seed is revealed at its end\n",
        )
        play_to_the_end(client, game_id, {0: ann})
        rolls = len(client.get(f"/api/v1/games/{game_id}/log").json()["rolls"])
    assert verify(f"{server.url}/games/{game_id}") == (0, f"all {rolls} rolls match\n")
    assert verify(game_id, "--server", server.url) == (0, f"all {rolls} rolls match\n")
    assert verify("nope", "--server", server.url) == (
        2,
        "the server answered 404: is the game id right?\n",
    )


def test_penta_verify_compares_the_commitment_and_the_seed_the_player_saw(
    start_server: Callable[..., Server],
) -> None:
    """``penta verify --commitment HEX --seed SEAT:SEED``: what Ann was shown before her first
    roll and the seed she gave are accepted; any other is a mismatch, exit 1 (docs/fairness.md)."""
    server = start_server()
    with httpx.Client(base_url=server.url, timeout=30) as client:
        created = post(client, "/api/v1/games", body={"name": "Ann"})
        game_id, ann = created["game"]["id"], created["token"]
        shown = created["game"]["fairness"]["commitment"]
        post(client, f"/api/v1/games/{game_id}/start", ann, {"client_seed": "ann:1"})
        play_to_the_end(client, game_id, {0: ann})
        rolls = len(client.get(f"/api/v1/games/{game_id}/log").json()["rolls"])

    def penta(*flags: str) -> tuple[int, str]:
        return run_verify("app.cli", game_id, "--server", server.url, *flags)

    matched = (0, f"all {rolls} rolls match\n")
    assert penta("--commitment", shown, "--seed", "0:ann:1") == matched
    assert penta("--commitment", shown.upper()) == matched
    assert penta("--commitment", "0" * 64) == (
        1,
        "the commitment is not the one shown before the first roll\n",
    )
    assert penta("--seed", "0:ann") == (1, "the seed of seat 0 is not the one it gave\n")
    assert penta("--seed", "1:ann:1") == (1, "the seed of seat 1 is not the one it gave\n")
    assert penta("--commitment", "0" * 64, "--seed", "0:ann:1", "--seed", "0:x") == (
        1,
        "the commitment is not the one shown before the first roll\n"
        "the seed of seat 0 is not the one it gave\n",
    )
    status, report = penta("--seed", "ann:1")  # no seat: a usage error, before any check
    assert status == 2
    assert "argument --seed: invalid seat_seed value: 'ann:1'" in report
    assert "Traceback" not in report
