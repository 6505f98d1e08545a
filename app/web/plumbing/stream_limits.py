"""Live-update streams per client address and in all: each holds a connection and a task
for as long as the page is open, so a client could open them until the server had none left.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from app.service.errors import ServiceError, TooManyError


class StreamsFullError(ServiceError):
    """The server holds as many live streams as it may: 503, try again later."""

    status = 503
    retry_after = 5


class StreamSlots:
    """Counts open streams; ``0`` turns a cap off."""

    def __init__(self, total: int, per_address: int) -> None:
        self.total = total
        self.per_address = per_address
        self._open: dict[str, int] = {}
        self._count = 0
        self._lock = threading.Lock()

    def take(self, address: str) -> Callable[[], None]:
        """A slot for a stream from ``address`` (its release, which may be called more than
        once), or a refusal: 429 beyond the address's streams, 503 beyond the server's."""
        with self._lock:
            if self.total and self._count >= self.total:
                raise StreamsFullError("server_full")
            if self.per_address and self._open.get(address, 0) >= self.per_address:
                raise TooManyError("too_many_streams", retry_after=5)
            self._count += 1
            self._open[address] = self._open.get(address, 0) + 1
        released = False

        def release() -> None:
            nonlocal released
            with self._lock:
                if released:
                    return
                released = True
                self._count -= 1
                left = self._open[address] - 1
                if left:
                    self._open[address] = left
                else:
                    del self._open[address]

        return release

    def count(self) -> int:
        """How many streams are open."""
        with self._lock:
            return self._count
