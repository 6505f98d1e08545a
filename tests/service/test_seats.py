"""Seat secrets and game ids (app/service/seats.py)."""

from __future__ import annotations

import re

from app.service.seats import new_game_id


def test_a_game_id_never_starts_with_a_dash() -> None:
    """``penta verify -Xb3…`` would read a leading dash as an option. Of 4,000 ids of 64 random
    bits, about 62 would start with one (1 in 64): the odds that none does by chance are 1e-27."""
    ids = {new_game_id() for _ in range(4000)}
    assert len(ids) == 4000
    assert all(re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_-]{10}", game_id) for game_id in ids)
