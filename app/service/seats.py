"""Seats: their secrets, the players' names, who holds which seat; and unguessable game ids."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from app.service.errors import ForbiddenError, InvalidError
from app.store.models import GameRecord
from app.store.rows import GameRow

MAX_NAME_LENGTH = 32


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
    # PostgreSQL's text holds no NUL: shown as the replacement character, as a bad byte is.
    cleaned = " ".join(name.replace("\x00", "\ufffd").split())
    if not cleaned:
        raise InvalidError("invalid_name", "name_needed")
    if len(cleaned) > MAX_NAME_LENGTH:
        raise InvalidError("invalid_name", "name_too_long", num=MAX_NAME_LENGTH)
    return cleaned


def seat_of(record: GameRow | GameRecord, secret: str | None) -> int | None:
    """The seat that ``secret`` holds in the game, if any (compared in constant time)."""
    if not secret:
        return None
    hashed = hash_secret(secret)
    for player in record.players:
        if player.secret_hash and hmac.compare_digest(player.secret_hash, hashed):
            return player.seat
    return None


def require_host(record: GameRow | GameRecord, secret: str | None) -> None:
    """Refuse (403) anyone but the host, who holds seat 0."""
    if seat_of(record, secret) != 0:
        raise ForbiddenError("not_host")
