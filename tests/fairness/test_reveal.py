"""The server seed is revealed whenever a game is no longer waiting or being played: when it
is finished, and when it ends otherwise (an abandoned game) too."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.fairness import commitment
from app.service.fairness import ClientSeed, Fairness
from app.store.rows import GameRow, SeatRow

SEED = bytes(range(32))


def game_row(status: str) -> GameRow:
    moment = datetime(2026, 12, 1, tzinfo=UTC)
    seats = (
        SeatRow("g1", 0, "Ann", False, "hash", None, False, False, "ann", False, None, None),
        SeatRow("g1", 1, "Computer 1", True, None, None, False, False, None, False, None, None),
        SeatRow("g1", 2, "Bob", False, "hash", None, False, False, "bob", False, None, None),
    )
    return GameRow(
        "g1", status, 3, None, None, SEED.hex(), None, None, None, None, moment, moment, seats
    )


@pytest.mark.parametrize("status", ["waiting", "playing"])
def test_the_seed_is_secret_while_the_game_waits_or_is_played(status: str) -> None:
    fairness = Fairness.of(game_row(status))
    assert fairness == Fairness(
        commitment=commitment(SEED),
        client_seeds=(ClientSeed(0, "ann"), ClientSeed(2, "bob")),
        server_seed=None,
    )
    assert fairness.verifiable


@pytest.mark.parametrize("status", ["finished", "abandoned"])
def test_the_seed_is_revealed_once_the_game_is_over(status: str) -> None:
    assert Fairness.of(game_row(status)).server_seed == SEED.hex()


def test_the_rows_repr_never_shows_the_seed() -> None:
    assert SEED.hex() not in repr(game_row("playing"))
