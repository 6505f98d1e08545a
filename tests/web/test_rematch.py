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
from app.service.seats import hash_secret, resume_token
from app.store.models import GameRecord
from tests.web.helpers import act, served_for

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

    rematch_id, bob_there = service.rematches.offer(game_id, bob)
    # One offer per game; a second one gets it, and no seat in it.
    assert service.rematches.offer(game_id, ann) == (rematch_id, None)
    rematch = client.get(f"/api/v1/games/{rematch_id}").json()
    assert rematch["status"] == "waiting"  # nobody is pulled in, no timer runs yet
    assert names(client, rematch_id) == ["Bob", "Computer 1"]  # the offerer hosts; computers kept

    finished, ann_there = service.rematches.answer(game_id, ann, join=True)
    assert [player.rematch for player in finished.players] == ["joined", "offered", None, None]
    declined, no_seat = service.rematches.answer(game_id, cy, join=False)
    assert no_seat is None
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

    # Each seat of the rematch has a new secret: the finished game's are worth nothing there.
    assert bob_there
    assert ann_there
    assert len({bob, ann, bob_there, ann_there}) == 4
    assert [service.seat_of(rematch_id, old) for old in (bob, ann)] == [None, None]
    assert [service.seat_of(rematch_id, new) for new in (bob_there, ann_there)] == [0, 2]
    assert act(client, rematch_id, ann_there, "start", status=403)["error"]["code"] == "not_host"
    started = act(client, rematch_id, bob_there, "start")
    assert started["status"] == "playing"
    page = client.get(f"/games/{rematch_id}").text
    deadline = re.search(r'data-turn-deadline="([\d.]+)"', page)
    assert deadline
    assert 29 < float(deadline.group(1)) <= 30  # the timer started with the first turn
    act(client, rematch_id, bob_there, "roll", {"hold": []})  # Bob sat second before: he starts
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
    rematch_id, bob_there = service.rematches.offer(game_id, bob)
    with service.database.writing() as session:
        record = session.get(GameRecord, rematch_id)
        assert record is not None
        record.updated_at = datetime.now(UTC) - timedelta(days=30)
        served_for(session, 31)  # a server ran all that time
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
    started = act(client, rematch_id, bob_there, "start", status=409)
    assert started["error"]["code"] == "abandoned"
    assert names(client, rematch_id) == ["Bob", "Computer 1"]


def _csrf(browser: TestClient) -> str:
    match = re.search(r'data-csrf-token="([^"]+)"', browser.get("/").text)
    assert match
    return match.group(1)


