"""Situations the tests reach with scripted dice (``PENTA_DICE_SCRIPT``), and whole games
played at random."""

from __future__ import annotations

import random

from fastapi.testclient import TestClient

from app.service.views import GameView
from tests.web.helpers import auth

SACRIFICE_DICE = "1,1,3,4,6"
"""Dealt in a cycle, every roll is 1, 1, 3, 4, 6."""

BOXES_BEFORE_SACRIFICE = (
    "ones",
    "twos",
    "threes",
    "fours",
    "fives",
    "sixes",
    "three_of_a_kind",
    "four_of_a_kind",
    "small_straight",
    "penta",
    "chance",
)
"""Filled in this order with 1, 1, 3, 4, 6, each turn still has a legal box that scores (Chance
last, since once it is used a Penta turn would find nothing). Then only Full house and Large
straight are left, and both score 0: one must be sacrificed."""


NAMES = ("Ann", "<b>Bob</b>", "Cy")


def play_a_game(client: TestClient, seed: int, turn_seconds: int | None) -> list[GameView]:
    """Every version of a three-player game, played at random: holds on their own and with
    rolls, rolls to the third, boxes scored and sacrificed."""
    service = client.app.state.service  # type: ignore[attr-defined]
    body = {"name": NAMES[0], "turn_seconds": turn_seconds}
    created = client.post("/api/v1/games", json=body)
    game_id, tokens = created.json()["game"]["id"], [created.json()["token"]]
    for name in NAMES[1:]:
        joined = client.post(f"/api/v1/games/{game_id}/players", json={"name": name})
        tokens.append(joined.json()["token"])
    started = client.post(f"/api/v1/games/{game_id}/start", headers=auth(tokens[0]))
    assert started.status_code == 200, started.text
    choose = random.Random(seed)
    views = [service.get(game_id)]
    while views[-1].is_playing:
        view = views[-1]
        assert view.turn is not None
        token = tokens[view.turn]
        if view.dice is None:
            views.append(service.roll(game_id, token))
        elif view.rolls_left and view.state.can_hold() and choose.random() < 0.4:
            die = choose.randrange(5)
            views.append(service.set_hold(game_id, token, die, not view.held[die]))
        elif view.rolls_left and choose.random() < 0.6:
            keep = [die for die in range(5) if choose.random() < 0.5]
            views.append(service.roll(game_id, token, hold=keep))
        else:
            box = choose.choice(sorted(view.options, key=lambda box: box.position))
            views.append(service.score(game_id, token, box.value))
    return views
