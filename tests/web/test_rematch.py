"""The rematch is an offer: each player joins or declines, and the offerer starts it."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from app.service.errors import ConflictError, ForbiddenError
from app.service.games import GameService
from app.service.retention import RetentionSweeper
from app.store.models import GameRecord
from tests.web.helpers import act

IDLE_RUNNER = {"computer_pace_seconds": 3600}


def finished_game(client: TestClient, service: GameService) -> tuple[str, list[str]]:
    """Ann (host), Bob, Cy and a computer play a whole game: its id and the three tokens."""
    created = client.post("/api/v1/games", json={"name": "Ann", "turn_seconds": 30}).json()
    game_id, ann = created["game"]["id"], created["token"]
    tokens = [ann] + [
        act(client, game_id, "", "players", {"name": name}, status=201)["token"]
        for name in ("Bob", "Cy")
    ]
    act(client, game_id, ann, "computers")
    game = act(client, game_id, ann, "start")
    while game["status"] == "playing":
        turn = game["turn"]
        if turn == 3:
            service.play_for_computer(game_id)
        else:
            act(client, game_id, tokens[turn], "roll", {"hold": []})
            options = client.get(f"/api/v1/games/{game_id}").json()["options"]
            act(client, game_id, tokens[turn], "score", {"box": next(iter(options))})
        game = client.get(f"/api/v1/games/{game_id}").json()
    return game_id, tokens


def names(client: TestClient, game_id: str) -> list[str]:
    return [player["name"] for player in client.get(f"/api/v1/games/{game_id}").json()["players"]]


def test_an_offer_is_joined_declined_and_started_by_its_offerer(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(dice_script="6", **IDLE_RUNNER)
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    game_id, (ann, bob, cy) = finished_game(client, service)

    rematch_id = service.rematches.offer(game_id, bob)
    assert service.rematches.offer(game_id, ann) == rematch_id  # one offer per game
    rematch = client.get(f"/api/v1/games/{rematch_id}").json()
    assert rematch["status"] == "waiting"  # nobody is pulled in, no timer runs yet
    assert names(client, rematch_id) == ["Bob", "Computer 1"]  # the offerer hosts; computers kept

    finished = service.rematches.answer(game_id, ann, join=True)
    assert [player.rematch for player in finished.players] == ["joined", "offered", None, None]
    declined = service.rematches.answer(game_id, cy, join=False)
    assert [player.rematch for player in declined.players] == [
        "joined",
        "offered",
        "declined",
        None,
    ]
    assert names(client, rematch_id) == ["Bob", "Computer 1", "Ann"]
    with pytest.raises(ConflictError, match="you are in the rematch already"):
        service.rematches.answer(game_id, bob, join=True)
    with pytest.raises(ForbiddenError, match="you do not hold a seat in this game"):
        service.rematches.answer(game_id, "stranger", join=True)

    assert act(client, rematch_id, ann, "start", status=403)["error"]["code"] == "not_host"
    started = act(client, rematch_id, bob, "start")
    assert started["status"] == "playing"
    page = client.get(f"/games/{rematch_id}").text
    deadline = re.search(r'data-turn-deadline="([\d.]+)"', page)
    assert deadline
    assert 29 < float(deadline.group(1)) <= 30  # the timer started with the first turn
    act(client, rematch_id, bob, "roll", {"hold": []})  # Bob, the offerer, plays first
    with pytest.raises(ConflictError, match="the game has already started"):
        service.rematches.answer(game_id, cy, join=True)


def test_the_finished_page_shows_the_offer_and_each_answer(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(dice_script="6", **IDLE_RUNNER)
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    game_id, (ann, _bob, cy) = finished_game(client, service)
    with pytest.raises(ConflictError, match="nobody has offered a rematch"):
        service.rematches.answer(game_id, ann, join=False)
    service.rematches.offer(game_id, ann)
    service.rematches.answer(game_id, cy, join=False)
    html = client.get(f"/games/{game_id}").text  # a spectator's view
    assert "<bdi>Ann</bdi> offers a rematch" in html
    assert "<li><bdi>Bob</bdi>: has not answered yet</li>" in html
    assert "<li><bdi>Cy</bdi>: declines</li>" in html
    assert "Computer 1</bdi>:" not in html
    assert "Watch the rematch" in html
    assert "Join the rematch" not in html


def test_a_rematch_needs_a_finished_game(client: TestClient) -> None:
    created = client.post("/api/v1/games", json={"name": "Ann"}).json()
    game_id, ann = created["game"]["id"], created["token"]
    act(client, game_id, ann, "start")
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    with pytest.raises(ConflictError, match="a rematch follows a finished game"):
        service.rematches.offer(game_id, ann)


def test_a_rematch_closed_as_abandoned_is_refused_as_such(
    make_client: Callable[..., TestClient],
) -> None:
    # Nobody started the rematch for a week: retention closed it. Joining it, through the
    # finished game's offer or through the lobby, says so (not "already started").
    client = make_client(dice_script="6", **IDLE_RUNNER)
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    game_id, (ann, bob, _cy) = finished_game(client, service)
    rematch_id = service.rematches.offer(game_id, bob)
    with service.database.writing() as session:
        record = session.get(GameRecord, rematch_id)
        assert record is not None
        record.updated_at = datetime.now(UTC) - timedelta(days=30)
    assert (
        rematch_id
        in RetentionSweeper(service.changes, abandon_after_days=7, delete_after_days=0)
        .sweep()
        .abandoned
    )
    with pytest.raises(ConflictError) as refused:
        service.rematches.answer(game_id, ann, join=True)
    assert (refused.value.code, refused.value.message) == (
        "abandoned",
        "this game was closed after a long pause",
    )
    joined = act(client, rematch_id, "", "players", {"name": "Dee"}, status=409)
    assert joined["error"]["code"] == "abandoned"
    started = act(client, rematch_id, bob, "start", status=409)
    assert started["error"]["code"] == "abandoned"
    assert names(client, rematch_id) == ["Bob", "Computer 1"]
