"""Following another worker's moves from their bus messages: the snapshot brought forward
from a message is the database's at that version, and a message tells no secret."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, replace
from datetime import datetime

import pytest
from fastapi.testclient import TestClient

from app.live.bus import messages
from app.service.clock import as_utc
from app.service.games import GameService
from app.service.views import GameView
from app.store.cache import Snapshots
from app.store.rows import GameRow
from app.store.snapshots import LoggedRow, Snapshot, load_snapshot
from tests.web.helpers import act

# The server plays nothing by itself during a test: a deadline met while a loaded machine
# kept the test between its third roll and its box was a move the test did not make.
IDLE_RUNNER = {"computer_pace_seconds": 3600, "auto_confirm_seconds": 3600}
ORIGIN = "0123456789abcdef"


class Told:
    """What the bus would send of each committed change, as ``RedisBus.publish`` makes it."""

    def __init__(self, service: GameService) -> None:
        self.snapshots = service.changes.snapshots
        self.texts: dict[int, str | None] = {}
        service.listeners.append(self.committed)

    def committed(self, game_id: str, version: int, view: GameView | None) -> None:
        kept = self.snapshots.peek(game_id)
        assert kept is not None
        assert kept.version == version
        self.texts[version] = messages.change_message(ORIGIN, kept)


def _service(client: TestClient) -> GameService:
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    return service


def _new_game(
    make_client: Callable[..., TestClient],
) -> tuple[TestClient, GameService, Told, str, str]:
    """A worker (its computer seats idle), what its bus would tell, and a waiting game of
    Ann's there: its id and Ann's token."""
    client = make_client(**IDLE_RUNNER)
    service = _service(client)
    told = Told(service)
    created = client.post("/api/v1/games", json={"name": "Ann"}).json()
    return client, service, told, created["game"]["id"], created["token"]


def _loaded(service: GameService, game_id: str) -> Snapshot:
    with service.database.read_connection() as connection:
        snapshot = load_snapshot(connection, game_id)
    assert snapshot is not None
    return snapshot


def _in_utc(row: GameRow) -> GameRow:
    """``row`` with its times in UTC: SQLite hands them back naive, as the writer's own kept
    snapshot never has them (its changes are made aware); the moments are what must agree."""
    times = {
        column.name: as_utc(value)
        for column in fields(row)
        if isinstance(value := getattr(row, column.name), datetime)
    }
    return replace(row, **times)


def _followed(receiver: Snapshots, text: str | None) -> Snapshot | None:
    assert text is not None, "every move after the start is told as a change"
    message = messages.parse(text)
    assert isinstance(message, messages.ChangeMessage)
    return receiver.follow(message.game, message.seats, message.appended)


def _same_game(followed: Snapshot, loaded: Snapshot) -> None:
    assert _in_utc(followed.record) == _in_utc(loaded.record)
    assert followed.state == loaded.state
    assert (followed.logged, followed.rolls, followed.turn_holds) == (
        loaded.logged,
        loaded.rolls,
        loaded.turn_holds,
    )
    assert followed.activity == loaded.activity


def _play(client: TestClient, game_id: str, token: str, each: Callable[[], None]) -> None:
    """Play the game to its end: the person holds the most common value twice and scores
    the first open box; the server plays the computer seat; ``each`` after every move."""
    service = _service(client)
    while (game := client.get(f"/api/v1/games/{game_id}").json())["status"] == "playing":
        if game["turn"] == 1:
            service.play_for_computer(game_id)
        elif game["dice"] is None or game["rolls_left"] == 0:
            if game["dice"] is None:
                act(client, game_id, token, "roll", {"hold": []})
            else:
                act(client, game_id, token, "score", {"box": next(iter(game["options"]))})
        else:
            dice: list[int] = game["dice"]
            most = max(set(dice), key=dice.count)
            held = [index for index, value in enumerate(dice) if value == most]
            act(client, game_id, token, "roll", {"hold": held})
        each()


def test_every_move_followed_from_its_message_is_the_database_s_version(
    make_client: Callable[..., TestClient],
) -> None:
    client, service, told, game_id, ann = _new_game(make_client)
    act(client, game_id, ann, "computers")
    started = act(client, game_id, ann, "start")
    # Another worker, which read the game once it started, follows it from the messages alone.
    receiver = Snapshots()
    receiver.keep(_loaded(service, game_id))
    secrets = [secret for secret in _secrets(_loaded(service, game_id).record) if secret]
    assert len(secrets) >= 2  # the server seed and Ann's secret at least

    def check() -> None:
        loaded = _loaded(service, game_id)
        text = told.texts[loaded.version]
        assert text is not None
        assert not any(secret in text for secret in secrets)
        followed = _followed(receiver, text)
        assert followed is not None, "kept at the version the move was written on"
        _same_game(followed, loaded)
        assert receiver.peek(game_id) is followed
        # Exactly the writer's own snapshot, down to whether the move recorded a box.
        assert followed == service.changes.snapshots.peek(game_id)

    _play(client, game_id, ann, check)
    finished = _loaded(service, game_id)
    assert finished.record.status == "finished"
    assert receiver.counts.followed == finished.version - started["version"]
    assert (receiver.counts.unfollowed, receiver.counts.catch_ups) == (0, 0)
    # The finished game's seed is shown now, by the page: the receiver had it all along.
    followed = receiver.peek(game_id)
    assert followed is not None
    assert followed.record.server_seed == finished.record.server_seed


def _secrets(row: GameRow) -> list[str | None]:
    return [row.server_seed] + [
        secret for seat in row.players for secret in (seat.secret_hash, seat.moved_hash)
    ]


def test_a_worker_kept_at_an_older_version_reads_the_database(
    make_client: Callable[..., TestClient],
) -> None:
    client, service, told, game_id, ann = _new_game(make_client)
    act(client, game_id, ann, "start")
    receiver = Snapshots()
    receiver.keep(_loaded(service, game_id))  # at V - 2 when the second move is told
    act(client, game_id, ann, "roll", {"hold": []})
    game = act(client, game_id, ann, "roll", {"hold": [0]})

    assert _followed(receiver, told.texts[game["version"]]) is None
    assert (receiver.counts.followed, receiver.counts.unfollowed) == (0, 1)
    with service.database.read_connection() as connection:
        caught_up = receiver.load(connection, game_id)
    assert receiver.counts.catch_ups == 1
    assert caught_up is not None
    _same_game(caught_up, _loaded(service, game_id))


def test_a_game_started_by_another_worker_is_read_from_the_database(
    make_client: Callable[..., TestClient],
) -> None:
    client, service, told, game_id, ann = _new_game(make_client)
    receiver = Snapshots()
    receiver.keep(_loaded(service, game_id))  # waiting: its state is a placeholder
    started = act(client, game_id, ann, "start")

    assert _followed(receiver, told.texts[started["version"]]) is None
    assert receiver.counts.unfollowed == 1
    assert receiver.peek(game_id).version == started["version"] - 1  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "rows",
    [
        (("roll", {"dice": [1, 2, 3, 4, 9]}, None),),  # no die shows 9
        (("roll", {"dice": [1, 2, 3, 4, 5]}, None), ("score", {"box": "nine"}, None)),
        (("score", {"box": "ones"}, None),),  # nothing rolled yet
        (("roll", {}, None),),
    ],
    ids=["impossible-die", "no-such-box", "score-before-roll", "no-dice"],
)
def test_a_change_the_rules_refuse_changes_nothing(
    make_client: Callable[..., TestClient], rows: tuple[LoggedRow, ...]
) -> None:
    client, service, told, game_id, ann = _new_game(make_client)
    act(client, game_id, ann, "start")
    kept = _loaded(service, game_id)
    rolled = act(client, game_id, ann, "roll", {"hold": []})
    text = told.texts[rolled["version"]]
    assert text is not None
    message = messages.parse(text)
    assert isinstance(message, messages.ChangeMessage)
    receiver = Snapshots()
    receiver.keep(kept)

    with pytest.raises((ValueError, KeyError)):  # the rules' errors are ValueErrors
        receiver.follow(message.game, message.seats, replace(message.appended, rows=rows))
    assert receiver.peek(game_id) is kept
    assert (receiver.counts.followed, receiver.counts.unfollowed) == (0, 1)
