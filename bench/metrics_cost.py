"""What the operators' metrics and request ids add to one action, piece by piece.

    .venv/bin/python bench/metrics_cost.py [--repeat 200000]

``bench/load.py --compare-with`` measures the whole move with and without them, but on a
shared machine its rounds drift by ±20 %, far more than what is measured here. So each
piece the metrics put on a move's path is timed alone, against the same call without it,
in this process: the timing wrapper of a game action (:func:`app.service.measured.measured`),
the request-id middleware (:class:`app.web.plumbing.request_log.RequestLog`, text log: it
writes nothing), the write lock's wait, the seat noted for the log, and per live stream the
event counted and its lag observed. Their sum is one move's added cost, printed against a
move's CPU in ``bench/load.py`` (pass it with ``--move-ms``).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app import metrics  # noqa: E402
from app.request_context import begin, note_seat  # noqa: E402
from app.service.measured import measured  # noqa: E402
from app.web.plumbing.request_log import RequestLog  # noqa: E402


def per_call(call: Callable[[], object], repeat: int) -> float:
    """Microseconds per call of ``call``, the best of five runs."""
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(repeat):
            call()
        best = min(best, time.perf_counter() - started)
    return best / repeat * 1e6


def per_request(app: Callable[..., object], repeat: int) -> float:
    """Microseconds per request through the ASGI ``app``, the best of five runs."""
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/v1/games/AbCdEfGhIjK/roll",
        "headers": [(b"host", b"127.0.0.1:8000"), (b"x-request-id", b"abc")],
        "client": ("127.0.0.1", 5000),
    }

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(_message: dict[str, object]) -> None:
        return None

    async def run() -> float:
        best = float("inf")
        for _ in range(5):
            started = time.perf_counter()
            for _ in range(repeat):
                await app(dict(scope), receive, send)  # type: ignore[misc]
            best = min(best, time.perf_counter() - started)
        return best / repeat * 1e6

    return asyncio.run(run())


async def endpoint(_scope: object, _receive: object, send: Callable[..., object]) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})  # type: ignore[misc]
    await send({"type": "http.response.body", "body": b"{}"})  # type: ignore[misc]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=200_000, help="calls per timing")
    parser.add_argument("--move-ms", type=float, default=3.3, help="a move's CPU (load.py)")
    parser.add_argument("--streams", type=int, default=4, help="live streams of the game")
    arguments = parser.parse_args()
    repeat = arguments.repeat

    def action() -> int:
        return 1

    timed = measured("roll", action)
    bare = per_call(action, repeat)
    wrapped = per_call(timed, repeat) - bare
    begin("bench")
    pieces = {
        "action counted and timed": wrapped,
        "write lock wait observed": per_call(lambda: metrics.DATABASE_WAIT.observe(0.0), repeat),
        "seat noted for the log": per_call(lambda: note_seat("AbCdEfGhIjK", 0), repeat),
    }
    requests = max(repeat // 4, 1)
    pieces["request id (middleware)"] = per_request(
        RequestLog(endpoint, trusted_proxies=["127.0.0.1"], write=False),
        requests,  # type: ignore[arg-type]
    ) - per_request(endpoint, requests)
    events = metrics.LIVE_EVENTS.labels("page")
    stream = (
        per_call(lambda: (events.inc(), metrics.LIVE_LAG.observe(0.001)), repeat)
        * arguments.streams
    )
    pieces[f"{arguments.streams} live streams: event and lag"] = stream
    total = sum(pieces.values())
    width = max(len(name) for name in pieces)
    python = sys.version.split()[0]
    print(f"added to one move, best of five runs of {repeat:,} calls (Python {python}):")
    for name, micros in pieces.items():
        print(f"  {name:<{width}}  {micros:6.2f} µs")
    print(f"  {'in all':<{width}}  {total:6.2f} µs")
    share = total / (arguments.move_ms * 1000)
    print(f"against a move of {arguments.move_ms:g} ms of CPU (bench/load.py): {share:.2%}")


if __name__ == "__main__":
    main()
