"""Refusals of a change by the game's status: waiting, being played, closed (409)."""

from __future__ import annotations

from app.rules import MAX_PLAYERS
from app.service.errors import ConflictError
from app.store.models import GameRecord, GameStatus
from app.store.rows import GameRow


def require_waiting(record: GameRow | GameRecord, refusal: str) -> None:
    """Refuse seating someone once the game has started, is closed or is full."""
    require_not_abandoned(record)
    if record.status != GameStatus.WAITING:
        raise ConflictError("already_started", refusal)
    if len(record.players) >= MAX_PLAYERS:
        raise ConflictError("full", num=MAX_PLAYERS)


def require_playing(record: GameRow | GameRecord) -> None:
    """Refuse an action in a game that is not being played, saying why (409)."""
    if record.status == GameStatus.WAITING:
        raise ConflictError("not_started")
    if record.status == GameStatus.FINISHED:
        raise ConflictError("finished")
    require_not_abandoned(record)


def require_not_abandoned(record: GameRow | GameRecord) -> None:
    """Refuse any change to a game that retention closed: it says so, not "started"."""
    if record.status == GameStatus.ABANDONED:
        raise ConflictError("abandoned")
