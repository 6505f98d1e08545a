"""Cluster benchmark: what several workers on PostgreSQL and Redis cost per action, and what
they carry when each has a fixed share of a CPU.

    .venv/bin/python bench/cluster.py [--games 40] [--think-ms 400] [--seconds 15]
                                      [--share 0.2] [--workers 1 2 4]

Needs PostgreSQL on 127.0.0.1:5432 (``PENTA_BENCH_POSTGRES_URL``: an admin URL; a database
``penta_bus_bench_…`` is made and dropped) and ``redis-server`` (run here, on a free port).
For each number of workers N, N uvicorn processes serve one database and one bus; each
game's client sends its moves to the workers in turn (so every move follows one made on
another worker, the case that costs the most) and holds one live stream on a worker other
than its first. How the moves and streams of a game spread over the workers:

* **alternate**: each move to the next worker (no proxy affinity: the most the bus can cost);
* **sticky**: every move to the game's first worker, its stream on another (a spectator on
  another worker);
* **routed**: moves and stream on the game's one worker, as ``deploy/nginx.conf`` routes them.

Two phases per N:

* **fixed load**: ``--games`` clients thinking ``--think-ms`` (±50 %) between actions, a load
  below saturation. The CPU time of the workers, of this database's PostgreSQL backends and
  of Redis (from /proc, summed) divided by the actions: on two shared cores the throughput
  cannot grow with N, so this shows what coordination costs per action (flat = nothing).
* **fixed share**: each worker confined to ``--share`` of one CPU (a cgroup v1 ``cpu`` quota,
  or skipped if none can be made), clients acting without pause: the actions per second, which
  grow with N while coordination is cheap.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import psycopg
import uvloop
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.client import Connection  # noqa: E402
from bench.load import _next_action, think  # noqa: E402
from bench.servers import Uvicorn, ensure_strategy_table, free_port  # noqa: E402

ADMIN_URL = os.environ.get(
    "PENTA_BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
WARM_UP_SECONDS = 2.0
_TICKS = os.sysconf("SC_CLK_TCK")
CGROUP_CPU = Path("/sys/fs/cgroup/cpu")
PERIOD_US = 100_000
SAMPLE_SECONDS = 0.1
SPREADS = ("alternate", "sticky", "routed")
REDIS_OPTIONS = ("--bind", "127.0.0.1", "--save", "", "--appendonly", "no")


def libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICKS


def backends_of(database: str) -> list[int]:
    """The PostgreSQL backend processes connected to ``database``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if command.startswith(b"postgres: ") and f" {database} ".encode() in command:
                pids.append(int(entry.name))
    return pids


