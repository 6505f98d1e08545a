"""Presence bookkeeping on its own: counted per seat, timed, and bounded."""

from __future__ import annotations

import asyncio

import pytest

from app.live import presence as presence_module
from app.live.broker import Broker
from app.live.presence import TABLE_CHANGED, Presence, Table
from app.web.table_events import PresenceAnnouncer
from tests.hardening.conftest import run_async


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_seat_is_present_while_any_of_its_streams_is_open() -> None:
    clock = Clock()
    presence = Presence(60, clock=clock)
    changed: list[str] = []
    presence.listeners.append(changed.append)
    presence.enter("g", 0)
    presence.enter("g", 0)  # a second tab
    presence.enter("g", None)
    assert presence.table("g", 2) == Table((True, False), (False, False), 1)
    presence.leave("g", 0)
    assert presence.table("g", 2).present == (True, False)
    clock.now += 5
    presence.leave("g", 0)
    clock.now += 59
    assert presence.absent_for("g", 0) == 59
    assert presence.table("g", 2).away_long == (False, True)  # seat 1: never there
    assert presence.next_change_in("g", 2) == 1
    clock.now += 1
    assert presence.table("g", 2) == Table((False, False), (True, True), 1)
    assert presence.next_change_in("g", 2) is None
    assert changed == ["g"] * 5


def test_seats_never_seen_are_timed_from_the_start_of_the_process() -> None:
    clock = Clock()
    presence = Presence(60, clock=clock)
    clock.now += 30
    assert presence.absent_for("other", 3) == 30
    assert presence.next_change_in("other", 1) == 30


def test_the_bookkeeping_forgets_what_it_no_longer_needs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(presence_module, "MAX_REMEMBERED", 100)
    presence = Presence(60, clock=Clock())
    for number in range(1_000):
        game = f"game{number}"
        presence.enter(game, 0)
        presence.enter(game, None)
        presence.leave(game, None)
        presence.leave(game, 0)
        presence.leave(game, 0)  # one leave too many is ignored, never negative
    assert presence.streams() == 0
    assert presence._open == {}
    assert presence.remembered() == 100


class RecordingBroker(Broker):
    """The real broker, noting each signal it is asked to send."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[tuple[str, object]] = []

    def signal(self, game_id: str, signal: object) -> None:
        self.sent.append((game_id, signal))
        super().signal(game_id, signal)


def test_a_crowd_arriving_is_announced_once_an_interval() -> None:
    async def crowd() -> list[tuple[str, object]]:
        broker = RecordingBroker()
        announce = PresenceAnnouncer(broker, interval=0.2)
        for _ in range(50):
            announce("g")
        announce("h")
        assert broker.sent == [("g", TABLE_CHANGED), ("h", TABLE_CHANGED)]
        await asyncio.sleep(0.3)
        return broker.sent

    # The 49 later arrivals at "g" make one announcement, once the interval is over.
    assert run_async(crowd()) == [
        ("g", TABLE_CHANGED),
        ("h", TABLE_CHANGED),
        ("g", TABLE_CHANGED),
    ]
