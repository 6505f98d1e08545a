"""What a game page's live stream sends besides the game: who is at the table, and reactions.

The table (presence, stand-ins, whose turn it is) is sent whenever what it shows changes,
rendered once per version, language and presence for every seat and spectator, and kept only
for the latest presence (what is one seat's own is marked with the seat, and the page keeps
what is its own, as for the board); changes of presence alone at most once a second per
reader. Each reaction is rendered once for all.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

from fastapi import Request

from app import i18n
from app.live.broker import Broker
from app.live.presence import TABLE_CHANGED, Presence, Table
from app.service.reactions import Reaction
from app.service.views import GameView
from app.web.live import LiveViews, RenderingKey
from app.web.templating import render

_MAX_GAMES = 10_000
MIN_PRESENCE_INTERVAL = 1.0
"""Seconds between two table events that only presence changed: a crowd of spectators
coming and going must not send every reader an event per arrival."""


class PresenceAnnouncer:
    """Tells a game's readers that its presence changed: at once, then at most once an
    interval, so that a crowd of spectators arriving wakes every reader once a second rather
    than once per arrival (figures: docs/performance.md)."""

    def __init__(self, broker: Broker, interval: float = MIN_PRESENCE_INTERVAL) -> None:
        self.broker = broker
        self.interval = interval
        self._last: dict[str, float] = {}
        self._pending: set[str] = set()

    def __call__(self, game_id: str) -> None:
        try:
            loop = asyncio.get_running_loop()  # the streams enter and leave on the loop
        except RuntimeError:
            self.broker.signal(game_id, TABLE_CHANGED)
            return
        if game_id in self._pending:
            return
        wait = self._last.get(game_id, -self.interval) + self.interval - loop.time()
        if wait <= 0:
            self._announce(game_id, loop.time())
        else:
            self._pending.add(game_id)
            loop.call_later(wait, lambda: self._announce(game_id, loop.time()))

    def _announce(self, game_id: str, now: float) -> None:
        self._pending.discard(game_id)
        self._last[game_id] = now
        if len(self._last) > _MAX_GAMES:  # those announced over an interval ago are done with
            self._last = {
                game: last for game, last in self._last.items() if now - last < self.interval
            }
        self.broker.signal(game_id, TABLE_CHANGED)


class TableEvents:
    """The table and reaction events of one page's stream."""

    def __init__(self, request: Request, game_id: str, language: str) -> None:
        self.game_id = game_id
        self.language = language
        self.templates = request.app.state.templates
        self.presence: Presence = request.app.state.presence
        self.live: LiveViews = request.app.state.live_views
        self._sent: tuple[object, Table] | None = None
        self._sent_at = -MIN_PRESENCE_INTERVAL
        self._held = False

    def wake_in(self, view: GameView) -> float:
        """Seconds until the table changes by itself (an absent seat has been away long
        enough to be handed over) or a held presence change is due: the stream wakes then."""
        change_in = self.presence.next_change_in(self.game_id, len(view.players))
        waits = [float("inf") if change_in is None else change_in + 0.05]
        if self._held:
            waits.append(self._sent_at + MIN_PRESENCE_INTERVAL - time.monotonic())
        return max(min(waits), 0.0)

    async def events(self, view: GameView, signals: list[object]) -> AsyncIterator[str]:
        """The table if it changed since last sent, then each reaction among ``signals``."""
        table = self.presence.table(self.game_id, len(view.players))
        # What the fragment shows of the game: not every version changes it (a roll does not).
        shown = (view.status, view.turn, view.scored_turns, [p.stand_in for p in view.players])
        if self._sent is None or self._sent != (shown, table):
            now = time.monotonic()
            only_presence = self._sent is not None and self._sent[0] == shown
            if only_presence and now - self._sent_at < MIN_PRESENCE_INTERVAL:
                self._held = True  # sent once the interval is over (see wake_in)
            else:
                self._sent, self._sent_at, self._held = (shown, table), now, False
                yield await self._table(view, table)
        for signal in signals:
            if isinstance(signal, Reaction):
                yield await self._reaction(view, signal)

    async def _table(self, view: GameView, table: Table) -> str:

        def make() -> str:
            with i18n.language(self.language) as current:
                return render(
                    self.templates,
                    "fragments/presence.html",
                    game=view,
                    me=None,
                    shared=True,
                    table=table,
                    lang=current,
                    oob=True,
                    csrf_token="",
                )

        key = RenderingKey(view.id, view.version, f"table:{self.language}")
        return self.live.event(key, make, "table", shows=(table,))

    async def _reaction(self, view: GameView, reaction: Reaction) -> str:
        def make() -> str:
            # In the page's language: the icon's name is there for screen readers.
            with i18n.language(self.language):
                return render(self.templates, "fragments/reaction.html", reaction=reaction)

        key = RenderingKey(view.id, view.version, f"reaction:{self.language}:{reaction.number}")
        return self.live.event(key, make, "reaction")
