"""Where dice come from: the one place in Penta that rolls them.

A game with a server seed is dealt by the verifiable scheme of :mod:`app.fairness`; a game
from before that scheme (no seed) from the CSPRNG directly.
"""

from __future__ import annotations

import itertools
import secrets
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from app import fairness
from app.rules import DICE_COUNT, FACES, Dice, validate_dice


@dataclass(frozen=True)
class RollSeeds:
    """What one roll of a verifiable game is dealt from."""

    server_seed: bytes
    game_id: str
    number: int
    """The roll's number in the game, counted from 0 over every seat."""
    client_seeds: tuple[tuple[int, str], ...]
    """The human seats' ``(seat, seed)``, in seat order."""
    scheme: int = fairness.SCHEME
    """How the seeds are combined (:func:`app.fairness.roll_message`)."""

    @property
    def message(self) -> str:
        return fairness.roll_message(self.game_id, self.number, self.client_seeds, self.scheme)


class DiceSource(Protocol):
    """Something that deals die values."""

    def new_server_seed(self) -> bytes | None:
        """A new game's server seed, or None when this source's dice cannot be verified."""
        ...

    def faces(self, seeds: RollSeeds | None) -> Iterator[int]:
        """The die values of one roll, as many as are asked for (1 to 6 each)."""
        ...


class SecureDice:
    """The only source in production: the verifiable scheme over a server seed from
    :mod:`secrets`, and for games without a seed the operating system's CSPRNG."""

    def new_server_seed(self) -> bytes:
        return secrets.token_bytes(fairness.SERVER_SEED_BYTES)

    def faces(self, seeds: RollSeeds | None) -> Iterator[int]:
        if seeds is not None:
            return fairness.faces(seeds.server_seed, seeds.message)
        return iter(lambda: secrets.randbelow(len(FACES)) + 1, 0)


class ScriptedDice:
    """TEST ONLY: deals the given values in a cycle, so that tests can reach any situation.

    Its games get no server seed: their dice could not be verified, and say so."""

    def __init__(self, values: Sequence[int]) -> None:
        if not values or any(value not in FACES for value in values):
            raise ValueError("a dice script is a non-empty list of values 1 to 6")
        self._values = itertools.cycle(values)
        self._lock = threading.Lock()

    @classmethod
    def parse(cls, script: str) -> ScriptedDice:
        """Dice from a comma-separated script such as ``"1,1,3,4,6"``."""
        return cls([int(part) for part in script.split(",") if part.strip()])

    def new_server_seed(self) -> None:
        return None

    def faces(self, seeds: RollSeeds | None) -> Iterator[int]:
        return iter(self._deal, 0)

    def _deal(self) -> int:
        with self._lock:
            return next(self._values)


def roll(
    source: DiceSource, dice: Dice | None, held: Sequence[bool], seeds: RollSeeds | None
) -> Dice:
    """The dice after a roll: held dice keep their values, the others are dealt anew, in
    increasing position (all five on a turn's first roll)."""
    stream = source.faces(seeds)
    if dice is None:
        return validate_dice(next(stream) for _ in range(DICE_COUNT))
    return validate_dice(
        value if keep else next(stream) for value, keep in zip(dice, held, strict=True)
    )
