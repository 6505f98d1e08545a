"""The peer project SanderKaatee/yahtzee (Node, Socket.IO 4, better-sqlite3) under the load of
``bench/capacity.py``: N four-player games, a socket per player, the player to move thinking
``--think-min``..``--think-max`` seconds before each action. For comparing server CPU per action.

Build the peer beside this checkout (it is never copied here; this driver only talks to it):

    fetch github:SanderKaatee/yahtzee  # or git clone it, to /work/peer
    cd /work/peer && npm_config_nodedir=/usr npm ci && npm run build

Run (``websockets`` and ``uvloop`` are in the repository's venv):

    .venv/bin/python bench/peer.py --peer-dir /work/peer [--steps 20 80 200] [--seconds 15]

Each step starts ``node server.js`` afresh (PORT set) in a temporary copy of the peer, so its
SQLite file (``../data/yahtzee.db`` from the copy) lands in that temporary folder, and kills its
process group at the end. The driver speaks Engine.IO 4 / Socket.IO over plain websockets
(namespace ``/yahtzee``). A game is create-room, three join-room, start-game; the mover then
sends roll-dice, toggle-hold (one die per event) or score-category, each one action: three
rolls (one time in ten it scores after fewer), after a roll that leaves rolls, half the time
the dice of its most common value are held (up to two toggles, each after its own think), then
the first open category is scored. A finished game is followed by a new one on the same sockets.
Measured after ``--warm-up``, for ``--seconds``:

* act: emit -> the first ``room-state`` at the mover's socket that shows the action;
* evt: emit -> that state at each of the three other sockets (no separate answer exists);
* cpu% / ms/act: user+system CPU of the node process group over the window, per action;
* bytes/act: websocket payload received by all sockets in the window, per action;
* gen%: this driver's own CPU (on two cores it competes with the server).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvloop
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

PREFIX = b"42/yahtzee,"
CATEGORIES = [
    *("ones", "twos", "threes", "fours", "fives", "sixes", "threeOfAKind", "fourOfAKind"),
    *("fullHouse", "smallStraight", "largeStraight", "yahtzee", "chance"),
]
TICKS = os.sysconf("SC_CLK_TCK")
HEADER = (
    "peer  games  actions/s  act p50   p95   p99  evt p50   p99  cpu%  ms/act  bytes/act"
    "  gen%  mix roll/hold/score  setup s"
)


class Peer:
    """``node server.js`` of a temporary copy of the peer (node_modules linked, not copied)."""

    def __init__(self, source: Path) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="peer-bench-"))
        copy = self.folder / "peer"
        skip = shutil.ignore_patterns("node_modules", ".git", "data")
        shutil.copytree(source, copy, ignore=skip, symlinks=True)
        (copy / "node_modules").symlink_to(source.resolve() / "node_modules")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.log = (self.folder / "server.log").open("wb")
        environment = {**os.environ, "PORT": str(self.port)}
        environment.pop("NODE_ENV", None)  # production moves the socket path and the database
        self.process = subprocess.Popen(
            ["node", "server.js"], cwd=copy, env=environment, stdout=self.log,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    async def listening(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError((self.folder / "server.log").read_text()[-2000:])
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", self.port)
                writer.close()
                return
            except OSError:
                await asyncio.sleep(0.1)
        raise RuntimeError("the peer did not listen")

    def cpu_seconds(self) -> float:
        """User and system CPU of every process in the peer's group (and reaped children)."""
        total = 0
        for entry in Path("/proc").iterdir():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[2]) == self.process.pid:  # the process group
                total += sum(int(value) for value in fields[11:15])
        return total / TICKS

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


@dataclass
class Action:
    kind: str
    mover: int
    sent: float
    room: str | None
    check: Any  # state -> whether the state shows this action
    arrivals: dict[int, float] = field(default_factory=dict)
    shown: asyncio.Event = field(default_factory=asyncio.Event)


