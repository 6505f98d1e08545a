"""The turn-start state of a scoresheet, as the value table indexes it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from app.rules import DICE_COUNT, FACES, Scoresheet
from app.strategy.tables import (
    BOX_COUNT,
    NO_OPTION,
    UPPER_LEVELS,
    IntArray,
    state_index,
)


@dataclass(frozen=True)
class SheetState:
    """What the future of a sheet depends on: used boxes, capped upper subtotal, Penta 50."""

    mask: int
    upper: int
    flag: int

    @classmethod
    def of(cls, sheet: Scoresheet) -> SheetState:
        """The state of ``sheet`` at the start of its next turn."""
        mask = sum(
            1 << position for position, points in enumerate(sheet.scores) if points is not None
        )
        upper = min(sheet.upper_subtotal, UPPER_LEVELS - 1)
        return cls(mask, upper, int(sheet.has_penta_fifty))

    @property
    def index(self) -> int:
        """The position of this state in the value table."""
        return state_index(self.mask, self.upper, self.flag)

    def arrays(self) -> tuple[IntArray, IntArray, IntArray]:
        """The state as a batch of one, for :mod:`app.strategy.turn`."""
        return (
            np.array([self.mask], dtype=np.int64),
            np.array([self.upper], dtype=np.int64),
            np.array([self.flag], dtype=np.int64),
        )


def joker_rows(sheet: Scoresheet) -> tuple[NDArray[np.int8], IntArray]:
    """The legal boxes of five of each face for ``sheet``, as a batch of one.

    Returns points (1, 6, 13), :data:`NO_OPTION` where illegal, and the bonus (1, 6); read
    from :meth:`Scoresheet.score_options` and used only when the Penta box holds 50.
    """
    points = np.full((1, len(FACES), BOX_COUNT), NO_OPTION, dtype=np.int8)
    bonus = np.zeros((1, len(FACES)), dtype=np.int64)
    if sheet.has_penta_fifty:
        for face_index, face in enumerate(FACES):
            for box, option in sheet.score_options((face,) * DICE_COUNT).items():
                points[0, face_index, box.position] = option.points
                bonus[0, face_index] = option.bonus
    return points, bonus
