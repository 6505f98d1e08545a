"""Fixed tables of the dice and the scoresheet that every turn computation shares.

A *keep* is a sorted multiset of 0 to 5 dice. The 462 keeps are numbered by size (see
:data:`KEEPS`), so the last 252 are the distinct rolls of :func:`app.rules.distinct_rolls`.
A *state* at the start of a turn is ``(mask, upper, flag)``: the used boxes as bits (bit
``box.position``), the upper subtotal capped at 63, and whether the Penta box holds 50.

Points and legality come only from :meth:`Scoresheet.score_options`: the ordinary points of
every box for every roll are read from an empty sheet, and the joker cases (a Penta rolled while
the Penta box holds 50) are read once per set of used boxes and face.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations_with_replacement
from math import factorial
from typing import overload

import numpy as np
from numpy.typing import NDArray

from app.rules import (
    BOXES,
    DICE_COUNT,
    FACES,
    PENTA_POINTS,
    UPPER_BONUS_THRESHOLD,
    Box,
    Scoresheet,
    distinct_rolls,
)

Keep = tuple[int, ...]
FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

BOX_COUNT = len(BOXES)
MASK_COUNT = 1 << BOX_COUNT
FULL_MASK = MASK_COUNT - 1
UPPER_LEVELS = UPPER_BONUS_THRESHOLD + 1
"""Upper subtotals 0 to 63 (63 standing for "63 or more")."""
STATE_COUNT = MASK_COUNT * UPPER_LEVELS * 2
PENTA_BIT = 1 << Box.PENTA.position
NO_OPTION = -1
"""Marks a box that is not legal in :func:`joker_tables`."""

KEEPS: tuple[Keep, ...] = tuple(
    keep
    for size in range(DICE_COUNT + 1)
    for keep in sorted(
        combinations_with_replacement(FACES, size), key=lambda keep: (-len(set(keep)), keep)
    )
)
"""Every keep, by size, then most distinct faces first (see :data:`PARENTS`), then smallest."""
KEEP_COUNT = len(KEEPS)
KEEP_INDEX: dict[Keep, int] = {keep: index for index, keep in enumerate(KEEPS)}
LEVEL_START: tuple[int, ...] = tuple(
    sum(1 for keep in KEEPS if len(keep) < size) for size in range(DICE_COUNT + 2)
)
"""Keeps of size ``k`` are ``KEEPS[LEVEL_START[k]:LEVEL_START[k + 1]]``."""
ROLL_START = LEVEL_START[DICE_COUNT]
ROLLS: tuple[Keep, ...] = KEEPS[ROLL_START:]
"""The 252 distinct rolls, sorted dice, in the order of the rows of every roll table."""
ROLL_COUNT = len(ROLLS)
assert sorted(ROLLS) == list(distinct_rolls())


@overload
def state_index(mask: int, upper: int, flag: int) -> int: ...
@overload
def state_index(mask: IntArray, upper: IntArray | int, flag: IntArray | int) -> IntArray: ...
def state_index(
    mask: int | IntArray, upper: int | IntArray, flag: int | IntArray
) -> int | IntArray:
    """The position of a state (or of a batch of states) in the flat value table."""
    return (mask * UPPER_LEVELS + upper) * 2 + flag


@overload
def reaches_upper_bonus(before: int, after: int) -> bool: ...
@overload
def reaches_upper_bonus(before: IntArray, after: IntArray) -> NDArray[np.bool_]: ...
def reaches_upper_bonus(before: int | IntArray, after: int | IntArray) -> bool | NDArray[np.bool_]:
    """Whether raising the upper subtotal from ``before`` to ``after`` earns the upper bonus."""
    return (before < UPPER_BONUS_THRESHOLD) & (after >= UPPER_BONUS_THRESHOLD)


def _children() -> tuple[IntArray, ...]:
    """For each size below 5: the keep with one more die of each face, shape (n, 6)."""
    return tuple(
        np.array(
            [
                [KEEP_INDEX[tuple(sorted((*keep, face)))] for face in FACES]
                for keep in KEEPS[LEVEL_START[size] : LEVEL_START[size + 1]]
            ],
            dtype=np.int64,
        )
        for size in range(DICE_COUNT)
    )


def _parents() -> tuple[tuple[IntArray, tuple[int, ...]], ...]:
    """For each size k from 1: the keeps with one die fewer, and how many rows use each column.

    The array has shape (n, k), one column per distinct face of the keep, padded by repeats;
    since keeps with more distinct faces come first, column ``j`` is needed only by the first
    ``used[j]`` rows.
    """
    result = []
    for size in range(1, DICE_COUNT + 1):
        rows = []
        for keep in KEEPS[LEVEL_START[size] : LEVEL_START[size + 1]]:
            smaller = []
            for face in sorted(set(keep)):
                rest = list(keep)
                rest.remove(face)
                smaller.append(KEEP_INDEX[tuple(rest)])
            rows.append(smaller + [smaller[0]] * (size - len(smaller)))
        distinct = [len(set(keep)) for keep in KEEPS[LEVEL_START[size] : LEVEL_START[size + 1]]]
        used = tuple(sum(1 for count in distinct if count > column) for column in range(size))
        result.append((np.array(rows, dtype=np.int64), used))
    return tuple(result)


CHILDREN = _children()
PARENTS = _parents()


def _sub_keeps(roll: Keep) -> list[int]:
    """Every distinct keep of ``roll``, in tie-break order: more dice first, then smallest."""
    found = {
        tuple(sorted(roll[i] for i in range(DICE_COUNT) if bits >> i & 1))
        for bits in range(1 << DICE_COUNT)
    }
    ordered = sorted(found, key=lambda keep: (-len(keep), keep))
    return [KEEP_INDEX[keep] for keep in ordered]


def _sub_keep_table() -> IntArray:
    rows = [_sub_keeps(roll) for roll in ROLLS]
    width = 1 << DICE_COUNT
    return np.array([row + [row[-1]] * (width - len(row)) for row in rows], dtype=np.int64)


SUB_KEEPS = _sub_keep_table()
"""(252, 32): the distinct keeps of each roll in tie-break order, padded by repeating the last."""
KEEP_COUNTS = np.array([[keep.count(face) for face in FACES] for keep in KEEPS], dtype=np.int64)
"""(462, 6): how many dice of each face a keep holds."""
KEEP_SIZES = KEEP_COUNTS.sum(axis=1)
COUNT_CODE_BASE = DICE_COUNT + 1
_CODE_TO_KEEP = np.full(COUNT_CODE_BASE ** len(FACES), -1, dtype=np.int64)
_COUNT_WEIGHTS = COUNT_CODE_BASE ** np.arange(len(FACES), dtype=np.int64)
_CODE_TO_KEEP[KEEP_COUNTS @ _COUNT_WEIGHTS] = np.arange(KEEP_COUNT)


def keep_of_counts(counts: IntArray) -> IntArray:
    """The keep index of each row of face counts, shape (n, 6) -> (n,)."""
    result: IntArray = _CODE_TO_KEEP[counts @ _COUNT_WEIGHTS]
    return result


ROLL_PROBABILITIES: FloatArray = np.array(
    [
        factorial(DICE_COUNT)
        / np.prod([factorial(roll.count(face)) for face in FACES])
        / len(FACES) ** DICE_COUNT
        for roll in ROLLS
    ],
    dtype=np.float64,
)
ROLL_FACE_COUNTS = KEEP_COUNTS[ROLL_START:]
"""(252, 6): how many dice of each face a roll shows."""
PENTA_ROLLS: IntArray = np.array(
    [ROLLS.index((face,) * DICE_COUNT) for face in FACES], dtype=np.int64
)
"""The roll index of five 1s, five 2s, … five 6s."""


def _ordinary_points() -> IntArray:
    """(13, 252): the points of every box for every roll, read from an empty sheet's options."""
    empty = Scoresheet()
    table = np.zeros((BOX_COUNT, ROLL_COUNT), dtype=np.int64)
    for column, roll in enumerate(ROLLS):
        for box, option in empty.score_options(roll).items():
            assert option.bonus == 0
            table[box.position, column] = option.points
    return table


