"""Capacity of one worker: the most concurrent four-player games, each seat holding its live
stream, that one uvicorn process carries within the latency targets, SQLite and PostgreSQL.

    .venv/bin/python bench/capacity.py [--steps 5 10 20 40 80 160] [--max-games 160]
                                       [--seconds 20] [--think-ms 1000 2000]
                                       [--stream page|api] [--databases sqlite postgresql]
                                       [--keep-going] [--no-retry]

For each database one uvicorn worker is started as ``bench/cluster.py`` starts one (SQLite in a
temporary data folder; PostgreSQL in a database ``penta_capacity_…`` of its own on
``PENTA_BENCH_POSTGRES_URL``, dropped afterwards; no bus, one process). Then, for N games in
``--steps`` order: each game has four seats, each a bot with its own keep-alive connection to
the bot API and its own live stream: by default the stream the browser holds,
``/games/{id}/events`` with its seat cookie (``--stream api`` for the bots' JSON stream). A seat
whose turn it is (known from its own stream) thinks ``--think-ms`` (uniform in the range), then
rolls or scores through ``/api/v1``; a finished game is followed by a new one. Measured after a
warm-up, for ``--seconds``:

* **action latency**: request sent → answer read;
* **event latency**: answer read → that version's event read on each of the three *other*
  seats' streams (0 when the event came first: the server publishes before it answers);
* the worker's CPU (and PostgreSQL's backends for this database), and the generator's own.

A step passes while action p99 < 50 ms and event p99 < 100 ms (issue #14) and no event is
missed; a failed step is run once more, and the steps stop at the first that fails twice
(``--keep-going``: every step, for the whole curve). The rate and connection limits are off
(every bot comes from 127.0.0.1). The generator is one uvloop process with the lean client of
``bench/client.py`` (httpx costs 1-2 ms of CPU a request); on two cores it still competes with
the worker, and a step where it takes most of a core, or the machine is near full, is flagged:
its latencies are partly the generator's.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import tempfile
import time
import uuid
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import uvloop
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.cluster import ADMIN_URL, backends_of, cpu_seconds, libpq  # noqa: E402
from bench.load import measure, raise_file_limit  # noqa: E402
from bench.seats import SEATS, Table  # noqa: E402
from bench.servers import Uvicorn, ensure_strategy_table  # noqa: E402

ACTION_TARGET_MS = 50.0
EVENT_TARGET_MS = 100.0
GENERATOR_BUSY = 0.6  # of one core: beyond it the generator's own delays show in the figures
MACHINE_BUSY = 0.85  # of all cores, worker + database + generator
UNLIMITED = {
    name: "0"
    for name in (
        "PENTA_RATE_LIMIT_PER_MINUTE",
        "PENTA_ACTIONS_PER_MINUTE",
        "PENTA_SEAT_ACTIONS_PER_MINUTE",
        "PENTA_MAX_CONNECTIONS",
        "PENTA_MAX_CONNECTIONS_PER_ADDRESS",
        "PENTA_MAX_STREAMS",
        "PENTA_MAX_STREAMS_PER_ADDRESS",
    )
}


@dataclass
class Step:
    """What one step (N games) measured."""

    games: int
    seconds: float
    actions: list[float] = field(default_factory=list)  # seconds
    events: list[float] = field(default_factory=list)  # seconds
    missed: int = 0  # events that never reached a seat's stream
    conflicts: int = 0  # 409s (the server scored for a seat past its deadline)
    errors: dict[int, int] = field(default_factory=dict)  # any other refusal, by status
    worker_cpu: float = 0.0
    database_cpu: float | None = None
    generator_cpu: float = 0.0
    load: float = 0.0  # the machine's 1-minute load average at the step's end
    again: bool = False  # the second run of a step that failed once

    def percentile(self, values: list[float], share: float) -> float:
        if not values:
            return float("nan")
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000

    @property
    def passed(self) -> bool:
        return (
            bool(self.actions)
            and self.percentile(self.actions, 0.99) < ACTION_TARGET_MS
            and self.percentile(self.events, 0.99) < EVENT_TARGET_MS
            and self.missed == 0
            and not self.errors
        )

    @property
    def generator_saturated(self) -> bool:
        busy = self.worker_cpu + (self.database_cpu or 0.0) + self.generator_cpu
        return (
            self.generator_cpu / self.seconds > GENERATOR_BUSY
            or busy / self.seconds > MACHINE_BUSY * (os.cpu_count() or 1)
        )


def generator_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def database_cpu(database: str | None, until: float) -> float | None:
    """CPU seconds of the PostgreSQL backends of ``database`` from now to ``until`` (each
    backend read every half second, as one that ends takes its time with it)."""
    if database is None:
        await asyncio.sleep(max(until - time.perf_counter(), 0))
        return None
    first = {pid: cpu_seconds(pid) for pid in backends_of(database)}
    last = dict(first)
    while time.perf_counter() < until:
        await asyncio.sleep(min(0.5, max(until - time.perf_counter(), 0)))
        for pid in backends_of(database):
            last[pid] = max(last.get(pid, 0.0), cpu_seconds(pid))
    return sum(spent - first.get(pid, 0.0) for pid, spent in last.items())


async def run_step(
    server: Uvicorn, database: str | None, games: int, arguments: argparse.Namespace
) -> Step:
    """N tables set up (not measured), played for the warm-up and ``--seconds``."""
    think = (arguments.think_ms[0] / 1000, arguments.think_ms[1] / 1000)
    tables = [Table(server.port, arguments.stream, think) for _ in range(games)]
    step = Step(games, arguments.seconds)
    try:
        opening = asyncio.Semaphore(8)  # the set-up is not measured: no need to storm it

        async def opened(table: Table) -> dict[str, Any]:
            async with opening:
                return await table.open()

        first_games = await asyncio.gather(*(opened(table) for table in tables))
        measure_from = time.perf_counter() + arguments.warm_up
        stop_at = measure_from + arguments.seconds
        playing = [
            asyncio.create_task(table.play(game, stop_at))
            for table, game in zip(tables, first_games, strict=True)
        ]
        await asyncio.sleep(arguments.warm_up)
        worker_before, generator_before = server.cpu_seconds(), generator_cpu()
        step.database_cpu = await database_cpu(database, stop_at)
        step.worker_cpu = server.cpu_seconds() - worker_before
        step.generator_cpu = generator_cpu() - generator_before
        step.load = os.getloadavg()[0]
        await asyncio.gather(*playing)
        await asyncio.sleep(1.0)  # the last answers' events, still on their way
        for table in tables:
            table.collect(step, measure_from, stop_at)
    finally:
        for table in tables:
            await table.close()
    return step


def postgres_database(stack: ExitStack) -> tuple[str, str]:
    """A fresh database for this run, dropped on leaving: its name and URL."""
    name = f"penta_capacity_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(libpq(ADMIN_URL), autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with psycopg.connect(libpq(ADMIN_URL), autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    stack.callback(drop)
    return name, make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)


def steps_up_to(steps: list[int], most: int) -> list[int]:
    """The steps below ``most``, then ``most`` itself: the last step is the cap."""
    return sorted({n for n in steps if n < most} | {most})


def measure_database(
    kind: str, table: Path, arguments: argparse.Namespace, baseline: Uvicorn | None
) -> list[Step]:
    """One worker on ``kind``; steps up the games until a step fails the targets twice in a
    row: on a shared machine one stall of another process is enough to put a single sample
    over a p99 of a few hundred, so a failed step is run once more before it is believed
    (both rows are printed, the second marked "again"). With ``--compare-with``, the other
    checkout's worker runs each step right after this one's, on a database of its own; with
    ``baseline``, the bare write runs each step's pace after them (its CPU per write)."""
    steps: list[Step] = []
    with tempfile.TemporaryDirectory(prefix="penta-capacity-") as folder, ExitStack() as stack:
        servers: dict[str, tuple[Uvicorn, str | None]] = {}
        checkouts = {kind: ROOT}
        if arguments.compare_with:
            checkouts["before"] = arguments.compare_with.resolve()
        for name, root in checkouts.items():
            data = Path(folder) / ("this" if name == kind else name)
            data.mkdir()
            env = {**UNLIMITED, "PENTA_DATA_DIR": str(data), "PENTA_STRATEGY_TABLE": str(table)}
            database = None
            if kind == "postgresql":
                database, env["PENTA_DATABASE_URL"] = postgres_database(stack)
            server = Uvicorn("app.main:app", env, log=data / "log", root=root)
            servers[name] = (stack.enter_context(server), database)
        for games in steps_up_to(arguments.steps, arguments.max_games):
            for name, (server, database) in servers.items():
                print(f"{name}: {games} games ...", file=sys.stderr, flush=True)
                step = uvloop.run(run_step(server, database, games, arguments))
                print_row(name, step)
                if not step.passed and arguments.retry:
                    print(f"{name}: {games} games, again ...", file=sys.stderr, flush=True)
                    step = uvloop.run(run_step(server, database, games, arguments))
                    step.again = True
                    print_row(name, step)
                if name == kind:
                    steps.append(step)
            if baseline is not None:
                bare = bare_write(baseline, games, arguments)
                this = steps[-1]
                ratio = (this.worker_cpu / max(len(this.actions), 1)) / bare
                print(
                    f"{'bare':<10} {games:>5} {'':>7} {'':>9} {'':>7} {'':>6} {'':>6} {'':>7} "
                    f"{'':>6} {'':>6} {'':>7} {1000 * bare:>6.2f}  a bare write paced the same; "
                    f"{kind}'s CPU per move {ratio:.1f} times it",
                    flush=True,
                )
            if not steps[-1].passed and not arguments.keep_going:
                break
    return steps


