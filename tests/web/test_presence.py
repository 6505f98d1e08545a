"""Presence bookkeeping on its own: counted per seat, timed, and bounded."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def worked_out_afresh(presence: Presence, game_id: str, seats: int) -> tuple[Table, float | None]:
    """The table and the next change as every stream worked them out before they were kept:
    from :meth:`Presence.absent_for`, seat by seat, and the other workers' fresh words."""
    now = presence.clock()
    absences = [presence.absent_for(game_id, seat) for seat in range(seats)]
    spectators = presence._open.get(game_id, {}).get(None, 0)
    spectators += sum(
        count
        for at, count in presence.remote.spectator_words(game_id)
        if now - at < presence.remote.expire_seconds
    )
    table = Table(
        present=tuple(absent is None for absent in absences),
        away_long=tuple(a is not None and a >= presence.absent_seconds for a in absences),
        spectators=spectators,
    )
    waits = [
        presence.absent_seconds - absent
        for absent in absences
        if absent is not None and absent < presence.absent_seconds
    ]
    return table, min(waits, default=None)


SEATS = 3
Step = tuple[str, int | None, float]
steps = st.lists(
    st.tuples(
        st.sampled_from(["enter", "leave", "heard", "expire", "wait", "look"]),
        st.sampled_from([0, 1, 2, None]),
        st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 6.0, 9.0]),
    ),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(steps)
def test_the_table_kept_is_the_table_worked_out_afresh_at_every_moment(
    sequence: list[Step],
) -> None:
    """Whatever streams open and close here and on other workers, whatever expires and
    however time passes, the kept table and the next change are those worked out afresh."""
    clock = Clock()
    presence = Presence(4, clock=clock, remote_expire_seconds=6)
    for action, seat, amount in sequence:
        if action == "enter":
            presence.enter("g", seat)
        elif action == "leave":
            presence.leave("g", seat)
        elif action == "heard":  # another worker: how many streams it has (0: none now)
            presence.heard(
                "other",
                "g",
                seat,
                int(amount) % 3,
            )
        elif action == "expire":
            presence.expire()
        elif action == "wait":
            clock.now += amount
        table, change_in = worked_out_afresh(presence, "g", SEATS)
        assert presence.table("g", SEATS) == table
        assert presence.next_change_in("g", SEATS) == pytest.approx(change_in)


def test_a_crowd_of_readers_works_the_table_out_once_per_change() -> None:
    """Every reader of every version asks (each page's stream, at each wake): the table is
    worked out again only when the streams change or an absence turns long."""
    clock = Clock()
    presence = Presence(60, clock=clock)
    presence.enter("g", 0)
    presence.enter("g", 1)
    for _ in range(50):
        presence.enter("g", None)  # fifty spectators
    before = presence.workings
    for _version in range(10):
        for _reader in range(52):
            presence.table("g", 4)
            presence.next_change_in("g", 4)
        clock.now += 1
    assert presence.workings == before + 1
    presence.leave("g", None)  # a spectator leaves: worked out again, once
    for _reader in range(51):
        assert presence.table("g", 4).spectators == 49
    assert presence.workings == before + 2
    clock.now += 60  # seats 2 and 3, never there, are away long now: once more
    for _reader in range(51):
        assert presence.table("g", 4).away_long == (False, False, True, True)
    assert presence.workings == before + 3


def test_the_tables_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A table is kept per game asked about, at most ``MAX_TABLES``: past it, all are dropped
    (and worked out again when asked), so a worker with games coming and going keeps few."""
    monkeypatch.setattr(presence_module, "MAX_TABLES", 100)
    clock = Clock()
    presence = Presence(60, clock=clock)
    for number in range(1_000):
        presence.enter(f"g{number}", 0)
        assert presence.table(f"g{number}", 2).present == (True, False)
        assert len(presence._worked) <= 100
    assert presence.workings == 1_000
    assert presence.table("g999", 2).present == (True, False)  # kept: the newest
    assert presence.workings == 1_000
