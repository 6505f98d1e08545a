"""Live updates as server-sent events: each subscriber gets the fragments in its language.

The event id is the game's version; a reconnecting browser sends ``Last-Event-ID`` and gets
the current state at once if it missed anything. One view is loaded and one rendering made
per version, language and seat, however many people watch.
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncIterator, Callable
from typing import Annotated

from anyio import to_thread
from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import StreamingResponse

from app import i18n
from app.service.events import Broker
from app.service.presence import Presence
from app.service.seats import hash_secret
from app.service.views import GameView
from app.web.deps import BearerDep, ServiceDep, seat_cookie
from app.web.live import LiveViews, sse
from app.web.plumbing.hosts import base_url
from app.web.plumbing.limits import client_address
from app.web.plumbing.stream_limits import StreamSlots
from app.web.plumbing.templating import render
from app.web.schemas import GameOut
from app.web.shared import hints_for
from app.web.table_events import TableEvents

KEEP_ALIVE_SECONDS = 15.0

router = APIRouter()


def _start_version(last_event_id: str | None, version: int | None) -> int:
    for candidate in (last_event_id, version):
        try:
            if candidate is not None:
                return max(int(candidate), 0)
        except ValueError:
            continue
    return 0


async def _stream(
    request: Request,
    game_id: str,
    seen: int,
    render_event: Callable[[GameView], AsyncIterator[str]],
    release: Callable[[], None],
    *,
    seat: int | None = None,
    secret: str | None = None,
    table: TableEvents | None = None,
) -> AsyncIterator[str]:
    broker: Broker = request.app.state.broker
    live: LiveViews = request.app.state.live_views
    presence: Presence = request.app.state.presence
    subscription = broker.subscribe(game_id)
    hashed = hash_secret(secret) if secret else None
    presence.enter(game_id, seat)  # the reader of ``seat`` has the game open (None: watches)
    try:
        if seat is not None:  # back at the table: if the computer stood in, the seat is theirs
            await to_thread.run_sync(request.app.state.stand_ins.take_back, game_id, secret)
        # A reader who saw a newer version (on another worker) than kept here gets it read.
        view = await live.view(game_id, seen)
        subscription.notify(view.version)
        yield "retry: 1000\n\n"
        while True:
            timeout = KEEP_ALIVE_SECONDS
            if table is not None:
                timeout = min(timeout, table.wake_in(view))
            woke = await subscription.wait_any(seen, timeout)
            sent = False
            if subscription.latest > seen:
                view = await live.view(game_id, subscription.latest, subscription.view)
                seen = view.version
                if seat is not None and view.seat_of_hash(hashed) != seat:
                    # The seat moved to another device: this reader only watches from now
                    # on, and must not keep the seat "present" (nobody could hand it over).
                    presence.leave(game_id, seat)
                    seat = None
                    presence.enter(game_id, seat)
                    if table is not None:
                        table.seat = None
                async for event in render_event(view):
                    sent = True
                    yield event
            signals = list(subscription.signals)
            subscription.signals.clear()
            if table is not None:
                async for event in table.events(view, signals):
                    sent = True
                    yield event
            if not (woke or sent):
                yield ": keep-alive\n\n"
    finally:
        release()
        presence.leave(game_id, seat)
        subscription.close()
        if broker.count(game_id) == 0:
            live.forget(game_id)


def _event_stream(
    request: Request, open_stream: Callable[[Callable[[], None]], AsyncIterator[str]]
) -> StreamingResponse:
    """The stream ``open_stream`` makes, if the client and the server may open one more
    (else 429 or 503); ``open_stream`` is given the release of its slot to call at its end."""
    slots: StreamSlots = request.app.state.stream_slots
    release = slots.take(client_address(request))
    body = open_stream(release)
    weakref.finalize(body, release)  # a stream never started is never ended either
    return StreamingResponse(
        body,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


@router.get("/games/{game_id}/events", include_in_schema=False)
async def page_events(
    request: Request,
    game_id: str,
    service: ServiceDep,
    last_event_id: Annotated[str | None, Header()] = None,
    version: int | None = None,
    page: Annotated[str, Query(pattern="^(game|lobby)$")] = "game",
) -> StreamingResponse:
    """The page's fragments whenever the game changes, rendered for this browser.

    A lobby page gets the lobby fragment, which takes it to the game once it has started.
    """
    await to_thread.run_sync(service.get, game_id)  # 404 before the stream starts
    secret = request.cookies.get(seat_cookie(game_id))
    # The seat is found in each version's view: it may move to another device mid-stream.
    hashed = hash_secret(secret) if secret else None
    # The seat the reader holds as the stream opens: presence, stand-in and table events.
    seat = await to_thread.run_sync(service.seat_of, game_id, secret)
    language = request.state.language
    templates = request.app.state.templates
    live: LiveViews = request.app.state.live_views
    site = base_url(request)
    auto_seconds = request.app.state.settings.auto_confirm_seconds

    async def render_event(view: GameView) -> AsyncIterator[str]:
        holder = view.seat_of_hash(hashed)
        moved = holder is None and view.has_moved_from(hashed)

        def make() -> str:
            with i18n.language(language) as current:
                name = "fragments/lobby.html" if page == "lobby" else "fragments/board.html"
                html = render(
                    templates,
                    name,
                    game=view,
                    me=holder,
                    moved=moved,
                    lang=current,
                    live=True,
                    oob=True,
                    csrf_token="",
                    auto_seconds=auto_seconds,
                    base_url=site,
                    hints=hints_for(service, view, holder),
                )
            return sse("update", view.version, html)

        # Live fragments carry no CSRF field: htmx sends the token as a header (set on
        # <body>), so one rendering serves every reader with the same language and seat.
        kind = f"{page}:{language}:{site}:moved" if moved else f"{page}:{language}:{site}"
        yield await live.rendering(view, kind, holder, make)

    table = TableEvents(request, game_id, seat, language) if page == "game" else None
    seen = _start_version(last_event_id, version)
    return _event_stream(
        request,
        lambda release: _stream(
            request, game_id, seen, render_event, release, seat=seat, secret=secret, table=table
        ),
    )


@router.get("/api/v1/games/{game_id}/events", tags=["games"])
async def api_events(
    request: Request,
    game_id: str,
    service: ServiceDep,
    _token: BearerDep,
    last_event_id: Annotated[str | None, Header()] = None,
) -> StreamingResponse:
    """`text/event-stream` of `game` events, each a `Game` as JSON, id = its version."""
    await to_thread.run_sync(service.get, game_id)
    seat = await to_thread.run_sync(service.seat_of, game_id, _token)  # a bot is at the table
    site = base_url(request)
    live: LiveViews = request.app.state.live_views

    async def render_event(view: GameView) -> AsyncIterator[str]:
        def make() -> str:
            return sse("game", view.version, GameOut.of(view, site).model_dump_json())

        yield await live.rendering(view, f"api:{site}", None, make)

    seen = _start_version(last_event_id, None)
    return _event_stream(
        request,
        lambda release: _stream(
            request, game_id, seen, render_event, release, seat=seat, secret=_token
        ),
    )
