"""The statistics page counts finished games, wins by seat position and draws."""

from __future__ import annotations

import re
from collections.abc import Callable

from fastapi.testclient import TestClient

from tests.web.helpers import act

# With every die a six, this order follows the joker: Sixes, then the lower boxes, then the
# other upper boxes at 0, each Penta after the first earning 100: 265 + 12 * 100 = 1465.
ORDER = [
    "penta",
    "sixes",
    "chance",
    "four_of_a_kind",
    "three_of_a_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "ones",
    "twos",
    "threes",
    "fours",
    "fives",
]


def play(client: TestClient, names: list[str], orders: list[list[str]]) -> str:
    """A finished game in which seat i fills its boxes in ``orders[i]``."""
    created = client.post("/api/v1/games", json={"name": names[0]}).json()
    game_id, tokens = created["game"]["id"], [created["token"]]
    for name in names[1:]:
        tokens.append(act(client, game_id, "", "players", {"name": name}, status=201)["token"])
    act(client, game_id, tokens[0], "start")
    for turn in range(13):
        for token, order in zip(tokens, orders, strict=True):
            act(client, game_id, token, "roll", {"hold": []})
            game = act(client, game_id, token, "score", {"box": order[turn]})
    assert game["status"] == "finished"
    return game_id


def figure(page: str, name: str) -> str:
    match = re.search(rf'data-figure="{name}">([^<]+)<', page)
    assert match, name
    return match.group(1)


def test_statistics_of_finished_games(make_client: Callable[..., TestClient]) -> None:
    client = make_client(dice_script="6")
    assert "No game has been finished yet." in client.get("/stats").text
    reverse = list(reversed(ORDER))
    play(client, ["Ann", "Bob"], [ORDER, reverse])  # Bob fills Penta last: Ann (seat 0) wins
    play(client, ["Cy", "Di"], [ORDER, ORDER])  # the same sheet twice: a draw
    play(client, ["<b>Solo</b>"], [ORDER])
    page = client.get("/stats").text
    assert figure(page, "games") == "3"
    first = re.search(r'<tr data-seat="0">.*?<td>(\d+)</td><td>([\d.]+) %</td>', page)
    second = re.search(r'<tr data-seat="1">.*?<td>(\d+)</td><td>([\d.]+) %</td>', page)
    draws = re.search(r'<tr class="draws">.*?<td>(\d+)</td><td>([\d.]+) %</td>', page)
    assert first
    assert second
    assert draws
    assert first.groups() == ("1", "50.00")
    assert second.groups() == ("0", "0.00")
    assert draws.groups() == ("1", "50.00")
    assert figure(page, "best") == "1465"
    assert figure(page, "average") == f"{(4 * 1465 + 170) / 5:.1f}"
    assert "&lt;b&gt;Solo&lt;/b&gt;" in page
    assert "<b>Solo</b>" not in page
