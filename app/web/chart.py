"""A small line chart of expected final totals through a game, drawn as SVG coordinates."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from app.analysis.review import PlayerReview
from app.rules import ROUNDS

WIDTH, HEIGHT = 640, 280
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 12, 32


@dataclass(frozen=True)
class Series:
    seat: int
    points: str
    """``x,y x,y …`` for an SVG polyline."""
    last_x: float
    last_y: float


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    series: tuple[Series, ...]
    y_ticks: tuple[tuple[float, int], ...]
    x_ticks: tuple[tuple[float, int], ...]
    plot_left: int
    plot_right: int
    plot_bottom: int


def expected_chart(players: tuple[PlayerReview, ...]) -> Chart:
    """Each player's expected final total before the game and after each decision, by round."""
    values = [value for player in players for value in player.path]
    low = math.floor(min(values) / 50) * 50
    high = math.ceil(max(values) / 50) * 50
    high = max(high, low + 50)

    def x_of(progress: float) -> float:
        return LEFT + progress / ROUNDS * (WIDTH - LEFT - RIGHT)

    def y_of(value: float) -> float:
        return TOP + (high - value) / (high - low) * (HEIGHT - TOP - BOTTOM)

    series = []
    for player in players:
        per_round = Counter(decision.round for decision in player.decisions)
        seen: Counter[int] = Counter()
        coordinates = [(x_of(0), y_of(player.start_expected))]
        for decision in player.decisions:
            seen[decision.round] += 1
            progress = decision.round - 1 + seen[decision.round] / per_round[decision.round]
            coordinates.append((x_of(progress), y_of(decision.chosen_expected)))
        points = " ".join(f"{x:.1f},{y:.1f}" for x, y in coordinates)
        series.append(Series(player.seat, points, *coordinates[-1]))
    step = 50 if high - low <= 300 else 100
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        series=tuple(series),
        y_ticks=tuple((y_of(value), value) for value in range(low, high + 1, step)),
        x_ticks=tuple((x_of(r - 0.5), r) for r in range(1, ROUNDS + 1)),
        plot_left=LEFT,
        plot_right=WIDTH - RIGHT,
        plot_bottom=HEIGHT - BOTTOM,
    )
