"""Live-update latency: from an action's answer to its event at N subscribers.

    .venv/bin/python bench/live.py [--subscribers 2 50 500] [--actions 40]

Starts Penta (one uvicorn worker, SQLite, loopback only), opens N subscriptions to a game's
``/api/v1/games/{id}/events`` (``--stream page`` for the page's HTML fragments), then plays
``--actions`` actions through the API, one at a time, each once every subscriber has the
previous event. For every subscriber and action it takes the time from the moment the
action's answer arrived to the moment the subscriber had the event of that version, and
prints p50/p99 per N (and the same from the moment the action was sent: the server
publishes before it answers, so an event can come first).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.client import Connection  # noqa: E402
from bench.load import raise_file_limit  # noqa: E402
from bench.servers import Uvicorn, ensure_strategy_table  # noqa: E402


@dataclass
class Subscriber:
    """One open event stream, noting when each version's event arrived."""

    arrivals: dict[int, float] = field(default_factory=dict)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    writer: asyncio.StreamWriter | None = None

    async def open(self, port: int, path: str) -> asyncio.Task[None]:
        reader, self.writer = await asyncio.open_connection("127.0.0.1", port)
        self.writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        head = await reader.readuntil(b"\r\n\r\n")
        if b" 200 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError(f"the stream answered {head!r}")
        return asyncio.create_task(self._read(reader))

    async def _read(self, reader: asyncio.StreamReader) -> None:
        """Read the chunked stream; an event is complete at its blank line."""
        buffer = b""
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip(), 16)
            if size == 0:
                return
            buffer += await reader.readexactly(size)
            await reader.readexactly(2)
            arrived = time.perf_counter()
            *complete, buffer = buffer.split(b"\n\n")
            for event in complete:
                for line in event.split(b"\n"):
                    if line.startswith(b"id: "):
                        self.arrivals.setdefault(int(line[4:]), arrived)
                        self.changed.set()

    async def wait_for(self, version: int) -> None:
        while version not in self.arrivals:
            self.changed.clear()
            await self.changed.wait()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000


async def measure(port: int, subscribers: int, actions: int, stream: str) -> dict[str, float]:
    api = Connection("127.0.0.1", port)
    created = (await api.request("POST", "/api/v1/games", {"name": "Live"})).json()
    game_id, auth = created["game"]["id"], {"Authorization": f"Bearer {created['token']}"}
    path = f"/api/v1/games/{game_id}/events" if stream == "api" else f"/games/{game_id}/events"
    readers = [Subscriber() for _ in range(subscribers)]
    tasks = [await reader.open(port, path) for reader in readers]
    game = (await api.request("POST", f"/api/v1/games/{game_id}/start", headers=auth)).json()
    await asyncio.gather(*(reader.wait_for(game["version"]) for reader in readers))
    after_answer: list[float] = []
    after_sending: list[float] = []
    for _ in range(actions):
        if game["status"] != "playing":
            break
        if game["dice"] is None or game["rolls_left"] == 2:
            action, body = "roll", {"hold": [], "version": game["version"]}
        else:
            box = max(game["options"], key=lambda name: game["options"][name])
            action, body = "score", {"box": box, "version": game["version"]}
        sent = time.perf_counter()
        answer = await api.request("POST", f"/api/v1/games/{game_id}/{action}", body, auth)
        answered = time.perf_counter()
        game = answer.json()
        version = game["version"]
        await asyncio.wait_for(
            asyncio.gather(*(reader.wait_for(version) for reader in readers)), timeout=30
        )
        for reader in readers:
            after_answer.append(reader.arrivals[version] - answered)
            after_sending.append(reader.arrivals[version] - sent)
    for reader, task in zip(readers, tasks, strict=True):
        reader.close()
        task.cancel()
    await api.close()
    return {
        "p50": percentile(after_answer, 0.5),
        "p99": percentile(after_answer, 0.99),
        "sent p50": percentile(after_sending, 0.5),
        "sent p99": percentile(after_sending, 0.99),
        "events": len(after_answer),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--subscribers", type=int, nargs="+", default=[2, 50, 500])
    parser.add_argument("--actions", type=int, default=40, help="actions measured per N")
    parser.add_argument("--stream", choices=["api", "page"], default="api")
    parser.add_argument("--strategy-table", type=Path, default=ROOT / "data" / "strategy")
    arguments = parser.parse_args()
    if max(arguments.subscribers) > 2000 or arguments.actions > 500:
        parser.error("at most 2000 subscribers and 500 actions")
    raise_file_limit(2 * max(arguments.subscribers) + 256)
    table = ensure_strategy_table(arguments.strategy_table)
    results = {}
    with tempfile.TemporaryDirectory(prefix="penta-live-") as folder:
        env = {
            "PENTA_DATA_DIR": f"{folder}/penta",
            "PENTA_STRATEGY_TABLE": str(table),
            # Every subscriber comes from one address: the per-client caps are off.
            "PENTA_MAX_STREAMS": "0",
            "PENTA_MAX_STREAMS_PER_ADDRESS": "0",
            "PENTA_MAX_CONNECTIONS": "0",
            "PENTA_MAX_CONNECTIONS_PER_ADDRESS": "0",
            "PENTA_ACTIONS_PER_MINUTE": "0",
            "PENTA_SEAT_ACTIONS_PER_MINUTE": "0",
        }
        with Uvicorn("app.main:app", env, log=Path(folder) / "penta.log") as server:
            for count in arguments.subscribers:
                print(f"{count} subscribers ...", file=sys.stderr, flush=True)
                results[count] = asyncio.run(
                    measure(server.port, count, arguments.actions, arguments.stream)
                )
    print(
        f"\nevent delay of {arguments.stream} streams, one uvicorn worker, loopback; "
        f"from the action's answer (and from sending it), in ms\n"
    )
    print(
        f"{'subscribers':>11} {'events':>7} {'p50':>8} {'p99':>8} {'sent p50':>9} {'sent p99':>9}"
    )
    for count, figures in results.items():
        print(
            f"{count:>11} {figures['events']:>7.0f} {figures['p50']:>8.1f} {figures['p99']:>8.1f} "
            f"{figures['sent p50']:>9.1f} {figures['sent p99']:>9.1f}"
        )


if __name__ == "__main__":
    main()
