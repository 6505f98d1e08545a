"""``penta verify`` and ``python -m app.fairness verify`` against a server that answers a log
that is not one (not JSON, not an object, no fairness, fields of the wrong type), and the
docs' verifier given the same on its standard input: each exits 2 with one line saying why,
never a traceback."""

from __future__ import annotations

import http.server
import itertools
import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.fairness import commitment, faces, roll_message
from app.settings import ROOT
from tests.fairness.play import write_docs_verifier

SERVER_SEED = bytes(range(32))


def solo_log() -> dict[str, Any]:
    """A whole game of one person, one roll a turn, dealt by the service's own formulas."""
    rolls = []
    for n in range(13):
        stream = faces(SERVER_SEED, roll_message("g1", n, [(0, "ann")]))
        dice = list(itertools.islice(stream, 5))
        rolls.append({"n": n, "turn": n, "seat": 0, "held": [False] * 5, "dice": dice})
    return {
        "game_id": "g1",
        "status": "finished",
        "seats": 1,
        "computers": [],
        "fairness": {
            "commitment": commitment(SERVER_SEED),
            "client_seeds": [{"seat": 0, "client_seed": "ann"}],
            "server_seed": SERVER_SEED.hex(),
            "verifiable": True,
            "scheme": 2,
        },
        "rolls": rolls,
    }


def changed(change: Callable[[dict[str, Any]], object]) -> str:
    log = solo_log()
    change(log)
    return json.dumps(log)


# What the server answers, and the reason the verifiers give for it.
MALFORMED: dict[str, tuple[str, str]] = {
    "not JSON": ("{not json", "Expecting property name enclosed in double quotes"),
    "JSON nested too deep": ("[" * 100_000, "maximum recursion depth exceeded"),
    "a list": ("[1, 2]", "the log is not a JSON object"),
    "null": ("null", "the log is not a JSON object"),
    "no fairness": (changed(lambda log: log.pop("fairness")), "no fairness or rolls"),
    "fairness a list": (changed(lambda log: log.update(fairness=[])), "no fairness or rolls"),
    "rolls an object": (changed(lambda log: log.update(rolls={})), "no fairness or rolls"),
    "seats a string": (changed(lambda log: log.update(seats="1")), "does not say its seats"),
    "no scheme": (changed(lambda log: log["fairness"].pop("scheme")), "an unknown dice scheme"),
    "no verifiable, no server seed": (
        changed(lambda log: [log["fairness"].pop(name) for name in ("verifiable", "server_seed")]),
        "no server_seed: is the game over?",
    ),
    "server seed a number": (
        changed(lambda log: log["fairness"].update(server_seed=7)),
        "no server_seed: is the game over?",
    ),
    "client seeds null": (
        changed(lambda log: log["fairness"].update(client_seeds=None)),
        "the client seeds are not a list of seats",
    ),
    "a roll a number": (
        changed(lambda log: log["rolls"].__setitem__(4, 4)),
        "roll 4 is out of sequence",
    ),
    "dice a string": (
        changed(lambda log: log["rolls"][2].update(dice="12345")),
        "roll 2: not five dice",
    ),
}


@pytest.fixture
def serve_log() -> Iterator[Callable[[str], str]]:
    """A server answering ``body`` to every GET (as a log is answered): give it the body, get
    its URL."""
    answer = {"body": b""}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer["body"])))
            self.end_headers()
            self.wfile.write(answer["body"])

        def log_message(self, format: str, *args: Any) -> None:  # quiet: no line per request
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()

    def serve(body: str) -> str:
        answer["body"] = body.encode()
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield serve
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


def run(command: list[str], stdin: str = "") -> tuple[int, str, str]:
    result = subprocess.run(
        command, input=stdin, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    return result.returncode, result.stdout, result.stderr


COMMANDS = {"penta": "app.cli", "module": "app.fairness"}


@pytest.mark.parametrize("program", COMMANDS)
def test_the_commands_verify_the_served_log_of_a_whole_game(
    serve_log: Callable[[str], str], program: str
) -> None:
    """The stub server and the log are right: what the cases below change is all that fails."""
    url = serve_log(json.dumps(solo_log()))
    command = [sys.executable, "-m", COMMANDS[program], "verify", "g1", "--server", url]
    assert run(command) == (0, "all 13 rolls match\n", "")


@pytest.mark.parametrize("program", COMMANDS)
@pytest.mark.parametrize("answer", MALFORMED)
def test_a_malformed_answer_cannot_be_checked_exit_2_with_its_reason(
    serve_log: Callable[[str], str], program: str, answer: str
) -> None:
    body, reason = MALFORMED[answer]
    url = serve_log(body)
    status, out, err = run(
        [sys.executable, "-m", COMMANDS[program], "verify", "g1", "--server", url]
    )
    assert (status, out) == (2, ""), err
    assert err.startswith("cannot be checked: ")
    assert reason in err
    assert err.count("\n") == 1, "one line, no traceback"


@pytest.mark.parametrize("answer", MALFORMED)
def test_the_docs_verifier_given_a_malformed_log_exits_2_with_its_reason(
    tmp_path: Path, answer: str
) -> None:
    body, reason = MALFORMED[answer]
    status, out, err = run([sys.executable, str(write_docs_verifier(tmp_path))], body)
    assert (status, err) == (2, "")
    assert out.startswith("cannot be checked: ")
    assert reason in out
    assert out.count("\n") == 1
