"""Benchmark of the computer player: table build, decision latency, simulated games.

    .venv/bin/python bench/strategy.py [--games N] [--situations M] [--seed S]

Prints the build time and V(empty sheet), the median and 99th percentile latency of box and
hold decisions over random reachable situations, and N optimal and N greedy games played in
lockstep with the same seeded dice.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.rules import ROUNDS, Scoresheet
from app.strategy import (
    GreedyStrategy,
    OptimalStrategy,
    TablePlayer,
    build_values,
    simulate,
)
from app.strategy.tables import joker_tables

Situation = tuple[Scoresheet, tuple[int, ...], int]


def random_situations(count: int, generator: np.random.Generator) -> list[Situation]:
    """Sheets reached by random legal play, with random dice and 1 or 2 rolls left."""
    situations = []
    for _ in range(count):
        sheet = Scoresheet()
        for _ in range(int(generator.integers(0, ROUNDS))):
            dice = tuple(int(face) for face in generator.integers(1, 7, 5))
            options = list(sheet.score_options(dice))
            sheet = sheet.record(options[int(generator.integers(len(options)))], dice)
        dice = tuple(int(face) for face in generator.integers(1, 7, 5))
        situations.append((sheet, dice, int(generator.integers(1, 3))))
    return situations


def latencies(decide: Callable[[Situation], object], situations: list[Situation]) -> str:
    times = []
    for situation in situations:
        started = time.perf_counter()
        decide(situation)
        times.append(time.perf_counter() - started)
    times.sort()
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    return f"median {statistics.median(times) * 1e3:.3f} ms, p99 {p99 * 1e3:.3f} ms"


def play(name: str, player: TablePlayer, games: int, seed: int) -> None:
    generator = np.random.default_rng(seed)
    started = time.perf_counter()
    totals, _ = simulate(player, games, lambda count: generator.integers(1, 7, count))
    elapsed = time.perf_counter() - started
    error = totals.std(ddof=1) / games**0.5
    print(
        f"{name:>8}: {games} games in {elapsed:.1f} s: mean {totals.mean():.3f} "
        f"(± {error:.3f} s.e.), standard deviation {totals.std(ddof=1):.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--situations", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=2024)
    arguments = parser.parse_args()

    started = time.perf_counter()
    values = build_values()
    print(f"table build: {time.perf_counter() - started:.2f} s (joker tables included)")
    optimal = OptimalStrategy(values)
    print(f"V(empty sheet) = {optimal.expected_total(Scoresheet()):.6f}")
    joker_tables()

    situations = random_situations(arguments.situations, np.random.default_rng(arguments.seed))
    print(f"{len(situations)} random situations")
    print("  box decision: ", latencies(lambda s: optimal.best_box(s[0], s[1]), situations))
    print("  hold decision:", latencies(lambda s: optimal.best_hold(*s), situations))
    print("  all hold values:", latencies(lambda s: optimal.hold_values(*s), situations))

    play("optimal", optimal, arguments.games, arguments.seed)
    play("greedy", GreedyStrategy(), arguments.games, arguments.seed)


if __name__ == "__main__":
    main()
