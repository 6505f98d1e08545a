"""Around the table, through the API: handing an absent seat to the computer, reactions.

What needs open streams (presence, the seat taken back, reactions delivered) is in
tests/live/test_table_live.py against a real server.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient

from app.service.reactions import BURST, REACTIONS
from app.service.retention import RetentionSweeper
from app.store.log import replay
from app.store.models import ActionRecord, GameRecord
from tests.web.helpers import act, auth, served_for

# Seats count as away at once, and the runner waits before it plays, so each test sees the
# seat handed over before the computer moves it on.
AWAY_AT_ONCE = {"absent_seconds": 0.001, "computer_pace_seconds": 3600}


def friends(client: TestClient, *names: str, computer: bool = False) -> tuple[str, list[str]]:
    """A started game of ``names`` (the first hosts), perhaps with a computer; the tokens."""
    created = client.post("/api/v1/games", json={"name": names[0]})
    game_id, tokens = created.json()["game"]["id"], [created.json()["token"]]
    for name in names[1:]:
        tokens.append(act(client, game_id, "", "players", {"name": name}, status=201)["token"])
    if computer:
        act(client, game_id, tokens[0], "computers")
    act(client, game_id, tokens[0], "start")
    return game_id, tokens


def hand_over(client: TestClient, game_id: str, token: str, seat: object, status: int) -> dict:
    response = client.post(
        f"/api/v1/games/{game_id}/stand-in", json={"seat": seat}, headers=auth(token)
    )
    assert response.status_code == status, response.text
    answer: dict = response.json()
    return answer


def test_a_seat_is_handed_over_only_when_its_player_has_been_away_long_enough(
    make_client,
) -> None:
    client = make_client(absent_seconds=60, computer_pace_seconds=3600)
    game_id, (_ann, bob) = friends(client, "Ann", "Bob")
    refused = hand_over(client, game_id, bob, 0, 409)
    assert refused["error"] == {
        "code": "not_away_long",
        "message": "that player has not been away long enough",
    }
    assert client.get(f"/api/v1/games/{game_id}").json()["players"][0]["stand_in"] is False


def test_a_player_acting_with_no_stream_open_is_not_handed_over(make_client) -> None:
    # A bot through the API opens no stream: its moves are what says it is at the table.
    client = make_client(absent_seconds=0.5, computer_pace_seconds=3600)
    game_id, (ann, bob) = friends(client, "Ann", "Bob")
    time.sleep(0.6)  # no stream of Ann's since the start, for longer than the absence
    act(client, game_id, ann, "roll", {"hold": []})
    assert hand_over(client, game_id, bob, 0, 409)["error"]["code"] == "present"
    act(client, game_id, ann, "roll", {"hold": [0, 1]})
    time.sleep(0.6)  # then she stops for as long
    assert hand_over(client, game_id, bob, 0, 200)["players"][0]["stand_in"] is True


def test_a_player_who_just_played_is_not_handed_over_at_the_start_of_their_next_turn(
    make_client,
) -> None:
    # Ann plays through the API (no stream); Bob plays his turn at once; at the start of
    # Ann's next turn her last score, before Bob's turn, still says she is at the table.
    client = make_client(absent_seconds=3, computer_pace_seconds=3600)
    game_id, (ann, bob) = friends(client, "Ann", "Bob")
    for token in (ann, bob):
        act(client, game_id, token, "roll", {"hold": []})
        act(client, game_id, token, "score", {"box": "chance"})
    assert client.get(f"/api/v1/games/{game_id}").json()["turn"] == 0
    assert hand_over(client, game_id, bob, 0, 409)["error"]["code"] == "present"
    time.sleep(4.1)  # then she stops for longer than the absence (whole seconds on SQLite)
    assert hand_over(client, game_id, bob, 0, 200)["players"][0]["stand_in"] is True


def test_handing_over_the_player_to_move_logs_it_outside_the_rules(make_client) -> None:
    client = make_client(**AWAY_AT_ONCE)
    game_id, (ann, bob) = friends(client, "Ann", "Bob")
    act(client, game_id, ann, "roll", {"hold": []})
    before = client.get(f"/api/v1/games/{game_id}").json()
    game = hand_over(client, game_id, bob, 0, 200)
    assert game["players"][0]["stand_in"] is True
    assert game["version"] == before["version"] + 1
    assert (game["dice"], game["rolls_left"], game["turn"]) == (before["dice"], 2, 0)
    with client.app.state.service.database.reading() as session:  # type: ignore[attr-defined]
        record = session.get(GameRecord, game_id)
        assert record is not None
        logged = [(row.kind, row.seat, row.payload) for row in record.actions]
        assert logged[-1] == ("stand_in", 0, {"by": 1})
        assert replay(record).turn.dice == tuple(before["dice"])  # replay skips the entry
    # The same seat again: the computer already plays it.
    assert hand_over(client, game_id, bob, 0, 409)["error"]["code"] == "computer_seat"


def test_the_refusals_say_why_and_change_nothing(make_client) -> None:
    client = make_client(**AWAY_AT_ONCE)
    game_id, (ann, _bob) = friends(client, "Ann", "Bob", computer=True)
    version = client.get(f"/api/v1/games/{game_id}").json()["version"]
    cases = [
        ("", 0, 403, "not_your_seat", "you do not hold a seat in this game"),
        (ann, 0, 409, "own_seat", "you cannot hand your own seat to the computer"),
        (
            ann,
            1,
            409,
            "not_to_move",
            "only the seat of the player to move can be handed over",
        ),
        (ann, 2, 409, "computer_seat", "the computer already plays that seat"),
        (ann, 3, 422, "invalid_seat", "there is no such seat"),
    ]
    for token, seat, status, code, message in cases:
        answer = hand_over(client, game_id, token, seat, status)
        assert answer["error"] == {"code": code, "message": message}, (token, seat)
    assert hand_over(client, game_id, ann, 9, 422)["error"]["code"] == "invalid"
    assert hand_over(client, game_id, ann, "x", 422)["error"]["code"] == "invalid"
    assert client.get(f"/api/v1/games/{game_id}").json()["version"] == version
    assert client.post("/api/v1/games/nope/stand-in", json={"seat": 0}).status_code == 404

    waiting = client.post("/api/v1/games", json={"name": "Cy"}).json()
    waiting_id = waiting["game"]["id"]
    dee = act(client, waiting_id, "", "players", {"name": "Dee"}, status=201)["token"]
    assert hand_over(client, waiting_id, dee, 0, 409)["error"]["code"] == "not_started"


def test_the_computer_plays_the_handed_over_seat(make_client) -> None:
    client = make_client(absent_seconds=0.001, computer_pace_seconds=0.01)
    game_id, (_ann, bob) = friends(client, "Ann", "Bob")
    hand_over(client, game_id, bob, 0, 200)
    deadline = time.monotonic() + 20
    game = client.get(f"/api/v1/games/{game_id}").json()
    while game["turn"] != 1 and time.monotonic() < deadline:
        time.sleep(0.05)
        game = client.get(f"/api/v1/games/{game_id}").json()
    assert game["turn"] == 1, "the computer did not play Ann's turn"
    assert sum(points is not None for points in game["players"][0]["boxes"].values()) == 1
    with client.app.state.service.database.reading() as session:  # type: ignore[attr-defined]
        rows = session.query(ActionRecord).filter_by(game_id=game_id, seat=0).all()
        played = [row for row in rows if row.kind in ("roll", "hold", "score")]
        assert played[0].kind == "roll"
        assert played[-1].kind == "score"
        assert all(row.by_computer for row in played)
    # It is Bob's turn now, and the computer does not touch it.
    act(client, game_id, bob, "roll", {"hold": []})


def test_reactions_are_a_fixed_set_for_seated_players(make_client) -> None:
    client = make_client(computer_pace_seconds=3600)
    created = client.post("/api/v1/games", json={"name": "Ann"}).json()
    game_id, ann = created["game"]["id"], created["token"]

    def react(token: str, reaction: object, status: int) -> dict:
        response = client.post(
            f"/api/v1/games/{game_id}/reactions", json={"reaction": reaction}, headers=auth(token)
        )
        assert response.status_code == status, response.text
        return response.json() if response.content else {}

    assert react(ann, "gg", 409)["error"]["code"] == "not_started"
    act(client, game_id, ann, "start")
    assert react(ann, "hello!", 422)["error"] == {
        "code": "invalid_reaction",
        "message": "there is no such reaction",
    }
    assert react("", "gg", 403)["error"]["code"] == "not_your_seat"
    assert set(REACTIONS) == {"thumbs_up", "clap", "wow", "laugh", "dice", "gg"}
    assert react(ann, "gg", 204) == {}


def test_reactions_beyond_the_burst_are_refused_with_429(make_client) -> None:
    client = make_client(computer_pace_seconds=3600)
    game_id, (ann, bob) = friends(client, "Ann", "Bob")
    path = f"/api/v1/games/{game_id}/reactions"
    for _ in range(BURST):
        sent = client.post(path, json={"reaction": "clap"}, headers=auth(ann))
        assert sent.status_code == 204, sent.text
    refused = client.post(path, json={"reaction": "clap"}, headers=auth(ann))
    assert refused.status_code == 429
    assert refused.json()["error"] == {
        "code": "too_many_reactions",
        "message": "too many reactions: wait a moment",
    }
    assert 1 <= int(refused.headers["Retry-After"]) <= 3
    # The limit is per seat: Bob still may.
    assert client.post(path, json={"reaction": "wow"}, headers=auth(bob)).status_code == 204


def test_a_player_who_returns_while_the_hand_over_is_written_keeps_the_seat(make_client) -> None:
    client = make_client(**AWAY_AT_ONCE)
    game_id, (_ann, bob) = friends(client, "Ann", "Bob")
    state = client.app.state  # type: ignore[attr-defined]

    def ann_opens_the_game(changed: str, _version: int, _view: object) -> None:
        # Ann's stream is counted just as the hand-over commits, after it checked presence.
        if changed == game_id and state.presence.absent_for(game_id, 0) is not None:
            state.presence.enter(game_id, 0)

    state.service.listeners.append(ann_opens_the_game)
    game = hand_over(client, game_id, bob, 0, 200)
    assert game["players"][0]["stand_in"] is False
    with state.service.database.reading() as session:
        record = session.get(GameRecord, game_id)
        assert record is not None
        assert [row.kind for row in record.actions][-2:] == ["stand_in", "return"]


def test_a_hand_over_waits_in_a_thread_while_another_change_holds_the_database(
    make_client,
) -> None:
    # The route runs on the event loop, where the store refuses to wait for the write lock:
    # like every move, the hand-over must then wait in a worker thread, not answer 503.
    client = make_client(**AWAY_AT_ONCE)
    game_id, (_ann, bob) = friends(client, "Ann", "Bob")
    lock = client.app.state.service.database._write_lock  # type: ignore[attr-defined]
    assert lock.acquire(timeout=5)
    releaser = threading.Timer(0.3, lock.release)
    releaser.start()
    try:
        game = hand_over(client, game_id, bob, 0, 200)
    finally:
        releaser.join()
    assert game["players"][0]["stand_in"] is True


def test_a_player_who_returns_while_a_computer_is_to_move_leaves_the_computer_due(
    make_client,
) -> None:
    # Bob takes his seat back while the computer seat is to move: the game stays due for
    # the computer's step (else, after a restart, nobody would ever play it).
    client = make_client(**AWAY_AT_ONCE)
    game_id, (ann, bob) = friends(client, "Ann", "Bob", computer=True)
    state = client.app.state  # type: ignore[attr-defined]
    act(client, game_id, ann, "roll", {"hold": []})
    act(client, game_id, ann, "score", {"box": "chance"})
    hand_over(client, game_id, ann, 1, 200)
    for _step in range(10):  # the stand-in plays Bob's turn (asked at once, not at its pace)
        if client.get(f"/api/v1/games/{game_id}").json()["turn"] == 2:
            break
        state.service.play_due(game_id)
    assert client.get(f"/api/v1/games/{game_id}").json()["turn"] == 2, "the computer's turn"
    assert state.stand_ins.take_back(game_id, bob) is not None
    assert game_id in dict(state.service.due_games()), "the computer seat is still due"


def test_the_seat_of_a_game_closed_as_abandoned_is_not_handed_over(make_client) -> None:
    client = make_client(**AWAY_AT_ONCE)
    game_id, (_ann, bob) = friends(client, "Ann", "Bob")
    service = client.app.state.service  # type: ignore[attr-defined]
    with service.database.writing() as session:
        record = session.get(GameRecord, game_id)
        assert record is not None
        record.updated_at = datetime.now(UTC) - timedelta(days=30)
        served_for(session, 31)  # a server ran all that time
    RetentionSweeper(service.changes, abandon_after_days=7, delete_after_days=0).sweep()
    closed = client.get(f"/api/v1/games/{game_id}").json()
    assert closed["status"] == "abandoned"
    refused = hand_over(client, game_id, bob, 0, 409)
    assert refused["error"] == {
        "code": "abandoned",
        "message": "this game was closed after a long pause",
    }
    after = client.get(f"/api/v1/games/{game_id}").json()
    assert (after["version"], after["players"][0]["stand_in"]) == (closed["version"], False)
    assert game_id not in dict(service.due_games())


def test_a_player_back_after_the_third_roll_gets_the_auto_confirm_deadline(make_client) -> None:
    # The computer stood in but has not chosen yet; Ann comes back: the box is hers to choose
    # within the rule's time, then the server records it for her as for anyone (deadline).
    auto_confirm = 2.0  # room for the hand-over on a busy machine (PostgreSQL)
    client = make_client(
        absent_seconds=0.001,
        computer_pace_seconds=3600,
        auto_confirm_seconds=auto_confirm,
        auto_confirm_grace_seconds=0.2,
    )
    game_id, (ann, bob) = friends(client, "Ann", "Bob")
    for _roll in range(3):
        act(client, game_id, ann, "roll", {"hold": []})
    hand_over(client, game_id, bob, 0, 200)
    state = client.app.state  # type: ignore[attr-defined]
    back = state.stand_ins.take_back(game_id, ann)
    assert back is not None
    assert back.deadline is not None
    left = (back.deadline - datetime.now(UTC)).total_seconds()
    assert 0 < left <= auto_confirm
    deadline = time.monotonic() + 20
    game = client.get(f"/api/v1/games/{game_id}").json()
    while game["turn"] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
        game = client.get(f"/api/v1/games/{game_id}").json()
    assert game["turn"] == 1, "the server recorded Ann's box at the deadline"
    with state.service.database.reading() as session:
        rows = session.query(ActionRecord).filter_by(game_id=game_id).all()
        assert [row.kind for row in rows][-3:] == ["stand_in", "return", "score"]
        assert rows[-1].reason == "deadline"
