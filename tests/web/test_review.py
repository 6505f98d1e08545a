"""Hints and game review from the optimal strategy."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.rules import Box, Scoresheet
from app.service.games import GameService
from app.store.models import ReviewRecord
from app.strategy import Strategy, StrategyProvider
from app.strategy.tables import FloatArray
from tests.web.helpers import act, auth, started_game
from tests.web.test_pages import new_solo_game, post

IDLE_RUNNER = {"computer_pace_seconds": 3600}


def strategy_of(client: TestClient) -> Strategy:
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    strategy = service.strategy.current()
    assert strategy.is_optimal
    return strategy


def play_optimally(client: TestClient, game_id: str, token: str) -> dict[str, Any]:
    """One turn by the advice: hold the best dice until keeping all five, then the best box."""
    game = act(client, game_id, token, "roll", {"hold": []})
    while True:
        advice = client.get(f"/api/v1/games/{game_id}/advice", headers=auth(token)).json()
        if game["rolls_left"] == 0 or len(advice["best_hold"]) == 5:
            return act(client, game_id, token, "score", {"box": advice["best_box"]})
        game = act(client, game_id, token, "roll", {"hold": advice["best_hold"]})


def test_optimal_play_everywhere_loses_nothing(make_client: Callable[..., TestClient]) -> None:
    client = make_client(**IDLE_RUNNER)
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    created = client.post("/api/v1/games", json={"name": "Ann"}).json()
    game_id, token = created["game"]["id"], created["token"]
    act(client, game_id, token, "computers")
    act(client, game_id, token, "start")
    assert client.get(f"/api/v1/games/{game_id}/review").status_code == 409
    game = client.get(f"/api/v1/games/{game_id}").json()
    while game["status"] != "finished":
        if game["turn"] == 0:
            game = play_optimally(client, game_id, token)
        else:
            service.play_for_computer(game_id)
            game = client.get(f"/api/v1/games/{game_id}").json()
    review = client.get(f"/api/v1/games/{game_id}/review").json()
    for player in review["players"]:
        assert len([d for d in player["decisions"] if d["kind"] == "box"]) == 13
        assert all(decision["loss"] == 0 for decision in player["decisions"])
        assert player["expected_loss"] == 0
        assert player["optimal_share"] == 1
        assert player["costliest"] == []
        assert player["luck"] == pytest.approx(player["total"] - 254.484846, abs=1e-4)
    assert review["players"][1]["name"] == "Computer 1"


def test_a_bad_box_costs_exactly_what_the_strategy_says(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(dice_script="2,2,3,3,3")
    strategy = strategy_of(client)
    created = client.post("/api/v1/games", json={"name": "Ann"}).json()
    game_id, token = created["game"]["id"], created["token"]
    act(client, game_id, token, "start")
    for turn in range(13):
        act(client, game_id, token, "roll", {"hold": []})
        options = client.get(f"/api/v1/games/{game_id}").json()["options"]
        box = "ones" if turn == 0 else next(iter(options))
        act(client, game_id, token, "score", {"box": box})
    review = client.get(f"/api/v1/games/{game_id}/review").json()
    first_hold, first_box = review["players"][0]["decisions"][:2]
    dice = (2, 2, 3, 3, 3)
    empty = Scoresheet()
    values = strategy.box_values(empty, dice)
    best = strategy.best_box(empty, dice)
    assert first_box["kind"] == "box"
    assert first_box["chosen"] == "ones"
    assert first_box["best"] == best.value
    assert first_box["loss"] == pytest.approx(values[best] - values[Box.ONES], abs=1e-9)
    assert first_box["loss"] > 0
    holds = strategy.hold_values(empty, dice, 2)
    keep_all = next(option for option in holds if len(option.kept) == 5)
    assert (first_hold["kind"], first_hold["chosen"]) == ("hold", "22333")
    assert first_hold["loss"] == pytest.approx(holds[0].expected - keep_all.expected, abs=1e-9)
    player = review["players"][0]
    assert player["expected_loss"] == pytest.approx(
        sum(decision["loss"] for decision in player["decisions"])
    )
    assert player["costliest"][0]["loss"] == max(d["loss"] for d in player["decisions"])
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    with service.database.reading() as session:
        assert session.get(ReviewRecord, game_id) is not None  # kept once computed
    page = client.get(f"/games/{game_id}/review")
    assert page.status_code == 200
    assert page.text.count('<polyline class="series series-0"') == 1
    assert "Costliest mistakes" in page.text
    worst = player["costliest"][0]
    items = re.findall(r"<ol class=\"mistakes\">(.*?)</ol>", page.text, flags=re.DOTALL)
    assert len(items) == 1
    assert items[0].count("<li>") == 3
    assert f"Round {worst['round']}, roll {worst['roll']}" in items[0].split("</li>")[0]
    assert f"\u2212{worst['loss']:.1f}" in items[0].split("</li>")[0]


def test_hints_are_for_the_player_who_asked_and_mark_the_result(client: TestClient) -> None:
    game_id = new_solo_game(client)
    page = client.get(f"/games/{game_id}").text
    assert "Show hints" in page
    assert "hint-boxes" not in page
    shown = post(client, f"/games/{game_id}/hints", enabled="true")
    assert "Hide hints" in shown.text
    assert "Expected final total with perfect play from here: 254.5" in shown.text
    rolled = post(client, f"/games/{game_id}/roll", turn=0, roll=0)
    assert 'class="hint-boxes"' in rolled.text
    assert rolled.text.count('data-best="true"') == 1
    assert 'class="hint-holds"' in rolled.text
    spectator = TestClient(client.app)
    watched = spectator.get(f"/games/{game_id}").text
    assert "hint-boxes" not in watched
    assert "Show hints" not in watched
    game = spectator.get(f"/api/v1/games/{game_id}").json()
    assert game["players"][0]["name"] == "Ann"


def test_while_the_table_builds_hints_say_the_computer_is_still_preparing(
    client: TestClient, tmp_path: Path
) -> None:
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    release = threading.Event()
    building = StrategyProvider(tmp_path / "building", build=lambda: _never(release))
    building.start()
    service.strategy = building
    try:
        game_id = new_solo_game(client)
        shown = post(client, f"/games/{game_id}/hints", enabled="true")
        assert "Hide hints" in shown.text
        assert (
            '<p class="hint-note" role="status">The computer is still preparing its strategy; '
            "hints will appear once it is ready.</p>"
        ) in shown.text
        assert "Expected final total" not in shown.text  # no fallback figures passed as hints
        assert "still preparing" in client.get(f"/games/{game_id}").text
        bot_game, token, _ = started_game(client, "Bot")
        act(client, bot_game, token, "roll", {"hold": []})
        advice = client.get(f"/api/v1/games/{bot_game}/advice", headers=auth(token)).json()
        assert advice["optimal"] is False  # a bot is told the advice is the fallback's
    finally:
        release.set()


def _never(release: threading.Event) -> FloatArray:
    release.wait(60)
    raise RuntimeError("the test is over")
