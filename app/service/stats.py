"""Statistics of finished games: wins by seat position, draws, averages, best sheets."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from app.store.database import Database
from app.store.reports import final_totals

BEST_SHEETS = 10


@dataclass(frozen=True)
class SeatRecord:
    """How often the player in one seat position won a game of several players."""

    seat: int
    wins: int
    share: float


@dataclass(frozen=True)
class BestSheet:
    """One of the highest totals ever finished."""

    game_id: str
    seat: int
    name: str
    computer: bool
    total: int
    used_hints: bool
    finished_at: datetime | None


@dataclass(frozen=True)
class Statistics:
    """Figures over every finished game."""

    games: int
    multiplayer_games: int
    seats: tuple[SeatRecord, ...]
    draws: int
    draw_share: float
    average_total: float | None
    best_total: int | None
    best_sheets: tuple[BestSheet, ...]


def statistics(database: Database) -> Statistics:
    """Compute the statistics from the final totals kept for every finished game."""
    rows = final_totals(database)
    totals_by_game: dict[str, dict[int, int]] = defaultdict(dict)
    for row in rows:
        totals_by_game[row.game_id][row.seat] = row.final_total
    wins: dict[int, int] = defaultdict(int)
    draws = 0
    multiplayer = [totals for totals in totals_by_game.values() if len(totals) > 1]
    for totals in multiplayer:
        best = max(totals.values())
        winners = [seat for seat, total in totals.items() if total == best]
        if len(winners) > 1:
            draws += 1
        else:
            wins[winners[0]] += 1
    count = len(multiplayer)
    seats = tuple(
        SeatRecord(seat, wins[seat], wins[seat] / count if count else 0.0)
        for seat in range(max((len(t) for t in multiplayer), default=0))
    )
    all_totals = [row.final_total for row in rows]
    best_rows = sorted(rows, key=lambda row: (-row.final_total, row.finished_at or datetime.min))
    return Statistics(
        games=len(totals_by_game),
        multiplayer_games=count,
        seats=seats,
        draws=draws,
        draw_share=draws / count if count else 0.0,
        average_total=sum(all_totals) / len(all_totals) if all_totals else None,
        best_total=max(all_totals, default=None),
        best_sheets=tuple(
            BestSheet(
                row.game_id,
                row.seat,
                row.name,
                row.computer,
                row.final_total,
                row.used_hints,
                row.finished_at,
            )
            for row in best_rows[:BEST_SHEETS]
        ),
    )
