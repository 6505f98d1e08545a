"""Live updates as server-sent events: each subscriber gets the fragments in its language.

The event id is the game's version; a reconnecting browser sends ``Last-Event-ID`` and gets
the current state at once if it missed anything. Every version reaches every reader, in
order. One view is loaded per version, and while the game is played one rendering made per
version and language, however many seats and spectators watch (before and after play, in the
lobby and on the finished board, one per seat). A reader that saw the version before gets
only the fragments that changed.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import AsyncGenerator, Callable, Iterator, Sequence
from typing import Annotated, Literal

import anyio
from anyio import to_thread
from fastapi import APIRouter, Header, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel, Field, ValidationError
from starlette.exceptions import HTTPException
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from app import i18n, metrics
from app.analysis.advice import Advice
from app.live.broker import Broker
from app.live.presence import Presence
from app.service.games import GameService
from app.service.seats import hash_secret
from app.service.views import GameView
from app.web.board_parts import BOARD, LOBBY, SHARED_BOARD, board_context
from app.web.deps import BearerDep, ServiceDep, TokenRoute, seat_cookie
from app.web.live import LiveViews, RenderingKey
from app.web.plumbing.hosts import base_url
from app.web.plumbing.limits import client_address
from app.web.plumbing.server_setup import DETACH
from app.web.plumbing.stream_limits import StreamSlots
from app.web.shared import hints_for
from app.web.table_events import TableEvents
from app.web.templating import render

KEEP_ALIVE_SECONDS = 15.0

router = APIRouter(route_class=TokenRoute)


def _hints(
    templates: Jinja2Templates,
    language: str,
    view: GameView,
    seat: int,
    hints: Advice | Literal["preparing"] | None,
) -> str:
    with i18n.language(language) as current:
        return render(
            templates,
            "fragments/hints.html",
            game=view,
            me=seat,
            lang=current,
            oob=True,
            csrf_token="",
            hints=hints,
        )


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
    render_event: Callable[[GameView, int], Iterator[str]],
    release: Callable[[], None],
    *,
    kind: str,
    seat: int | None = None,
    secret: str | None = None,
    table: TableEvents | None = None,
) -> AsyncGenerator[str, None]:
    broker: Broker = request.app.state.broker
    live: LiveViews = request.app.state.live_views
    presence: Presence = request.app.state.presence
    subscription = broker.subscribe(game_id)
    hashed = hash_secret(secret) if secret else None
    presence.enter(game_id, seat)  # the reader of ``seat`` has the game open (None: watches)
    streams, events = metrics.LIVE_STREAMS.labels(kind), metrics.LIVE_EVENTS.labels(kind)
    streams.inc()
    try:
        if seat is not None:  # back at the table: if the computer stood in, the seat is theirs
            await to_thread.run_sync(request.app.state.stand_ins.take_back, game_id, secret)
        # A reader who saw a newer version (on another worker) than kept here gets it read,
        # and so does one that opens after a version was published and before any stream
        # here took it in (the view kept here is older then): it would wait for the next.
        view = await live.view(game_id, max(seen, broker.newest(game_id)))
        subscription.notify(view.version, view)
        yield "retry: 1000\n\n"
        while True:
            timeout = KEEP_ALIVE_SECONDS
            if table is not None:
                timeout = min(timeout, table.wake_in(view))
            woke = await subscription.wait_any(seen, timeout)
            # What one wake has to say is written at once: one send, however many events.
            chunk: list[str] = []
            heard: list[float] = []
            # Every version in order, each with the view its change committed where the
            # publisher had it; one heard of without its view is read (it may be newer).
            for version, published in subscription.take(seen):
                if version <= seen:
                    continue
                view = await live.view(game_id, version, published)
                if seat is not None and view.seat_of_hash(hashed) != seat:
                    # The seat moved to another device: this reader only watches from now
                    # on, and must not keep the seat "present" (nobody could hand it over).
                    presence.leave(game_id, seat)
                    seat = None
                    presence.enter(game_id, seat)
                elif seat is not None and view.players[seat].stand_in:
                    # Handed to the computer while this stream was open (by a worker that
                    # could not see it: the bus was down): the player is here, the seat theirs.
                    await to_thread.run_sync(request.app.state.stand_ins.take_back, game_id, secret)
                game_events = list(render_event(view, seen))
                events.inc(len(game_events))
                chunk += game_events
                published_at = broker.heard_at(game_id, view.version)
                if published_at is not None:
                    heard.append(published_at)
                seen = view.version
            signals = list(subscription.signals)
            subscription.signals.clear()
            if table is not None:
                chunk += [event async for event in table.events(view, signals)]
            if chunk:
                yield "".join(chunk)
                for published_at in heard:
                    metrics.LIVE_LAG.observe(time.perf_counter() - published_at)
            elif not woke:
                yield ": keep-alive\n\n"
    finally:
        streams.dec()
        release()
        presence.leave(game_id, seat)
        subscription.close()
        if broker.count(game_id) == 0:
            live.forget(game_id)


class EventStream(Response):
    """A ``text/event-stream`` written as ``body`` yields it, in the request's own task, with
    one small task that hears the client leave and then cancels the writing (an anyio cancel
    scope: work the stream waits for in a thread ends before the stream does, as it did).
    Starlette's ``StreamingResponse`` runs both in an anyio task group, on uvicorn's ASGI 2.3:
    7.9 KiB a stream against 2.6, measured with tracemalloc (docs/performance.md).

    Its head goes through the app's stack, which adds its headers and logs the request; its
    body is written by the app itself once that stack has returned (``DETACH``, given by
    :class:`~app.web.plumbing.server_setup.PentaApp`): an open stream holds none of the
    stack's frames, 7.0 KiB a stream (bench/stream_memory.py). So a route that answers with
    one has its dependencies' exit stacks closed before its body is written: it takes none
    that ``yield``. Called with no app to hand its body to, it writes the body before it
    returns, as any response does."""

    media_type = "text/event-stream"

    def __init__(self, body: AsyncGenerator[str, None]) -> None:
        # Not Response.__init__, which renders a body and says its Content-Length (0): a
        # stream has neither, as in StreamingResponse.
        self.status_code = 200
        self.background = None
        self.body_iterator = body
        self.init_headers({"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
        )
        detach = scope.get(DETACH)
        if detach is not None:
            # The stack's ``receive``, which may count a body sent with the request (a closure,
            # not a frame); the server's ``send``.
            detach(lambda server_send: self.write_body(receive, server_send))
            return
        await self.write_body(receive, send)

    async def write_body(self, receive: Receive, send: Send) -> None:
        """The events, until the body ends or the client leaves."""
        gone = asyncio.ensure_future(_disconnected(receive))
        try:
            with anyio.CancelScope() as writing:

                def hang_up(done: asyncio.Future[None]) -> None:
                    # (Cancelled: the stream ended first. A scope already left is not
                    # cancelled by this: nothing reaches the request after the stream.)
                    if not done.cancelled():
                        done.exception()  # a receive that failed ends it as a leave does
                        writing.cancel()

                gone.add_done_callback(hang_up)
                async for chunk in self.body_iterator:
                    await send(
                        {"type": "http.response.body", "body": chunk.encode(), "more_body": True}
                    )
                    # Waiting for the next, a stream holds nothing of what it has written: a
                    # roll's change left 15 KiB encoded in each reader (docs/performance.md).
                    del chunk
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            gone.cancel()
            await self.body_iterator.aclose()


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def _event_stream(
    request: Request, open_stream: Callable[[Callable[[], None]], AsyncGenerator[str, None]]
) -> EventStream:
    """The stream ``open_stream`` makes, if the client and the server may open one more
    (else 429 or 503); ``open_stream`` is given the release of its slot to call at its end."""
    slots: StreamSlots = request.app.state.stream_slots
    release = slots.take(client_address(request))
    body = open_stream(release)
    weakref.finalize(body, release)  # a stream never started is never ended either
    return EventStream(body)


class _PageQuery(BaseModel):
    """The page stream's query, read as FastAPI read it when the stream was its route."""

    version: int | None = None
    page: Annotated[str, Field(pattern="^(game|lobby)$")] = "game"


