"""Load benchmark: N concurrent games against a real uvicorn process, next to a bare baseline.

    .venv/bin/python bench/load.py [--games 200] [--rounds 5] [--think-ms 1000 500]

Starts Penta (one uvicorn worker, SQLite, loopback only) and the baseline of
``bench/baseline_app.py`` (a bare FastAPI endpoint doing one SQLite write per request), then
measures each in phases with the same number of concurrent clients:

* **saturation**: every client sends its next request as soon as the last one is answered,
  so the figure is the server's capacity in actions/s. At a fixed concurrency the latency
  here is set by Little's law (clients / throughput), not by the speed of one request.
* **paced**, once for each ``--think-ms``: every client thinks that long (±50 %, at random)
  between requests, as a player or a bot does; the figures to watch are the latencies, p50
  and p99. At 1000 ms, 200 games offer about 200 actions/s, at 500 ms about 400: loads that
  both servers carry, so the latencies are those of a server with room to spare. (At
  250 ms they would offer 800 actions/s, more than Penta's capacity and near the
  baseline's: the latency is then queueing, as in the saturation phase.)

Each Penta client first creates and starts its game through the bot API (not measured), then
plays it: rolls with holds and a score per round; a finished game is followed by a new one,
whose creation counts as actions too. The baseline's client POSTs one write per request.
The first second of each phase is a warm-up, not measured; each phase is bounded by
``--seconds`` and ``--max-requests``. The client runs on uvloop, as the servers do, so
that it takes as little as it can of the two cores it shares with them. Prints a table and
the ratios Penta / baseline round by round, with their median.

``--compare-with CHECKOUT`` runs a third server, Penta from another checkout (``git worktree
add ../before <commit>``), in the same rounds, and prints this checkout's CPU per action
against it round by round: what a change costs, measured in one run. This checkout runs
with its metrics on (``PENTA_METRICS_TOKEN`` set), as an operator who scrapes them would.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvloop

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.client import Answer, Connection  # noqa: E402
from bench.servers import Uvicorn, ensure_strategy_table  # noqa: E402

WARM_UP_SECONDS = 1.0


@dataclass
class Phase:
    """What one phase measured."""

    latencies: list[float] = field(default_factory=list)
    errors: dict[int, int] = field(default_factory=dict)
    started: float = 0.0
    stopped: float = 0.0
    server_cpu: float = 0.0

    @property
    def seconds(self) -> float:
        return self.stopped - self.started

    @property
    def throughput(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds > 0 else 0.0

    def percentile(self, share: float) -> float:
        """The latency below which ``share`` of the requests were answered, in ms."""
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000


class Budget:
    """The measured window of a phase (after the warm-up) and its request limit."""

    def __init__(self, seconds: float, limit: int, cpu: Callable[[], float]) -> None:
        self.seconds = seconds
        self.limit = limit
        self.cpu = cpu
        self.measure_from = self.deadline = float("inf")
        self.phase = Phase()

    def start(self) -> None:
        self.measure_from = time.perf_counter() + WARM_UP_SECONDS
        self.deadline = self.measure_from + self.seconds
        self.phase.started, self.phase.stopped = self.measure_from, self.deadline
        self.phase.server_cpu = -self.cpu()

    def open(self) -> bool:
        return time.perf_counter() < self.deadline and len(self.phase.latencies) < self.limit

    async def timed(self, request: Awaitable[Answer]) -> Answer:
        started = time.perf_counter()
        answer = await request
        finished = time.perf_counter()
        if started >= self.measure_from and finished <= self.deadline:
            self.phase.latencies.append(finished - started)
            if answer.status >= 400:
                self.phase.errors[answer.status] = self.phase.errors.get(answer.status, 0) + 1
        return answer


async def think(seconds: float) -> None:
    if seconds > 0:
        await asyncio.sleep(random.uniform(0.5, 1.5) * seconds)


class PentaPlayer:
    """A bot playing one game after another through the API on its own connection."""

    def __init__(self, connection: Connection, budget: Budget, think_seconds: float) -> None:
        self.connection = connection
        self.budget = budget
        self.think_seconds = think_seconds
        self.game: dict[str, Any] = {}
        self.auth: dict[str, str] = {}

    async def prepare(self) -> None:
        """Create and start a game."""
        created = await self.budget.timed(
            self.connection.request("POST", "/api/v1/games", {"name": "Bench"})
        )
        if created.status != 201:
            raise RuntimeError(f"creating a game answered {created.status}: {created.body!r}")
        game_id = created.json()["game"]["id"]
        self.auth = {"Authorization": f"Bearer {created.json()['token']}"}
        started = await self.budget.timed(
            self.connection.request("POST", f"/api/v1/games/{game_id}/start", headers=self.auth)
        )
        self.game = started.json()

    async def play(self) -> None:
        """Play until the budget runs out, starting a new game after each finished one."""
        while self.budget.open():
            if self.game.get("status") != "playing":
                await self.prepare()
                continue
            await think(self.think_seconds)
            body = _next_action(self.game)
            action = "score" if "box" in body else "roll"
            answer = await self.budget.timed(
                self.connection.request(
                    "POST", f"/api/v1/games/{self.game['id']}/{action}", body, headers=self.auth
                )
            )
            if answer.status != 200:
                raise RuntimeError(f"{action} answered {answer.status}: {answer.body!r}")
            self.game = answer.json()


def _next_action(game: dict[str, Any]) -> dict[str, Any]:
    """Keep the most common value and roll the rest; score the best box after the third
    roll (or, one time in ten, as soon as a box is open)."""
    dice: list[int] | None = game["dice"]
    if dice is None:
        return {"hold": [], "version": game["version"]}
    if game["rolls_left"] == 0 or (game["options"] and random.random() < 0.1):
        box = max(game["options"], key=lambda name: game["options"][name])
        return {"box": box, "version": game["version"]}
    most = max(set(dice), key=dice.count)
    hold = [index for index, value in enumerate(dice) if value == most]
    return {"hold": hold, "version": game["version"]}


class BaselineWriter:
    """A client of the baseline: one write per request."""

    def __init__(self, connection: Connection, budget: Budget, think_seconds: float) -> None:
        self.connection = connection
        self.budget = budget
        self.think_seconds = think_seconds

    async def prepare(self) -> None:
        return None

    async def play(self) -> None:
        while self.budget.open():
            await think(self.think_seconds)
            answer = await self.budget.timed(self.connection.request("POST", "/write/bench"))
            if answer.status != 200:
                raise RuntimeError(f"the baseline answered {answer.status}")


async def run_phase(
    port: int, clients: int, budget: Budget, make: Callable[[Connection], PentaPlayer]
) -> Phase:
    connections = [Connection("127.0.0.1", port) for _ in range(clients)]
    players = [make(connection) for connection in connections]
    try:
        await asyncio.gather(*(player.prepare() for player in players))
        budget.start()
        await asyncio.gather(*(player.play() for player in players))
    finally:
        for connection in connections:
            await connection.close()
    budget.phase.stopped = min(budget.phase.stopped, time.perf_counter())
    budget.phase.server_cpu += budget.cpu()
    return budget.phase


def measure(
    server: Uvicorn, kind: str, clients: int, seconds: float, limit: int, think_seconds: float
) -> Phase:
    budget = Budget(seconds, limit, server.cpu_seconds)
    player = PentaPlayer if kind == "penta" else BaselineWriter

    def make(connection: Connection) -> PentaPlayer:
        return player(connection, budget, think_seconds)  # type: ignore[return-value]

    return uvloop.run(run_phase(server.port, clients, budget, make))


def raise_file_limit(needed: int) -> None:
    """Raise the soft limit of open files to ``needed`` (up to the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(needed, hard), hard))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="concurrent games (and clients)")
    parser.add_argument("--seconds", type=float, default=4.0, help="measured seconds per phase")
    parser.add_argument("--rounds", type=int, default=5, help="phases of each, interleaved")
    parser.add_argument("--max-requests", type=int, default=100_000, help="per phase")
    parser.add_argument(
        "--think-ms",
        type=float,
        nargs="+",
        default=[1000.0, 500.0],
        help="think times of the paced phases (one paced phase for each)",
    )
    parser.add_argument("--strategy-table", type=Path, default=ROOT / "data" / "strategy")
    parser.add_argument(
        "--compare-with",
        type=Path,
        metavar="CHECKOUT",
        help="also run Penta from this checkout (an earlier commit: git worktree add), "
        "interleaved, and print this one's CPU per action against it round by round",
    )
    arguments = parser.parse_args()
    paces = [("saturation", 0.0)] + [(f"paced {ms:g} ms", ms) for ms in arguments.think_ms]
    if not 1 <= arguments.games <= 1000 or not (
        0 < arguments.seconds * arguments.rounds * len(paces) <= 600
    ):
        parser.error("at most 1000 games and 600 measured seconds per server in all")
    raise_file_limit(4 * arguments.games + 256)
    table = ensure_strategy_table(arguments.strategy_table)
    results: dict[tuple[str, str], list[Phase]] = {}
    with tempfile.TemporaryDirectory(prefix="penta-load-") as folder, ExitStack() as stack:
        penta_env = {
            "PENTA_DATA_DIR": f"{folder}/penta",
            "PENTA_STRATEGY_TABLE": str(table),
            # One client address plays every game at machine speed: the limits per client
            # (app/web/plumbing/limits.py, app/web/plumbing/connections.py) would refuse it, so
            # they are off.
            "PENTA_RATE_LIMIT_PER_MINUTE": "0",
            "PENTA_ACTIONS_PER_MINUTE": "0",
            "PENTA_SEAT_ACTIONS_PER_MINUTE": "0",
            "PENTA_MAX_CONNECTIONS": "0",
            "PENTA_MAX_CONNECTIONS_PER_ADDRESS": "0",
        }
        # The metrics are on, as an operator who scrapes them runs it (app/metrics.py).
        metrics = {"PENTA_METRICS_TOKEN": "bench-metrics-token-0123456789"}
        servers = {
            "penta": stack.enter_context(
                Uvicorn("app.main:app", {**penta_env, **metrics}, log=Path(folder) / "penta.log")
            ),
            "baseline": stack.enter_context(
                Uvicorn(
                    "bench.baseline_app:app",
                    {"BASELINE_DB": f"{folder}/baseline.db"},
                    log=Path(folder) / "baseline.log",
                )
            ),
        }
        if arguments.compare_with:
            before_env = {**penta_env, "PENTA_DATA_DIR": f"{folder}/before"}
            servers["before"] = stack.enter_context(
                Uvicorn(
                    "app.main:app",
                    before_env,
                    log=Path(folder) / "before.log",
                    root=arguments.compare_with.resolve(),
                )
            )
        # Each phase of Penta runs next to the same phase of the baseline, in an order that
        # alternates from round to round, and the ratios are taken round by round: this
        # machine is shared, and its speed drifts by tens of percent within a minute.
        kinds = list(servers)
        for round_number in range(arguments.rounds):
            for pace, think_ms in paces:
                shift = round_number % len(kinds)
                order = (kinds[shift:] + kinds[:shift])[:: 1 if round_number % 2 == 0 else -1]
                for kind in order:
                    print(f"round {round_number + 1}: {kind}, {pace}", file=sys.stderr, flush=True)
                    results.setdefault((kind, pace), []).append(
                        measure(
                            servers[kind],
                            "baseline" if kind == "baseline" else "penta",
                            arguments.games,
                            arguments.seconds,
                            arguments.max_requests,
                            think_ms / 1000,
                        )
                    )
    report(results, [pace for pace, _ in paces], arguments)


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _median_phase(phases: list[Phase]) -> Phase:
    """The phase of median throughput."""
    return sorted(phases, key=lambda phase: phase.throughput)[len(phases) // 2]


def report(
    results: dict[tuple[str, str], list[Phase]], paces: list[str], arguments: argparse.Namespace
) -> None:
    print(
        f"\n{arguments.games} concurrent games; {arguments.rounds} rounds of "
        f"{arguments.seconds:g} s per phase and server; paced phases: think time ±50 %; "
        f"one uvicorn worker, SQLite, loopback, {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f}. Each row is the phase of median throughput.\n"
    )
    header = (
        f"{'phase':<16} {'server':<9} {'actions/s':>10} {'p50 ms':>8} {'p99 ms':>8} "
        f"{'requests':>9} {'errors':>7} {'cpu ms/action':>14}"
    )
    print(header)
    print("-" * len(header))
    kinds = [kind for kind in ("penta", "before", "baseline") if (kind, paces[0]) in results]
    for pace in paces:
        for kind in kinds:
            phase = _median_phase(results[kind, pace])
            cpu_ms = 1000 * phase.server_cpu / max(len(phase.latencies), 1)
            print(
                f"{pace:<16} {kind:<9} {phase.throughput:>10.0f} {phase.percentile(0.5):>8.1f} "
                f"{phase.percentile(0.99):>8.1f} {len(phase.latencies):>9} "
                f"{sum(phase.errors.values()):>7} {cpu_ms:>14.2f}"
            )
    print()
    for pace in paces:
        pairs = list(zip(results["penta", pace], results["baseline", pace], strict=True))
        ratios = [penta.throughput / baseline.throughput for penta, baseline in pairs]
        p99 = [penta.percentile(0.99) for penta, _ in pairs]
        base_p99 = [baseline.percentile(0.99) for _, baseline in pairs]
        print(
            f"{pace}: Penta/baseline throughput, round by round "
            + " ".join(f"{ratio:.0%}" for ratio in ratios)
            + f", median {_median(ratios):.0%}; Penta p99 ms "
            + " ".join(f"{value:.1f}" for value in p99)
            + f", median {_median(p99):.1f} (baseline {_median(base_p99):.1f})"
        )

    if "before" in kinds:
        print()
        for pace in paces:
            pairs = list(zip(results["penta", pace], results["before", pace], strict=True))
            ratios = [_cpu_per_action(now) / _cpu_per_action(then) for now, then in pairs]
            before_p99 = [then.percentile(0.99) for _, then in pairs]
            print(
                f"{pace}: CPU per action, this checkout / {arguments.compare_with}, round by "
                "round "
                + " ".join(f"{ratio:.2f}" for ratio in ratios)
                + f", median {_median(ratios):.2f}; its p99 ms "
                + " ".join(f"{value:.1f}" for value in before_p99)
                + f", median {_median(before_p99):.1f}"
            )


def _cpu_per_action(phase: Phase) -> float:
    return phase.server_cpu / max(len(phase.latencies), 1)


if __name__ == "__main__":
    main()
