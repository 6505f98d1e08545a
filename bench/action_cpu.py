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

``--page-streams`` plays four-player games instead, each seat with the page's live stream open
(``/games/{id}/events`` with its seat cookie, driven in the same process as the app, through
its ASGI interface), and an action is counted once every stream has shown the version it made:
the issue's "a move with four browsers watching" (#25), with no HTTP server. ``--bare`` (with
``--page-streams`` only: the bots' moves go through httpx) adds ``bench/baseline_app.py``'s
write to each round, driven the same way, and the ratio to it: the bare write measured in the
same run, with the same client and no server either. (Callgrind also counts the start of each
run's first game and the closing of its last game's streams, which the CPU time leaves out.)

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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CHILD = "--child"
METRICS_OFF = "PENTA_BENCH_METRICS_OFF"
"""Set in a child's environment: its metrics record nothing."""
IDLE_MS = "PENTA_BENCH_IDLE_MS"
"""Set in a child's environment: its event loop waits this long before each action."""
CALLGRIND = "PENTA_BENCH_CALLGRIND"
"""Set in a child's environment under callgrind: it counts the measured actions only."""
MODE = "PENTA_BENCH_MODE"
"""Set in a child's environment: what it plays (``BOT`` by default, ``WATCHED`` or ``BARE``)."""
BOT, WATCHED, BARE = "bot", "page-streams", "bare"
SEATS = 4
"""The players of a game with ``--page-streams``, each with a stream."""
_STREAM_EVENTS = (b"event: update\nid: ", b"event: change\nid: ")
"""How a page stream's game events begin (each their own ``data:`` line after that)."""


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


def _app(folder: Path) -> Any:
    """The app of the checkout this child runs on, SQLite in ``folder``, no limits."""
    from app.settings import Settings
    from app.web.factory import create_app

    options: dict[str, object] = {
        "data_dir": folder,
        "strategy_table": Path(os.environ["PENTA_STRATEGY_TABLE"]),
        "secret_key": "bench-secret-key-0123456789abcdef-0123456789",
        "rate_limit_per_minute": 0,
        "actions_per_minute": 0,
        "seat_actions_per_minute": 0,
    }
    if "metrics_token" in Settings.model_fields:  # on, where the checkout has them
        options["metrics_token"] = "bench-metrics-token-0123456789"
    settings = Settings(**options)  # type: ignore[arg-type]
    return create_app(settings)


async def _play(actions: int, folder: Path) -> float:
    import httpx

    idle = float(os.environ.get(IDLE_MS, "0")) / 1000
    app = _app(folder)
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

        return await _measured(run, actions)


def _scope(method: str, path: str, headers: list[tuple[bytes, bytes]], query: str = "") -> Any:
    """An HTTP request's ASGI scope, as uvicorn makes it (from 127.0.0.1)."""
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1"), *headers],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 80),
    }


async def _request(
    app: Any, method: str, path: str, body: Any = None, token: str | None = None
) -> tuple[int, Any]:
    """One request straight through the app's ASGI interface (no client library, whose own
    CPU would be counted with the app's): its status and its JSON answer."""
    content = json.dumps(body).encode() if body is not None else b""
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(content))]
    if token is not None:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    messages = [{"type": "http.request", "body": content, "more_body": False}]
    status, answer = 0, bytearray()

    async def receive() -> dict[str, Any]:
        return messages.pop() if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            answer.extend(message.get("body", b""))

    await app(_scope(method, path, headers), receive, send)
    return status, json.loads(answer) if answer else None


class Stream:
    """One seat's page stream, driven through the app's ASGI interface: the newest version
    its ``update`` and ``change`` events have shown."""

    def __init__(self, app: Any, game_id: str, token: str, version: int) -> None:
        self.newest = 0
        self.changed = asyncio.Event()
        self.closed = asyncio.Event()
        self.asked = False
        cookie = (b"cookie", f"penta_seat_{game_id}={token}".encode())
        headers = [(b"accept", b"text/event-stream"), cookie]
        scope = _scope("GET", f"/games/{game_id}/events", headers, f"version={version}")
        self.task = asyncio.create_task(app(scope, self.receive, self.send))

    async def receive(self) -> dict[str, Any]:
        if not self.asked:
            self.asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.closed.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            assert message["status"] == 200, message
        for event in message.get("body", b"").split(b"\n\n"):
            if event.startswith(_STREAM_EVENTS):
                start = len(_STREAM_EVENTS[0])
                self.newest = max(self.newest, int(event[start : event.index(b"\n", start)]))
                self.changed.set()

    async def seen(self, version: int) -> None:
        while self.newest < version:
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), 10)
            except TimeoutError:
                if self.task.done():
                    self.task.result()  # the stream's own error, rather than the wait's
                raise

    async def close(self) -> None:
        self.closed.set()
        await asyncio.wait_for(self.task, 10)


