"""A game's row and seats as plain frozen values: what the snapshots in memory hold.

The ORM's records are for the lobby's rarer changes. A snapshot is read on every request
and one is made on every move, and as ORM objects each copy cost instrumented constructors
and events, and each attribute read a descriptor: a tenth of a move's time. These rows
carry the same columns (a test holds them to the tables) and nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from app.store.models import GameRecord, PlayerRecord


@dataclass(frozen=True, slots=True)
class SeatRow:
    """A seat: the columns of ``players``."""

    game_id: str
    seat: int
    name: str
    computer: bool
    secret_hash: str | None
    final_total: int | None
    hints: bool
    used_hints: bool
    client_seed: str | None
    stand_in: bool
    rematch: str | None
    moved_hash: str | None
    person_id: str | None
    pentas: int | None

    @classmethod
    def of(cls, player: PlayerRecord) -> SeatRow:
        return cls(**{name: getattr(player, name) for name in SEAT_COLUMNS})


@dataclass(frozen=True, slots=True)
class GameRow:
    """A game: the columns of ``games``, and its seats in seat order."""

    id: str
    status: str
    version: int
    turn_seconds: int | None
    rematch_id: str | None
    server_seed: str | None = field(repr=False)
    """Never shown before the game is over: kept out of the repr, so out of any log line."""
    dice_scheme: int | None
    closed_reason: str | None
    previous_id: str | None
    computer_pace: str | None
    public: bool
    started_at: datetime | None
    finished_at: datetime | None
    turn_started_at: datetime | None
    due_at: datetime | None
    created_at: datetime
    updated_at: datetime
    players: tuple[SeatRow, ...]
    language: str | None = None

    @classmethod
    def of(cls, record: GameRecord) -> GameRow:
        """The row of an ORM record loaded with its seats."""
        return cls(
            **{name: getattr(record, name) for name in GAME_COLUMNS},
            players=tuple(SeatRow.of(player) for player in record.players),
        )

    def columns(self) -> dict[str, Any]:
        """The values of the ``games`` columns."""
        return {name: getattr(self, name) for name in GAME_COLUMNS}


GAME_COLUMNS = tuple(column.name for column in fields(GameRow) if column.name != "players")
SEAT_COLUMNS = tuple(column.name for column in fields(SeatRow))


def seat_columns(seat: SeatRow) -> dict[str, Any]:
    """The values of the ``players`` columns."""
    return {name: getattr(seat, name) for name in SEAT_COLUMNS}


SECRET_GAME_COLUMNS = ("server_seed",)
"""A game's columns no other process is told: the dice's seed, secret while the game is on."""
SECRET_SEAT_COLUMNS = ("secret_hash", "moved_hash")
"""A seat's columns no other process is told: the hashes of its player's secrets."""
PUBLIC_GAME_COLUMNS = tuple(name for name in GAME_COLUMNS if name not in SECRET_GAME_COLUMNS)
PUBLIC_SEAT_COLUMNS = tuple(name for name in SEAT_COLUMNS if name not in SECRET_SEAT_COLUMNS)


def public_columns(row: GameRow) -> tuple[dict[str, Any], tuple[dict[str, Any], ...]]:
    """The game's columns and each seat's, without their secrets."""
    game = {name: getattr(row, name) for name in PUBLIC_GAME_COLUMNS}
    seats = tuple(
        {name: getattr(seat, name) for name in PUBLIC_SEAT_COLUMNS} for seat in row.players
    )
    return game, seats


def with_secrets(
    kept: GameRow, game: Mapping[str, Any], seats: Sequence[Mapping[str, Any]]
) -> GameRow:
    """The row of public columns ``game`` and ``seats``, with the secrets of ``kept``, the same
    game's row (no move changes a secret). ValueError if they are not of the same seats."""
    if game["id"] != kept.id or [seat["seat"] for seat in seats] != [
        seat.seat for seat in kept.players
    ]:
        raise ValueError("not the kept game's seats")
    return GameRow(
        **game,
        **{name: getattr(kept, name) for name in SECRET_GAME_COLUMNS},
        players=tuple(
            SeatRow(**columns, **{name: getattr(old, name) for name in SECRET_SEAT_COLUMNS})
            for columns, old in zip(seats, kept.players, strict=True)
        ),
    )