class Seat:
    """One player's socket: the Socket.IO framing, the newest state of its room."""

    def __init__(self, game: Game, number: int) -> None:
        self.game, self.number = game, number
        self.state: dict[str, Any] | None = None
        self.changed = asyncio.Event()
        self.waiting: dict[str, asyncio.Future[Any]] = {}
        self.ws: ClientConnection | None = None
        self.reading: asyncio.Task[None] | None = None

    async def open(self, port: int) -> None:
        url = f"ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket"
        self.ws = await connect(url, compression=None, max_size=None, ping_interval=None,
                                proxy=None)  # fmt: skip
        opened = await self.ws.recv(decode=False)  # 0{"sid":...,"pingInterval":...}
        if not opened.startswith(b"0"):
            raise RuntimeError(f"no Engine.IO open: {opened[:100]!r}")
        connected = self.expect("connected")
        await self.ws.send("40/yahtzee,")
        self.reading = asyncio.create_task(self.read())
        await connected

    def expect(self, name: str) -> asyncio.Future[Any]:
        self.waiting[name] = asyncio.get_running_loop().create_future()
        return self.waiting[name]

    async def emit(self, name: str, data: dict[str, Any]) -> None:
        assert self.ws is not None
        await self.ws.send(PREFIX.decode() + json.dumps([name, data]))

    async def read(self) -> None:
        assert self.ws is not None
        try:
            while True:
                message = await self.ws.recv(decode=False)
                arrived = time.perf_counter()
                self.game.bench.received += len(message)
                if message == b"2":  # Engine.IO ping
                    await self.ws.send("3")
                elif message.startswith(b"40/yahtzee,"):
                    self.resolve("connected", None)
                elif message.startswith(PREFIX) and not message.startswith(b'["room-list"', 11):
                    name, *arguments = json.loads(message[len(PREFIX) :])
                    self.on_event(name, arguments[0] if arguments else None, arrived)
                elif message.startswith(b"44/yahtzee,"):
                    raise RuntimeError(f"namespace refused: {message!r}")
        except ConnectionClosed:
            pass

    def resolve(self, name: str, data: Any) -> None:
        if (future := self.waiting.pop(name, None)) and not future.done():
            future.set_result(data)

    def on_event(self, name: str, data: Any, arrived: float) -> None:
        if name == "room-state":
            if data.get("id") != self.game.room:
                return  # the previous game's room
            self.state = data
            for action in self.game.actions[-3:]:  # a socket may lag the mover's
                if action.room != data["id"] or self.number in action.arrivals:
                    continue
                if action.check(data):
                    action.arrivals[self.number] = arrived
                    if self.number == action.mover:
                        action.shown.set()
            self.changed.set()
        elif name == "error":
            self.game.bench.errors[str(data)] += 1
            if self.game.action and self.game.action.mover == self.number:
                self.game.action.shown.set()  # refused: the game reads its state again
        self.resolve(name, data)

    async def until(self, ready: Any) -> dict[str, Any]:
        while self.state is None or not ready(self.state):
            self.changed.clear()
            await self.changed.wait()
        return self.state

    async def close(self) -> None:
        if self.reading:
            self.reading.cancel()
        if self.ws:
            self.ws.transport.abort()


class Game:
    def __init__(self, bench: Bench, number: int) -> None:
        self.bench, self.number = bench, number
        self.seats = [Seat(self, seat) for seat in range(4)]
        self.room: str | None = None
        self.ids: list[str] = []
        self.action: Action | None = None
        self.actions: list[Action] = []
        self.plan: tuple[tuple[int, int, int], list[int]] | None = None

    async def open(self) -> None:
        """A room created by seat 0, joined by the others, started; until all see it play."""
        host = self.seats[0]
        created = host.expect("room-created")
        await host.emit("create-room", {"playerName": "P0", "roomName": f"bench {self.number}"})
        answer = await created
        self.room, self.ids = answer["roomId"], [answer["playerId"]]
        for seat in self.seats[1:]:
            joined = seat.expect("room-joined")
            await seat.emit("join-room", {"roomId": self.room, "playerName": f"P{seat.number}"})
            self.ids.append((await joined)["playerId"])
        await host.emit("start-game", {"roomId": self.room, "playerId": self.ids[0]})
        for seat in self.seats:
            await seat.until(lambda state: state["status"] == "playing")

    def next_action(self, state: dict[str, Any]) -> tuple[str, dict[str, Any], Any]:
        """What the mover sends, and how a state shows it was done."""
        game, players = state["gameState"], state["players"]
        mover = players[game["currentPlayerIndex"]]
        rolls, held, dice = game["rollsLeft"], game["heldDice"], game["dice"]
        base = {"roomId": self.room, "playerId": mover["id"]}
        if rolls == 0 or (rolls < 3 and random.random() < 0.1):
            category = next(name for name in CATEGORIES if mover["scorecard"][name] is None)

            def scored(new: dict[str, Any]) -> bool:
                card = next(p["scorecard"] for p in new["players"] if p["id"] == mover["id"])
                return card.get(category) is not None

            return "score-category", {**base, "category": category}, scored
        moment = (game["turnNumber"], game["currentPlayerIndex"], rolls)
        if rolls < 3 and (self.plan is None or self.plan[0] != moment):
            most = max(set(dice), key=dice.count)
            wanted = [value == most for value in dice]
            toggles = [i for i in range(5) if held[i] != wanted[i]][:2]
            self.plan = (moment, toggles if random.random() < self.bench.hold_share else [])
        if rolls < 3 and self.plan and self.plan[1]:
            die = self.plan[1].pop(0)
            flipped = not held[die]
            toggled = lambda new: new["gameState"]["heldDice"][die] == flipped  # noqa: E731
            return "toggle-hold", {**base, "dieIndex": die}, toggled
        return "roll-dice", base, lambda new: new["gameState"]["rollsLeft"] == rolls - 1

    async def play(self, stop_at: float) -> None:
        """Turns until ``stop_at``; each decision is made on the state as the last mover's
        socket shows it after its action (a roll is shown twice, the second time 500 ms later
        with ``isRolling`` false: the next action waits for that one)."""
        think, shown_at = self.bench.think, self.seats[0]
        next_at = time.perf_counter() + random.uniform(*think)
        while True:
            await asyncio.sleep(max(next_at - time.perf_counter(), 0))
            if time.perf_counter() >= stop_at:
                return
            state = await shown_at.until(lambda s: not s["gameState"]["isRolling"])
            if state["status"] == "finished":
                await self.open()
                shown_at, next_at = self.seats[0], time.perf_counter() + random.uniform(*think)
                continue
            mover_id = state["players"][state["gameState"]["currentPlayerIndex"]]["id"]
            mover = self.seats[self.ids.index(mover_id)]
            kind, data, check = self.next_action(state)
            self.action = Action(kind, mover.number, time.perf_counter(), self.room, check)
            self.actions.append(self.action)
            await mover.emit(kind, data)
            try:
                await asyncio.wait_for(self.action.shown.wait(), 10)
            except TimeoutError:
                self.bench.errors["no room-state within 10 s"] += 1
            shown_at, next_at = mover, time.perf_counter() + random.uniform(*think)