def _next_action(game: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Keep the most common value and roll the rest; after the third roll, score the box
    that scores most (no randomness: both checkouts play alike, dice aside)."""
    dice: list[int] | None = game["dice"]
    if dice is None:
        return "roll", {"hold": []}
    if game["rolls_left"] == 0:
        return "score", {"box": max(game["options"], key=game["options"].get)}
    most = max(set(dice), key=dice.count)
    return "roll", {"hold": [index for index, value in enumerate(dice) if value == most]}


async def _play_watched(actions: int, folder: Path) -> float:
    """Four-player games, each seat's page stream open; an action ends when every stream has
    shown its version. The CPU seconds per action."""
    app = _app(folder)
    async with app.router.lifespan_context(app):

        async def new_game() -> tuple[dict[str, Any], list[str], list[Stream]]:
            _, created = await _request(app, "POST", "/api/v1/games", {"name": "Seat 1"})
            game_id, tokens = created["game"]["id"], [created["token"]]
            for number in range(2, SEATS + 1):
                path = f"/api/v1/games/{game_id}/players"
                _, joined = await _request(app, "POST", path, {"name": f"Seat {number}"})
                tokens.append(joined["token"])
            version = created["game"]["version"]
            streams = [Stream(app, game_id, token, version) for token in tokens]
            path = f"/api/v1/games/{game_id}/start"
            status, started = await _request(app, "POST", path, {}, tokens[0])
            assert status == 200, started
            return started, tokens, streams

        async def run(count: int) -> float:
            spent = 0.0
            game, tokens, streams = await new_game()
            for _ in range(count):
                started = time.process_time()
                if game["status"] != "playing":
                    for stream in streams:
                        await stream.close()
                    game, tokens, streams = await new_game()
                action, body = _next_action(game)
                path = f"/api/v1/games/{game['id']}/{action}"
                status, game = await _request(app, "POST", path, body, tokens[game["turn"]])
                assert status == 200, game
                for stream in streams:
                    await stream.seen(game["version"])
                spent += time.process_time() - started
            for stream in streams:
                await stream.close()
            return spent

        return await _measured(run, actions)


async def _play_bare(actions: int, folder: Path) -> float:
    """``bench/baseline_app.py``'s write, one a request, driven alike."""
    os.environ["BASELINE_DB"] = str(folder / "bare.db")
    sys.path.insert(0, str(ROOT))
    from bench.baseline_app import app

    async def run(count: int) -> float:
        started = time.process_time()
        for number in range(count):
            status, answer = await _request(app, "POST", f"/write/game-{number % 200}")
            assert status == 200, answer
        return time.process_time() - started

    return await _measured(run, actions)


async def _measured(run: Callable[[int], Awaitable[float]], actions: int) -> float:
    """The CPU seconds per action of ``run(actions)``, after a fifth as many to warm up;
    under callgrind, only those actions are counted."""
    await run(actions // 5)
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
    play = {BOT: _play, WATCHED: _play_watched, BARE: _play_bare}[os.environ.get(MODE, BOT)]
    with tempfile.TemporaryDirectory(prefix="penta-cpu-") as folder:
        cpu_seconds = asyncio.run(play(actions, Path(folder)))
    print(json.dumps({"cpu_ms": 1000 * cpu_seconds}))


@dataclass(frozen=True)
class Run:
    """What one child measures: the checkout, whether its metrics record, its idle time before
    each action, and what it plays (``BOT``, ``WATCHED`` or ``BARE``)."""

    root: Path
    metrics: bool = True
    idle_ms: float = 0.0
    mode: str = BOT

    def describe(self) -> str:
        where = f"{self.root}{'' if self.metrics else ', metrics off'}"
        where += f", {self.idle_ms:g} ms idle before each action" if self.idle_ms else ""
        return f"{where}, {self.mode}" if self.mode != BOT else where


def _run(run: Run, actions: int, table: Path, *, valgrind: bool) -> str:
    """One child's output: its JSON line, and callgrind's report on stderr under valgrind."""
    command = [sys.executable, str(Path(__file__).resolve()), CHILD, str(actions)]
    environment = {
        **os.environ,
        "PENTA_STRATEGY_TABLE": str(table),
        "PYTHONPATH": str(run.root),
        MODE: run.mode,
    }
    if valgrind:
        command = [
            *("valgrind", "--tool=callgrind", "--instr-atstart=no"),
            *("--callgrind-out-file=/dev/null", *command),
        ]
        environment[CALLGRIND] = "1"
    if not run.metrics:
        environment[METRICS_OFF] = "1"
    if run.idle_ms:
        environment[IDLE_MS] = str(run.idle_ms)
    done = subprocess.run(
        command, cwd=run.root, env=environment, capture_output=True, text=True, check=True
    )
    return done.stdout + done.stderr


def _measure(run: Run, actions: int, table: Path) -> float:
    """CPU ms per action of one child."""
    output = _run(run, actions, table, valgrind=False)
    line = next(line for line in reversed(output.splitlines()) if line.startswith("{"))
    cpu_ms: float = json.loads(line)["cpu_ms"]
    return cpu_ms


def _instructions(run: Run, actions: int, table: Path) -> float:
    """Thousands of instructions per action: a child under callgrind, which counts only
    while it plays the measured actions (not its start nor its warm-up)."""
    output = _run(run, actions, table, valgrind=True)
    found = re.search(r"Collected : (\d+)", output)
    assert found, output[-2000:]
    return int(found.group(1)) / actions / 1000


def _ratios(figures: dict[str, list[float]], first: str, second: str) -> str:
    ratios = [a / b for a, b in zip(figures[first], figures[second], strict=True)]
    each = " ".join(f"{ratio:.3f}" for ratio in ratios)
    return f"{first} / {second}, round by round {each}, median {statistics.median(ratios):.3f}"


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
    parser.add_argument(
        "--page-streams",
        action="store_true",
        help="four-player games, each seat's page stream open; a move counted once all show it",
    )
    parser.add_argument(
        "--bare",
        action="store_true",
        help="also the bare write (bench/baseline_app.py), each round",
    )
    parser.add_argument("--strategy-table", type=Path, default=ROOT / "data" / "strategy")
    arguments = parser.parse_args()
    if arguments.bare and not arguments.page_streams:
        parser.error("--bare goes with --page-streams (the bots' moves go through httpx)")
    if arguments.idle_ms and arguments.page_streams:
        parser.error("--idle-ms is for the bots' moves, not --page-streams")
    mode = WATCHED if arguments.page_streams else BOT
    runs = {"this": Run(ROOT, mode=mode)}
    if arguments.compare_with:
        runs["other"] = Run(arguments.compare_with.resolve(), mode=mode)
    elif arguments.without_metrics:
        runs["other"] = Run(ROOT, metrics=False, mode=mode)
    elif arguments.idle_ms:
        runs = {"idle": Run(ROOT, idle_ms=arguments.idle_ms, mode=mode), "other": runs["this"]}
    if arguments.bare:
        runs["bare"] = Run(ROOT, mode=BARE)
    measure = _instructions if arguments.instructions else _measure
    unit = "k instructions" if arguments.instructions else "ms"
    what = "instructions" if arguments.instructions else "CPU"
    figures: dict[str, list[float]] = {name: [] for name in runs}
    for number in range(arguments.rounds):
        order = list(runs)[:: 1 if number % 2 == 0 else -1]
        for name in order:
            figures[name].append(measure(runs[name], arguments.actions, arguments.strategy_table))
        print(
            f"round {number + 1}: "
            + ", ".join(f"{name} {figures[name][-1]:.3f} {unit}" for name in runs),
            flush=True,
        )
    for name, values in figures.items():
        median = statistics.median(values)
        print(f"{name} ({runs[name].describe()}): {what} per action, median {median:.3f} {unit}")
    first = next(iter(figures))
    for second in ("other", "bare"):
        if second in figures:
            print(_ratios(figures, first, second))
    if "other" in figures and "bare" in figures:
        print(_ratios(figures, "other", "bare"))


if __name__ == "__main__":
    main()
