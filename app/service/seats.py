"""Seats: their secrets, the players' names, who holds which seat; and unguessable game ids."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import unicodedata
from collections.abc import Iterable

from app.service.errors import ConflictError, ForbiddenError, InvalidError
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


JOINERS = frozenset("\u200c\u200d")
"""The format characters a name may hold, between visible ones: the zero-width non-joiner
and joiner of Persian, Indic scripts and emoji sequences (👩‍💻). Every other format
character (bidirectional controls, the BOM, tag characters, zero-width spaces) is refused."""
BLANKS = frozenset("\u115f\u1160\u3164\u2800\u17b4\u17b5\u180e")
"""Letters and symbols that draw nothing: the Hangul fillers, the blank Braille pattern, the
Khmer inherent vowels, the Mongolian vowel separator."""
_VISIBLE = ("L", "N", "S", "P")
"""The categories of characters that can be seen: letters, digits, symbols, punctuation."""
_REFUSED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Controls, format characters, surrogates, private use, unassigned, line separators."""


def clean_name(name: str) -> str:
    """A player's name: NFKC, its spaces trimmed and collapsed; 422 when it holds a control
    or invisible format character, shows nothing that can be seen, or is too long."""
    cleaned = " ".join(unicodedata.normalize("NFKC", name).split())
    if not cleaned:
        raise InvalidError("invalid_name", "name_needed")
    if any(unicodedata.category(char) in _REFUSED and char not in JOINERS for char in cleaned):
        raise InvalidError("invalid_name", "name_control")
    if not any(
        unicodedata.category(char)[0] in _VISIBLE and char not in BLANKS for char in cleaned
    ):
        raise InvalidError("invalid_name", "name_invisible")
    if len(cleaned) > MAX_NAME_LENGTH:
        raise InvalidError("invalid_name", "name_too_long", num=MAX_NAME_LENGTH)
    return cleaned


def same_name(first: str, second: str) -> bool:
    """Whether two names read as one (case folded): ``Ann`` and ``ANN``."""
    return first.casefold() == second.casefold()


def require_free_name(record: GameRecord, name: str) -> None:
    """Refuse (409) a name another seat of the game has already."""
    if any(same_name(player.name, name) for player in record.players):
        raise ConflictError("name_taken")


def seat_of(record: GameRow | GameRecord, secret: str | None) -> int | None:
    """The seat that ``secret`` holds in the game, if any (compared in constant time)."""
    if not secret:
        return None
    hashed = hash_secret(secret)
    for player in record.players:
        if player.secret_hash and hmac.compare_digest(player.secret_hash, hashed):
            return player.seat
    return None


def resume_token(key: str, game_id: str, secret_hash: str) -> str:
    """The token of the "continue on another device" link of the seat held by the secret of
    ``secret_hash``. Not the seat secret (it is no cookie and no bearer token, so a page that
    shows it never shows the secret), and dead once used, in every game: using it gives the
    seat a new secret, so a new hash, and each game's seats have secrets of their own."""
    message = f"resume:{game_id}:{secret_hash}".encode()
    return hmac.new(key.encode(), message, hashlib.sha256).hexdigest()[:32]


def seat_of_resume_token(
    game_id: str, hashes: Iterable[str | None], key: str, token: str | None
) -> int | None:
    """The seat, of those whose secrets have ``hashes`` (in seat order), whose resume link
    carries ``token``, if any (compared in constant time)."""
    if not token:
        return None
    for seat, hashed in enumerate(hashes):
        if hashed and hmac.compare_digest(resume_token(key, game_id, hashed), token):
            return seat
    return None


def require_host(record: GameRow | GameRecord, secret: str | None) -> None:
    """Refuse (403) anyone but the host, who holds seat 0."""
    if seat_of(record, secret) != 0:
        raise ForbiddenError("not_host")
