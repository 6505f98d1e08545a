"""Games with several seats: joining, computer seats, turn order, timers, rematch, resume."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient

from app.service.games import GameService
from app.store.models import GameRecord
from tests.fairness.play import play_to_the_end
from tests.web.helpers import act, auth

# The server's own runner would play computer seats in the background: keep it out of the way
# so that these tests step the computer themselves, deterministically.
IDLE_RUNNER = {"computer_pace_seconds": 3600}


def create(client: TestClient, name: str = "Ann", **body: object) -> tuple[str, str]:
    response = client.post("/api/v1/games", json={"name": name, **body})
    assert response.status_code == 201, response.text
    return response.json()["game"]["id"], response.json()["token"]


def test_friends_join_in_seat_order_until_six(client: TestClient) -> None:
    game_id, _host = create(client)
    for seat, name in enumerate(["Bo", "Cy", "Di", "Ed", "Flo"], start=1):
        joined = act(client, game_id, "", "players", {"name": name}, status=201)
        assert joined["game"]["players"][seat]["name"] == name
        assert joined["token"]
    full = act(client, game_id, "", "players", {"name": "Gus"}, status=409)
    assert full["error"] == {"code": "full", "message": "a game has at most 6 players"}


def test_only_the_host_adds_computers_and_only_while_waiting(client: TestClient) -> None:
    game_id, host = create(client)
    guest = act(client, game_id, "", "players", {"name": "Bo"}, status=201)["token"]
    assert act(client, game_id, guest, "computers", status=403)["error"]["code"] == "not_host"
    game = act(client, game_id, host, "computers")
    assert game["players"][2] == {
        **game["players"][2],
        "seat": 2,
        "name": "Computer 1",
        "computer": True,
    }
    act(client, game_id, host, "start")
    assert act(client, game_id, host, "computers", status=409)["error"]["code"] == (
        "already_started"
    )


def test_the_host_removes_a_computer_or_a_player_before_the_start(client: TestClient) -> None:
    game_id, host = create(client)
    bo = act(client, game_id, "", "players", {"name": "Bo"}, status=201)["token"]
    act(client, game_id, host, "computers")
    cy = act(client, game_id, "", "players", {"name": "Cy"}, status=201)["token"]
    path = f"/api/v1/games/{game_id}/players"

    def remove(token: str, seat: object, status: int) -> dict:
        answer = client.delete(f"{path}/{seat}", headers=auth(token))
        assert answer.status_code == status, answer.text
        result: dict = answer.json()
        return result

    assert remove(bo, 2, 403)["error"]["code"] == "not_host"
    assert remove(host, 0, 409)["error"]["code"] == "remove_host"
    assert remove(host, 9, 422)["error"]["code"] == "invalid_seat"
    assert remove(host, "x", 422)["error"]["code"]
    game = remove(host, 2, 200)  # the computer
    assert [(p["seat"], p["name"]) for p in game["players"]] == [(0, "Ann"), (1, "Bo"), (2, "Cy")]
    game = remove(host, 1, 200)  # Bo: Cy moves up and keeps her seat
    assert [(p["seat"], p["name"]) for p in game["players"]] == [(0, "Ann"), (1, "Cy")]
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    assert (service.seat_of(game_id, bo), service.seat_of(game_id, cy)) == (None, 1)
    # Bo may join again, and the game plays with whoever is seated.
    act(client, game_id, "", "players", {"name": "Bo"}, status=201)
    act(client, game_id, host, "start")
    assert remove(host, 1, 409)["error"]["code"] == "already_started"
    act(client, game_id, host, "roll", {"hold": []})


def test_seats_play_in_order_and_nobody_acts_for_another(client: TestClient) -> None:
    game_id, ann = create(client)
    bob = act(client, game_id, "", "players", {"name": "Bob"}, status=201)["token"]
    act(client, game_id, ann, "start")
    assert act(client, game_id, bob, "roll", {"hold": []}, status=403)["error"]["code"] == (
        "not_your_turn"
    )
    act(client, game_id, ann, "roll", {"hold": []})
    assert (
        act(client, game_id, bob, "score", {"box": "chance"}, status=403)["error"]["code"]
        == "not_your_turn"
    )
    game = act(client, game_id, ann, "score", {"box": "chance"})
    assert (game["turn"], game["round"]) == (1, 1)
    act(client, game_id, bob, "roll", {"hold": []})
    game = act(client, game_id, bob, "score", {"box": "chance"})
    assert (game["turn"], game["round"]) == (0, 2)


def test_a_computer_seat_plays_its_turns_by_the_strategy(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(**IDLE_RUNNER)
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    game_id, ann = create(client)
    act(client, game_id, ann, "computers")
    act(client, game_id, ann, "start")
    for _ in range(13):
        act(client, game_id, ann, "roll", {"hold": []})
        game = act(
            client,
            game_id,
            ann,
            "score",
            {"box": next(iter(client.get(f"/api/v1/games/{game_id}").json()["options"]))},
        )
        steps = 0
        while game["turn"] == 1:
            service.play_for_computer(game_id)
            game = client.get(f"/api/v1/games/{game_id}").json()
            steps += 1
            assert steps <= 6, "a computer turn takes at most roll, hold, roll, hold, roll, score"
    assert game["status"] == "finished"
    computer = game["players"][1]
    assert all(points is not None for points in computer["boxes"].values())
    assert set(game["winners"]) <= {0, 1}
    assert service.play_for_computer(game_id) is None


def test_a_person_out_of_time_gets_the_computer_for_that_turn(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(**IDLE_RUNNER)
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    game_id, ann = create(client, turn_seconds=30)
    bob = act(client, game_id, "", "players", {"name": "Bob"}, status=201)["token"]
    act(client, game_id, ann, "start")
    act(client, game_id, ann, "roll", {"hold": []})
    waiting = service.play_for_computer(game_id)
    assert waiting is not None
    assert 0 < waiting <= 30
    with service.database.writing() as session:
        record = session.get(GameRecord, game_id)
        assert record is not None
        record.turn_started_at = datetime.now(UTC) - timedelta(seconds=31)
        record.due_at = record.turn_started_at + timedelta(seconds=30)
        record.version += 1  # every change bumps the version: the service's snapshots rely on it
    for _ in range(6):
        if client.get(f"/api/v1/games/{game_id}").json()["turn"] != 0:
            break
        service.play_for_computer(game_id)
    game = client.get(f"/api/v1/games/{game_id}").json()
    assert game["turn"] == 1
    assert sum(v is not None for v in game["players"][0]["boxes"].values()) == 1
    assert 0 < (service.play_for_computer(game_id) or 0) <= 30
    act(client, game_id, bob, "roll", {"hold": []})


def test_the_resume_link_moves_the_seat_and_the_old_browser_watches(client: TestClient) -> None:
    host = client.post(
        "/games", data={"name": "Ann", "csrf_token": csrf(client)}, follow_redirects=False
    )
    assert host.status_code == 303
    game_id = host.headers["location"].rsplit("/", 1)[1]
    page = client.get(f"/games/{game_id}").text
    assert "this browser loses the seat" in page  # said before the link is used
    link = re.search(r'id="resume-link" readonly value="([^"]+)"', page)
    assert link
    path = link.group(1).removeprefix("http://testserver")

    other = TestClient(client.app)
    asked = other.get(path)
    assert "Continue here" in asked.text
    assert 'data-key="r"' in client.get(f"/games/{game_id}").text  # a look moves nothing
    moved = other.post(path, data={"csrf_token": csrf(other)}, follow_redirects=False)
    assert moved.status_code == 303
    assert 'data-key="r"' in other.get(f"/games/{game_id}").text

    old = client.get(f"/games/{game_id}").text
    assert 'data-key="r"' not in old
    assert "Your seat has moved to another device" in old
    refused = client.post(f"/games/{game_id}/roll", data={"csrf_token": csrf(client)})
    assert refused.status_code == 403
    again = TestClient(client.app)
    assert "has been used already" in again.get(path).text
    again.post(path, data={"csrf_token": csrf(again)})
    assert 'data-key="r"' not in again.get(f"/games/{game_id}").text
    assert 'data-key="r"' in other.get(f"/games/{game_id}").text


def csrf(client: TestClient) -> str:
    match = re.search(r'data-csrf-token="([^"]+)"', client.get("/").text)
    assert match
    return match.group(1)


def test_advice_is_not_given_to_other_seats(client: TestClient) -> None:
    game_id, ann = create(client)
    bob = act(client, game_id, "", "players", {"name": "Bob"}, status=201)["token"]
    act(client, game_id, ann, "start")
    act(client, game_id, ann, "roll", {"hold": []})
    assert client.get(f"/api/v1/games/{game_id}/advice", headers=auth(bob)).status_code == 403
    assert client.get(f"/api/v1/games/{game_id}/advice", headers=auth(ann)).status_code == 200


def test_a_turn_timer_is_shown_to_everyone(client: TestClient) -> None:
    game_id, ann = create(client, turn_seconds=60)
    act(client, game_id, ann, "start")
    page = client.get(f"/games/{game_id}").text
    deadline = re.search(r'data-turn-deadline="([\d.]+)"', page)
    assert deadline
    assert 55 < float(deadline.group(1)) <= 60
    solo_id, solo = create(client)
    act(client, solo_id, solo, "start")
    assert "data-turn-deadline" not in client.get(f"/games/{solo_id}").text


def test_a_finished_solo_game_offers_a_new_game_first_and_hides_what_was_for_play(
    client: TestClient,
) -> None:
    game_id, ann = create(client)
    act(client, game_id, ann, "start")
    client.cookies.set(f"penta_seat_{game_id}", ann)
    playing = client.get(f"/games/{game_id}").text
    assert 'id="resume-link"' in playing
    assert "Keyboard shortcuts" in playing
    play_to_the_end(client, game_id, {0: ann})  # type: ignore[arg-type]
    over = client.get(f"/games/{game_id}").text
    assert re.search(r'<a class="button primary" href="/">New game</a>', over)
    assert re.search(r'<button type="submit">Offer a rematch</button>', over), "not the main one"
    assert 'id="resume-link"' not in over, "no seat to move once the game is over"
    assert "Keyboard shortcuts" not in over
