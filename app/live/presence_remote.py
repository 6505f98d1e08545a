"""What the other workers said of who has a game open: their streams, per origin, expiring.

Each worker announces over the bus, for every (game, seat) it holds streams for, how many it
holds: when that number changes and again every heartbeat. This keeps the last word of each
worker for each (game, seat) with the moment it was heard (on this worker's own clock, so
no two clocks are compared). A word not repeated for ``expire_seconds`` (about three
heartbeats) no longer counts: a worker that crashed, or a Redis that went away, cannot keep a
seat present forever; each worker then judges from its own streams and what it still knows.
Not thread-safe on its own: :class:`app.live.presence.Presence` holds it under its lock.
"""

from __future__ import annotations

from collections import OrderedDict

MAX_HEARD = 20_000
"""(origin, game, seat) entries kept; beyond, the least recently heard is forgotten (which
only makes that seat count as away sooner than it may be)."""

Key = tuple[str, str, int | None]
"""(origin, game_id, seat); seat None: the spectators."""


class RemotePresence:
    """The other workers' open streams, by origin, game and seat (None: spectators)."""

    def __init__(self, expire_seconds: float, max_heard: int = MAX_HEARD) -> None:
        self.expire_seconds = expire_seconds
        self.max_heard = max_heard
        self._heard: OrderedDict[Key, tuple[int, float]] = OrderedDict()
        """The streams each (origin, game, seat) has and when that was last heard, the
        least recently heard first."""
        self._origins: dict[tuple[str, int | None], set[str]] = {}
        """The origins that have each (game, seat): an index, so a look-up is not a scan."""

    def heard(
        self, origin: str, game_id: str, seat: int | None, streams: int, now: float
    ) -> tuple[bool, list[tuple[str, int | None, float]]]:
        """Keep what ``origin`` said. Return whether that is news (not a heartbeat repeating
        what was known), and the (game, seat, last heard) entries forgotten."""
        key = (origin, game_id, seat)
        forgotten: list[tuple[str, int | None, float]] = []
        if streams <= 0:
            # Its last stream there closed just now, so it was held until now, even if the
            # word that it opened was lost (it is timed from now, never from before).
            if key in self._heard:
                self._forget(key)
            return True, [(game_id, seat, now)]
        before = self._heard.pop(key, None)
        self._heard[key] = (streams, now)
        self._origins.setdefault((game_id, seat), set()).add(origin)
        while len(self._heard) > self.max_heard:
            oldest = next(iter(self._heard))
            forgotten.append((oldest[1], oldest[2], self._forget(oldest)))
        return before is None or before[0] != streams, forgotten

    def last_heard(self, game_id: str, seat: int | None) -> float | None:
        """When a worker last said it has ``seat`` open, if one still says so (fresh or not:
        the caller compares it with the expiry)."""
        origins = self._origins.get((game_id, seat), ())
        return max((self._heard[(origin, game_id, seat)][1] for origin in origins), default=None)

    def spectator_words(self, game_id: str) -> list[tuple[float, int]]:
        """When each origin that has spectators of the game said so, and how many (fresh or
        not: the caller compares with the expiry)."""
        words = (
            self._heard[(origin, game_id, None)]
            for origin in self._origins.get((game_id, None), ())
        )
        return [(at, streams) for streams, at in words]

    def expire(self, now: float) -> list[tuple[str, int | None, float]]:
        """Forget the words older than the expiry; return the (game, seat, last heard)."""
        forgotten = []
        while self._heard:
            oldest = next(iter(self._heard))  # the least recently heard: the first to expire
            if now - self._heard[oldest][1] < self.expire_seconds:
                break
            forgotten.append((oldest[1], oldest[2], self._forget(oldest)))
        return forgotten

    def _forget(self, key: Key) -> float:
        """Drop one entry and its index; return when it was last heard."""
        origin, game_id, seat = key
        _, at = self._heard.pop(key)
        origins = self._origins[(game_id, seat)]
        origins.discard(origin)
        if not origins:
            del self._origins[(game_id, seat)]
        return at

    def __len__(self) -> int:
        return len(self._heard)
