"""Penta's figures for Prometheus: what the benches measure, counted in production.

Every worker process counts its own (prometheus-client's default registry, beside the
library's process figures: CPU, memory, open files) and answers ``/metrics`` with them
(:mod:`app.web.routes.metrics`, off unless ``PENTA_METRICS_TOKEN`` is set). Prometheus
scrapes each worker and adds them up (``sum()`` in every query of the shipped dashboard),
as lichess and Synapse do. The figures of the database itself (``penta_games``) and of the
bus (``penta_bus_*``) are read at scrape time (:mod:`app.web.routes.metrics`); the
database's are the same on every worker: take their ``max()``.

The names and labels are the operators' interface (``deploy/grafana/penta.json``,
``deploy/prometheus/alerts.yml``): every label takes a bounded set of values (the kinds of
action, the refusals' codes, the limits' names), never a game id or an address.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram, disable_created_metrics

disable_created_metrics()  # type: ignore[no-untyped-call]  # no ``*_created`` series beside each counter: half the lines, no use

FAST_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
"""Seconds, for what takes a few milliseconds when all is well (the action p99 target is
50 ms, the live events' 100 ms)."""

ACTIONS = Counter(
    "penta_actions",
    "Game actions by kind and outcome (ok; refused, with the refusal's code; busy; error).",
    ["kind", "outcome", "code"],
)
ACTION_SECONDS = Histogram(
    "penta_action_seconds", "How long a game action took, by kind.", ["kind"], buckets=FAST_BUCKETS
)
GAMES_FINISHED = Counter("penta_games_finished", "Games played to their end on this worker.")
LIVE_STREAMS = Gauge("penta_live_streams", "Live streams open, by kind (page, api).", ["kind"])
LIVE_EVENTS = Counter("penta_live_events", "Events written to live streams, by kind.", ["kind"])
LIVE_LAG = Histogram(
    "penta_live_lag_seconds",
    "From a change's commit (made on another worker: its news over the bus) to its event "
    "written to a live stream.",
    buckets=FAST_BUCKETS,
)
DATABASE_WAIT = Histogram(
    "penta_database_wait_seconds",
    "How long a change waited for the database's write lock.",
    buckets=FAST_BUCKETS,
)
DATABASE_BUSY = Counter(
    "penta_database_busy", "Changes refused because the database stayed locked (503 busy)."
)
DEADLINE_LATENESS = Histogram(
    "penta_deadline_lateness_seconds",
    "How late the server played the steps it owes (a deadline run out, a computer's move).",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)
LIMIT_REFUSALS = Counter(
    "penta_limit_refusals", "Requests and connections refused by a limit, by limit.", ["limit"]
)
LIMIT_STATUSES = frozenset({413, 429})
"""Refusals that are a limit's whatever their code (``server_full`` is the other one)."""


def is_limit(status: int, code: str) -> bool:
    """Whether a refusal with ``status`` and ``code`` is a limit's (counted in
    :data:`LIMIT_REFUSALS`)."""
    return status in LIMIT_STATUSES or code == "server_full"


def game_finished() -> None:
    GAMES_FINISHED.inc()


def server_step(kind: str, lateness: float, seconds: float) -> None:
    """The server played a step it owed ``lateness`` seconds after it was due."""
    ACTIONS.labels(kind, "ok", "").inc()
    ACTION_SECONDS.labels(kind).observe(seconds)
    DEADLINE_LATENESS.observe(max(lateness, 0.0))


LIMITS = (
    "rate_limited",
    "seat_limited",
    "too_large",
    "too_many_holds",
    "too_many_reactions",
    "too_many_streams",
    "server_full",
    "connection_server_full",
    "connection_too_many_connections",
    "connection_headers_too_large",
    "connection_timeout",
)
"""The limits, each shown from the start (at 0), so that a rate over them is defined."""
for _limit in LIMITS:
    LIMIT_REFUSALS.labels(_limit)
for _kind in ("page", "api"):
    LIVE_STREAMS.labels(_kind)
    LIVE_EVENTS.labels(_kind)
