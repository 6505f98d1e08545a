"""The change message of a move: read back exactly, never a secret, refused when malformed;
a worker that cannot follow one falls back to the version, as for the first kind."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from app.live.broker import Broker
from app.live.bus import messages
from app.live.bus.redis_bus import RedisBus
from app.rules import Game
from app.store.rows import GameRow, SeatRow
from app.store.snapshots import Appended, Snapshot

ORIGIN = "0123456789abcdef"
SEED = "5eed" * 16
SECRET, MOVED = "a1" * 32, "b2" * 32
AWARE = datetime(2026, 12, 1, 8, 30, 15, 123456, tzinfo=timezone(timedelta(hours=1)))
NAIVE = datetime(2026, 12, 1, 7, 0, 0, 7)


def _seat(seat: int, **columns: Any) -> SeatRow:
    values: dict[str, Any] = {
        "game_id": "g1",
        "seat": seat,
        "name": f"P{seat}",
        "computer": False,
        "secret_hash": SECRET,
        "final_total": None,
        "hints": True,
        "used_hints": False,
        "client_seed": None,
        "stand_in": False,
        "rematch": None,
        "moved_hash": None,
        "person_id": None,
        "pentas": None,
    }
    return SeatRow(**{**values, **columns})


def _snapshot(rows: int = 2) -> Snapshot:
    record = GameRow(
        id="g1",
        status="playing",
        version=8,
        turn_seconds=30,
        rematch_id=None,
        server_seed=SEED,
        dice_scheme=None,
        closed_reason=None,
        previous_id=None,
        computer_pace=None,
        public=False,
        started_at=NAIVE,
        finished_at=None,
        turn_started_at=AWARE,
        due_at=AWARE + timedelta(seconds=30),
        created_at=NAIVE,
        updated_at=AWARE,
        players=(_seat(0, client_seed="c" * 16), _seat(1, moved_hash=MOVED, computer=True)),
        language="he",
    )
    logged = (("hold", {"held": [0, 2]}, None), ("roll", {"dice": [3, 3, 3, 1, 2]}, None))
    return Snapshot(record, Game.new(2), 20, 9, appended=Appended(7, (logged * rows)[:rows]))


def _body(text: str) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(text.split(" ", 3)[3])
    return body


def _text(body: dict[str, Any]) -> str:
    return f"change {ORIGIN} g1 {json.dumps(body)}"


def test_a_change_reads_back_exactly_with_its_times_naive_or_aware() -> None:
    snapshot = _snapshot()
    text = messages.change_message(ORIGIN, snapshot)
    assert text is not None
    message = messages.parse(text)
    assert isinstance(message, messages.ChangeMessage)
    assert (message.origin, message.game_id, message.version) == (ORIGIN, "g1", 8)
    assert message.appended == snapshot.appended
    record = snapshot.record
    assert message.game == {
        name: getattr(record, name)
        for name in (
            "id",
            "status",
            "version",
            "turn_seconds",
            "rematch_id",
            "dice_scheme",
            "closed_reason",
            "previous_id",
            "computer_pace",
            "public",
            "started_at",
            "finished_at",
            "turn_started_at",
            "due_at",
            "created_at",
            "updated_at",
            "language",
        )
    }
    assert message.game["started_at"].tzinfo is None  # naive stays naive
    assert message.game["updated_at"].utcoffset() == timedelta(hours=1)
    assert [seat["client_seed"] for seat in message.seats] == ["c" * 16, None]
    assert [seat["computer"] for seat in message.seats] == [False, True]
    assert all("secret_hash" not in seat and "moved_hash" not in seat for seat in message.seats)


def test_a_change_message_tells_no_secret() -> None:
    text = messages.change_message(ORIGIN, _snapshot())
    assert text is not None
    for secret in (SEED, SECRET, MOVED):
        assert secret not in text
    for column in ("server_seed", "secret_hash", "moved_hash"):
        assert column not in text


def test_only_a_write_of_a_handful_of_entries_is_told_as_a_change() -> None:
    assert messages.change_message(ORIGIN, replace(_snapshot(), appended=None)) is None
    assert messages.change_message(ORIGIN, _snapshot(messages.MAX_ROWS + 1)) is None
    assert messages.change_message(ORIGIN, _snapshot(messages.MAX_ROWS)) is not None


def _malformed() -> list[tuple[str, str]]:
    text = messages.change_message(ORIGIN, _snapshot())
    assert text is not None
    body = _body(text)

    def edited(**changes: Any) -> str:
        return _text({**body, **changes})

    game, seat = body["game"], body["seats"][0]
    return [
        ("not-json", f"change {ORIGIN} g1 {{"),
        ("a-list", f"change {ORIGIN} g1 []"),
        ("no-body", f"change {ORIGIN} g1"),
        ("missing-key", _text({k: v for k, v in body.items() if k != "rows"})),
        ("extra-key", edited(secret=1)),
        ("version-text", edited(version="8")),
        ("version-bool", edited(version=True)),
        ("base-not-behind", edited(base=8)),
        ("other-game", _text(body).replace(" g1 ", " g2 ", 1)),
        ("row-other-version", edited(game={**game, "version": 9})),
        ("unknown-status", edited(game={**game, "status": "paused"})),
        ("server-seed", edited(game={**game, "server_seed": SEED})),
        ("seat-secret", edited(seats=[{**seat, "secret_hash": SECRET}])),
        ("missing-column", edited(game={k: v for k, v in game.items() if k != "due_at"})),
        ("int-as-bool", edited(seats=[{**seat, "computer": 0}])),
        ("null-name", edited(seats=[{**seat, "name": None}])),
        ("bad-time", edited(game={**game, "due_at": "soon"})),
        ("time-a-number", edited(game={**game, "due_at": 5})),
        ("no-seats", edited(seats=[])),
        ("too-many-seats", edited(seats=[seat] * (messages.MAX_SEATS + 1))),
        ("too-many-rows", edited(rows=[["roll", {"dice": [1] * 5}, None]] * 33)),
        ("row-pair", edited(rows=[["roll", {}]])),
        ("kind-unknown", edited(rows=[["undo", {}, None]])),
        ("kind-a-list", edited(rows=[[["roll"], {}, None]])),
        ("payload-a-list", edited(rows=[["roll", [], None]])),
        ("reason-unknown", edited(rows=[["roll", {}, "magic"]])),
        ("reason-an-object", edited(rows=[["roll", {}, {"x": 1}]])),
        ("nested-too-deep", f"change {ORIGIN} g1 " + "[" * 20_000 + "]" * 20_000),
        ("too-long", edited(rows=[["roll", {"dice": [1] * 5, "pad": "x" * 40_000}, None]])),
    ]


@pytest.mark.parametrize(("why", "text"), _malformed(), ids=[why for why, _ in _malformed()])
def test_a_malformed_change_is_refused(why: str, text: str) -> None:
    with pytest.raises(messages.MalformedMessageError):
        messages.parse(text)


def _bus(*, raises: bool) -> RedisBus:
    def following(message: messages.ChangeMessage) -> None:
        """None: not kept at the version written on; or an error, as a cache raises one."""
        if raises:
            raise KeyError("seat")

    return RedisBus(
        "redis://127.0.0.1:1/0",  # never connected: _receive is called directly
        "penta-test",
        Broker(),
        read_versions=lambda _ids: {},
        follow=following,
    )


@pytest.mark.parametrize("raises", [False, True], ids=["not-kept", "cannot-follow"])
def test_a_change_not_followed_is_told_as_its_version(raises: bool) -> None:
    bus = _bus(raises=raises)
    published: list[tuple[str, int, object]] = []
    bus.broker.publish = lambda *change: published.append(change)  # type: ignore[method-assign]
    text = messages.change_message("fedcba9876543210", _snapshot())
    assert text is not None

    bus._receive(text.encode())
    bus._receive(_text({"version": 9}).encode())  # malformed: ignored, never raised

    assert published == [("g1", 8, None)]
    assert {key: bus.counts[key] for key in ("received", "followed", "unfollowed")} == {
        "received": 1,
        "followed": 0,
        "unfollowed": 1,
    }
