"""The thirteen boxes of the scoresheet and the game's fixed numbers."""

from __future__ import annotations

from enum import StrEnum

DICE_COUNT = 5
FACES = (1, 2, 3, 4, 5, 6)
MAX_ROLLS = 3
ROUNDS = 13

UPPER_BONUS = 35
UPPER_BONUS_THRESHOLD = 63
FULL_HOUSE_POINTS = 25
SMALL_STRAIGHT_POINTS = 30
LARGE_STRAIGHT_POINTS = 40
PENTA_POINTS = 50
PENTA_BONUS = 100


class Box(StrEnum):
    """A box of the scoresheet.

    The values are the stable keys used in storage, the API and translations.

    >>> Box("full_house") is Box.FULL_HOUSE
    True
    >>> Box.FOURS.face
    4
    >>> Box.CHANCE.is_upper
    False
    """

    ONES = "ones"
    TWOS = "twos"
    THREES = "threes"
    FOURS = "fours"
    FIVES = "fives"
    SIXES = "sixes"
    THREE_OF_A_KIND = "three_of_a_kind"
    FOUR_OF_A_KIND = "four_of_a_kind"
    FULL_HOUSE = "full_house"
    SMALL_STRAIGHT = "small_straight"
    LARGE_STRAIGHT = "large_straight"
    CHANCE = "chance"
    PENTA = "penta"

    @property
    def is_upper(self) -> bool:
        """Whether the box belongs to the upper section (Ones … Sixes)."""
        return self in UPPER_BOXES

    @property
    def face(self) -> int | None:
        """The die value an upper box counts, or None for a lower box."""
        return UPPER_BOXES.index(self) + 1 if self.is_upper else None

    @property
    def position(self) -> int:
        """The box's position on the scoresheet, 0 for Ones to 12 for Penta."""
        return _POSITIONS[self]

    @classmethod
    def for_face(cls, face: int) -> Box:
        """The upper box that counts ``face``.

        >>> Box.for_face(6)
        <Box.SIXES: 'sixes'>
        """
        if face not in FACES:
            # Guard: UPPER_BOXES[face - 1] would silently give Sixes for 0.
            raise ValueError(f"a die shows 1 to 6, not {face!r}")
        return UPPER_BOXES[face - 1]


BOXES: tuple[Box, ...] = tuple(Box)
UPPER_BOXES: tuple[Box, ...] = BOXES[:6]
LOWER_BOXES: tuple[Box, ...] = BOXES[6:]
JOKER_LOWER_BOXES: tuple[Box, ...] = LOWER_BOXES[:-1]
"""The lower boxes a joker may take when its upper box is used (all but Penta itself)."""
_POSITIONS: dict[Box, int] = {box: position for position, box in enumerate(BOXES)}
