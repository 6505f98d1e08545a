"""The application factory: settings in, a FastAPI app out."""

from __future__ import annotations

import gc
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from app import __version__
from app.live.broker import Broker
from app.live.bus.wiring import make_bus
from app.live.presence import Presence
from app.service.deadlines import Deadlines
from app.service.dice import DiceSource, ScriptedDice, SecureDice
from app.service.games import GameService
from app.service.matching import QuickMatch
from app.service.people import Players
from app.service.reactions import Reactions
from app.service.retention import RetentionSweeper
from app.service.runner import Scheduler
from app.service.stand_in import StandIns
from app.settings import Settings
from app.store.database import Database
from app.store.matching import MatchQueue
from app.store.migrate import upgrade
from app.store.people import People
from app.strategy import StrategyProvider
from app.web.live import LiveViews
from app.web.plumbing import errors, logs
from app.web.plumbing.body_limit import BodyLimitMiddleware
from app.web.plumbing.head import HeadMiddleware
from app.web.plumbing.hosts import HostMiddleware
from app.web.plumbing.limits import ActionLimitMiddleware, RateLimiter
from app.web.plumbing.middleware import BrowserMiddleware
from app.web.plumbing.request_log import RequestLog
from app.web.plumbing.server_setup import PentaApp, trusted_proxies
from app.web.plumbing.shared_limits import SharedLimits
from app.web.plumbing.stream_limits import StreamSlots
from app.web.routes import (
    api,
    events,
    install,
    lobby,
    matching,
    metrics,
    pages,
    players,
    review,
    static,
    stats,
    table,
)
from app.web.routes.rules_page import router as rules_router
from app.web.table_events import PresenceAnnouncer
from app.web.templating import create_templates, render

YOUNG_OBJECTS = 50_000
"""Objects that may be alive in the collector's youngest generation before it looks for
cycles (Python's default: 700)."""


def collect_less() -> None:
    """Keep the cycle collector's pauses out of the moves.

    A full collection looks at every object alive, and each open stream holds a few hundred
    (its connection, task, generator...): with 800 streams a worker paused 80-200 ms several
    times a minute, which is the tail of a move's latency (docs/performance.md, "Pauses").
    What start-up made lives as long as the process and is set aside (``gc.freeze``); and
    the youngest generation is collected only once many objects have outlived their request,
    so that few move on to the oldest, whose full collection then comes rarely."""
    gc.collect()
    gc.freeze()
    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG_OBJECTS), middle, old)


def create_app(settings: Settings | None = None) -> FastAPI:
    """A Penta app. Migrations run and the strategy table loads (or builds) at start-up."""
    settings = settings or Settings()
    database = Database(settings.resolved_database_url, wait_seconds=settings.database_wait_seconds)
    dice: DiceSource = (
        ScriptedDice.parse(settings.dice_script) if settings.dice_script else SecureDice()
    )
    strategy = StrategyProvider(settings.resolved_strategy_table, clock=time.perf_counter)
    deadlines = Deadlines(
        auto_confirm=settings.auto_confirm_seconds,
        grace=settings.auto_confirm_grace_seconds,
        pace=settings.computer_pace_seconds,
        fast_pace=settings.computer_fast_pace_seconds,
    )
    service = GameService(
        database, dice, strategy, deadlines, max_holds_per_turn=settings.max_holds_per_turn
    )
    broker = Broker()
    bus = make_bus(settings, broker, service)
    service.listeners.append(bus.publish)
    presence = Presence(settings.absent_seconds)
    presence.listeners.append(PresenceAnnouncer(broker))
    bus.share_presence(presence)  # with several workers, a seat is present on any of them
    # With a bus, the rate limits are shared by the workers through the same Redis.
    shared_limits = (
        SharedLimits(settings.bus_url, settings.bus_channel) if settings.bus_url else None
    )
    # With several workers, each also takes over the deadlines others left (see Scheduler).
    runner = Scheduler(
        service,
        takeover_seconds=settings.takeover_seconds if settings.bus_url else None,
        take_turn=bus.takeover_turn,
    )
    sweeper = RetentionSweeper(
        service.changes,
        abandon_after_days=settings.abandon_after_days,
        delete_after_days=settings.delete_finished_after_days,
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        database.hold()  # a restore is refused while the server runs
        upgrade(settings.resolved_database_url)
        database.make_private()
        database.start_checkpoints()
        strategy.start()
        await sweeper.start()
        await runner.start()
        await bus.start()
        collect_less()
        yield
        await bus.stop()
        if shared_limits is not None:
            await shared_limits.close()
        await sweeper.stop()
        await runner.stop()
        database.dispose()

    app = PentaApp(
        title="Penta",
        summary="Play Penta, a Yahtzee-family dice game, as a bot: create, join, roll, score.",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        # FastAPI's OpenTelemetry is unused (the operators' figures are Prometheus's, at
        # /metrics): off, it no longer asks the global providers on every request (4 µs).
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.settings = settings
    app.penta_settings = settings
    app.state.service = service
    app.state.scheduler = runner
    app.state.broker = broker
    app.state.bus = bus
    app.state.presence = presence
    app.state.stand_ins = StandIns(service, presence)
    app.state.matching = QuickMatch(
        service.lobby, MatchQueue(database), wait_seconds=settings.match_wait_seconds
    )
    app.state.players = Players(People(database), service)
    app.state.reactions = Reactions(service, bus)  # to every worker's streams
    app.state.live_views = LiveViews(service)
    app.state.stream_slots = StreamSlots(settings.max_streams, settings.max_streams_per_address)
    app.state.templates = create_templates()
    app.state.rate_limiter = (
        shared_limits.limiter("create", settings.rate_limit_per_minute)
        if shared_limits
        else RateLimiter(settings.rate_limit_per_minute)
    )
    logs.install(settings.log_format)
    app.state.worker_registry = metrics.worker_registry(service, bus)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    app.add_middleware(
        ActionLimitMiddleware,
        per_address=settings.actions_per_minute,
        per_seat=settings.seat_actions_per_minute,
        shared=shared_limits.limiter if shared_limits else None,
    )
    app.add_middleware(
        BrowserMiddleware,
        secret_key=settings.resolved_secret_key,
        secure_cookies=settings.secure_cookies,
    )
    app.add_middleware(HeadMiddleware)
    app.add_middleware(HostMiddleware, names=settings.host_names, public_url=settings.public_url)
    app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=trusted_proxies(settings))
    # Outside the proxy headers: the id a proxy sends is believed only from a trusted one.
    app.add_middleware(
        RequestLog, trusted_proxies=trusted_proxies(settings), write=settings.log_format == "json"
    )
    errors.install(app)
    # First, before the included routers (no other route matches its path): matched after them,
    # a stream kept what their matching left in its scope (0.6 KiB); a miss costs 0.4 µs.
    app.router.routes.insert(0, events.PAGE_STREAM)
    app.include_router(api.router)
    app.include_router(events.router)
    app.include_router(pages.router)
    app.include_router(rules_router)
    app.include_router(lobby.router)
    app.include_router(stats.router)
    app.include_router(review.router)
    app.include_router(table.router)
    app.include_router(table.api)
    app.include_router(install.router)
    app.include_router(metrics.router)
    app.include_router(static.router)
    app.include_router(matching.router)
    app.include_router(matching.api)
    app.include_router(players.router)
    app.include_router(players.api)

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        """The interactive API docs, served from the vendored Swagger UI (no CDN)."""
        return HTMLResponse(render(app.state.templates, "docs.html"))

    return app
