"""Quick reactions: a fixed set a seated player sends to everyone at the table, live.

They are not game actions: nothing is stored, they go out through the live streams only.
There is no free text, so nothing to moderate; each seat may send a few in a burst, then
one every few seconds (429 beyond).
"""

from __future__ import annotations

import itertools
import math
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from app.service.errors import ConflictError, ForbiddenError, InvalidError, ServiceError
from app.service.games import GameService
from app.service.measured import counted

REACTIONS = ("thumbs_up", "clap", "wow", "laugh", "dice", "gg")
"""Each reaction's stable name; nothing else can be sent. Pages draw each as an icon of their
own (``templates/fragments/reaction_icons.html``), not an emoji a machine may lack a font for."""

BURST = 5
"""Reactions a seat may send at once."""
SECONDS_PER_REACTION = 3.0
"""After a burst, one more each this many seconds."""
MAX_BUCKETS = 10_000
"""Seats whose recent reactions are counted; the least recently active are forgotten."""


@dataclass(frozen=True)
class Reaction:
    """One reaction sent: ``number`` tells two identical ones apart."""

    number: int
    seat: int
    name: str
    kind: str


class TooManyReactionsError(ServiceError):
    """A seat sent reactions faster than the limit: 429, with when to try again."""

    status = 429

    def __init__(self, retry_after: float) -> None:
        self.retry_after = math.ceil(retry_after)
        super().__init__("too_many_reactions")


class Signals(Protocol):
    """Where reactions go: the broker of this process, or the bus to every worker's."""

    def signal(self, game_id: str, signal: object) -> None: ...


class Reactions:
    """Checks who reacts and how often, then hands the reaction to the game's live readers."""

    def __init__(
        self, games: GameService, broker: Signals, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.games = games
        self.broker = broker
        self.clock = clock
        # From a random start: two workers' reactions must not share a number (it keys the
        # rendering of a reaction, and tells two identical ones apart).
        self._numbers = itertools.count(secrets.randbits(48) << 12)
        self._buckets: OrderedDict[tuple[str, int], tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    @counted("reaction")
    def react(self, game_id: str, secret: str | None, kind: str) -> Reaction:
        """Send ``kind`` from the seat of ``secret`` to everyone watching the game."""
        view = self.games.get(game_id)
        if kind not in REACTIONS:
            raise InvalidError("invalid_reaction")
        seat = self.games.seat_of(game_id, secret)
        if seat is None:
            raise ForbiddenError("not_your_seat")
        if view.is_waiting:
            raise ConflictError("not_started")
        self._take(game_id, seat)
        with self._lock:
            number = next(self._numbers)
        reaction = Reaction(number, seat, view.players[seat].name, kind)
        self.broker.signal(game_id, reaction)
        return reaction

    def _take(self, game_id: str, seat: int) -> None:
        """Take one from the seat's bucket, or refuse with the wait until one is back."""
        key = (game_id, seat)
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.pop(key, (float(BURST), now))
            tokens = min(float(BURST), tokens + (now - last) / SECONDS_PER_REACTION)
            self._buckets[key] = (tokens - 1 if tokens >= 1 else tokens, now)
            while len(self._buckets) > MAX_BUCKETS:
                self._buckets.popitem(last=False)
        if tokens < 1:
            raise TooManyReactionsError((1 - tokens) * SECONDS_PER_REACTION)
