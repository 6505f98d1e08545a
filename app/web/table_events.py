"""What a game page's live stream sends besides the game: who is at the table, and reactions.

The table (presence, stand-ins, whose turn it is for this reader) is sent whenever it or the
game's version changes, rendered once per language, seat and content however many watch;
each reaction is rendered once for all.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from fastapi import Request

from app import i18n
from app.service.presence import Presence, Table
from app.service.reactions import Reaction
from app.service.views import GameView
from app.web.templating import render

if TYPE_CHECKING:
    from app.web.events import LiveViews


class TableEvents:
    """The table and reaction events of one page's stream."""

    def __init__(self, request: Request, game_id: str, seat: int | None, language: str) -> None:
        self.game_id = game_id
        self.seat = seat
        self.language = language
        self.templates = request.app.state.templates
        self.presence: Presence = request.app.state.presence
        self.live: LiveViews = request.app.state.live_views
        self.absent_seconds = self.presence.absent_seconds
        self._sent: tuple[int, Table] | None = None

    def wake_in(self, view: GameView) -> float:
        """Seconds until the table changes by itself (an absent seat has been away long
        enough to be handed over): the stream wakes then to send it."""
        change_in = self.presence.next_change_in(self.game_id, len(view.players))
        return float("inf") if change_in is None else change_in + 0.05

    async def events(self, view: GameView, signals: list[object]) -> AsyncIterator[str]:
        """The table if it changed since last sent, then each reaction among ``signals``."""
        from app.web.events import sse  # here: app.web.events imports this module

        table = self.presence.table(self.game_id, len(view.players))
        if self._sent != (view.version, table):
            self._sent = (view.version, table)

            def make_table() -> str:
                with i18n.language(self.language) as current:
                    html = render(
                        self.templates,
                        "fragments/presence.html",
                        game=view,
                        me=self.seat,
                        table=table,
                        lang=current,
                        oob=True,
                        csrf_token="",
                    )
                return sse("table", view.version, html)

            kind = f"table:{self.language}:{table}"
            yield await self.live.rendering(view, kind, self.seat, make_table)
        for signal in signals:
            if isinstance(signal, Reaction):
                yield await self._reaction(view, signal)

    async def _reaction(self, view: GameView, reaction: Reaction) -> str:
        from app.web.events import sse

        def make() -> str:
            html = render(self.templates, "fragments/reaction.html", reaction=reaction)
            return sse("reaction", view.version, html)

        return await self.live.rendering(view, f"reaction:{reaction.number}", None, make)
