"""``python -m app.fairness verify GAME_ID_OR_URL``: check a game's dice against a server.

Fetches the game's log (``GET /api/v1/games/<id>/log``) and runs the verifier of
docs/fairness.md on it. Exits 0 when every roll matches, 1 when one does not (or the seed
does not match the commitment), 2 when the game cannot be checked (yet).
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from app.fairness.verifier import Malformed, check, seat_seed

DEFAULT_SERVER = "http://127.0.0.1:8000"
TIMEOUT_SECONDS = 30


def log_url(game: str, server: str = DEFAULT_SERVER) -> str:
    """The log's URL for a game id, or for any URL of the game (its page, its JSON, …).

    >>> log_url("Ab3_x-9")
    'http://127.0.0.1:8000/api/v1/games/Ab3_x-9/log'
    >>> log_url("https://penta.example/games/Ab3_x-9/review")
    'https://penta.example/api/v1/games/Ab3_x-9/log'
    """
    parsed = urllib.parse.urlsplit(game)
    if parsed.scheme in ("http", "https"):
        parts = parsed.path.split("/")
        if "games" not in parts or parts.index("games") + 1 >= len(parts):
            raise ValueError(f"not the URL of a game: {game}")
        game_id = parts[parts.index("games") + 1]
        server = f"{parsed.scheme}://{parsed.netloc}"
    elif parsed.scheme or "/" in game:
        raise ValueError(f"neither a game id nor an http(s) URL: {game}")
    else:
        game_id = game
    return f"{server.rstrip('/')}/api/v1/games/{urllib.parse.quote(game_id)}/log"


def fetch(url: str) -> Any:
    """The server's answer, as JSON: any JSON, which the verifier checks before reading it."""
    with urllib.request.urlopen(url, timeout=TIMEOUT_SECONDS) as answer:  # noqa: S310 (http(s) only, see log_url)
        return json.load(answer)


def verify(
    game: str,
    server: str = DEFAULT_SERVER,
    *,
    commitment: str | None = None,
    seeds: dict[int, str] | None = None,
) -> tuple[int, str]:
    """The exit status and the report of checking ``game``'s dice, and that its commitment
    and the seats' seeds are ``commitment`` and ``seeds`` (what the player saw and gave)."""
    try:
        url = log_url(game, server)
    except ValueError as error:
        return 2, str(error)
    try:
        log = fetch(url)
    except urllib.error.HTTPError as error:
        return 2, f"the server answered {error.code}: is the game id right?"
    except urllib.error.URLError as error:
        return 2, f"could not reach the server: {error.reason}"
    except (OSError, http.client.HTTPException) as error:  # cut off or timed out mid-answer
        return 2, f"cannot be checked: the answer could not be read ({error})"
    except (ValueError, RecursionError) as error:  # not JSON (or nested past Python's limit)
        return 2, f"cannot be checked: the answer is not JSON ({error})"
    # Only a log's own words for why it cannot be checked yet; anything else malformed is
    # left to the verifier's structure checks, which say what is wrong with it.
    fairness = log.get("fairness") if isinstance(log, dict) else None
    if isinstance(fairness, dict) and fairness.get("verifiable") is False:
        return 2, "this game's dice are not verifiable (it is from before the verifiable dice)"
    if isinstance(fairness, dict) and "server_seed" in fairness and fairness["server_seed"] is None:
        return 2, "the game is not over yet: the server seed is revealed at its end"
    try:
        problems = check(log, commitment, seeds)
    except Malformed as error:
        return 2, f"cannot be checked: {error}"
    if problems:
        return 1, "\n".join(problems)
    return 0, f"all {len(log['rolls'])} rolls match"


def main(arguments: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.fairness", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("verify", help="recompute every roll of a finished game")
    command.add_argument("game", help="the game's id, or any URL of it")
    command.add_argument("--server", default=DEFAULT_SERVER, help="the server, for a bare game id")
    command.add_argument(
        "--commitment", help="the commitment the game showed you before its first roll (hex)"
    )
    command.add_argument(
        "--seed",
        type=seat_seed,
        action="append",
        metavar="SEAT:SEED",
        help="the seed you gave for your seat (repeatable)",
    )
    options = parser.parse_args(arguments)
    status, report = verify(
        options.game, options.server, commitment=options.commitment, seeds=dict(options.seed or [])
    )
    print(report, file=sys.stdout if status == 0 else sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
