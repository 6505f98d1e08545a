"""Who has a game open, counted from the live streams: a stream carries its reader's seat.

A seat is present while at least one of its streams is open, so a closed tab is noticed as
soon as its connection ends. A seat's absence is timed from when its last stream closed (or
from the start of the process, which holds no stream of before it), because the others may
hand a seat to the computer only once its player has been away ``absent_seconds``.

With several workers (the Redis bus), the bus tells this worker what the others hold
(:class:`RemotePresence`): a seat is present if any worker has a stream of it, and away
only once no worker has had one for that long: a seat's leaving time is the latest of its
last local stream closing and of the last word of another worker that it had one. While the
bus is down, and for one expiry after it is back (until every worker has said again what it
holds), the others' streams are unknown: :meth:`Presence.others_known` says so, and no seat
is handed to the computer on a guess.

Everything here is bounded: open streams are counted per game and forgotten with the last
one; the moments seats were left are kept for at most ``MAX_REMEMBERED`` seats; what the
other workers said, for at most ``presence_remote.MAX_HEARD`` and until it expires.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from app.live.presence_remote import RemotePresence

MAX_REMEMBERED = 20_000
"""Seats whose leaving time is kept; beyond, the oldest is forgotten (then timed from the
start of the process, which only makes it count as away sooner than it was)."""

MAX_TABLES = 10_000
"""Games whose table is kept worked out (:meth:`Presence.table`); beyond, all are dropped."""

TABLE_CHANGED = "table"
"""The live-stream signal that a game's presence changed."""

PresenceListener = Callable[[str], None]
"""Told the id of a game whose presence changed."""
StreamsListener = Callable[[str, int | None, int], None]
"""Told ``(game_id, seat, streams)``: this worker's streams of that seat now (the bus)."""
REMOTE_EXPIRE_SECONDS = 6.0
"""How long another worker's word that it has a seat open counts: three of its heartbeats."""


@dataclass(frozen=True)
class Table:
    """Who is at a game's table now: one entry per seat, and the spectators' count."""

    present: tuple[bool, ...]
    away_long: tuple[bool, ...]
    """Per seat: away for at least the absence that lets the others hand it to the computer."""
    spectators: int


@dataclass(frozen=True)
class _Worked:
    """A game's table as worked out at some moment, and until when it stays so unless the
    streams change: the first moment an absent seat turns away long or a word of another
    worker expires."""

    seats: int
    table: Table
    change_at: float | None
    """When the next absent seat will have been away ``absent_seconds`` (None: none will)."""
    until: float


