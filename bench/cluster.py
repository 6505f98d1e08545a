"""Cluster benchmark: what several workers on PostgreSQL and Redis cost per action, and what
they carry when each has a fixed share of a CPU.

    .venv/bin/python bench/cluster.py [--games 40] [--think-ms 400] [--seconds 15]
                                      [--share 0.2] [--workers 1 2 4] [--rounds 5]
                                      [--idle-seconds 10]

Needs PostgreSQL on 127.0.0.1:5432 (``PENTA_BENCH_POSTGRES_URL``: an admin URL; a database
``penta_bus_bench_…`` is made and dropped) and ``redis-server`` (run here, on a free port).
For each number of workers N, N uvicorn processes serve one database and one bus; each
game's client plays one game after another through the API and holds one live stream of its
game. How the moves and streams of a game spread over the workers:

* **alternate**: each move to the next worker (no proxy affinity: the most the bus can cost);
* **sticky**: every move to the game's first worker, its stream on another (a spectator on
  another worker);
* **routed**: moves and stream on the game's one worker, as ``deploy/nginx.conf`` routes them;
* **apart**: as routed, but the N workers share nothing (a database each, no Redis), and
  compared with one such worker: what N processes cost on these cores with nothing to
  coordinate, the part of the others' growth with N that is not coordination.

Three phases per N:

* **idle**: ``--idle-seconds`` with no load at all, the CPU of the workers, their backends and
  Redis per second: what each worker costs whatever it serves (its timers and checks);
* **fixed load**: ``--games`` clients thinking ``--think-ms`` (±50 %) between actions, a load
  below saturation. The CPU time of the workers, of this database's PostgreSQL backends and
  of Redis (from /proc, summed) divided by the actions: on two shared cores the throughput
  cannot grow with N, so this shows what coordination costs per action (flat = nothing).
* **fixed share**: each worker confined to ``--share`` of one CPU (a cgroup v1 ``cpu`` quota,
  or skipped if none can be made), clients acting without pause: the actions per second, which
  grow with N while coordination is cheap.

One run of a cell moves by 15-20 % from the next on this machine, more than the ±15 % it is
to judge, so the measurement is made ``--rounds`` times, each round one fresh cluster of every
N after the other (a drift of the machine then touches every N of a round alike). Printed: each
cell's median over the rounds, and its ratio to one worker as the median of the ratios within
each round. Every stream must open (200) and the load must be the same for every N: the events
per action are printed beside the CPU, since a stream that receives fewer events costs less.
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

from bench import cluster_figures as figures  # noqa: E402
from bench.client import Connection  # noqa: E402
from bench.cluster_figures import ONE, Round  # noqa: E402
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
ROUTED = "routed"
SPREADS = ("alternate", "sticky", ROUTED)
APART = "apart"
"""N workers sharing no database and no bus, each game on one of them (as routed)."""
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
    """N workers, a database of their own and a redis-server, for one measurement; or, ``apart``,
    N workers that share nothing (a database each, no bus): the same processes on the same
    cores with nothing to coordinate."""

    def __init__(
        self, stack: ExitStack, folder: Path, table: Path, workers: int, *, apart: bool = False
    ) -> None:
        prefix = f"penta_bus_bench_{uuid.uuid4().hex[:8]}"
        self.databases = [f"{prefix}_{number}" for number in range(workers if apart else 1)]
        self.name = prefix
        """This measurement's name: its databases' and cgroups' names begin with it."""
        stack.callback(self._drop)
        with psycopg.connect(libpq(ADMIN_URL), autocommit=True) as connection:
            for database in self.databases:
                connection.execute(f'CREATE DATABASE "{database}"')
        environment = {
            "PENTA_STRATEGY_TABLE": str(table),
            "PENTA_RATE_LIMIT_PER_MINUTE": "0",
            "PENTA_ACTIONS_PER_MINUTE": "0",
            "PENTA_SEAT_ACTIONS_PER_MINUTE": "0",
            # Every client connects from 127.0.0.1. With the caps per address one worker
            # refused 16 of the 40 streams (16 streams; later 64 connections: 40 clients'
            # requests and 40 streams), and one worker was measured under a lighter load.
            "PENTA_MAX_STREAMS_PER_ADDRESS": "0",
            "PENTA_MAX_CONNECTIONS_PER_ADDRESS": "0",
        }
        self.redis: subprocess.Popen[bytes] | None = None
        if not apart:
            redis_port = free_port()
            redis_server = shutil.which("redis-server") or "redis-server"
            self.redis = subprocess.Popen(
                [redis_server, "--port", str(redis_port), *REDIS_OPTIONS, "--dir", str(folder)],
                stdout=subprocess.DEVNULL,
            )
            stack.callback(self.redis.kill)
            time.sleep(0.3)
            environment["PENTA_BUS_URL"] = f"redis://127.0.0.1:{redis_port}/0"
        self.workers = []
        for number in range(workers):  # one by one: the first migrates
            data = folder / f"worker{number}"
            data.mkdir()
            url = make_url(ADMIN_URL).set(database=self.databases[number % len(self.databases)])
            env = {
                **environment,
                "PENTA_DATA_DIR": str(data),
                "PENTA_DATABASE_URL": url.render_as_string(hide_password=False),
            }
            server = Uvicorn("app.main:app", env, log=data / "server.log")
            self.workers.append(stack.enter_context(server))

    def _drop(self) -> None:
        with psycopg.connect(libpq(ADMIN_URL), autocommit=True) as connection:
            for database in self.databases:
                connection.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')

    def cpu(self) -> dict[str, float]:
        """CPU seconds so far of the workers and of Redis."""
        return {
            "workers": sum(worker.cpu_seconds() for worker in self.workers),
            "redis": cpu_seconds(self.redis.pid) if self.redis is not None else 0.0,
        }

    async def backend_cpu(self, until: float) -> dict[str, float]:
        """The CPU seconds these databases' PostgreSQL backends spend from now to ``until``.

        The pool opens and closes connections under load, and a backend that ends takes its
        CPU time with it: each is read every :data:`SAMPLE_SECONDS`, its last reading kept."""
        first = {pid: cpu_seconds(pid) for pid in self._backends()}
        last = dict(first)
        while time.perf_counter() < until:
            await asyncio.sleep(SAMPLE_SECONDS)
            for pid in self._backends():
                last[pid] = max(last.get(pid, 0.0), cpu_seconds(pid))
        return {
            "postgres": sum(spent - first.get(pid, 0.0) for pid, spent in last.items()),
            "new backends": len(set(last) - set(first)),
        }

    def _backends(self) -> list[int]:
        return [pid for database in self.databases for pid in backends_of(database)]

    def confine(self, share: float, stack: ExitStack) -> bool:
        """Each worker in a cgroup of ``share`` of one CPU; False if none can be made."""
        for number, worker in enumerate(self.workers):
            group = CGROUP_CPU / f"{self.name}_{number}"
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
        self,
        ports: list[int],
        index: int,
        pause: float,
        window: tuple[float, float],
        *,
        spread: str,
    ) -> None:
        self.sticky = spread != "alternate"
        self.stream_beside = 0 if spread in (ROUTED, ONE) else 1
        """The stream's worker: the moves' (routed), or the next one."""
        self.connections = [Connection("127.0.0.1", port) for port in ports]
        self.ports = ports
        self.index = index
        self.pause = pause
        self.measure_from, self.stop_at = window
        self.latencies: list[tuple[float, float]] = []  # (answered at, seconds)
        self.events = 0
        """The ``game`` events its streams received in the measured window."""

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
                    _end(stream)
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
            for connection in self.connections:
                await connection.close()
            if stream is not None:
                _end(stream)

    async def _stream(self, port: int, game_id: str) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            request = f"GET /api/v1/games/{game_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            writer.write(request.encode())
            await read_events(reader, self)
        finally:
            writer.close()


