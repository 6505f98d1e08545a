"""Helpers shared by the lobby and play: loading a game, seat secrets, names, the clock."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from app.rules import MAX_PLAYERS
from app.service.errors import ConflictError, ForbiddenError, InvalidError, NotFoundError
from app.store.models import GameRecord, GameStatus
from app.store.rows import GameRow

MAX_NAME_LENGTH = 32
TURN_TIMERS = (None, 30, 60, 120)


def new_secret() -> str:
    """An unguessable seat secret (256 bits)."""
    return secrets.token_urlsafe(32)


def new_game_id() -> str:
    """A game's id: 64 random bits, URL-safe, never starting with ``-`` (on a command line,
    ``penta verify -Xb3…`` would read as an option)."""
    while True:
        game_id = secrets.token_urlsafe(8)
        if not game_id.startswith("-"):
            return game_id


def hash_secret(secret: str) -> str:
    """What the database keeps of a seat secret."""
    return hashlib.sha256(secret.encode()).hexdigest()


def clean_name(name: str) -> str:
    """A player's name, trimmed; 422 when empty or too long."""
    cleaned = " ".join(name.split())
    if not cleaned:
        raise InvalidError("invalid_name", "name_needed")
    if len(cleaned) > MAX_NAME_LENGTH:
        raise InvalidError("invalid_name", "name_too_long", num=MAX_NAME_LENGTH)
    return cleaned


def now() -> datetime:
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """``moment`` with its time zone: SQLite hands back naive datetimes, stored in UTC."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def seconds_left(record: GameRow | GameRecord) -> float | None:
    """Seconds until the turn timer of the game runs out (negative when past), or None."""
    if record.turn_seconds is None or record.turn_started_at is None:
        return None
    started = record.turn_started_at
    if started.tzinfo is None:  # SQLite hands back naive datetimes: they were stored in UTC
        started = started.replace(tzinfo=UTC)
    return record.turn_seconds - (now() - started).total_seconds()


def load_game(session: Session, game_id: str, *, with_actions: bool = True) -> GameRecord:
    """The game's records with its seats, and its whole log unless ``with_actions`` is off
    (then ``record.actions`` must not be touched: it would load the log)."""
    options = [selectinload(GameRecord.players)]
    if with_actions:
        options.append(selectinload(GameRecord.actions))
    record = session.scalars(
        select(GameRecord).where(GameRecord.id == game_id).options(*options)
    ).one_or_none()
    if record is None:
        raise NotFoundError("not_found")
    return record


def seat_of(record: GameRow | GameRecord, secret: str | None) -> int | None:
    if not secret:
        return None
    hashed = hash_secret(secret)
    for player in record.players:
        if player.secret_hash and hmac.compare_digest(player.secret_hash, hashed):
            return player.seat
    return None


def require_host(record: GameRow | GameRecord, secret: str | None) -> None:
    if seat_of(record, secret) != 0:
        raise ForbiddenError("not_host")


def require_waiting(record: GameRow | GameRecord, refusal: str) -> None:
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
