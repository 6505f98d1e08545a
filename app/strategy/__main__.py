"""Command line: build the table, or simulate games with it.

    python -m app.strategy build [--path P]
    python -m app.strategy simulate --games N --seed S [--path P] [--greedy]

This entry point is the one module of the package that may read the clock and create a random
generator (for timings and dice); the package core takes dice from its caller.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from app.rules import Scoresheet
from app.strategy import (
    GreedyStrategy,
    OptimalStrategy,
    TablePlayer,
    build_values,
    load_values,
    resolve_table_path,
    save_values,
    simulate,
)

DEFAULT_LOCATION = Path("data/strategy")
"""The same default as the web settings: the versioned file in ``data/strategy/``."""


def _optimal(location: Path, *, rebuild: bool) -> OptimalStrategy:
    path = resolve_table_path(location)
    values = None if rebuild else load_values(path)
    if values is None:
        started = time.perf_counter()
        values = build_values()
        print(f"built the table in {time.perf_counter() - started:.2f} s")
        save_values(path, values)
        print(f"saved {path}")
    else:
        print(f"loaded {path}")
    return OptimalStrategy(values)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m app.strategy", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("build", help="build the table and save it")
    build.add_argument("--path", type=Path, default=DEFAULT_LOCATION, help=".npz file or folder")
    play = commands.add_parser("simulate", help="play seeded solo games and report the scores")
    play.add_argument("--games", type=int, default=10_000)
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--path", type=Path, default=DEFAULT_LOCATION, help=".npz file or folder")
    play.add_argument("--greedy", action="store_true", help="play the greedy fallback instead")
    arguments = parser.parse_args(argv)

    if arguments.command == "build":
        strategy = _optimal(arguments.path, rebuild=True)
        print(f"V(empty sheet) = {strategy.expected_total(Scoresheet()):.6f}")
        return
    player: TablePlayer = (
        GreedyStrategy() if arguments.greedy else _optimal(arguments.path, rebuild=False)
    )
    generator = np.random.default_rng(arguments.seed)
    started = time.perf_counter()
    totals, _ = simulate(player, arguments.games, lambda count: generator.integers(1, 7, count))
    elapsed = time.perf_counter() - started
    name = "greedy" if arguments.greedy else "optimal"
    print(
        f"{name}: {arguments.games} games in {elapsed:.2f} s, mean {totals.mean():.4f}, "
        f"standard deviation {totals.std(ddof=1):.4f}"
    )


if __name__ == "__main__":
    main()
