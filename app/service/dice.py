"""Where dice come from: the one place in Penta that rolls them."""

from __future__ import annotations

import itertools
import secrets
import threading
from collections.abc import Sequence
from typing import Protocol

from app.rules import DICE_COUNT, FACES, Dice, validate_dice


class DiceSource(Protocol):
    """Something that deals die values."""

    def deal(self) -> int:
        """One die value, 1 to 6."""
        ...


class SecureDice:
    """Dice from the operating system's CSPRNG (:mod:`secrets`): the only source in production."""

    def deal(self) -> int:
        return secrets.randbelow(len(FACES)) + 1


class ScriptedDice:
    """TEST ONLY: deals the given values in a cycle, so that tests can reach any situation."""

    def __init__(self, values: Sequence[int]) -> None:
        if not values or any(value not in FACES for value in values):
            raise ValueError("a dice script is a non-empty list of values 1 to 6")
        self._values = itertools.cycle(values)
        self._lock = threading.Lock()

    @classmethod
    def parse(cls, script: str) -> ScriptedDice:
        """Dice from a comma-separated script such as ``"1,1,3,4,6"``."""
        return cls([int(part) for part in script.split(",") if part.strip()])

    def deal(self) -> int:
        with self._lock:
            return next(self._values)


def roll(source: DiceSource, dice: Dice | None, held: Sequence[bool]) -> Dice:
    """The dice after a roll: held dice keep their values, the others are dealt anew."""
    if dice is None:
        return validate_dice(source.deal() for _ in range(DICE_COUNT))
    return validate_dice(
        value if keep else source.deal() for value, keep in zip(dice, held, strict=True)
    )