class Cluster:
    """N workers, a database of their own and a redis-server, for one measurement."""

    def __init__(self, stack: ExitStack, folder: Path, table: Path, workers: int) -> None:
        self.database = f"penta_bus_bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(libpq(ADMIN_URL), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{self.database}"')
        stack.callback(self._drop)
        self.redis_port = free_port()
        redis_server = shutil.which("redis-server") or "redis-server"
        self.redis = subprocess.Popen(
            [redis_server, "--port", str(self.redis_port), *REDIS_OPTIONS, "--dir", str(folder)],
            stdout=subprocess.DEVNULL,
        )
        stack.callback(self.redis.kill)
        time.sleep(0.3)
        url = make_url(ADMIN_URL).set(database=self.database)
        environment = {
            "PENTA_DATABASE_URL": url.render_as_string(hide_password=False),
            "PENTA_BUS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "PENTA_STRATEGY_TABLE": str(table),
            "PENTA_RATE_LIMIT_PER_MINUTE": "0",
            "PENTA_ACTIONS_PER_MINUTE": "0",
            "PENTA_SEAT_ACTIONS_PER_MINUTE": "0",
            # Every client streams from 127.0.0.1: with the cap of 16 per address, one worker
            # served 16 of the 40 streams, two 32, four all 40, and the fixed load was not.
            "PENTA_MAX_STREAMS_PER_ADDRESS": "0",
        }
        self.workers = []
        for number in range(workers):  # one by one: the first migrates
            data = folder / f"worker{number}"
            data.mkdir()
            env = {**environment, "PENTA_DATA_DIR": str(data)}
            server = Uvicorn("app.main:app", env, log=data / "server.log")
            self.workers.append(stack.enter_context(server))

    def _drop(self) -> None:
        with psycopg.connect(libpq(ADMIN_URL), autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')

    def cpu(self) -> dict[str, float]:
        """CPU seconds so far of the workers and of Redis."""
        return {
            "workers": sum(worker.cpu_seconds() for worker in self.workers),
            "redis": cpu_seconds(self.redis.pid),
        }

    async def backend_cpu(self, until: float) -> dict[str, float]:
        """The CPU seconds this database's PostgreSQL backends spend from now to ``until``.

        The pool opens and closes connections under load, and a backend that ends takes its
        CPU time with it: each is read every :data:`SAMPLE_SECONDS`, its last reading kept."""
        first = {pid: cpu_seconds(pid) for pid in backends_of(self.database)}
        last = dict(first)
        while time.perf_counter() < until:
            await asyncio.sleep(SAMPLE_SECONDS)
            for pid in backends_of(self.database):
                last[pid] = max(last.get(pid, 0.0), cpu_seconds(pid))
        return {
            "postgres": sum(spent - first.get(pid, 0.0) for pid, spent in last.items()),
            "new backends": len(set(last) - set(first)),
        }

    def confine(self, share: float, stack: ExitStack) -> bool:
        """Each worker in a cgroup of ``share`` of one CPU; False if none can be made."""
        for number, worker in enumerate(self.workers):
            group = CGROUP_CPU / f"{self.database}_{number}"
            try:
                group.mkdir()
                (group / "cpu.cfs_period_us").write_text(str(PERIOD_US))
                (group / "cpu.cfs_quota_us").write_text(str(int(share * PERIOD_US)))
                assert worker.process is not None
                (group / "cgroup.procs").write_text(str(worker.process.pid))
            except OSError:
                return False
            stack.callback(self._release, group)
        return True

    @staticmethod
    def _release(group: Path) -> None:
        for pid in (group / "cgroup.procs").read_text().split():
            (CGROUP_CPU / "cgroup.procs").write_text(pid)
        group.rmdir()


class Client:
    """One game after another, each move sent to the next worker, one stream open."""

    def __init__(
        self, ports: list[int], index: int, pause: float, stop_at: float, *, spread: str
    ) -> None:
        self.sticky = spread != "alternate"
        self.stream_beside = 0 if spread == "routed" else 1
        """The stream's worker: the moves' (routed), or the next one."""
        self.connections = [Connection("127.0.0.1", port) for port in ports]
        self.ports = ports
        self.index = index
        self.pause = pause
        self.stop_at = stop_at
        self.latencies: list[tuple[float, float]] = []  # (answered at, seconds)
        self.events = 0

    async def run(self) -> None:
        stream: asyncio.Task[None] | None = None
        turn = self.index
        try:
            while time.perf_counter() < self.stop_at:
                first = self.connections[turn % len(self.connections)]
                created = (await first.request("POST", "/api/v1/games", {"name": "B"})).json()
                game_id = created["game"]["id"]
                auth = {"Authorization": f"Bearer {created['token']}"}
                game = (
                    await first.request("POST", f"/api/v1/games/{game_id}/start", None, auth)
                ).json()
                if stream is not None:
                    stream.cancel()
                port = self.ports[(turn + self.stream_beside) % len(self.ports)]
                stream = asyncio.create_task(self._stream(port, game_id))
                while game["status"] == "playing" and time.perf_counter() < self.stop_at:
                    await think(self.pause)
                    body = _next_action(game)
                    action = "score" if "box" in body else "roll"
                    turn += 0 if self.sticky else 1
                    connection = self.connections[turn % len(self.connections)]
                    started = time.perf_counter()
                    answer = await connection.request(
                        "POST", f"/api/v1/games/{game_id}/{action}", body, auth
                    )
                    finished = time.perf_counter()
                    if answer.status != 200:
                        raise RuntimeError(f"{action} answered {answer.status}: {answer.body!r}")
                    self.latencies.append((finished, finished - started))
                    game = answer.json()
        finally:
            if stream is not None:
                stream.cancel()
            for connection in self.connections:
                await connection.close()

    async def _stream(self, port: int, game_id: str) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            request = f"GET /api/v1/games/{game_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            writer.write(request.encode())
            while line := await reader.readline():
                if line.startswith(b"event: game"):
                    self.events += 1
        finally:
            writer.close()


async def load(
    cluster: Cluster, games: int, pause: float, seconds: float, *, spread: str = "alternate"
) -> dict[str, Any]:
    """Run the clients; the actions, CPU and latencies of the measured window."""
    ports = [worker.port for worker in cluster.workers]
    start = time.perf_counter()
    measure_from, stop_at = start + WARM_UP_SECONDS, start + WARM_UP_SECONDS + seconds
    clients = [Client(ports, index, pause, stop_at, spread=spread) for index in range(games)]
    tasks = [asyncio.create_task(client.run()) for client in clients]
    await asyncio.sleep(max(measure_from - time.perf_counter(), 0))
    before = cluster.cpu()
    backends = await cluster.backend_cpu(stop_at)
    after = cluster.cpu()
    await asyncio.gather(*tasks)
    latencies = [
        spent
        for client in clients
        for at, spent in client.latencies
        if measure_from <= at <= stop_at
    ]
    return {
        "actions": len(latencies),
        "seconds": seconds,
        "cpu": {**{tier: after[tier] - before[tier] for tier in after}, **backends},
        "p50": statistics.median(latencies) * 1000 if latencies else float("nan"),
        "p99": sorted(latencies)[int(0.99 * (len(latencies) - 1))] * 1000
        if latencies
        else float("nan"),
        "events": sum(client.events for client in clients),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--think-ms", type=float, default=400)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--share", type=float, default=0.2)
    parser.add_argument("--saturating-games", type=int, default=24)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    arguments = parser.parse_args()
    table = ensure_strategy_table(ROOT / "data" / "bench-strategy")
    fixed: dict[tuple[int, str], dict[str, Any]] = {}
    shared: dict[int, dict[str, Any] | None] = {}
    pause = arguments.think_ms / 1000
    for workers in arguments.workers:
        with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
            cluster = Cluster(stack, Path(folder), table, workers)
            for spread in SPREADS if workers > 1 else ("alternate",):
                fixed[workers, spread] = uvloop.run(
                    load(
                        cluster,
                        arguments.games,
                        pause,
                        arguments.seconds,
                        spread=spread,
                    )
                )
            shared[workers] = None
            if cluster.confine(arguments.share, stack):
                shared[workers] = uvloop.run(
                    load(cluster, arguments.saturating_games, 0, arguments.seconds)
                )
    print(
        f"\nfixed load: {arguments.games} games, think {arguments.think_ms:.0f} ms ±50 %, "
        f"{arguments.seconds:.0f} s, one stream per game on another worker than its moves.\n"
        "CPU ms per action (workers + this database's PostgreSQL backends + Redis). Moves go to "
        "the workers in turn (alternate) or each game's to one worker, its stream on another "
        "(sticky) or on that one (routed, as nginx routes them)."
    )
    print(
        "workers  spread     actions/s  workers  postgres  redis  total  p50 ms  p99 ms"
        "  events  new backends"
    )
    for (workers, spread), result in fixed.items():
        cpu = result["cpu"]
        per = {
            tier: cpu[tier] * 1000 / max(result["actions"], 1)
            for tier in ("workers", "postgres", "redis")
        }
        print(
            f"{workers:7d}  {spread:9s}  {result['actions'] / result['seconds']:9.1f}  "
            f"{per['workers']:7.2f}  {per['postgres']:8.2f}  {per['redis']:5.2f}  "
            f"{sum(per.values()):5.2f}  {result['p50']:6.1f}  {result['p99']:6.1f}  "
            f"{result['events']:6d}  {cpu['new backends']:12.0f}"
        )
    print(
        f"\nfixed share: each worker held to {arguments.share:.0%} of a CPU (cgroup quota), "
        f"{arguments.saturating_games} clients without pause, moves alternating"
    )
    print("workers  actions/s  p50 ms  p99 ms")
    for workers, result in shared.items():
        if result is None:
            print(f"{workers:7d}  (no cgroup could be made: not measured)")
            continue
        print(
            f"{workers:7d}  {result['actions'] / result['seconds']:9.1f}  "
            f"{result['p50']:6.1f}  {result['p99']:6.1f}"
        )


if __name__ == "__main__":
    main()