def bare_write(server: Uvicorn, games: int, arguments: argparse.Namespace) -> float:
    """CPU seconds per request of ``bench/baseline_app.py`` (one SQLite write each) with one
    client per game, each thinking as long on average as a seat to move thinks here: the
    same rate of writes as the step's moves."""
    think = sum(arguments.think_ms) / 2 / 1000
    phase = measure(server, "baseline", games, arguments.seconds, 100_000, think)
    return phase.server_cpu / max(len(phase.latencies), 1)


HEADER = (
    f"{'database':<10} {'games':>5} {'streams':>7} {'actions/s':>9} "
    f"{'act p50':>7} {'p95':>6} {'p99':>6} {'evt p50':>7} {'p95':>6} {'p99':>6} "
    f"{'worker%':>7} {'ms/act':>6} {'db%':>4} {'gen%':>4} {'load':>4}  verdict"
)


def print_row(kind: str, step: Step) -> None:
    def pct(seconds: float | None) -> str:
        return "-" if seconds is None else f"{100 * seconds / step.seconds:.0f}"

    p = step.percentile
    per_action = 1000 * step.worker_cpu / max(len(step.actions), 1)
    verdict = ("again: " if step.again else "") + ("ok" if step.passed else "over")
    slow = sum(latency * 1000 >= ACTION_TARGET_MS for latency in step.actions)
    late = sum(latency * 1000 >= EVENT_TARGET_MS for latency in step.events)
    if slow or late:
        verdict += f" ({slow}/{len(step.actions)} actions, {late}/{len(step.events)} events over)"
    if step.missed:
        verdict += f", {step.missed} events missed"
    if step.conflicts:
        verdict += f", {step.conflicts} late (409)"
    if step.errors:
        verdict += ", refused: " + " ".join(f"{n} ({status})" for status, n in step.errors.items())
    if step.generator_saturated:
        verdict += ", GENERATOR/MACHINE SATURATED"
    print(
        f"{kind:<10} {step.games:>5} {SEATS * step.games:>7} "
        f"{len(step.actions) / step.seconds:>9.1f} "
        f"{p(step.actions, 0.5):>7.1f} {p(step.actions, 0.95):>6.1f} "
        f"{p(step.actions, 0.99):>6.1f} {p(step.events, 0.5):>7.1f} "
        f"{p(step.events, 0.95):>6.1f} {p(step.events, 0.99):>6.1f} "
        f"{pct(step.worker_cpu):>7} {per_action:>6.1f} {pct(step.database_cpu):>4} "
        f"{pct(step.generator_cpu):>4}"
        f" {step.load:>4.1f}"
        f"  {verdict}",
        flush=True,
    )


