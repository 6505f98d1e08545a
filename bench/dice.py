"""Dice benchmark: what a roll costs with the verifiable dice against the CSPRNG's own.

    .venv/bin/python bench/dice.py [--rolls 100000]

Prints microseconds per roll of five dice for: the CSPRNG directly (games without a seed),
the verifiable scheme (one HMAC-SHA256 per roll, from the seeds as a move builds them), and
the commitment that every view of a game computes (one SHA-256 of 32 bytes).
"""

from __future__ import annotations

import argparse
import secrets
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app import fairness
from app.service.dice import RollSeeds, SecureDice, roll

NO_HOLDS = (False,) * 5


def per_call_us(function: Callable[[int], object], calls: int) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for number in range(calls):
            function(number)
        best = min(best, time.perf_counter() - start)
    return best / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rolls", type=int, default=100_000)
    rolls = parser.parse_args().rolls
    dice = SecureDice()
    seed = dice.new_server_seed()
    client_seeds = (secrets.token_hex(16), secrets.token_hex(16))
    figures = {
        "CSPRNG roll (no seed)": per_call_us(lambda _n: roll(dice, None, NO_HOLDS, None), rolls),
        "verifiable roll (HMAC)": per_call_us(
            lambda n: roll(dice, None, NO_HOLDS, RollSeeds(seed, "Ab3_x-9Qp0k", n, client_seeds)),
            rolls,
        ),
        "commitment of a view": per_call_us(
            lambda _n: fairness.commitment(bytes.fromhex(seed.hex())), rolls
        ),
    }
    print(f"best of 5 runs of {rolls} calls, µs per call")
    for name, microseconds in figures.items():
        print(f"  {name:<26} {microseconds:8.2f}")


if __name__ == "__main__":
    main()
