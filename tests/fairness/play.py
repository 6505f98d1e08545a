"""Playing whole games through the bot API, for the tests of the verifiable dice."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from app.settings import ROOT

DOCS = ROOT / "docs" / "fairness.md"


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def post(client: httpx.Client, path: str, token: str = "", body: Any = None) -> dict[str, Any]:
    response = client.post(path, json=body, headers=auth(token) if token else {})
    assert response.status_code in (200, 201), response.text
    answer: dict[str, Any] = response.json()
    return answer


def play_turn(client: httpx.Client, game_id: str, token: str) -> None:
    """Finish the turn: roll if not yet, keep the most common face and roll the rest while
    rolls are left, then take the best box. Every turn has rolls with held dice, and the
    dice held differ from turn to turn."""
    game: dict[str, Any] = client.get(f"/api/v1/games/{game_id}").json()
    if game["dice"] is None:
        game = post(client, f"/api/v1/games/{game_id}/roll", token, {"hold": []})
    while game["rolls_left"] > 0:
        face, _count = Counter(game["dice"]).most_common(1)[0]
        hold = [index for index, value in enumerate(game["dice"]) if value == face]
        if len(hold) == len(game["dice"]):
            break
        game = post(client, f"/api/v1/games/{game_id}/roll", token, {"hold": hold})
    box = max(game["options"], key=game["options"].get)
    post(client, f"/api/v1/games/{game_id}/score", token, {"box": box})


def play_to_the_end(
    client: httpx.Client,
    game_id: str,
    tokens: dict[int, str],
    step_computer: Callable[[], object] = lambda: None,
) -> dict[str, Any]:
    """Play every person's turns (``tokens``: seat to token) until the game is over; the
    computer seats move by ``step_computer``. The finished game's JSON."""
    for _ in range(10_000):
        game: dict[str, Any] = client.get(f"/api/v1/games/{game_id}").json()
        if game["status"] == "finished":
            return game
        if game["turn"] in tokens:
            play_turn(client, game_id, tokens[game["turn"]])
        else:
            step_computer()
    raise AssertionError("the game did not end")


def docs_verifier() -> str:
    """The Python code block of docs/fairness.md, as printed."""
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(), flags=re.DOTALL)
    assert len(blocks) == 1, "docs/fairness.md has one Python code block: the verifier"
    return str(blocks[0])


def write_docs_verifier(folder: Path) -> Path:
    path = folder / "verify.py"
    path.write_text(docs_verifier())
    return path