def capacity(steps: list[Step]) -> str:
    """The largest N that passed below the first that failed (twice), or "< first step"."""
    if not steps:
        return "not measured"
    passed = 0
    for step in steps:
        if not step.passed:
            return f"{passed} games" if passed else f"< {step.games} games"
        passed = step.games
    return f"≥ {passed} games (no step failed up to --max-games)"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--steps", type=int, nargs="+", default=[5, 10, 20, 40, 80, 160])
    parser.add_argument("--max-games", type=int, default=160)
    parser.add_argument("--seconds", type=float, default=20.0, help="measured per step")
    parser.add_argument("--warm-up", type=float, default=2.0, help="seconds, not measured")
    parser.add_argument("--think-ms", type=float, nargs=2, default=[1000.0, 2000.0])
    parser.add_argument("--stream", choices=["page", "api"], default="page")
    parser.add_argument(
        "--databases", nargs="+", choices=["sqlite", "postgresql"], default=["sqlite", "postgresql"]
    )
    parser.add_argument(
        "--keep-going", action="store_true", help="run every step, even past a failed one"
    )
    parser.add_argument(
        "--no-retry", dest="retry", action="store_false", help="believe a step's first failure"
    )
    parser.add_argument(
        "--compare-with",
        type=Path,
        metavar="CHECKOUT",
        help="also run each step on Penta from this checkout (git worktree add), right after",
    )
    parser.add_argument(
        "--no-baseline",
        dest="baseline",
        action="store_false",
        help="leave out the bare write paced the same (bench/baseline_app.py) after each step",
    )
    parser.add_argument("--strategy-table", type=Path, default=ROOT / "data" / "bench-strategy")
    arguments = parser.parse_args()
    if not 1 <= arguments.max_games <= 500 or not 0 < arguments.seconds <= 120:
        parser.error("--max-games 1..500 and --seconds up to 120")
    raise_file_limit(4 * SEATS * arguments.max_games + 256)
    table = ensure_strategy_table(arguments.strategy_table)
    one, five, _ = os.getloadavg()
    print(
        f"machine: {os.cpu_count()} cores, load average {one:.2f} (1 min) {five:.2f} (5 min) "
        "before starting\n"
        f"one uvicorn worker; {SEATS} seats a game, each a bot with its own API connection and "
        f"{arguments.stream} stream, thinking {arguments.think_ms[0]:g}-"
        f"{arguments.think_ms[1]:g} ms; {arguments.seconds:g} s measured per step after "
        f"{arguments.warm_up:g} s of warm-up; targets: action p99 < {ACTION_TARGET_MS:g} ms, "
        f"event p99 < {EVENT_TARGET_MS:g} ms; latencies in ms, CPU in % of one core "
        "(ms/act: the worker's CPU ms per action), load = the 1-minute load average at the "
        "step's end (the machine may be shared)\n"
    )
    print(HEADER, flush=True)
    with tempfile.TemporaryDirectory(prefix="penta-bare-") as folder, ExitStack() as stack:
        baseline = None
        if arguments.baseline:
            baseline = stack.enter_context(
                Uvicorn(
                    "bench.baseline_app:app",
                    {"BASELINE_DB": f"{folder}/baseline.db"},
                    log=Path(folder) / "baseline.log",
                )
            )
        results = {
            kind: measure_database(kind, table, arguments, baseline) for kind in arguments.databases
        }
    if any(step.generator_saturated for steps in results.values() for step in steps):
        print(
            "\nwarning: in the steps marked SATURATED the load generator took more than "
            f"{GENERATOR_BUSY:.0%} of a core, or the worker, database and generator together "
            f"more than {MACHINE_BUSY:.0%} of the {os.cpu_count()} cores: the generator competes "
            "with the worker for the CPU, and part of those latencies is its own."
        )
    cores = os.cpu_count() or 1
    busiest = max((step.load for steps in results.values() for step in steps), default=0.0)
    if busiest > cores:
        print(
            f"\nwarning: the load average reached {busiest:.1f} on {cores} cores during the steps:"
            " other processes took turns with the worker and the generator, and the latency "
            "tails are partly theirs; the worker's CPU % and ms/act say how busy it was itself."
        )
    names = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}
    print("\ncapacity: " + ", ".join(f"{names[k]} {capacity(s)}" for k, s in results.items()))


if __name__ == "__main__":
    main()
