"""Memory of open live streams: what one uvicorn worker's resident memory grows by per open
page stream (issue #25 asks at most 20 KiB), idle and after a version has gone through each.

    .venv/bin/python bench/stream_memory.py [--games 200] [--compare-with CHECKOUT]

One worker on SQLite (a temporary data folder, limits off as in ``bench/capacity.py``). It
makes ``--games`` started four-player games, opens and closes a few streams to warm it up, and
reads its resident memory (``VmRSS``). Then every seat opens the stream its browser opens
(``/games/{id}/events`` with its seat cookie, from the version it shows), and the memory is
read again once all are open; then each game's first seat rolls, every stream shows it, and the
memory is read a third time (that adds the version's renderings, kept for the game's readers).
Each figure is the growth divided by the streams. Resident memory counts what the allocator
holds, not only what is alive: the figures are what an operator sees, not an object count.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

import uvloop

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.capacity import UNLIMITED  # noqa: E402
from bench.client import Connection  # noqa: E402
from bench.load import raise_file_limit  # noqa: E402
from bench.seats import SEATS, Seat  # noqa: E402
from bench.servers import Uvicorn, ensure_strategy_table  # noqa: E402


def resident_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


async def started_game(host: Connection) -> tuple[str, list[str], int]:
    created = (await host.request("POST", "/api/v1/games", {"name": "Seat 1"})).json()
    game_id, tokens = created["game"]["id"], [created["token"]]
    for number in range(2, SEATS + 1):
        joined = await host.request(
            "POST", f"/api/v1/games/{game_id}/players", {"name": f"Seat {number}"}
        )
        tokens.append(joined.json()["token"])
    auth = {"Authorization": f"Bearer {tokens[0]}"}
    started = await host.request("POST", f"/api/v1/games/{game_id}/start", None, auth)
    if started.status != 200:
        raise RuntimeError(f"starting answered {started.status}")
    return game_id, tokens, int(started.json()["version"])


async def measure(port: int, pid: int, games: int) -> tuple[int, int, int]:
    """Resident KiB before the streams, with them open, and after a roll through them."""
    host = Connection("127.0.0.1", port)
    made = [await started_game(host) for _ in range(games)]
    warm = [Seat(port, made[0][0], token, "page") for token in made[0][1]]
    for seat in warm:
        await seat.listen(made[0][2])
    for seat in warm:
        await seat.close()
    await asyncio.sleep(1)
    before = resident_kib(pid)
    seats = [Seat(port, game_id, token, "page") for game_id, tokens, _ in made for token in tokens]
    for index, seat in enumerate(seats):
        await seat.listen(made[index // SEATS][2])
    await asyncio.sleep(2)
    idle = resident_kib(pid)
    for index, (game_id, tokens, version) in enumerate(made):
        auth = {"Authorization": f"Bearer {tokens[0]}"}
        rolled = await host.request("POST", f"/api/v1/games/{game_id}/roll", {"hold": []}, auth)
        if rolled.status != 200:
            raise RuntimeError(f"rolling answered {rolled.status}")
        await asyncio.gather(*(seat.seen(version + 1) for seat in seats[index * SEATS :][:SEATS]))
    await asyncio.sleep(2)
    after = resident_kib(pid)
    for seat in seats:
        await seat.close()
    await host.close()
    return before, idle, after


def run(root: Path, games: int, label: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        table = ensure_strategy_table(ROOT / "data" / "bench-strategy")
        env = {**UNLIMITED, "PENTA_DATA_DIR": str(data), "PENTA_STRATEGY_TABLE": str(table)}
        with Uvicorn("app.main:app", env, log=data / "log", root=root) as server:
            assert server.process is not None
            before, idle, after = uvloop.run(measure(server.port, server.process.pid, games))
    streams = games * SEATS
    print(
        f"{label:10} {streams:7} {before / 1024:9.1f} {idle / 1024:9.1f} {after / 1024:9.1f}"
        f" {(idle - before) / streams:11.1f} {(after - before) / streams:11.1f}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--compare-with", type=Path, help="another checkout, measured after")
    args = parser.parse_args()
    raise_file_limit(args.games * SEATS * 2 + 256)
    print("checkout   streams   MiB then  MiB open MiB after  KiB/stream  KiB/stream")
    print("                      (none)              a roll        idle  after roll")
    run(ROOT, args.games, "this")
    if args.compare_with is not None:
        run(args.compare_with.resolve(), args.games, "compared")


if __name__ == "__main__":
    main()
