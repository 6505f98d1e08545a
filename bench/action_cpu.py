"""CPU per action of the whole app in one process, for comparing two checkouts precisely.

    .venv/bin/python bench/action_cpu.py [--actions 3000] [--rounds 5] [--compare-with CHECKOUT]

``bench/load.py`` measures over loopback with 200 clients, and on a shared machine its
rounds drift by ±20 %. Here one client drives the app through httpx's ASGI transport (no
socket, no server loop), SQLite in a temporary folder, playing games through the bot API
(create, start, then rolls and scores), and the figure is this process's own CPU time
(``time.process_time``) per action: what another process on the machine does counts far
less. With ``--compare-with`` each round runs this checkout and the other one in turn, each
in a fresh process, and the ratio is printed round by round.

``--without-metrics`` compares this checkout with itself, its Prometheus figures not
recorded (prometheus-client's ``inc``, ``set``, ``observe`` and ``labels`` made to do nothing
in that process): what the metrics cost a move (issue #29). ``--instructions`` counts
instructions under ``valgrind --tool=callgrind`` rather than CPU time, only while the
measured actions are played (the child turns callgrind's counting on before them and off
after: not its start nor its warm-up; with ``--idle-ms``, the loop's sleeps are counted too);
repeatable to 0.1 % where CPU time drifts by ±20 %.

``--idle-ms MS`` compares this checkout with itself, its event loop idle for ``MS`` before
each action, as a worker's is between a paced load's requests (``bench/load.py``'s paced
phases). The CPU of the idle time is not counted, only the actions' own (what the app does
after an answer, such as waking its scheduler, then falls in the idle time, so if anything
this undercounts): a move after a pause costs more CPU for the same instructions
(docs/performance.md, "Why a paced move costs more").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHILD = "--child"
METRICS_OFF = "PENTA_BENCH_METRICS_OFF"
"""Set in a child's environment: its metrics record nothing."""
IDLE_MS = "PENTA_BENCH_IDLE_MS"
"""Set in a child's environment: its event loop waits this long before each action."""
CALLGRIND = "PENTA_BENCH_CALLGRIND"
"""Set in a child's environment under callgrind: it counts the measured actions only."""


def _metrics_off() -> None:
    """prometheus-client records nothing in this process (the figures stay at zero)."""
    from prometheus_client import Counter, Gauge, Histogram
    from prometheus_client.metrics import MetricWrapperBase

    def nothing(self: object, *_arguments: object, **_keywords: object) -> None:
        return None

    def same(self: MetricWrapperBase, *_arguments: object, **_keywords: object) -> object:
        return self

    Counter.inc = nothing  # type: ignore[method-assign]
    Gauge.inc = Gauge.dec = Gauge.set = nothing  # type: ignore[method-assign]
    Histogram.observe = nothing  # type: ignore[method-assign]
    MetricWrapperBase.labels = same  # type: ignore[method-assign,assignment]


