"""The server owns the auto-confirm deadline: a silent bot's roll is recorded all the same.

After the third roll a player has ``auto_confirm_seconds`` to choose a box; the server
records the computer's box ``auto_confirm_grace_seconds`` later, whoever watches. A choice
inside the grace wins, one after the server's is refused with 409 ``too_late``, and a
deadline pending when the server dies is kept after its restart, played exactly once.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from app.rules import Scoresheet
from app.service import runner
from app.service.clock import as_utc
from app.service.errors import ConflictError
from app.service.games import GameService
from app.service.retention import RetentionSweeper
from app.store.models import GameRecord
from tests.live_server import Server
from tests.web.helpers import act, auth, served_for, started_game

QUICK = {"auto_confirm_seconds": 0.3, "auto_confirm_grace_seconds": 0.2}
WAIT = 10.0
"""The longest any test here waits for the server to act (generous for a loaded machine)."""


def roll_three_times(client: TestClient, game_id: str, token: str) -> dict[str, Any]:
    game: dict[str, Any] = {}
    for _ in range(3):
        game = act(client, game_id, token, "roll", {"hold": []})
    assert game["rolls_left"] == 0
    return game


def changes_of(client: TestClient) -> threading.Event:
    """An event set by the next change the service commits in any game."""
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    changed = threading.Event()
    service.listeners.append(lambda _game_id, _version, _view: changed.set())
    return changed


def deadline_of(game: dict[str, Any]) -> float:
    deadline = game["deadline"]
    assert deadline is not None
    return datetime.fromisoformat(deadline).timestamp()


def test_a_silent_bot_gets_the_computers_box_after_the_deadline_and_grace(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(**QUICK)
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    game_id, token, _ = started_game(client)
    for _ in range(2):
        act(client, game_id, token, "roll", {"hold": []})
    sent_at = time.time()  # no later than the server's moment of the third roll
    game = act(client, game_id, token, "roll", {"hold": []})
    assert 0.3 <= deadline_of(game) - sent_at < 0.3 + WAIT
    dice = tuple(game["dice"])
    expected = service.strategy.current().best_box(Scoresheet(), dice)
    changed = changes_of(client)

    assert changed.wait(WAIT), "the server did not act after the deadline"
    acted_after = time.time() - sent_at
    game = client.get(f"/api/v1/games/{game_id}").json()
    boxes = game["players"][0]["boxes"]
    assert [box for box, points in boxes.items() if points is not None] == [expected.value]
    assert game["round"] == 2
    assert game["deadline"] is None
    assert acted_after >= 0.5  # not before the deadline (0.3 s) and the grace (0.2 s)
    rows = _log(client, "SELECT kind, reason, by_computer", game_id)
    assert rows == [("roll", None, False)] * 3 + [("score", "deadline", True)]


def _log(client: TestClient, select: str, game_id: str) -> list[tuple[Any, ...]]:
    """``select`` (columns of the actions) over the game's log, in order, from the app's
    database (SQLite or PostgreSQL)."""
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    query = text(f"{select} FROM actions WHERE game_id = :game_id ORDER BY number")
    with service.database.read_connection() as connection:
        return [tuple(row) for row in connection.execute(query, {"game_id": game_id})]


def test_a_choice_inside_the_grace_wins(make_client: Callable[..., TestClient]) -> None:
    client = make_client(auto_confirm_seconds=0.05, auto_confirm_grace_seconds=30)
    game_id, token, _ = started_game(client)
    game = roll_three_times(client, game_id, token)
    deadline = deadline_of(game)
    while time.time() <= deadline:  # past the rule's deadline, well inside the grace
        time.sleep(0.01)
    scored = act(client, game_id, token, "score", {"box": "chance"})
    assert scored["players"][0]["boxes"]["chance"] == sum(game["dice"])
    assert scored["round"] == 2


def test_a_choice_after_the_server_recorded_is_refused_with_the_reason(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(**QUICK)
    game_id, token, _ = started_game(client)
    roll_three_times(client, game_id, token)
    changed = changes_of(client)
    assert changed.wait(WAIT), "the server did not act after the deadline"
    before = client.get(f"/api/v1/games/{game_id}").json()
    refused = act(client, game_id, token, "score", {"box": "chance"}, status=409)
    assert refused["error"] == {
        "code": "too_late",
        "message": "time ran out: the computer recorded your roll",
    }
    assert client.get(f"/api/v1/games/{game_id}").json() == before


def test_a_friend_out_of_time_is_refused_as_too_late_not_as_out_of_turn(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(**QUICK)
    created = client.post("/api/v1/games", json={"name": "Ann"}).json()
    game_id, ann = created["game"]["id"], created["token"]
    bob = act(client, game_id, "", "players", {"name": "Bob"}, status=201)["token"]
    act(client, game_id, ann, "start")
    roll_three_times(client, game_id, ann)
    assert changes_of(client).wait(WAIT)
    assert client.get(f"/api/v1/games/{game_id}").json()["turn"] == 1
    refused = act(client, game_id, ann, "score", {"box": "chance"}, status=409)
    assert refused["error"]["code"] == "too_late"
    act(client, game_id, bob, "roll", {"hold": []})
    # Once the next player has moved on, Ann's late choice is plainly out of turn.
    assert act(client, game_id, ann, "score", {"box": "chance"}, status=403)["error"]["code"] == (
        "not_your_turn"
    )


def test_the_page_counts_down_to_the_servers_deadline_across_reloads(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(auto_confirm_seconds=30)
    page = client.post(
        "/games", data={"name": "Ann", "csrf_token": csrf(client)}, follow_redirects=True
    )
    game_id = str(page.url).rsplit("/", 1)[1]
    for _ in range(3):
        client.post(f"/games/{game_id}/roll", data={"csrf_token": csrf(client)})
    first = deadline_attribute(client.get(f"/games/{game_id}").text)
    time.sleep(0.05)  # a reload a moment later
    second = deadline_attribute(client.get(f"/games/{game_id}").text)
    assert first == second
    api = client.get(f"/api/v1/games/{game_id}").json()
    assert first == round(deadline_of(api) * 1000)
    assert 29_000 < first - time.time() * 1000 <= 30_000


def csrf(client: TestClient) -> str:
    match = re.search(r'data-csrf-token="([^"]+)"', client.get("/").text)
    assert match
    return match.group(1)


def deadline_attribute(html: str) -> int:
    match = re.search(r'data-deadline="(\d+)"', html)
    assert match, "no deadline on the page"
    return int(match.group(1))


def test_a_deadline_pending_at_a_crash_is_played_once_after_the_restart(
    start_server: Callable[..., Server],
) -> None:
    server = start_server(PENTA_AUTO_CONFIRM_SECONDS="2", PENTA_AUTO_CONFIRM_GRACE_SECONDS="0.5")
    with httpx.Client(base_url=server.url, timeout=10) as client:
        created = client.post("/api/v1/games", json={"name": "Bot"}).json()
        game_id, token = created["game"]["id"], created["token"]
        client.post(f"/api/v1/games/{game_id}/start", headers=auth(token)).raise_for_status()
        for _ in range(3):
            client.post(
                f"/api/v1/games/{game_id}/roll", json={"hold": []}, headers=auth(token)
            ).raise_for_status()
        server.kill()  # between the third roll and the deadline
        server.restart()
        game: dict[str, Any] = {}
        give_up = time.monotonic() + WAIT
        while time.monotonic() < give_up:
            game = client.get(f"/api/v1/games/{game_id}").json()
            if game["round"] == 2:
                break
            time.sleep(0.1)
    assert game["round"] == 2, "the restarted server did not record the box"
    recorded = [points for points in game["players"][0]["boxes"].values() if points is not None]
    assert len(recorded) == 1
    scores = server.query(
        "SELECT reason FROM actions WHERE game_id = :game AND kind = 'score'", game=game_id
    )
    assert [tuple(score) for score in scores] == [("deadline",)]


def test_the_same_scheduler_finishes_the_turn_of_a_player_whose_timer_ran_out(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(computer_pace_seconds=0.05, auto_confirm_seconds=30)
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    created = client.post("/api/v1/games", json={"name": "Ann", "turn_seconds": 30}).json()
    game_id, ann = created["game"]["id"], created["token"]
    act(client, game_id, "", "players", {"name": "Bob"}, status=201)
    act(client, game_id, ann, "start")
    act(client, game_id, ann, "roll", {"hold": []})
    with service.database.writing() as session:  # thirty seconds later, as stored
        record = session.get(GameRecord, game_id)
        assert record is not None
        record.turn_started_at = datetime.now(UTC) - timedelta(seconds=31)
        record.due_at = datetime.now(UTC) - timedelta(seconds=1)
        record.version += 1
    turn_passed = threading.Event()
    service.listeners.append(
        lambda changed, _version, _view: (
            changed == game_id and service.get(game_id).turn == 1 and turn_passed.set()
        )
    )
    service.get(game_id)  # the process learns of the change, as after a restart
    client.app.state.scheduler.notify(game_id, 0)  # type: ignore[attr-defined]
    assert turn_passed.wait(WAIT), "the scheduler did not play the timed-out turn"
    reasons = _log(client, "SELECT kind, reason", game_id)
    assert reasons[0] == ("roll", None)
    assert reasons[-1] == ("score", "turn_timer")
    assert {reason for _kind, reason in reasons[1:]} == {"turn_timer"}
    line = "Out of time: the computer scored"
    assert line in client.get(f"/games/{game_id}").text


def test_a_late_auto_confirm_finds_it_done_and_changes_nothing(
    make_client: Callable[..., TestClient],
) -> None:
    """A page whose countdown fired just after the server recorded the box asked for what
    the server did: it gets the game as it is, not an error (a choice of its own gets 409)."""
    client = make_client(**QUICK)
    page = client.post(
        "/games", data={"name": "Ann", "csrf_token": csrf(client)}, follow_redirects=False
    )
    game_id = page.headers["location"].rsplit("/", 1)[1]
    for roll in range(3):
        client.post(
            f"/games/{game_id}/roll", data={"csrf_token": csrf(client), "turn": 0, "roll": roll}
        )
    assert changes_of(client).wait(WAIT), "the server did not act after the deadline"
    before = client.get(f"/api/v1/games/{game_id}").json()
    headers = {"HX-Request": "true"}
    late = client.post(
        f"/games/{game_id}/auto",
        data={"csrf_token": csrf(client), "turn": 0, "roll": 3},
        headers=headers,
    )
    assert late.status_code == 200
    assert "Time's up: the computer scored" in late.text
    assert client.get(f"/api/v1/games/{game_id}").json() == before
    chosen = client.post(
        f"/games/{game_id}/score",
        data={"csrf_token": csrf(client), "turn": 0, "roll": 3, "box": "chance"},
        headers=headers,
    )
    assert chosen.status_code == 409
    assert 'data-error-code="too_late"' in chosen.text
    assert client.get(f"/api/v1/games/{game_id}").json() == before


def test_a_game_closed_as_abandoned_is_no_longer_due(
    make_client: Callable[..., TestClient],
) -> None:
    # A turn timer keeps a due_at on the game; once retention closes the game, nothing is
    # owed to it any more: the scheduler must not find it at the next start (and load it).
    client = make_client(abandon_after_days=0)
    created = client.post("/api/v1/games", json={"name": "Ann", "turn_seconds": 120}).json()
    game_id, token = created["game"]["id"], created["token"]
    act(client, game_id, token, "start")
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    assert game_id in dict(service.due_games())
    with service.database.writing() as session:
        record = session.get(GameRecord, game_id)
        assert record is not None
        record.updated_at = datetime.now(UTC) - timedelta(days=30)
        served_for(session, 31)  # a server ran all that time
    swept = RetentionSweeper(service.changes, abandon_after_days=7, delete_after_days=0).sweep()
    assert game_id in swept.abandoned
    assert client.get(f"/api/v1/games/{game_id}").json()["status"] == "abandoned"
    assert game_id not in dict(service.due_games())
    assert service.play_due(game_id) is None, "the scheduler's next look plays nothing"


def test_hints_cannot_be_turned_on_in_a_game_closed_as_abandoned(
    make_client: Callable[..., TestClient],
) -> None:
    # A closed game takes no change: turning hints on would still mark its result.
    client = make_client(abandon_after_days=0)
    game_id, token, _game = started_game(client)
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    with service.database.writing() as session:
        record = session.get(GameRecord, game_id)
        assert record is not None
        record.updated_at = datetime.now(UTC) - timedelta(days=30)
        served_for(session, 31)  # a server ran all that time
    RetentionSweeper(service.changes, abandon_after_days=7, delete_after_days=0).sweep()
    version = client.get(f"/api/v1/games/{game_id}").json()["version"]
    with pytest.raises(ConflictError) as refused:
        service.set_hints(game_id, token, True)
    assert refused.value.code == "abandoned"
    after = service.get(game_id)
    assert (after.version, after.players[0].used_hints) == (version, False)


def _set_due(service: GameService, game_id: str, due: datetime) -> None:
    """Place ``due`` on the game's row behind the service's back (as a migration, or another
    worker, would), the version unchanged, and forget what memory kept of the game."""
    with service.database.writing() as session:
        record = session.get(GameRecord, game_id)
        assert record is not None
        record.due_at = due
    service.changes.snapshots.clear()


def test_the_overdue_games_are_the_most_overdue_first_and_at_most_as_many_as_asked(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client()
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    now = datetime.now(UTC)
    games = [started_game(client, f"P{number}")[0] for number in range(4)]
    for minutes, game_id in zip((3, 1, 2, -1), games, strict=True):  # the last one is ahead
        _set_due(service, game_id, now - timedelta(minutes=minutes))
    with service.changes.store.reading() as reading:
        overdue = reading.due_games(before=now - timedelta(seconds=30), limit=2)
        assert [game_id for game_id, _ in overdue] == [games[0], games[2]]
        every = [game_id for game_id, _ in reading.due_games(before=now, limit=10)]
        assert every == [games[0], games[2], games[1]]
        assert [game_id for game_id, _ in reading.due_games()] == [*every, games[3]]


def test_a_deadline_left_past_with_nothing_due_is_cleared_by_the_look_for_overdue_ones(
    make_client: Callable[..., TestClient],
) -> None:
    # A person with rolls left owes the server nothing: a due_at left in the past on such a
    # game (the deadlines migration placed one on every game in play) would be found by
    # every worker's look for overdue games, every time, and hide the games really owed.
    client = make_client(computer_pace_seconds=3600)
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    stale, _token, game = started_game(client)
    owed = client.post("/api/v1/games", json={"name": "Bo"}).json()
    owed_id, bo = owed["game"]["id"], owed["token"]
    act(client, owed_id, bo, "computers")
    act(client, owed_id, bo, "start")
    roll_three_times(client, owed_id, bo)
    act(client, owed_id, bo, "score", {"box": "chance"})  # the computer is to move
    then = datetime.now(UTC) - timedelta(minutes=5)
    for game_id in (stale, owed_id):
        _set_due(service, game_id, then)

    assert [game_id for game_id, _ in service.overdue_games(1, 10)] == [owed_id]
    assert [game_id for game_id, _ in service.overdue_games(1, 10)] == [owed_id]
    with service.changes.store.reading() as reading:
        assert [game_id for game_id, _ in reading.due_games()] == [owed_id]
    assert client.get(f"/api/v1/games/{stale}").json() == game, "no move was made"


def test_a_game_whose_computers_play_fast_steps_at_the_fast_pace(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(computer_pace_seconds=3600, computer_fast_pace_seconds=1800)
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    refused = client.post("/api/v1/games", json={"name": "Ann", "computer_pace": "slow"})
    assert refused.status_code == 422
    ahead = {}
    for pace in ("normal", "fast"):
        created = client.post("/api/v1/games", json={"name": "Ann", "computer_pace": pace})
        assert created.status_code == 201
        game_id, ann = created.json()["game"]["id"], created.json()["token"]
        act(client, game_id, ann, "computers")
        act(client, game_id, ann, "start")
        act(client, game_id, ann, "roll", {"hold": []})
        game = act(client, game_id, ann, "score", {"box": "chance"})
        assert (game["computer_pace"], game["turn"]) == (pace, 1)
        with service.database.reading() as session:
            record = session.get(GameRecord, game_id)
            assert record is not None
            assert record.due_at is not None
            ahead[pace] = (as_utc(record.due_at) - as_utc(record.updated_at)).total_seconds()
    # The computer's first step is due a pace after the move that gave it the turn.
    assert ahead == {"normal": pytest.approx(3600, abs=1), "fast": pytest.approx(1800, abs=1)}
    page = client.get(f"/games/{game_id}")
    assert page.status_code == 200


def test_the_home_page_offers_fast_computers_and_the_lobby_says_so(client: TestClient) -> None:
    home = client.get("/")
    assert 'name="computer_pace" value="fast"' in home.text
    token = csrf(client)
    made = client.post(
        "/games",
        data={"name": "Ann", "mode": "friends", "computer_pace": "fast", "csrf_token": token},
    )
    assert made.status_code == 200  # the lobby, after the redirect
    assert "The computer players move fast." in made.text
    normal = client.post("/games", data={"name": "Bo", "mode": "friends", "csrf_token": token})
    assert "The computer players move fast." not in normal.text
    odd = client.post(
        "/games",
        data={"name": "Cy", "mode": "friends", "computer_pace": "slow", "csrf_token": token},
    )
    assert odd.status_code == 422


def test_a_step_the_database_failed_is_tried_again(
    make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker alone has no takeover look: a computer's move that the database failed (a
    connection lost) is scheduled again, not dropped until the next restart."""
    monkeypatch.setattr(runner, "STORAGE_RETRY_SECONDS", 0.1)
    client = make_client(computer_pace_seconds=0.05)
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    created = client.post("/api/v1/games", json={"name": "Ann"}).json()
    game_id, ann = created["game"]["id"], created["token"]
    act(client, game_id, ann, "computers")
    real_play_due, failures = service.play_due, [OperationalError("SELECT", None, Exception())]

    def play_due(game: str) -> Any:
        if failures:
            raise failures.pop()
        return real_play_due(game)

    monkeypatch.setattr(service, "play_due", play_due)
    computer_moved = threading.Event()
    service.listeners.append(
        lambda changed, _version, _view: (
            changed == game_id and service.get(game_id).scored_turns == 2 and computer_moved.set()
        )
    )
    act(client, game_id, ann, "start")
    act(client, game_id, ann, "roll", {"hold": []})
    act(client, game_id, ann, "score", {"box": "chance"})  # the computer is to move
    assert computer_moved.wait(WAIT), "the computer's step, failed once, was not tried again"
    assert failures == []
