"""Dice values and the ordinary scoring of a box."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from itertools import combinations_with_replacement

from app.rules.boxes import (
    DICE_COUNT,
    FACES,
    FULL_HOUSE_POINTS,
    LARGE_STRAIGHT_POINTS,
    PENTA_POINTS,
    SMALL_STRAIGHT_POINTS,
    Box,
)
from app.rules.errors import MalformedActionError

Dice = tuple[int, ...]
"""Five die values, each 1 to 6, in the order they lie on the table."""

_SMALL_STRAIGHTS = ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6})
_LARGE_STRAIGHTS = ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6})


def validate_dice(values: Iterable[object]) -> Dice:
    """Return ``values`` as dice, or raise :class:`MalformedActionError`.

    >>> validate_dice([1, 6, 3, 3, 2])
    (1, 6, 3, 3, 2)
    >>> validate_dice([1, 7, 3, 3, 2])
    Traceback (most recent call last):
    ...
    app.rules.errors.MalformedActionError: a die shows 1 to 6, not 7
    """
    try:
        dice = tuple(values)
    except TypeError:
        raise MalformedActionError("roll_not_dice", values=values) from None
    if len(dice) != DICE_COUNT:
        raise MalformedActionError("roll_dice_count", count=len(dice))
    for value in dice:
        if type(value) is not int or value not in FACES:
            raise MalformedActionError("die_face", value=value)
    return dice  # type: ignore[return-value]


def is_penta(dice: Sequence[int]) -> bool:
    """Whether all five dice show the same value.

    >>> is_penta((4, 4, 4, 4, 4)), is_penta((4, 4, 4, 4, 3))
    (True, False)
    """
    return len(set(dice)) == 1


def box_points(box: Box, dice: Sequence[int]) -> int:
    """The points ``dice`` score in ``box`` by the ordinary rules, without any joker.

    >>> box_points(Box.FOURS, (1, 3, 2, 4, 4))
    8
    >>> box_points(Box.SMALL_STRAIGHT, (1, 3, 2, 4, 4))
    30
    >>> box_points(Box.FULL_HOUSE, (4, 4, 4, 4, 4))
    0
    """
    return _points(box, tuple(sorted(dice)))


@cache
def _points(box: Box, dice: tuple[int, ...]) -> int:
    # Kept for each box and sorted roll (13 x 252 at most): every view of a game asks for
    # the points of its dice in every box, more than once.
    counts = sorted(Counter(dice).values())
    values = set(dice)
    match box:
        case Box.THREE_OF_A_KIND:
            return sum(dice) if counts[-1] >= 3 else 0
        case Box.FOUR_OF_A_KIND:
            return sum(dice) if counts[-1] >= 4 else 0
        case Box.FULL_HOUSE:
            return FULL_HOUSE_POINTS if counts == [2, 3] else 0
        case Box.SMALL_STRAIGHT:
            return SMALL_STRAIGHT_POINTS if any(s <= values for s in _SMALL_STRAIGHTS) else 0
        case Box.LARGE_STRAIGHT:
            return LARGE_STRAIGHT_POINTS if values in _LARGE_STRAIGHTS else 0
        case Box.CHANCE:
            return sum(dice)
        case Box.PENTA:
            return PENTA_POINTS if counts == [5] else 0
        case _:
            face = box.face
            return sum(value for value in dice if value == face)


def distinct_rolls() -> tuple[Dice, ...]:
    """All 252 distinct rolls of five dice, each sorted, in lexicographic order.

    >>> rolls = distinct_rolls()
    >>> len(rolls), rolls[0], rolls[-1]
    (252, (1, 1, 1, 1, 1), (6, 6, 6, 6, 6))
    """
    return tuple(combinations_with_replacement(FACES, DICE_COUNT))
