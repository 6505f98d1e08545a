"""``/metrics``: this worker's figures in the Prometheus text format (:mod:`app.metrics`).

Off unless ``PENTA_METRICS_TOKEN`` is set (404, as any unknown page); then answered only
with ``Authorization: Bearer <token>`` (401 otherwise). Never in the public OpenAPI, and
answered whatever the Host (the scraper reaches each worker by its own address; nothing
here builds a link).
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable
from typing import Annotated

from fastapi import APIRouter, Header, Request
from fastapi.responses import Response
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector
from starlette.exceptions import HTTPException

from app.live.bus.local import Bus
from app.service.games import GameService
from app.web.plumbing.hosts import METRICS_PATH

router = APIRouter(include_in_schema=False)


class WorkerFigures(Collector):
    """The figures read when scraped: the games in the database by status, and the bus's
    state and counts (with the Redis bus only)."""

    def __init__(self, service: GameService, bus: Bus) -> None:
        self.service = service
        self.bus = bus

    def collect(self) -> Iterable[Metric]:
        games = GaugeMetricFamily(
            "penta_games",
            "Games in the database, by status (the same on every worker).",
            labels=["status"],
        )
        for status, count in self.service.games_by_status().items():
            games.add_metric([status], count)
        yield games
        bus = self.bus.status
        if bus == "local":
            return
        yield GaugeMetricFamily(
            "penta_bus_up",
            "1 while this worker is subscribed to the bus (Redis), else 0.",
            value=1 if bus == "up" else 0,
        )
        figures = self.bus.figures()
        yield CounterMetricFamily(
            "penta_bus_dropped",
            "Messages to the other workers dropped (Redis away or slow).",
            value=figures.get("dropped", 0),
        )
        messages = CounterMetricFamily(
            "penta_bus_messages",
            "Messages sent to and received from the other workers.",
            labels=["direction"],
        )
        for direction in ("sent", "received"):
            messages.add_metric([direction], figures.get(direction, 0))
        yield messages
        yield CounterMetricFamily(
            "penta_bus_reconnects",
            "Times this worker connected to the bus again.",
            value=figures.get("reconnects", 0),
        )


def worker_registry(service: GameService, bus: Bus) -> CollectorRegistry:
    """A registry of this app's own for :class:`WorkerFigures` (the process-wide figures
    are in prometheus-client's default one)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(WorkerFigures(service, bus))
    return registry


@router.get(METRICS_PATH)
def metrics(request: Request, authorization: Annotated[str | None, Header()] = None) -> Response:
    """The figures, for a scraper holding the token."""
    token = request.app.state.settings.metrics_token
    if token is None:
        raise HTTPException(404, "Not Found")
    expected = f"Bearer {token.get_secret_value()}".encode()
    if not authorization or not hmac.compare_digest(authorization.encode(), expected):
        raise HTTPException(401, "a bearer token is needed", {"WWW-Authenticate": "Bearer"})
    body = generate_latest(REGISTRY) + generate_latest(request.app.state.worker_registry)
    return Response(body, media_type=CONTENT_TYPE_LATEST)  # no-store, as every answer
