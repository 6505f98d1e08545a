"""The newest view of each live game and its renderings, kept once for every open stream;
and the server-sent event format that the streams write."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable

from anyio import to_thread

from app.service.games import GameService
from app.service.views import GameView

_CACHE_SIZE = 256


class LiveViews:
    """The newest view of each live game and its renderings, loaded once for all readers."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self._views: dict[str, GameView] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._renderings: OrderedDict[tuple[str, int, str, int | None], str] = OrderedDict()
        self._rendering: dict[tuple[str, int, str, int | None], asyncio.Lock] = {}

    async def view(
        self, game_id: str, at_least: int, published: GameView | None = None
    ) -> GameView:
        """The game at ``at_least`` or newer: ``published`` if it is (the view its change
        committed, handed over by the broker), else the newest kept, else read back."""
        cached = self._views.get(game_id)
        if published is not None and published.version >= at_least:
            if cached is None or cached.version < published.version:
                self._views[game_id] = published
            return self._views[game_id]
        if cached is not None and cached.version >= at_least:
            return cached
        lock = self._locks.setdefault(game_id, asyncio.Lock())
        async with lock:
            cached = self._views.get(game_id)
            if cached is None or cached.version < at_least:
                cached = await to_thread.run_sync(self.service.get, game_id)
                self._views[game_id] = cached
            return cached

    async def rendering(
        self, view: GameView, kind: str, seat: int | None, make: Callable[[], str]
    ) -> str:
        """The event ``make`` renders of ``view`` for ``kind`` (the page and language, or
        the API) and ``seat``: made once, however many readers wake for it at once."""
        key = (view.id, view.version, kind, seat)
        event = self._renderings.get(key)
        if event is not None:
            return event
        # The first reader renders; the others wait for it, then find the event kept.
        async with self._rendering.setdefault(key, asyncio.Lock()):
            event = self._renderings.get(key)
            if event is None:
                event = await to_thread.run_sync(make)
                self._renderings[key] = event
                while len(self._renderings) > _CACHE_SIZE:
                    self._renderings.popitem(last=False)
        self._rendering.pop(key, None)
        return event

    def forget(self, game_id: str) -> None:
        """Drop what is kept of a game nobody watches any more."""
        self._views.pop(game_id, None)
        self._locks.pop(game_id, None)


def sse(event: str, version: int, data: str) -> str:
    """One server-sent event; every line of ``data`` gets its own ``data:`` field."""
    lines = "".join(f"data: {line}\n" for line in data.splitlines() or [""])
    return f"event: {event}\nid: {version}\n{lines}\n"
