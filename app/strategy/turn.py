"""One turn of optimal play, for a batch of turn-start states at once.

Arrays have one column per state (``B`` columns) and one row per roll (252) or keep (462), in
the order of :mod:`app.strategy.tables`. ``values`` is the flat table of expected future points
of every turn-start state, indexed by :func:`app.strategy.tables.state_index`; a turn only reads
states with one more box used.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from app.rules import BOXES, DICE_COUNT, FACES, UPPER_BONUS, Box
from app.rules import LOWER_BOXES as _LOWER_BOXES
from app.strategy.tables import (
    CHILDREN,
    KEEP_COUNT,
    LEVEL_START,
    NO_OPTION,
    ORDINARY_POINTS,
    PARENTS,
    PENTA_ROLLS,
    ROLL_COUNT,
    ROLL_FACE_COUNTS,
    ROLL_PROBABILITIES,
    ROLL_START,
    UPPER_LEVELS,
    FloatArray,
    IntArray,
    reaches_upper_bonus,
    state_index,
)

FEW_STATES = 8
"""Up to this many states, the lattices gather whole levels at once (fewer, larger calls);
the results are the same to the last bit, as the sums run in the same order."""
_TOP = UPPER_LEVELS - 1
_COUNTS = DICE_COUNT + 1
_BOX_BITS = np.array([1 << box.position for box in BOXES], dtype=np.int64)
_IS_UPPER = np.array([box.is_upper for box in BOXES])
_UPPER_BITS = np.array([1 << (face - 1) for face in FACES], dtype=np.int64)
_UPPER_POINTS = np.array(FACES, dtype=np.int64)[:, None] * np.arange(_COUNTS)
"""(6, 6): the points of each upper box for each count of its face."""
_UPPER_ROWS = np.arange(len(FACES)) * _COUNTS + ROLL_FACE_COUNTS
"""(252, 6): the row of (upper box, count) that each roll gives each upper box."""
_LOWER_BITS = np.array([1 << box.position for box in _LOWER_BOXES], dtype=np.int64)
_PENTA_LOWER = _LOWER_BOXES.index(Box.PENTA)
_LOWER_POINTS = ORDINARY_POINTS[[box.position for box in _LOWER_BOXES]].astype(np.float64)
_SCORING_ROWS = tuple(np.nonzero(row)[0] for row in _LOWER_POINTS)
_POINTS_COLUMNS = tuple(
    points[rows, None] for points, rows in zip(_LOWER_POINTS, _SCORING_ROWS, strict=True)
)
_PENTA_LOWER_POINTS = _LOWER_POINTS[:, PENTA_ROLLS].T[:, :, None]
"""(6, 7, 1): the ordinary points of five of each face in each lower box."""


def _upper_gain(upper: IntArray, points: IntArray) -> tuple[IntArray, IntArray]:
    """The capped subtotal after adding ``points``, and the points plus the upper bonus."""
    raised = upper + points
    return np.minimum(raised, _TOP), points + reaches_upper_bonus(upper, raised) * UPPER_BONUS


class Workspace:
    """Reusable buffers for turns of up to ``width`` states.

    Allocating fresh arrays of this size for every batch costs more than the arithmetic (the
    allocator returns such blocks to the system and the pages fault in again), so every large
    intermediate lives here. Arrays returned by the functions below are views into it.
    """

    def __init__(self, width: int) -> None:
        self.width = width
        self._keeps = np.empty(KEEP_COUNT * width)
        self._best = np.empty(KEEP_COUNT * width)
        self._scratch = np.empty(ROLL_COUNT * width)
        self._other = np.empty(ROLL_COUNT * width)

    def keeps(self, states: int) -> FloatArray:
        """(462, states): expected values of the keeps."""
        return self._keeps[: KEEP_COUNT * states].reshape(KEEP_COUNT, states)

    def best(self, states: int) -> FloatArray:
        """(462, states): best sub-keep values."""
        return self._best[: KEEP_COUNT * states].reshape(KEEP_COUNT, states)

    def scratch(self, rows: int, states: int) -> FloatArray:
        """(rows, states), rows up to 252: a temporary."""
        return self._scratch[: rows * states].reshape(rows, states)

    def other(self, rows: int, states: int) -> FloatArray:
        """(rows, states), rows up to 252: a second temporary."""
        return self._other[: rows * states].reshape(rows, states)


def _take(source: FloatArray, rows: IntArray, out: FloatArray) -> FloatArray:
    result: FloatArray = source.take(rows, axis=0, out=out, mode="clip")
    return result


def roll_values(
    values: FloatArray,
    mask: IntArray,
    upper: IntArray,
    flag: IntArray,
    joker_points: NDArray[np.int8],
    joker_bonus: IntArray,
    out: FloatArray,
    workspace: Workspace,
) -> FloatArray:
    """Write into ``out`` (252, B) the best points-plus-future of scoring each final roll.

    ``joker_points`` (B, 6, 13) and ``joker_bonus`` (B, 6) give, for states whose Penta box
    holds 50, the legal boxes of five of each face (:data:`NO_OPTION` if illegal); rows of
    other states are ignored. ``out`` must not be a buffer of ``workspace`` other than
    :meth:`Workspace.keeps` or :meth:`Workspace.best`.

    A lower box that scores nothing for a roll is worth its future alone; that value enters
    every row as a floor, which is exact because where the box does score, the same future
    plus its points is larger. The six Penta rows are then recomputed box by box.
    """
    states = mask.size
    scratch = workspace.scratch(ROLL_COUNT, states)
    raised, gain = _upper_gain(upper, _UPPER_POINTS[:, :, None])
    after = (mask | _UPPER_BITS[:, None])[:, None, :]
    by_count = gain + values[state_index(after, raised, flag)]
    used = (mask & _UPPER_BITS[:, None] != 0)[:, None, :]
    upper_options = np.where(used, -np.inf, by_count).reshape(len(FACES) * _COUNTS, states)
    _take(upper_options, _UPPER_ROWS[:, 0], out)
    for face_index in range(1, len(FACES)):
        np.maximum(out, _take(upper_options, _UPPER_ROWS[:, face_index], scratch), out=out)
    penta_rows = upper_options[_UPPER_ROWS[PENTA_ROLLS]].max(axis=1)

    used_lower = mask & _LOWER_BITS[:, None] != 0
    after_lower = mask | _LOWER_BITS[:, None]
    future = np.where(used_lower, -np.inf, values[state_index(after_lower, upper, flag)])
    future[_PENTA_LOWER] = np.where(
        used_lower[_PENTA_LOWER], -np.inf, values[state_index(after_lower[_PENTA_LOWER], upper, 0)]
    )
    scoring_future = future.copy()
    scoring_future[_PENTA_LOWER] = np.where(
        used_lower[_PENTA_LOWER], -np.inf, values[state_index(after_lower[_PENTA_LOWER], upper, 1)]
    )
    np.maximum(out, future.max(axis=0), out=out)
    for lower, rows in enumerate(_SCORING_ROWS):
        if used_lower[lower].all() or not rows.size:
            continue
        points = _LOWER_POINTS[lower]
        if rows.size == ROLL_COUNT:
            np.maximum(out, np.add(points[:, None], scoring_future[lower], out=scratch), out=out)
            continue
        part = workspace.scratch(rows.size, states)
        np.add(_POINTS_COLUMNS[lower], scoring_future[lower], out=part)
        np.maximum(part, _take(out, rows, workspace.other(rows.size, states)), out=part)
        out[rows] = part
    penta_lower = np.where(
        _PENTA_LOWER_POINTS > 0, _PENTA_LOWER_POINTS + scoring_future, future
    ).max(axis=1)
    out[PENTA_ROLLS] = np.maximum(penta_rows, penta_lower)

    jokers = np.nonzero(flag)[0]
    if jokers.size:
        out[np.ix_(PENTA_ROLLS, jokers)] = _joker_values(
            values, mask[jokers], upper[jokers], joker_points[jokers], joker_bonus[jokers]
        ).T
    return out


def _joker_values(
    values: FloatArray,
    mask: IntArray,
    upper: IntArray,
    points: NDArray[np.int8],
    bonus: IntArray,
) -> FloatArray:
    """(J, 6): the best value of five of each face for states whose Penta box holds 50."""
    legal = points != NO_OPTION
    gained = np.where(legal, points, 0).astype(np.int64)
    after = (mask[:, None] | _BOX_BITS[None, :])[:, None, :]
    raised, upper_gain = _upper_gain(upper[:, None, None], gained)
    raised = np.where(_IS_UPPER, raised, upper[:, None, None])
    gain = np.where(_IS_UPPER, upper_gain, gained) + bonus[:, :, None]
    option = gain + values[state_index(after, raised, 1)]
    result: FloatArray = np.where(legal, option, -np.inf).max(axis=2)
    return result


def keep_values(final: FloatArray, out: FloatArray, workspace: Workspace) -> FloatArray:
    """Write into ``out`` (462, B) the expected value of each keep when the rest is rolled once.

    ``final`` (252, B) is the value of each roll; it may be ``out``'s own last 252 rows. A keep
    of fewer than five dice is worth the mean over the six faces of the keep with one more die
    of that face.
    """
    states = final.shape[1]
    if not np.may_share_memory(final, out):
        out[ROLL_START:] = final
    for size in range(DICE_COUNT - 1, -1, -1):
        children = CHILDREN[size]
        level = out[LEVEL_START[size] : LEVEL_START[size + 1]]
        if states <= FEW_STATES:
            np.multiply(out[children].sum(axis=1), 1 / len(FACES), out=level)
            continue
        total = _take(out, children[:, 0], workspace.scratch(children.shape[0], states))
        other = workspace.other(children.shape[0], states)
        for column in range(1, children.shape[1]):
            np.add(total, _take(out, children[:, column], other), out=total)
        np.multiply(total, 1 / len(FACES), out=level)
    return out


def best_keep_values(expected: FloatArray, out: FloatArray, workspace: Workspace) -> FloatArray:
    """For each roll, the best value among the keeps it contains (all dice included).

    Fills ``out`` (462, B) with the best sub-keep value of every keep and returns its last 252
    rows. Computed on the keep lattice: the best sub-keep of ``K`` is ``K`` itself or the best
    sub-keep of ``K`` less one die.
    """
    states = expected.shape[1]
    out[0] = expected[0]
    for size in range(1, DICE_COUNT + 1):
        parents, rows_using = PARENTS[size - 1]
        start, stop = LEVEL_START[size], LEVEL_START[size + 1]
        level = out[start:stop]
        if states <= FEW_STATES:
            np.maximum(expected[start:stop], out[parents].max(axis=1), out=level)
            continue
        scratch = workspace.scratch(stop - start, states)
        np.maximum(expected[start:stop], _take(out, parents[:, 0], scratch), out=level)
        for column in range(1, size):
            rows = rows_using[column]
            if rows:
                part = _take(out, parents[:rows, column], scratch[:rows])
                np.maximum(level[:rows], part, out=level[:rows])
    return out[ROLL_START:]


def turn_start_values(
    values: FloatArray,
    mask: IntArray,
    upper: IntArray,
    flag: IntArray,
    joker_points: NDArray[np.int8],
    joker_bonus: IntArray,
    workspace: Workspace,
) -> FloatArray:
    """(B,): the expected future points of each state at the start of its turn."""
    keeps, best = workspace.keeps(mask.size), workspace.best(mask.size)
    last = roll_values(
        values, mask, upper, flag, joker_points, joker_bonus, keeps[ROLL_START:], workspace
    )
    second = best_keep_values(keep_values(last, keeps, workspace), best, workspace)
    first = best_keep_values(keep_values(second, keeps, workspace), best, workspace)
    result: FloatArray = ROLL_PROBABILITIES @ first
    return result