ORDINARY_POINTS = _ordinary_points()
"""Without a joker every free box is legal with these points, whatever else the sheet holds."""


def synthetic_sheet(mask: int, flag: int) -> Scoresheet:
    """A sheet whose used boxes are ``mask``, the Penta box holding 50 when ``flag``.

    Used boxes other than Penta hold 0: legality never depends on their points.
    """
    scores = {box: 0 for box in BOXES if mask >> box.position & 1}
    if flag:
        scores[Box.PENTA] = PENTA_POINTS
    return Scoresheet.from_mapping(scores)


@cache
def joker_tables() -> tuple[NDArray[np.int8], IntArray]:
    """Joker points and bonus for every set of used boxes that contains a Penta of 50.

    Returns ``points`` of shape (8192, 6, 13), the points of each legal box for five of each
    face or :data:`NO_OPTION`, and ``bonus`` of shape (8192, 6). Rows of masks without the
    Penta box are unused (all :data:`NO_OPTION`).
    """
    points = np.full((MASK_COUNT, len(FACES), BOX_COUNT), NO_OPTION, dtype=np.int8)
    bonus = np.zeros((MASK_COUNT, len(FACES)), dtype=np.int64)
    for mask in range(PENTA_BIT, MASK_COUNT):
        if not mask & PENTA_BIT or mask == FULL_MASK:
            continue
        sheet = synthetic_sheet(mask, 1)
        for face_index, face in enumerate(FACES):
            options = sheet.score_options((face,) * DICE_COUNT)
            for box, option in options.items():
                points[mask, face_index, box.position] = option.points
                bonus[mask, face_index] = option.bonus
    return points, bonus


def reachable_uppers(mask: int) -> IntArray:
    """The capped upper subtotals that play can reach with the used upper boxes of ``mask``."""
    return _reachable_by_upper_mask(mask & ((1 << len(FACES)) - 1))


@cache
def _reachable_by_upper_mask(upper_mask: int) -> IntArray:
    reachable = {0}
    for face in FACES:
        if upper_mask >> (face - 1) & 1:
            reachable = {
                min(total + face * count, UPPER_LEVELS - 1)
                for total in reachable
                for count in range(DICE_COUNT + 1)
            }
    result = np.array(sorted(reachable), dtype=np.int64)
    result.flags.writeable = False
    return result