def _end(stream: asyncio.Task[None]) -> None:
    """Close a game's stream; if it had failed (refused), say so."""
    if stream.done() and not stream.cancelled() and (error := stream.exception()):
        raise error
    stream.cancel()


class StreamRefusedError(RuntimeError):
    """A live stream was not opened: the load would not be the one measured."""


async def read_events(reader: asyncio.StreamReader, client: Client) -> None:
    """Count the ``game`` events of a stream in the measured window into ``client.events``
    until it ends; a stream answered with anything but 200 stops the bench rather than
    lighten the load."""
    status = await reader.readline()
    if status.split()[1:2] != [b"200"]:
        raise StreamRefusedError(f"a live stream was refused: {status.decode().strip()!r}")
    while line := await reader.readline():
        if line.startswith(b"event: game"):
            client.events += client.measure_from <= time.perf_counter() <= client.stop_at


async def idle(cluster: Cluster, seconds: float) -> float:
    """CPU ms per second that the cluster (workers, this database's backends, Redis) spends
    with no load at all: what each worker costs whatever it serves."""
    await asyncio.sleep(WARM_UP_SECONDS)  # past the workers' start
    before = cluster.cpu()
    backends = await cluster.backend_cpu(time.perf_counter() + seconds)
    after = cluster.cpu()
    spent = sum(after[tier] - before[tier] for tier in after) + backends["postgres"]
    return spent * 1000 / seconds