def _page_query(request: Request) -> _PageQuery:
    """The stream's query, or 422 as FastAPI answers a query it cannot read."""
    try:
        return _PageQuery.model_validate(dict(request.query_params))
    except ValidationError as error:
        raise RequestValidationError(
            [{**problem, "loc": ("query", *problem["loc"])} for problem in error.errors()]
        ) from None


class PageEvents:
    """The page stream's endpoint as a plain ASGI app, not a FastAPI route: what FastAPI's
    route leaves in the request and its scope (its dependencies' exit stacks, the solved
    values), which the stream keeps for the page's life, was 4.0 KiB a stream more, even with
    the stack's frames let go (bench/stream_memory.py). The app's middlewares and exception
    handlers still apply to it until its head is sent: they wrap the router."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "GET":  # a HEAD too (Starlette's route lets one in): no
            # stream answers it, as none did as a FastAPI route (plumbing/head.py)
            raise HTTPException(405, headers={"Allow": "GET"})
        scope["route"] = PAGE_STREAM  # as FastAPI's routes say theirs: the request log's route
        response = await page_events(Request(scope, receive))
        await response(scope, receive, send)


async def page_events(request: Request) -> EventStream:
    """The page's fragments whenever the game changes, rendered for this browser.

    A lobby page gets the lobby fragment, which takes it to the game once it has started.
    """
    game_id: str = request.path_params["game_id"]
    service: GameService = request.app.state.service
    last_event_id = request.headers.get("last-event-id")
    query = _page_query(request)
    version, page = query.version, query.page
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

    # What this reader's hints fragment last showed: (turned on, the version advised on).
    # A page opens with its hints as they are; a seat that never turns them on gets none.
    hints_shown: list[tuple[bool, int | bool]] = [(False, False)]

    def render_event(view: GameView, seen: int) -> Iterator[str]:
        holder = view.seat_of_hash(hashed)
        moved = holder is None and view.has_moved_from(hashed)
        # While the game is played, one rendering serves every reader (the page shows the
        # controls of the seat it holds); before and after it, each seat has its own.
        shared = page == "game" and view.is_playing
        parts = LOBBY if page == "lobby" else SHARED_BOARD if shared else BOARD

        def make(indexes: Sequence[int]) -> list[str]:
            with i18n.language(language) as current:
                context = board_context(
                    view,
                    lang=current,
                    shared=shared,
                    holder=holder,
                    moved=moved,
                    site=site,
                    auto_seconds=auto_seconds,
                    hints=None if shared else hints_for(service, view, holder),
                )
                return [render(templates, parts[index].template, **context) for index in indexes]

        kind = f"{page}:{language}:{site}:moved" if moved else f"{page}:{language}:{site}"
        key = RenderingKey(view.id, view.version, kind, None if shared else holder)
        rendering = live.board(
            key, lambda: [part.shows(view) if part.shows else None for part in parts], make
        )
        # A game page that saw the version before gets what changed (the lobby, one small
        # fragment, is sent whole).
        follows = page == "game" and seen == view.version - 1
        change = live.change(key, rendering) if follows else None
        yield change or rendering.event
        if shared and holder is not None:
            # The seat's own hints: sent when they show something new (every version while
            # the player to move has them on), rendered for that seat alone.
            hints = hints_for(service, view, holder)
            hints_show = (view.players[holder].hints, hints is not None and view.version)
            if hints_show != hints_shown[0]:
                hints_shown[0] = hints_show
                yield live.event(
                    RenderingKey(view.id, view.version, f"hints:{language}", holder),
                    lambda: _hints(templates, language, view, holder, hints),
                    "hints",
                )

    table = TableEvents(request, game_id, language) if page == "game" else None
    seen = _start_version(last_event_id, version)
    return _event_stream(
        request,
        lambda release: _stream(
            request,
            game_id,
            seen,
            render_event,
            release,
            kind="page",
            seat=seat,
            secret=secret,
            table=table,
        ),
    )


PAGE_STREAM = Route(
    "/games/{game_id}/events", PageEvents(), methods=["GET"], include_in_schema=False
)
"""The page stream's route, one of the app's own (``app/web/factory.py``): not in an included
router, whose matching leaves its keys in the scope an open stream keeps (and kept three more
frames on it while a stream held the stack's: 1.4 KiB a stream, bench/stream_memory.py)."""


@router.get("/api/v1/games/{game_id}/events", tags=["games"])
async def api_events(
    request: Request,
    game_id: str,
    service: ServiceDep,
    _token: BearerDep,
    last_event_id: Annotated[str | None, Header()] = None,
) -> EventStream:
    """`text/event-stream` of `game` events, each a `Game` as JSON, id = its version."""
    await to_thread.run_sync(service.get, game_id)
    seat = await to_thread.run_sync(service.seat_of, game_id, _token)  # a bot is at the table
    site = base_url(request)
    live: LiveViews = request.app.state.live_views

    def render_event(view: GameView, seen: int) -> Iterator[str]:
        yield live.api(view, site).event

    seen = _start_version(last_event_id, None)
    return _event_stream(
        request,
        lambda release: _stream(
            request, game_id, seen, render_event, release, kind="api", seat=seat, secret=_token
        ),
    )
