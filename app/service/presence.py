"""Who has a game open, counted from the live streams: a stream carries its reader's seat.

A seat is present while at least one of its streams is open, so a closed tab is noticed as
soon as its connection ends. A seat's absence is timed from when its last stream closed (or
from the start of the process, which holds no stream of before it), because the others may
hand a seat to the computer only once its player has been away ``absent_seconds``.

Everything here is bounded: open streams are counted per game and forgotten with the last
one; the moments seats were left are kept for at most ``MAX_REMEMBERED`` seats.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

MAX_REMEMBERED = 20_000
"""Seats whose leaving time is kept; beyond, the oldest is forgotten (then timed from the
start of the process, which only makes it count as away sooner than it was)."""

TABLE_CHANGED = "table"
"""The live-stream signal that a game's presence changed."""

PresenceListener = Callable[[str], None]
"""Told the id of a game whose presence changed."""


@dataclass(frozen=True)
class Table:
    """Who is at a game's table now: one entry per seat, and the spectators' count."""

    present: tuple[bool, ...]
    away_long: tuple[bool, ...]
    """Per seat: away for at least the absence that lets the others hand it to the computer."""
    spectators: int


class Presence:
    """The open live streams of every game, by seat (None: a spectator)."""

    def __init__(
        self, absent_seconds: float, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.absent_seconds = absent_seconds
        self.clock = clock
        self.listeners: list[PresenceListener] = []
        self._started = clock()
        self._open: dict[str, Counter[int | None]] = {}
        self._left: OrderedDict[tuple[str, int], float] = OrderedDict()
        self._lock = threading.Lock()

    def enter(self, game_id: str, seat: int | None) -> None:
        """A stream of ``seat`` (None: a spectator's) opened on the game."""
        with self._lock:
            self._open.setdefault(game_id, Counter())[seat] += 1
            if seat is not None:
                self._left.pop((game_id, seat), None)
        self._announce(game_id)

    def leave(self, game_id: str, seat: int | None) -> None:
        """A stream that :meth:`enter` counted has closed."""
        with self._lock:
            streams = self._open.get(game_id)
            if streams is None or streams[seat] <= 0:
                return
            streams[seat] -= 1
            if streams[seat] == 0:
                del streams[seat]
                if seat is not None:
                    self._left[(game_id, seat)] = self.clock()
                    while len(self._left) > MAX_REMEMBERED:
                        self._left.popitem(last=False)
            if not streams:
                del self._open[game_id]
        self._announce(game_id)

    def absent_for(self, game_id: str, seat: int) -> float | None:
        """Seconds the seat has had no stream open, or None while it has one."""
        with self._lock:
            if self._open.get(game_id, Counter())[seat] > 0:
                return None
            since = self._left.get((game_id, seat), self._started)
        return max(self.clock() - since, 0.0)

    def table(self, game_id: str, seats: int) -> Table:
        """The game's table for its ``seats`` seats."""
        absences = [self.absent_for(game_id, seat) for seat in range(seats)]
        with self._lock:
            spectators = self._open.get(game_id, Counter())[None]
        return Table(
            present=tuple(absent is None for absent in absences),
            away_long=tuple(
                absent is not None and absent >= self.absent_seconds for absent in absences
            ),
            spectators=spectators,
        )

    def next_change_in(self, game_id: str, seats: int) -> float | None:
        """Seconds until an absent seat has been away long enough, if one has not yet."""
        waits = [
            self.absent_seconds - absent
            for seat in range(seats)
            if (absent := self.absent_for(game_id, seat)) is not None
            and absent < self.absent_seconds
        ]
        return min(waits, default=None)

    def streams(self) -> int:
        """Open streams counted, in all games (a bound to watch)."""
        with self._lock:
            return sum(sum(streams.values()) for streams in self._open.values())

    def remembered(self) -> int:
        """Seats whose leaving time is kept."""
        with self._lock:
            return len(self._left)

    def _announce(self, game_id: str) -> None:
        for listener in self.listeners:
            listener(game_id)
