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

    def seat(number: int, name: str, *, computer: bool = False, seed: str | None = None) -> SeatRow:
        return SeatRow(
            game_id="g1",
            seat=number,
            name=name,
            computer=computer,
            secret_hash=None if computer else "hash",
            final_total=None,
            hints=False,
            used_hints=False,
            client_seed=seed,
            stand_in=False,
            rematch=None,
            moved_hash=None,
            person_id=None,
            pentas=None,
        )

    return GameRow(
        id="g1",
        status=status,
        version=3,
        turn_seconds=None,
        rematch_id=None,
        server_seed=SEED.hex(),
        dice_scheme=2,
        closed_reason=None,
        previous_id=None,
        computer_pace=None,
        public=False,
        started_at=None,
        finished_at=None,
        turn_started_at=None,
        due_at=None,
        created_at=moment,
        updated_at=moment,
        players=(
            seat(0, "Ann", seed="ann"),
            seat(1, "Computer 1", computer=True),
            seat(2, "Bob", seed="bob"),
        ),
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
