"""What ``bench/cluster.py`` prints: each cell's median over the rounds, and its ratio to one
worker taken within each round (a drift of the machine between rounds then cancels out)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

TIERS = ("workers", "postgres", "redis")
ONE = "one"
"""The spread of a single worker, where moves and stream cannot be anywhere else."""
TARGET = 0.15
"""Issue #14: CPU per action within ±15 % across the numbers of workers."""

Cell = tuple[int, str]
"""(workers, spread)"""
Round = dict[Cell, dict[str, Any]]
"""One round's measurement of each cell: what ``load`` returned."""


def cpu_per_action(result: dict[str, Any]) -> dict[str, float]:
    """CPU ms per action of each tier, and their ``total``."""
    actions = max(result["actions"], 1)
    per = {tier: result["cpu"][tier] * 1000 / actions for tier in TIERS}
    return {**per, "total": sum(per.values())}


def baseline(measured: Round, spread: str) -> dict[str, Any]:
    """What a cell of ``measured`` compares with: the fewest workers, the same spread (or the
    one spread a single worker has)."""
    fewest = min(workers for workers, _ in measured)
    return measured.get((fewest, spread)) or measured[fewest, ONE]


@dataclass(frozen=True)
class Row:
    """A cell over the rounds."""

    workers: int
    spread: str
    cpu: dict[str, float]
    """Median CPU ms per action of each tier and in total."""
    low: float
    high: float
    """The lowest and highest total of a round."""
    ratio: float
    """Median over the rounds of total / the baseline's total in that round."""
    ratios: tuple[float, ...]
    actions_per_second: float
    events_per_action: float
    p99: float
    new_backends: float
    """PostgreSQL backends started in the measured window (each costs milliseconds of CPU)."""

    @property
    def within_target(self) -> bool:
        return abs(self.ratio - 1) <= TARGET


def rows(rounds: list[Round]) -> list[Row]:
    """Each cell measured in every round, in the order of the first round."""
    result = []
    for cell in rounds[0]:
        workers, spread = cell
        results = [measured[cell] for measured in rounds]
        per_tier = [cpu_per_action(one) for one in results]
        totals = [one["total"] for one in per_tier]
        ratios = tuple(
            total / cpu_per_action(baseline(measured, spread))["total"]
            for total, measured in zip(totals, rounds, strict=True)
        )
        result.append(
            Row(
                workers=workers,
                spread=spread,
                cpu={key: statistics.median(one[key] for one in per_tier) for key in per_tier[0]},
                low=min(totals),
                high=max(totals),
                ratio=statistics.median(ratios),
                ratios=ratios,
                actions_per_second=statistics.median(
                    one["actions"] / one["seconds"] for one in results
                ),
                events_per_action=statistics.median(
                    one["events"] / max(one["actions"], 1) for one in results
                ),
                p99=statistics.median(one["p99"] for one in results),
                new_backends=statistics.median(one["cpu"]["new backends"] for one in results),
            )
        )
    return result


def table(rounds: list[Round]) -> str:
    """The fixed load's table."""
    lines = [
        "workers  spread     actions/s  events/action  workers  postgres  redis  total"
        "  (rounds' range)  p99 ms  new backends  vs fewest  (rounds' ratios)  ±15 %"
    ]
    for row in rows(rounds):
        spread = " ".join(f"{ratio:.2f}" for ratio in row.ratios)
        lines.append(
            f"{row.workers:7d}  {row.spread:9s}  {row.actions_per_second:9.1f}  "
            f"{row.events_per_action:13.2f}  {row.cpu['workers']:7.2f}  "
            f"{row.cpu['postgres']:8.2f}  {row.cpu['redis']:5.2f}  {row.cpu['total']:5.2f}"
            f"  ({row.low:5.2f}-{row.high:5.2f})  {row.p99:6.1f}  {row.new_backends:12.0f}"
            f"  {row.ratio - 1:+9.0%}"
            f"  ({spread})  {'yes' if row.within_target else 'NO'}"
        )
    return "\n".join(lines)


def shares(rounds: list[dict[int, dict[str, Any] | None]]) -> str:
    """The fixed share's table: median actions/s of each number of workers."""
    lines = ["workers  actions/s  (rounds' range)  p99 ms"]
    for workers in rounds[0]:
        results = [measured[workers] for measured in rounds]
        measured = [one for one in results if one is not None]
        if not measured:
            lines.append(f"{workers:7d}  (no cgroup could be made: not measured)")
            continue
        rates = [one["actions"] / one["seconds"] for one in measured]
        p99 = statistics.median(one["p99"] for one in measured)
        lines.append(
            f"{workers:7d}  {statistics.median(rates):9.1f}  "
            f"({min(rates):5.1f}-{max(rates):5.1f})  {p99:6.1f}"
        )
    return "\n".join(lines)


def idles(rounds: list[dict[int, float]]) -> str:
    """The idle table: median CPU ms per second of each number of workers."""
    lines = ["workers  CPU ms/s  (rounds' range)"]
    for workers in rounds[0]:
        spent = [measured[workers] for measured in rounds]
        lines.append(
            f"{workers:7d}  {statistics.median(spent):8.1f}  ({min(spent):5.1f}-{max(spent):5.1f})"
        )
    return "\n".join(lines)
