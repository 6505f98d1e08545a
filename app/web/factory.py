"""The application factory: settings in, a FastAPI app out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from app.service.deadlines import Deadlines
from app.service.dice import DiceSource, ScriptedDice, SecureDice
from app.service.events import Broker
from app.service.games import GameService
from app.service.runner import Scheduler
from app.settings import ROOT, Settings
from app.store.database import Database
from app.store.migrate import upgrade
from app.strategy import StrategyProvider
from app.web import api, errors, events, lobby, logs, pages, review, stats
from app.web.body_limit import BodyLimitMiddleware
from app.web.events import LiveViews
from app.web.limits import RateLimiter
from app.web.middleware import BrowserMiddleware
from app.web.rules_page import router as rules_router
from app.web.templating import create_templates, render


def create_app(settings: Settings | None = None) -> FastAPI:
    """A Penta app. Migrations run and the strategy table loads (or builds) at start-up."""
    settings = settings or Settings()
    database = Database(settings.resolved_database_url)
    dice: DiceSource = (
        ScriptedDice.parse(settings.dice_script) if settings.dice_script else SecureDice()
    )
    strategy = StrategyProvider(settings.resolved_strategy_table)
    deadlines = Deadlines(
        auto_confirm=settings.auto_confirm_seconds,
        grace=settings.auto_confirm_grace_seconds,
        pace=settings.computer_pace_seconds,
    )
    service = GameService(database, dice, strategy, deadlines)
    broker = Broker()
    service.listeners.append(broker.publish)
    runner = Scheduler(service)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        upgrade(settings.resolved_database_url)
        database.start_checkpoints()
        strategy.start()
        await runner.start()
        yield
        await runner.stop()
        database.dispose()

    app = FastAPI(
        title="Penta",
        summary="Play Penta, a Yahtzee-family dice game, as a bot: create, join, roll, score.",
        version="1.0",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.service = service
    app.state.scheduler = runner
    app.state.broker = broker
    app.state.live_views = LiveViews(service)
    app.state.templates = create_templates()
    app.state.rate_limiter = RateLimiter(settings.rate_limit_per_minute)
    logs.install()
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    app.add_middleware(
        BrowserMiddleware,
        secret_key=settings.resolved_secret_key,
        secure_cookies=settings.secure_cookies,
    )
    errors.install(app)
    app.include_router(api.router)
    app.include_router(events.router)
    app.include_router(pages.router)
    app.include_router(rules_router)
    app.include_router(lobby.router)
    app.include_router(stats.router)
    app.include_router(review.router)
    app.mount("/static", StaticFiles(directory=ROOT / "static"), name="static")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        """The interactive API docs, served from the vendored Swagger UI (no CDN)."""
        return HTMLResponse(render(app.state.templates, "docs.html"))

    return app