@dataclass
class Bench:
    think: tuple[float, float]
    hold_share: float
    received: int = 0  # websocket payload bytes, all sockets
    errors: Counter[str] = field(default_factory=Counter)


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def driver_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def step(arguments: argparse.Namespace, games: int) -> None:
    bench = Bench((arguments.think_min, arguments.think_max), arguments.hold_share)
    peer = Peer(Path(arguments.peer_dir))
    tables = [Game(bench, number) for number in range(games)]
    try:
        await peer.listening()
        began = time.perf_counter()
        opening = asyncio.Semaphore(arguments.setup_concurrency)

        async def opened(game: Game) -> None:
            async with opening:
                for seat in game.seats:
                    await seat.open(peer.port)
                await game.open()

        await asyncio.gather(*(opened(game) for game in tables))
        setup = time.perf_counter() - began
        measure_from = time.perf_counter() + arguments.warm_up
        stop_at = measure_from + arguments.seconds
        playing = [asyncio.create_task(game.play(stop_at)) for game in tables]
        await asyncio.sleep(arguments.warm_up)
        before = peer.cpu_seconds(), driver_cpu(), bench.received
        await asyncio.sleep(max(stop_at - time.perf_counter(), 0))
        after = peer.cpu_seconds(), driver_cpu(), bench.received
        await asyncio.gather(*playing)
        await asyncio.sleep(1.0)  # the last states, still on their way
    finally:
        peer.stop()  # first: closing 4N sockets would broadcast the room list 4N times
        for game in tables:
            for seat in game.seats:
                await seat.close()
    acts, events, kinds, missed = [], [], Counter[str](), 0
    for game in tables:
        for action in game.actions:
            shown = action.arrivals.get(action.mover)
            if action.sent < measure_from or shown is None or shown > stop_at:
                continue
            acts.append(shown - action.sent)
            kinds[action.kind] += 1
            others = [seat for seat in range(4) if seat != action.mover]
            events += [action.arrivals[s] - action.sent for s in others if s in action.arrivals]
            missed += sum(s not in action.arrivals for s in others)
    count, seconds = max(len(acts), 1), arguments.seconds
    cpu, generator, received = (b - a for a, b in zip(before, after, strict=True))
    mix = f"{kinds['roll-dice']}/{kinds['toggle-hold']}/{kinds['score-category']}"
    print(
        f"peer {games:>6} {len(acts) / seconds:>10.1f} {percentile(acts, 0.5):>8.1f}"
        f" {percentile(acts, 0.95):>5.1f} {percentile(acts, 0.99):>5.1f}"
        f" {percentile(events, 0.5):>8.1f} {percentile(events, 0.99):>5.1f}"
        f" {100 * cpu / seconds:>5.0f} {1000 * cpu / count:>7.2f} {received / count:>10.0f}"
        f" {100 * generator / seconds:>5.0f}  {mix:>16} {setup:>8.1f}",
        flush=True,
    )
    if missed or bench.errors:
        print(f"      missed events {missed}; errors {dict(bench.errors)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--peer-dir", default="/work/peer", help="the built peer checkout")
    parser.add_argument("--games", type=int, default=200, help="four-player games (one step)")
    parser.add_argument("--steps", type=int, nargs="+", help="several game counts, in turn")
    parser.add_argument("--seconds", type=float, default=15.0, help="measured per step")
    parser.add_argument("--warm-up", type=float, default=3.0, help="played before measuring")
    parser.add_argument("--think-min", type=float, default=1.0)
    parser.add_argument("--think-max", type=float, default=2.0)
    parser.add_argument("--hold-share", type=float, default=0.5, help="rolls followed by holds")
    parser.add_argument("--setup-concurrency", type=int, default=8, help="games set up at once")
    arguments = parser.parse_args()
    steps = arguments.steps or [arguments.games]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, 8 * max(steps) + 1024), hard), hard))
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"node {node}; think {arguments.think_min:g}-{arguments.think_max:g} s; "
          f"{arguments.seconds:g} s measured after {arguments.warm_up:g} s")  # fmt: skip
    print(HEADER, flush=True)
    for games in steps:
        uvloop.run(step(arguments, games))


if __name__ == "__main__":
    main()