class Presence:
    """The open live streams of every game, by seat (None: a spectator).

    A game's table is worked out once and kept until a stream of it opens or closes, another
    worker's word about it comes or expires, or an absence there grows long enough to count:
    every reader of a version asks for it (each page's stream, at every wake), and a crowd of
    spectators would each have worked it out again."""

    def __init__(
        self,
        absent_seconds: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        remote_expire_seconds: float = REMOTE_EXPIRE_SECONDS,
    ) -> None:
        self.absent_seconds = absent_seconds
        self.clock = clock
        self.listeners: list[PresenceListener] = []
        self.streams_listeners: list[StreamsListener] = []
        self.remote = RemotePresence(remote_expire_seconds)
        self._started = clock()
        self._shared = False
        self._known_from: float | None = 0.0
        """From when the other workers' streams are known (None: the bus is down)."""
        self._open: dict[str, Counter[int | None]] = {}
        self._left: OrderedDict[tuple[str, int], float] = OrderedDict()
        self._worked: dict[str, _Worked] = {}
        self.workings = 0
        """Tables worked out (not taken from :attr:`_worked`): a count the tests guard."""
        self._lock = threading.Lock()

    def share(self) -> None:
        """Other workers hold streams too (the Redis bus): unknown until it is up."""
        with self._lock:
            self._shared, self._known_from = True, None

    def bus_changed(self, up: bool) -> None:
        """The bus went down, or came (back) up: the others' words are known again once
        each has had an expiry to repeat them."""
        with self._lock:
            self._known_from = self.clock() + self.remote.expire_seconds if up else None

    def others_known(self) -> bool:
        """Whether the other workers' streams are known now (always, with no other worker)."""
        with self._lock:
            known_from = self._known_from
        return not self._shared or (known_from is not None and self.clock() >= known_from)

    def enter(self, game_id: str, seat: int | None) -> None:
        """A stream of ``seat`` (None: a spectator's) opened on the game."""
        with self._lock:
            streams = self._open.setdefault(game_id, Counter())
            streams[seat] += 1
            count = streams[seat]
            if seat is not None:
                self._left.pop((game_id, seat), None)
            self._worked.pop(game_id, None)
        self._announce(game_id)
        for listener in self.streams_listeners:
            listener(game_id, seat, count)

    def leave(self, game_id: str, seat: int | None) -> None:
        """A stream that :meth:`enter` counted has closed."""
        with self._lock:
            streams = self._open.get(game_id)
            if streams is None or streams[seat] <= 0:
                return
            streams[seat] -= 1
            count = streams[seat]
            if count == 0:
                del streams[seat]
                if seat is not None:
                    self._remember_left(game_id, seat, self.clock())
            if not streams:
                del self._open[game_id]
            self._worked.pop(game_id, None)
        self._announce(game_id)
        for listener in self.streams_listeners:
            listener(game_id, seat, count)

    def local_streams(self) -> list[tuple[str, int | None, int]]:
        """``(game_id, seat, streams)`` of every seat this worker has streams of (heartbeats)."""
        with self._lock:
            return [
                (game_id, seat, count)
                for game_id, streams in self._open.items()
                for seat, count in streams.items()
            ]

    def heard(self, origin: str, game_id: str, seat: int | None, streams: int) -> None:
        """Worker ``origin`` says it has ``streams`` streams of the seat (0: none now)."""
        with self._lock:
            news, forgotten = self.remote.heard(origin, game_id, seat, streams, self.clock())
            self._worked.pop(game_id, None)
            self._forgotten(forgotten)
        if news:
            self._announce(game_id)
        for game in {game for game, _, _ in forgotten} - {game_id}:
            self._announce(game)

    def expire(self) -> None:
        """Forget the other workers' words that were not repeated in time (a worker gone, or
        Redis away); their games' readers are told."""
        with self._lock:
            forgotten = self.remote.expire(self.clock())
            self._forgotten(forgotten)
        for game_id in {game for game, _, _ in forgotten}:
            self._announce(game_id)

    def absent_for(self, game_id: str, seat: int) -> float | None:
        """Seconds no worker has had a stream of the seat open, or None while one has."""
        now = self.clock()
        with self._lock:
            return self._absence(game_id, seat, now)[0]

    def _absence(self, game_id: str, seat: int, now: float) -> tuple[float | None, float | None]:
        """Under the lock: the seat's :meth:`absent_for` at ``now``, and while another
        worker's word holds it, when that word expires (else None)."""
        if self._open.get(game_id, Counter())[seat] > 0:
            return None, None
        since = self._left.get((game_id, seat), self._started)
        heard = self.remote.last_heard(game_id, seat)
        if heard is not None:
            if now - heard < self.remote.expire_seconds:
                return None, heard + self.remote.expire_seconds
            since = max(since, heard)  # expired but not yet swept: away since last heard
        return max(now - since, 0.0), None

    def table(self, game_id: str, seats: int) -> Table:
        """The game's table for its ``seats`` seats."""
        return self._table(game_id, seats, self.clock()).table

    def next_change_in(self, game_id: str, seats: int) -> float | None:
        """Seconds until an absent seat has been away long enough, if one has not yet."""
        now = self.clock()
        change_at = self._table(game_id, seats, now).change_at
        return None if change_at is None else max(change_at - now, 0.0)

    def _table(self, game_id: str, seats: int, now: float) -> _Worked:
        """The game's table at ``now``: the one kept, while it holds, else worked out."""
        with self._lock:
            worked = self._worked.get(game_id)
            if worked is None or worked.seats != seats or now >= worked.until:
                worked = self._work_out(game_id, seats, now)
                if len(self._worked) >= MAX_TABLES:
                    self._worked.clear()
                self._worked[game_id] = worked
            return worked

    def _work_out(self, game_id: str, seats: int, now: float) -> _Worked:
        """Under the lock: the table at ``now``, as :meth:`absent_for` judges each seat, and
        the first moment after ``now`` it would be judged otherwise (the streams unchanged)."""
        self.workings += 1
        expire = self.remote.expire_seconds
        turns: list[float] = []  # moments after now when the table turns
        absences: list[float | None] = []
        change_at: float | None = None
        for seat in range(seats):
            absent, held_until = self._absence(game_id, seat, now)
            absences.append(absent)
            if held_until is not None:  # another worker has it, until its word expires
                turns.append(held_until)
            elif absent is not None and absent < self.absent_seconds:
                long_at = now + (self.absent_seconds - absent)
                turns.append(long_at)
                change_at = long_at if change_at is None else min(change_at, long_at)
        spectators = self._open.get(game_id, Counter())[None]
        for at, count in self.remote.spectator_words(game_id):
            if now - at < expire:
                spectators += count
                turns.append(at + expire)
        table = Table(
            present=tuple(absent is None for absent in absences),
            away_long=tuple(
                absent is not None and absent >= self.absent_seconds for absent in absences
            ),
            spectators=spectators,
        )
        return _Worked(seats, table, change_at, min(turns, default=float("inf")))

    def streams(self) -> int:
        """Open streams counted, in all games (a bound to watch)."""
        with self._lock:
            return sum(sum(streams.values()) for streams in self._open.values())

    def remembered(self) -> int:
        """Seats whose leaving time is kept."""
        with self._lock:
            return len(self._left)

    def _remember_left(self, game_id: str, seat: int, at: float) -> None:
        """Under the lock: the seat was last held at ``at`` (by any worker). (Its game's
        kept table is dropped by the caller; a seat forgotten here drops its own.)"""
        key = (game_id, seat)
        self._left[key] = max(self._left.pop(key, at), at)
        while len(self._left) > MAX_REMEMBERED:
            (forgotten_game, _), _ = self._left.popitem(last=False)
            self._worked.pop(forgotten_game, None)

    def _forgotten(self, forgotten: list[tuple[str, int | None, float]]) -> None:
        """Under the lock: another worker's seats no longer held were held until then."""
        for game_id, seat, at in forgotten:
            self._worked.pop(game_id, None)
            if seat is not None:
                self._remember_left(game_id, seat, at)

    def _announce(self, game_id: str) -> None:
        for listener in self.listeners:
            listener(game_id)
