"""The quick match: strangers wait together and a table starts for them (issue 28)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import get_args

from fastapi.testclient import TestClient

from app.i18n import LANGUAGES
from app.service.clock import now
from app.service.matching import FRESH, MAX_WAITING, QuickMatch
from app.store.matching import FORGET_AFTER
from app.store.models import MatchEntry
from app.web.schemas import LanguageCode


def browser(client: TestClient) -> tuple[TestClient, str]:
    """Another browser on the same server (its own cookies) and its CSRF token."""
    other = TestClient(client.app, base_url="http://testserver")
    token = re.search(r'data-csrf-token="([^"]+)"', other.get("/").text)
    assert token
    return other, token.group(1)


def play_now(client: TestClient, name: str) -> tuple[TestClient, str]:
    page, token = browser(client)
    answer = page.post("/match", data={"name": name, "csrf_token": token}, follow_redirects=False)
    assert (answer.status_code, answer.headers["location"]) == (303, "/match")
    assert "penta_match" in answer.headers["set-cookie"]
    assert "HttpOnly" in answer.headers["set-cookie"]
    return page, token


def test_two_strangers_get_one_table_when_the_wait_ends(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(match_wait_seconds=0, computer_pace_seconds=3600)
    ann, _ = play_now(client, "Ann")
    waiting = ann.get("/match")
    assert waiting.status_code == 200
    assert "1 player waiting" in waiting.text  # alone: the wait is over, nobody else yet
    assert "Play against the computer" in waiting.text
    bob, _ = play_now(client, "Ann")  # strangers may share a name; seats of a game may not

    tables = set()
    for page in (ann, bob):
        status = page.get("/match/status", headers={"HX-Request": "true"})
        assert (status.status_code, status.headers["hx-redirect"]) == (204, "/match")
        to_table = page.get("/match", follow_redirects=False)
        assert to_table.status_code == 303
        tables.add(to_table.headers["location"])
    assert len(tables) == 1
    game_id = tables.pop().removeprefix("/games/")
    game = client.get(f"/api/v1/games/{game_id}").json()
    assert game["status"] == "playing"
    assert [player["name"] for player in game["players"]] == ["Ann", "Ann (2)"]
    assert game["turn"] == 0
    page = ann.get(f"/games/{game_id}").text
    assert 'data-seat="0"' in page
    assert 'data-seat="1"' in bob.get(f"/games/{game_id}").text
    # A table of strangers has its turn timer; the first to come rolls first.
    assert re.search(r'data-turn-deadline="(\d+)', page)
    roll = ann.post(
        f"/games/{game_id}/roll",
        data={"csrf_token": _csrf(ann), "turn": 0, "roll": 0},
        headers={"HX-Request": "true"},
    )
    assert roll.status_code == 200
    assert client.get(f"/api/v1/games/{game_id}").json()["rolls_left"] == 2
    # A poll of the waiting page still on its way (the page was going to the table, slowly)
    # and the waiting page asked again go to the same table, never home: the browser follows
    # the last redirect it is given (it failed so in CI, the page ending on the home page).
    late = ann.get("/match/status", headers={"HX-Request": "true"})
    assert late.headers["hx-redirect"] == "/match"
    assert ann.get("/match", follow_redirects=False).headers["location"] == f"/games/{game_id}"
    # Once the queue has forgotten the wait (nobody asked for FORGET_AFTER), it sends home.
    with client.app.state.service.database.writing() as session:  # type: ignore[attr-defined]
        for entry in session.query(MatchEntry):
            entry.seen_at = now() - FORGET_AFTER - timedelta(seconds=1)
    client.app.state.matching.try_match()  # type: ignore[attr-defined]
    assert ann.get("/match", follow_redirects=False).headers["location"] == "/"
    assert ann.get("/match/status").headers["hx-redirect"] == "/"


def _csrf(page: TestClient) -> str:
    token = re.search(r'data-csrf-token="([^"]+)"', page.get("/").text)
    assert token
    return token.group(1)


def test_four_start_at_once_and_a_fifth_waits(make_client: Callable[..., TestClient]) -> None:
    client = make_client(match_wait_seconds=600, computer_pace_seconds=3600)
    pages = [play_now(client, name)[0] for name in ("Ann", "Bob", "Cy")]
    for page in pages:
        assert "3 players waiting" in page.get("/match").text
    pages.append(play_now(client, "Dee")[0])
    fifth, _ = play_now(client, "Eve")
    games = {page.get("/match", follow_redirects=False).headers["location"] for page in pages}
    assert len(games) == 1
    assert "1 player waiting" in fifth.get("/match").text
    assert "Play against the computer" not in fifth.get("/match").text  # the wait runs on


def test_alone_at_the_end_a_player_plays_the_computer_or_waits_again(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(match_wait_seconds=0, computer_pace_seconds=3600)
    ann, token = play_now(client, "Ann")
    again = ann.post("/match/again", data={"csrf_token": token}, follow_redirects=False)
    assert again.headers["location"] == "/match"
    game = ann.post("/match/computer", data={"csrf_token": token}, follow_redirects=False)
    assert game.status_code == 303
    game_id = game.headers["location"].removeprefix("/games/")
    view = client.get(f"/api/v1/games/{game_id}").json()
    assert [(player["name"], player["computer"]) for player in view["players"]] == [
        ("Ann", False),
        ("Computer 1", True),
    ]
    assert view["status"] == "playing"
    assert 'data-seat="0"' in ann.get(f"/games/{game_id}").text
    assert ann.get("/match", follow_redirects=False).headers["location"] == "/"


def test_a_page_that_stopped_asking_is_not_matched_and_bad_input_is_refused(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(match_wait_seconds=0, computer_pace_seconds=3600)
    service = client.app.state.service  # type: ignore[attr-defined]
    play_now(client, "Ann")
    with service.database.writing() as session:  # Ann closed the page a while ago
        for entry in session.query(MatchEntry):
            entry.seen_at = now() - FRESH - timedelta(seconds=1)
    bob, _ = play_now(client, "Bob")
    assert "1 player waiting" in bob.get("/match").text
    # Stopping the wait forgets it; no entry, no waiting page.
    left = bob.post("/match/leave", data={"csrf_token": _csrf(bob)}, follow_redirects=False)
    assert left.headers["location"] == "/"
    assert bob.get("/match", follow_redirects=False).headers["location"] == "/"
    assert bob.get("/match/status").headers["hx-redirect"] == "/"
    # A name that shows nothing, no CSRF token, no name: refused, nothing queued.
    page, token = browser(client)
    blank = page.post("/match", data={"name": "\u200b\u200b", "csrf_token": token})
    assert blank.status_code == 422
    assert "Looking for players" not in blank.text
    assert page.post("/match", data={"name": "Cy"}).status_code == 403
    assert page.post("/match", data={"csrf_token": token}).status_code == 422
    matching: QuickMatch = client.app.state.matching  # type: ignore[attr-defined]
    assert matching.queue.size() == 1  # Ann's, until it is forgotten


def test_the_queue_has_a_bound(make_client: Callable[..., TestClient]) -> None:
    client = make_client(match_wait_seconds=600)
    matching: QuickMatch = client.app.state.matching  # type: ignore[attr-defined]
    moment = now()
    for number in range(MAX_WAITING):
        matching.queue.enter(f"{number:064x}", f"P{number}", None, moment - timedelta(hours=1))
    page, token = browser(client)
    full = page.post("/match", data={"name": "Late", "csrf_token": token})
    assert full.status_code == 409
    assert "too many players are waiting" in full.text
    # Entries nobody asked about for a while go with the next look: room again.
    matching.try_match()
    assert matching.queue.size() == 0
    # Entries matched into a table (kept until forgotten) do not fill the queue.
    for number in range(MAX_WAITING):
        matching.queue.enter(f"{number:064x}", f"P{number}", None, moment)
    with client.app.state.service.database.writing() as session:  # type: ignore[attr-defined]
        for entry in session.query(MatchEntry):
            entry.game_id = "a-game-id"
    assert page.post("/match", data={"name": "Late", "csrf_token": token}).status_code == 200


def test_the_home_page_offers_play_now(client: TestClient) -> None:
    home = client.get("/").text
    assert 'formaction="/match"' in home
    assert "Play now" in home


def test_the_home_page_lists_the_tables_in_play_to_watch_and_never_a_friends_game(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(match_wait_seconds=0, computer_pace_seconds=3600)
    assert "No table is being played now" in client.get("/").text
    friends = client.post("/api/v1/games", json={"name": "Fay"}).json()
    friends_id = friends["game"]["id"]
    client.post(
        f"/api/v1/games/{friends_id}/start",
        headers={"Authorization": f"Bearer {friends['token']}"},
    )
    ann, _ = play_now(client, "Ann")
    play_now(client, "Bob")
    game_id = ann.get("/match", follow_redirects=False).headers["location"].removeprefix("/games/")

    for listing in (client.get("/").text, client.get("/tables").text):
        assert f'href="/games/{game_id}">Watch</a>' in listing
        assert "<bdi>Ann</bdi>, <bdi>Bob</bdi>" in listing
        assert "Round 1 of 13" in listing
        assert "Turn timer: 60 s" in listing
        assert '<span class="table-language" lang="en">English</span>' in listing
        assert friends_id not in listing
    spectator, _ = browser(client)
    assert "You are watching this game." in spectator.get(f"/games/{game_id}").text
    assert client.get(f"/api/v1/games/{game_id}").json()["status"] == "playing"


def test_two_players_only_starts_a_table_of_two_at_once_and_the_next_waits(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(match_wait_seconds=600, computer_pace_seconds=3600)
    page, token = browser(client)
    answer = page.post(
        "/match", data={"name": "Ann", "pair": "true", "csrf_token": token}, follow_redirects=False
    )
    assert answer.status_code == 303
    assert "1 player waiting" in page.get("/match").text
    bob, _ = play_now(client, "Bob")  # any size will do for Bob: Ann's table is full with him
    cy, _ = play_now(client, "Cy")
    tables = {
        seat.get("/match", follow_redirects=False).headers["location"] for seat in (page, bob)
    }
    assert len(tables) == 1
    game = client.get(f"/api/v1/games/{tables.pop().removeprefix('/games/')}").json()
    assert [player["name"] for player in game["players"]] == ["Ann", "Bob"]
    assert (game["status"], game["public"], game["turn_seconds"]) == ("playing", True, 60)
    assert "1 player waiting" in cy.get("/match").text  # Cy waits on for the next table


def test_a_bot_waits_through_the_api_and_its_ticket_becomes_its_seat(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(match_wait_seconds=0, computer_pace_seconds=3600)
    made = client.post("/api/v1/players", json={"name": "Robo"}).json()
    player = {"X-Player-Token": made["token"]}
    ticket = client.post("/api/v1/match", json={"name": "Robo", "language": "fi"}, headers=player)
    assert ticket.status_code == 201, ticket.text
    first = ticket.json()
    assert (first["waiting"], first["game_id"], first["alone"]) == (1, None, True)
    other = client.post("/api/v1/match", json={"name": "Tin", "two_players_only": True}).json()
    assert other["game_id"] is not None  # Tin came second: the table started at once

    wait = client.get("/api/v1/match", headers={"Authorization": f"Bearer {first['token']}"})
    game_id = wait.json()["game_id"]
    assert game_id == other["game_id"]
    seat = {"Authorization": f"Bearer {first['token']}"}
    rolled = client.post(f"/api/v1/games/{game_id}/roll", json={}, headers=seat)
    assert rolled.status_code == 200, rolled.text
    assert rolled.json()["players"][0]["player_id"] == made["player"]["id"]
    listed = client.get("/api/v1/tables").json()
    assert [(table["game_id"], table["players"], table["round"]) for table in listed] == [
        (game_id, ["Robo", "Tin"], 1)
    ]
    assert (listed[0]["turn_seconds"], listed[0]["language"]) == (60, "fi")  # Robo came first
    # Done with the ticket: the wait is forgotten; the seat stays.
    assert client.delete("/api/v1/match", headers=seat).status_code == 204
    assert client.get("/api/v1/match", headers=seat).status_code == 403
    again = client.post(f"/api/v1/games/{game_id}/roll", json={"hold": [0, 1]}, headers=seat)
    assert again.status_code == 200, again.text
    assert again.json()["rolls_left"] == 1

    # Bad input: no name, an unknown field, a stranger's ticket.
    assert client.post("/api/v1/match", json={}).status_code == 422
    assert client.post("/api/v1/match", json={"name": "A", "x": 1}).status_code == 422
    assert client.post("/api/v1/match", json={"name": "A", "language": "xx"}).status_code == 422
    # The API's languages are the game's.
    assert set(get_args(LanguageCode)) == set(LANGUAGES)
    stranger = client.get("/api/v1/match", headers={"Authorization": "Bearer nope"})
    assert stranger.status_code == 403
    assert stranger.json()["error"]["code"] == "not_waiting"
