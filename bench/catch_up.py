"""CPU per move when two workers share the games: kept snapshots caught up, or replayed.

    .venv/bin/python bench/catch_up.py [--moves 2000] [--database-url postgresql+psycopg://...]

Two services on one database stand for two worker processes: each its own engine and its own
snapshot cache. Solo games are played by rolls and scores, each move made by one service:

* **one worker**: every move by the same service (its cache is always current);
* **alternating, full reload**: moves alternate between the two, and the mover's cache is
  emptied first, so it reads and replays the game's whole log (as before the catch-up);
* **alternating, catch-up**: moves alternate, and the mover, one version behind, reads only
  the entries the other logged since.

Prints the CPU time of this process per move (``time.process_time``: the services' Python and
the driver; the database server's own CPU is not counted) and the cache's counts. The
default database is a SQLite file in a temporary folder; PostgreSQL through
``--database-url`` (a database of your own: the tables are created in it).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.service.dice import SecureDice  # noqa: E402
from app.service.games import GameService  # noqa: E402
from app.store.database import Database  # noqa: E402
from app.store.migrate import upgrade  # noqa: E402
from app.strategy import StrategyProvider  # noqa: E402

MODES = ("one worker", "alternating, full reload", "alternating, catch-up")


def _service(url: str, table: Path) -> GameService:
    return GameService(Database(url), SecureDice(), StrategyProvider(table))


def _moves(services: list[GameService], mode: str, count: int) -> tuple[float, str]:
    """Play ``count`` moves in ``mode``; CPU seconds per move, and the cache's counts."""
    created, secret = services[0].create("Bench")
    services[0].start(created.id, secret)
    current = created.id
    cpu = 0.0
    for number in range(count):
        mover = services[0] if mode == MODES[0] else services[number % 2]
        if mode == MODES[1]:
            mover.changes.snapshots.clear()
        began = time.process_time()
        view = mover.get(current)
        if view.is_finished:
            created, secret = mover.create("Bench")
            mover.start(created.id, secret)
            current = created.id
        elif view.state.turn.has_rolled and (number % 3 == 2 or view.state.turn.rolls_left == 0):
            box = next(iter(view.state.sheet.score_options(view.state.turn.dice)))
            mover.score(current, secret, box.value)
        else:
            mover.roll(current, secret)
        cpu += time.process_time() - began
    counts = [service.changes.snapshots.counts for service in services]
    told = "; ".join(
        f"worker {n}: {c.hits} hits, {c.catch_ups} catch-ups, {c.full_loads} full loads, "
        f"{c.entries_read} entries read"
        for n, c in enumerate(counts)
    )
    return cpu / count, told


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=2000, help="moves per mode")
    parser.add_argument("--database-url", default=None, help="default: a SQLite file")
    parser.add_argument("--strategy-table", type=Path, default=ROOT / "data" / "strategy")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = arguments.database_url or f"sqlite:///{Path(folder) / 'bench.db'}"
        upgrade(url)
        rows: list[tuple[str, float, str]] = []
        for mode in MODES:
            services = [_service(url, arguments.strategy_table) for _ in range(2)]
            try:
                per_move, told = _moves(services, mode, arguments.moves)
            finally:
                for service in services:
                    service.database.dispose()
            rows.append((mode, per_move, told))
    print(f"{arguments.moves} moves per mode on {url.split(':')[0]}; CPU of this process")
    print(f"{'mode':<28}{'cpu ms/move':>12}  cache")
    for mode, per_move, told in rows:
        print(f"{mode:<28}{per_move * 1000:>12.2f}  {told}")


if __name__ == "__main__":
    main()
