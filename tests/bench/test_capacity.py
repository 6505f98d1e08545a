"""The capacity bench's own logic: how it reads a live stream and how it judges a step.

The bench itself is not run here (it takes minutes and both cores); these check, without a
server, the parts whose mistakes would silently print wrong figures."""

from __future__ import annotations

import asyncio

from bench.capacity import Step, capacity, steps_up_to
from bench.seats import Seat
from tests.hardening.conftest import run_async


def _chunk(text: str) -> bytes:
    data = text.encode()
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def test_a_seat_notes_game_changes_only_and_a_skipped_version_counts_at_the_next() -> None:
    async def read() -> Seat:
        seat = Seat(0, "g", "token", "page")
        reader = asyncio.StreamReader()
        reader.feed_data(_chunk("event: update\nid: 7\ndata: <div>\n\n"))
        reader.feed_data(_chunk("event: table\nid: 8\ndata: presence\n\n"))
        # one event split over two chunks, then the end of the stream
        reader.feed_data(_chunk("event: update\nid: 9\n"))
        reader.feed_data(_chunk("data: <div>\n\n"))
        reader.feed_data(b"0\r\n\r\n")
        reader.feed_eof()
        await seat._read(reader)
        return seat

    seat = run_async(read())
    assert sorted(seat.arrivals) == [7, 9]
    assert seat.newest == 9
    assert seat.arrival(8) == seat.arrivals[9]
    assert seat.arrival(10) is None


def test_a_step_passes_only_under_both_targets_with_nothing_missed() -> None:
    fast = [0.010] * 100
    assert Step(5, 1.0, actions=fast, events=fast).passed
    assert not Step(5, 1.0, actions=[0.010] * 98 + [0.060] * 2, events=fast).passed
    assert not Step(5, 1.0, actions=fast, events=[0.010] * 98 + [0.120] * 2).passed
    assert not Step(5, 1.0, actions=fast, events=fast, missed=1).passed
    assert not Step(5, 1.0, actions=fast, events=fast, errors={503: 1}).passed
    assert not Step(5, 1.0).passed  # nothing measured is not a pass


def test_capacity_is_the_last_step_passed_before_the_first_failure() -> None:
    fast, slow = [0.010] * 10, [0.500] * 10
    ok = [Step(n, 1.0, actions=fast, events=fast) for n in (5, 10)]
    over = Step(20, 1.0, actions=slow, events=fast)
    assert capacity([*ok, over]) == "10 games"
    assert capacity([over]) == "< 20 games"
    assert capacity(ok).startswith("≥ 10 games")
    assert capacity([ok[0], over, Step(40, 1.0, actions=fast, events=fast)]) == "5 games"
    assert steps_up_to([5, 10, 20, 40], 30) == [5, 10, 20, 30]
    assert steps_up_to([5, 10, 20], 1) == [1]