async def _play(actions: int) -> float:
    import httpx

    from app.settings import Settings
    from app.web.factory import create_app

    idle = float(os.environ.get(IDLE_MS, "0")) / 1000

    folder = tempfile.mkdtemp(prefix="penta-cpu-")
    options: dict[str, object] = {
        "data_dir": Path(folder),
        "strategy_table": Path(os.environ["PENTA_STRATEGY_TABLE"]),
        "secret_key": "bench-secret-key-0123456789abcdef-0123456789",
        "rate_limit_per_minute": 0,
        "actions_per_minute": 0,
        "seat_actions_per_minute": 0,
    }
    if "metrics_token" in Settings.model_fields:  # on, where the checkout has them
        options["metrics_token"] = "bench-metrics-token-0123456789"
    settings = Settings(**options)  # type: ignore[arg-type]
    app = create_app(settings)
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5000))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client,
    ):

        async def new_game() -> tuple[str, dict[str, str]]:
            seat = (await client.post("/api/v1/games", json={"name": "Ann"})).json()
            headers = {"Authorization": f"Bearer {seat['token']}"}
            game_id = seat["game"]["id"]
            await client.post(f"/api/v1/games/{game_id}/start", headers=headers, json={})
            return game_id, headers

        async def act(game_id: str, headers: dict[str, str]) -> tuple[str, dict[str, str]]:
            """One action: reads the game, then rolls or scores (or starts a new game)."""
            game = (await client.get(f"/api/v1/games/{game_id}")).json()
            if game["status"] == "finished":
                return await new_game()
            if game["rolls_left"] > 0 and (game["dice"] is None or game["rolls_left"] > 1):
                answer = await client.post(
                    f"/api/v1/games/{game_id}/roll",
                    headers=headers,
                    json={"hold": [] if game["dice"] is None else [0]},
                )
            else:
                box = max(game["options"], key=game["options"].get)
                answer = await client.post(
                    f"/api/v1/games/{game_id}/score", headers=headers, json={"box": box}
                )
            assert answer.status_code == 200, answer.text
            return game_id, headers

        async def run(count: int) -> float:
            """Plays ``count`` actions; the CPU seconds they took, the idle gaps left out."""
            spent = 0.0
            game_id, headers = await new_game()
            for _ in range(count):
                if idle:
                    await asyncio.sleep(idle)
                started = time.process_time()
                game_id, headers = await act(game_id, headers)
                spent += time.process_time() - started
            return spent

        await run(actions // 5)  # warm-up
        _count_instructions("on")
        spent = await run(actions)
        _count_instructions("off")
        return spent / actions


def _count_instructions(state: str) -> None:
    """Under callgrind (started with its counting off), turns it on or off in this process."""
    if not os.environ.get(CALLGRIND):
        return
    done = subprocess.run(
        ["callgrind_control", f"--instr={state}", str(os.getpid())],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "Error" not in done.stdout, done.stdout


def _child(actions: int) -> None:
    sys.path.insert(0, os.getcwd())
    if os.environ.get(METRICS_OFF):
        _metrics_off()
    print(json.dumps({"cpu_ms": 1000 * asyncio.run(_play(actions))}))


def _run(
    root: Path, actions: int, table: Path, *, metrics: bool, valgrind: bool, idle_ms: float
) -> str:
    """One child's output: its JSON line, and callgrind's report on stderr under valgrind."""
    command = [sys.executable, str(Path(__file__).resolve()), CHILD, str(actions)]
    environment = {**os.environ, "PENTA_STRATEGY_TABLE": str(table), "PYTHONPATH": str(root)}
    if valgrind:
        command = [
            *("valgrind", "--tool=callgrind", "--instr-atstart=no"),
            *("--callgrind-out-file=/dev/null", *command),
        ]
        environment[CALLGRIND] = "1"
    if not metrics:
        environment[METRICS_OFF] = "1"
    if idle_ms:
        environment[IDLE_MS] = str(idle_ms)
    done = subprocess.run(
        command, cwd=root, env=environment, capture_output=True, text=True, check=True
    )
    return done.stdout + done.stderr


def _measure(root: Path, actions: int, table: Path, *, metrics: bool, idle_ms: float) -> float:
    """CPU ms per action of one child."""
    output = _run(root, actions, table, metrics=metrics, valgrind=False, idle_ms=idle_ms)
    line = next(line for line in reversed(output.splitlines()) if line.startswith("{"))
    cpu_ms: float = json.loads(line)["cpu_ms"]
    return cpu_ms


def _instructions(root: Path, actions: int, table: Path, *, metrics: bool, idle_ms: float) -> float:
    """Thousands of instructions per action: a child under callgrind, which counts only
    while it plays the measured actions (not its start nor its warm-up)."""
    output = _run(root, actions, table, metrics=metrics, valgrind=True, idle_ms=idle_ms)
    found = re.search(r"Collected : (\d+)", output)
    assert found, output[-2000:]
    return int(found.group(1)) / actions / 1000


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == CHILD:
        _child(int(sys.argv[2]))
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=3000, help="measured actions a round")
    parser.add_argument("--rounds", type=int, default=5)
    other = parser.add_mutually_exclusive_group()
    other.add_argument("--compare-with", type=Path, metavar="CHECKOUT")
    other.add_argument(
        "--without-metrics", action="store_true", help="compare with this checkout, metrics off"
    )
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions (callgrind), not time"
    )
    other.add_argument(
        "--idle-ms",
        type=float,
        default=0.0,
        help="compare with this checkout, its loop idle this long before each action",
    )
    parser.add_argument("--strategy-table", type=Path, default=ROOT / "data" / "strategy")
    arguments = parser.parse_args()
    roots = {"this": (ROOT, True, 0.0)}
    if arguments.compare_with:
        roots["other"] = (arguments.compare_with.resolve(), True, 0.0)
    elif arguments.without_metrics:
        roots["other"] = (ROOT, False, 0.0)
    elif arguments.idle_ms:
        roots = {"idle": (ROOT, True, arguments.idle_ms), "other": roots["this"]}
    measure = _instructions if arguments.instructions else _measure
    unit = "k instructions" if arguments.instructions else "ms"
    what = "instructions" if arguments.instructions else "CPU"
    figures: dict[str, list[float]] = {name: [] for name in roots}
    for number in range(arguments.rounds):
        order = list(roots)[:: 1 if number % 2 == 0 else -1]
        for name in order:
            root, metrics, idle_ms = roots[name]
            figures[name].append(
                measure(
                    root,
                    arguments.actions,
                    arguments.strategy_table,
                    metrics=metrics,
                    idle_ms=idle_ms,
                )
            )
        print(
            f"round {number + 1}: "
            + ", ".join(f"{name} {figures[name][-1]:.3f} {unit}" for name in roots),
            flush=True,
        )
    for name, values in figures.items():
        root, metrics, idle_ms = roots[name]
        where = f"{root}{'' if metrics else ', metrics off'}"
        where += f", {idle_ms:g} ms idle before each action" if idle_ms else ""
        print(f"{name} ({where}): {what} per action, median {statistics.median(values):.3f} {unit}")
    if "other" in figures:
        first = next(iter(figures))
        ratios = [a / b for a, b in zip(figures[first], figures["other"], strict=True)]
        print(
            f"{first} / other, round by round "
            + " ".join(f"{ratio:.3f}" for ratio in ratios)
            + f", median {statistics.median(ratios):.3f}"
        )


if __name__ == "__main__":
    main()