async def load(
    cluster: Cluster, games: int, pause: float, seconds: float, *, spread: str = "alternate"
) -> dict[str, Any]:
    """Run the clients; the actions, CPU and latencies of the measured window."""
    ports = [worker.port for worker in cluster.workers]
    start = time.perf_counter()
    measure_from, stop_at = start + WARM_UP_SECONDS, start + WARM_UP_SECONDS + seconds
    window = measure_from, stop_at
    clients = [Client(ports, index, pause, window, spread=spread) for index in range(games)]
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
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--idle-seconds", type=float, default=10)
    arguments = parser.parse_args()
    if arguments.rounds < 1:
        parser.error("--rounds: at least 1")
    table = ensure_strategy_table(ROOT / "data" / "bench-strategy")
    fixed: list[Round] = []
    shared: list[dict[int, dict[str, Any] | None]] = []
    idles: list[dict[int, float]] = []
    pause = arguments.think_ms / 1000
    for number in range(arguments.rounds):
        fixed.append({})
        shared.append({})
        idles.append({})
        for workers in arguments.workers:
            print(f"round {number + 1}: {workers} workers", file=sys.stderr, flush=True)
            with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
                cluster = Cluster(stack, Path(folder), table, workers)
                idles[-1][workers] = uvloop.run(idle(cluster, arguments.idle_seconds))
                for spread in SPREADS if workers > 1 else (ONE,):
                    fixed[-1][workers, spread] = uvloop.run(
                        load(cluster, arguments.games, pause, arguments.seconds, spread=spread)
                    )
                shared[-1][workers] = None
                if cluster.confine(arguments.share, stack):
                    shared[-1][workers] = uvloop.run(
                        load(cluster, arguments.saturating_games, 0, arguments.seconds)
                    )
            # The same processes with nothing to share, compared with one worker alone: what
            # more processes cost on these cores, coordination aside.
            with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
                cluster = Cluster(stack, Path(folder), table, workers, apart=True)
                fixed[-1][workers, APART] = uvloop.run(
                    load(cluster, arguments.games, pause, arguments.seconds, spread=ROUTED)
                )
    print(
        f"\nfixed load: {arguments.games} games, think {arguments.think_ms:.0f} ms ±50 %, "
        f"{arguments.seconds:.0f} s, one stream per game; {arguments.rounds} rounds, medians.\n"
        "CPU ms per action (workers + this database's PostgreSQL backends + Redis). Moves go to "
        "the workers in turn (alternate) or each game's to one worker, its stream on another "
        "(sticky) or on that one (routed, as nginx routes them); apart: routed on workers that "
        "share nothing (a database each, no Redis). Each column is its own median "
        "over the rounds (the tiers' medians need not add up to the total's). 'vs fewest': the "
        "median of each round's ratio of the total to the fewest workers' in that round."
    )
    print(figures.table(fixed))
    print(
        f"\nfixed share: each worker held to {arguments.share:.0%} of a CPU (cgroup quota), "
        f"{arguments.saturating_games} clients without pause, moves alternating"
    )
    print(figures.shares(shared))
    print(
        f"\nidle: CPU ms per second of the workers, their PostgreSQL backends and Redis with no "
        f"load ({arguments.idle_seconds:.0f} s after a fresh start)"
    )
    print(figures.idles(idles))


if __name__ == "__main__":
    main()
