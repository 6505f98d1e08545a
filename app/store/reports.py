"""Reads and writes for the pages about games rather than play: reviews and statistics."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select

from app.rules import Action, Game
from app.store.database import Database
from app.store.game_store import load_record
from app.store.log import replay, rules_actions
from app.store.models import GameRecord, GameStatus, PlayerRecord, ReviewRecord
from app.store.rows import GameRow


@dataclass(frozen=True)
class StoredReview:
    """A review kept in the database, and the strategy it was computed with."""

    strategy: str
    data: list[dict[str, Any]]


@dataclass(frozen=True)
class WholeGame:
    """A game with its whole log replayed, and its kept review if any."""

    record: GameRow
    state: Game
    actions: list[Action]
    review: StoredReview | None


@dataclass(frozen=True)
class FinalTotal:
    """One seat's final total in a finished game."""

    game_id: str
    seat: int
    name: str
    computer: bool
    final_total: int
    used_hints: bool
    finished_at: datetime | None


def whole_game(database: Database, game_id: str) -> WholeGame:
    """The game read with its whole log (``NoSuchGame`` if there is none)."""
    with database.reading() as session:
        record = load_record(session, game_id, with_actions=True)
        stored = session.get(ReviewRecord, game_id)
        return WholeGame(
            GameRow.of(record),
            replay(record),
            rules_actions(record.actions),
            None if stored is None else StoredReview(stored.strategy, stored.data),
        )


def save_review(database: Database, game_id: str, review: StoredReview) -> None:
    """Keep the game's review (replacing an older one)."""
    with database.writing() as session:
        session.merge(ReviewRecord(game_id=game_id, strategy=review.strategy, data=review.data))


def final_totals(database: Database) -> list[FinalTotal]:
    """Every seat's final total in every finished game."""
    with database.reading() as session:
        rows = session.execute(
            select(
                PlayerRecord.game_id,
                PlayerRecord.seat,
                PlayerRecord.name,
                PlayerRecord.computer,
                PlayerRecord.final_total,
                PlayerRecord.used_hints,
                GameRecord.finished_at,
            )
            .join(GameRecord, GameRecord.id == PlayerRecord.game_id)
            .where(GameRecord.status == GameStatus.FINISHED, PlayerRecord.final_total.is_not(None))
        ).all()
    return [
        FinalTotal(game_id, seat, name, computer, total, used_hints, finished_at)
        for game_id, seat, name, computer, total, used_hints, finished_at in rows
        if total is not None
    ]


def games_by_status(database: Database) -> dict[str, int]:
    """How many games the database holds in each status (one indexed count)."""
    query = select(GameRecord.status, func.count()).group_by(GameRecord.status)
    with database.read_connection() as connection:
        counted = {str(status): int(count) for status, count in connection.execute(query)}
    return {status.value: counted.get(status.value, 0) for status in GameStatus}