def test_a_used_resume_link_is_dead_in_the_rematch_too_and_every_seat_there_is_new(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(dice_script="6", **IDLE_RUNNER)
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    game_id, (ann, _bob, _cy) = finished_game(client, service)
    laptop, phone, stranger = (TestClient(client.app) for _ in range(3))
    laptop.cookies.set(f"penta_seat_{game_id}", ann)
    # The link Ann's page showed while the game was played (none is shown once it is over).
    key = client.app.state.settings.resolved_secret_key  # type: ignore[attr-defined]
    link = f"/games/{game_id}/resume/{resume_token(key, game_id, hash_secret(ann))}"
    assert ann not in link, "the link is not the seat's secret"
    moved = phone.post(link, data={"csrf_token": _csrf(phone)}, follow_redirects=False)
    assert moved.status_code == 303
    offered = phone.post(
        f"/games/{game_id}/rematch", data={"csrf_token": _csrf(phone)}, follow_redirects=False
    )
    rematch_id = offered.headers["location"].rsplit("/", 1)[1]
    phone_there = phone.cookies.get(f"penta_seat_{rematch_id}")
    phone_here = phone.cookies.get(f"penta_seat_{game_id}")
    assert phone_there
    assert phone_there != phone_here, "a new secret for the new game"
    assert service.seat_of(rematch_id, phone_there) == 0
    assert service.seat_of(rematch_id, phone_here) is None

    # The used link, replayed by anyone on either game, takes no seat.
    for game in (game_id, rematch_id):
        replayed = link.replace(game_id, game)
        stranger.post(replayed, data={"csrf_token": _csrf(stranger)}, follow_redirects=False)
        assert stranger.cookies.get(f"penta_seat_{game}") is None
    started = stranger.post(
        f"/games/{rematch_id}/start", data={"csrf_token": _csrf(stranger)}, follow_redirects=False
    )
    assert started.status_code == 403
    # The player's own seat is untouched: the phone starts the rematch.
    assert act(client, rematch_id, phone_there, "start")["status"] == "playing"
    # The laptop, which lost the seat, follows the rematch as a spectator.
    assert laptop.get(f"/games/{game_id}/rematch", follow_redirects=False).status_code == 303
    assert laptop.cookies.get(f"penta_seat_{rematch_id}") is None


def test_a_rematch_keeps_the_seat_order_and_the_next_player_starts(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(dice_script="6", **IDLE_RUNNER)
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    game_id, (ann, bob, cy) = finished_game(client, service)  # Ann, Bob, Cy, Computer 1

    # Ann offers; Cy answers before Bob; a stranger comes by the rematch's own link.
    rematch_id, ann_there = service.rematches.offer(game_id, ann)
    _, cy_there = service.rematches.answer(game_id, cy, join=True)
    _, bob_there = service.rematches.answer(game_id, bob, join=True)
    dee = act(client, rematch_id, "", "players", {"name": "Dee"}, status=201)["token"]
    assert names(client, rematch_id) == ["Ann", "Computer 1", "Cy", "Bob", "Dee"]
    assert ann_there
    assert bob_there
    assert cy_there

    started = act(client, rematch_id, ann_there, "start", {"client_seed": "ann's seed"})
    # The order of the game before, moved on by one (Bob sat second: he starts, Ann goes
    # last of them), the newcomer after: each keeps their own seat's secret and seed.
    assert [player["name"] for player in started["players"]] == [
        "Bob",
        "Cy",
        "Computer 1",
        "Ann",
        "Dee",
    ]
    assert started["turn"] == 0
    assert [
        service.seat_of(rematch_id, token) for token in (bob_there, cy_there, ann_there, dee)
    ] == [
        0,
        1,
        3,
        4,
    ]
    seeds = {seat["seat"]: seat["client_seed"] for seat in started["fairness"]["client_seeds"]}
    assert seeds[3] == "ann's seed"  # the host's seed went with her
    assert set(seeds) == {0, 1, 3, 4}  # the people's: the computer has none
    assert all(seeds.values())
    act(client, rematch_id, ann_there, "roll", {"hold": []}, status=403)
    act(client, rematch_id, bob_there, "roll", {"hold": []})
    page = client.get(f"/games/{rematch_id}", cookies={f"penta_{rematch_id}": ann_there}).text
    assert 'data-seat="3"' in page


def test_a_rematch_of_a_rematch_moves_the_start_on_again(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(dice_script="6", **IDLE_RUNNER)
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    created = client.post("/api/v1/games", json={"name": "Ann"}).json()
    game_id, ann = created["game"]["id"], created["token"]
    bob = act(client, game_id, "", "players", {"name": "Bob"}, status=201)["token"]
    act(client, game_id, ann, "computers")
    starters = []
    for _ in range(3):
        game = act(client, game_id, ann, "start")
        starters.append(game["players"][0]["name"])
        seats = {service.seat_of(game_id, token): token for token in (ann, bob)}
        while game["status"] == "playing":
            token = seats.get(game["turn"])
            if token is None:
                service.play_for_computer(game_id)
            else:
                act(client, game_id, token, "roll", {"hold": []})
                options = client.get(f"/api/v1/games/{game_id}").json()["options"]
                act(client, game_id, token, "score", {"box": next(iter(options))})
            game = client.get(f"/api/v1/games/{game_id}").json()
        rematch_id, ann_there = service.rematches.offer(game_id, ann)
        _, bob_there = service.rematches.answer(game_id, bob, join=True)
        assert ann_there
        assert bob_there
        game_id, ann, bob = rematch_id, ann_there, bob_there
    assert starters == ["Ann", "Bob", "Computer 1"]
