"""Refusals of a change by the game's status: waiting, being played, closed (409)."""

from __future__ import annotations

from app.rules import MAX_PLAYERS
from app.service.errors import ConflictError
from app.store.models import GameRecord, GameStatus
from app.store.rows import GameRow

ABANDONED_MESSAGE = "this game was closed after a long pause"


def require_waiting(record: GameRow | GameRecord, verb: str) -> None:
    """Refuse seating someone once the game has started, is closed or is full."""
    require_not_abandoned(record)
    if record.status != GameStatus.WAITING:
        raise ConflictError("already_started", f"cannot {verb} a game that has started")
    if len(record.players) >= MAX_PLAYERS:
        raise ConflictError("full", f"a game has at most {MAX_PLAYERS} players")


def require_playing(record: GameRow | GameRecord) -> None:
    """Refuse an action in a game that is not being played, saying why (409)."""
    if record.status == GameStatus.WAITING:
        raise ConflictError("not_started", "the game has not started yet")
    if record.status == GameStatus.FINISHED:
        raise ConflictError("finished", "the game is over")
    require_not_abandoned(record)


def require_not_abandoned(record: GameRow | GameRecord) -> None:
    """Refuse any change to a game that retention closed: it says so, not "started"."""
    if record.status == GameStatus.ABANDONED:
        raise ConflictError("abandoned", ABANDONED_MESSAGE)
