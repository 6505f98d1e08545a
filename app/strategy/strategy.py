"""The computer player's decisions: which box, which dice to hold, and what each option is worth.

Two strategies share one interface (:class:`Strategy`): :class:`OptimalStrategy` maximises the
expected final total using the table of every turn-start state, and :class:`GreedyStrategy`
maximises what this turn adds to the sheet and needs no table, so it serves while the table is
being built.

Ties are broken by fixed rules, so every choice is deterministic:

* box: among the legal boxes whose value is within :data:`TIE_TOLERANCE` of the best, the
  first in sheet order;
* hold: among the distinct kept multisets whose value is within :data:`TIE_TOLERANCE` of the
  best, the one keeping more dice, then the lexicographically smallest sorted multiset; the
  held positions are the leftmost dice showing each kept value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from app.rules import (
    PENTA_POINTS,
    UPPER_BONUS,
    Box,
    Dice,
    IllegalActionError,
    Scoresheet,
    validate_dice,
)
from app.strategy.state import SheetState, joker_rows
from app.strategy.tables import (
    KEEP_INDEX,
    KEEPS,
    ROLL_START,
    STATE_COUNT,
    SUB_KEEPS,
    UPPER_LEVELS,
    FloatArray,
    reaches_upper_bonus,
    state_index,
)
from app.strategy.turn import Workspace, best_keep_values, keep_values, roll_values

TIE_TOLERANCE = 1e-9
"""Values closer than this count as equal when breaking ties."""


@dataclass(frozen=True)
class HoldOption:
    """One way to hold dice: the flags for the dice as given, the kept values, their worth."""

    held: tuple[bool, ...]
    kept: tuple[int, ...]
    expected: float


class Strategy(Protocol):
    """What the web layer asks of the computer player. Values are final totals of the sheet."""

    is_optimal: bool

    def expected_total(self, sheet: Scoresheet) -> float:
        """The expected final total of ``sheet`` at the start of its next turn."""
        ...

    def box_values(self, sheet: Scoresheet, dice: Sequence[int]) -> dict[Box, float]:
        """The value of recording ``dice`` in each legal box, in sheet order."""
        ...

    def best_box(self, sheet: Scoresheet, dice: Sequence[int]) -> Box:
        """The legal box to record ``dice`` in."""
        ...

    def hold_values(
        self, sheet: Scoresheet, dice: Sequence[int], rolls_left: int
    ) -> list[HoldOption]:
        """Every distinct way to hold ``dice`` before one of ``rolls_left`` rolls, best first."""
        ...

    def best_hold(
        self, sheet: Scoresheet, dice: Sequence[int], rolls_left: int
    ) -> tuple[bool, ...]:
        """Which of ``dice`` (as given, in any order) to hold before the next roll."""
        ...


class TablePlayer:
    """Decisions that maximise the sheet's total plus the future points in ``values``.

    ``values`` holds the expected future points of every turn-start state (see
    :mod:`app.strategy.tables`); the two strategies differ only in that table.
    """

    is_optimal = False

    def __init__(self, values: FloatArray) -> None:
        if values.shape != (STATE_COUNT,):
            raise ValueError(f"a value table has {STATE_COUNT} entries, not {values.shape}")
        self._values = values.view()
        self._values.flags.writeable = False

    @property
    def values(self) -> FloatArray:
        """The expected future points of every turn-start state (read-only)."""
        return self._values

    def _future(self, state: SheetState) -> float:
        future = float(self._values[state.index])
        if np.isnan(future):
            raise ValueError(f"no legal game reaches this sheet ({state})")
        return future

    def expected_total(self, sheet: Scoresheet) -> float:
        """The expected final total of ``sheet`` at the start of its next turn."""
        return sheet.total + self._future(SheetState.of(sheet))

    def box_values(self, sheet: Scoresheet, dice: Sequence[int]) -> dict[Box, float]:
        """The expected final total after recording ``dice`` in each legal box, in sheet order.

        Each value counts the sheet's points, the box's points, the Penta bonus, the upper
        bonus once reached, and the expected points of the remaining turns.
        """
        dice = validate_dice(dice)
        state = SheetState.of(sheet)
        self._future(state)
        total, upper = sheet.total, sheet.upper_subtotal
        result: dict[Box, float] = {}
        for box, option in sheet.score_options(dice).items():
            raised = upper + option.points if box.is_upper else upper
            reached = UPPER_BONUS if reaches_upper_bonus(upper, raised) else 0
            fifty = state.flag or (box is Box.PENTA and option.points == PENTA_POINTS)
            after = state_index(
                state.mask | 1 << box.position, min(raised, UPPER_LEVELS - 1), int(fifty)
            )
            result[box] = total + option.total + reached + float(self._values[after])
        return result

    def best_box(self, sheet: Scoresheet, dice: Sequence[int]) -> Box:
        """The legal box for ``dice`` with the best value (ties: first in sheet order)."""
        values = self.box_values(sheet, dice)
        if not values:
            raise IllegalActionError("sheet_full_box")
        best = max(values.values())
        return next(box for box, value in values.items() if value >= best - TIE_TOLERANCE)

    def hold_values(
        self, sheet: Scoresheet, dice: Sequence[int], rolls_left: int
    ) -> list[HoldOption]:
        """Every distinct way to hold ``dice`` with ``rolls_left`` (1 or 2) rolls left.

        One option per distinct kept multiset, holding all dice included; ``expected`` is the
        expected final total when the rest is rolled and play goes on by this strategy. The
        best option by the tie rule of the module comes first, then the best of the rest by
        the same rule, and so on.
        """
        dice = validate_dice(dice)
        if rolls_left not in (1, 2):
            raise ValueError(f"a hold is chosen with 1 or 2 rolls left, not {rolls_left}")
        if sheet.is_full:
            raise IllegalActionError("sheet_full_turn")
        keeps = self._keep_values(sheet, rolls_left)
        roll = KEEP_INDEX[tuple(sorted(dice))] - ROLL_START
        candidates = list(dict.fromkeys(SUB_KEEPS[roll].tolist()))
        total = sheet.total
        worth = {keep: total + float(keeps[keep]) for keep in candidates}
        ranked = []
        while candidates:
            top = max(worth[keep] for keep in candidates)
            best = next(keep for keep in candidates if worth[keep] >= top - TIE_TOLERANCE)
            ranked.append(best)
            candidates.remove(best)
        return [
            HoldOption(_held_flags(dice, KEEPS[keep]), KEEPS[keep], worth[keep]) for keep in ranked
        ]

    def best_hold(
        self, sheet: Scoresheet, dice: Sequence[int], rolls_left: int
    ) -> tuple[bool, ...]:
        """The dice to hold before the next roll, as flags for ``dice`` in the order given.

        Ties: keep more dice, then the smallest sorted multiset; the leftmost dice showing
        each kept value are held.
        """
        return self.hold_values(sheet, dice, rolls_left)[0].held

    def _keep_values(self, sheet: Scoresheet, rolls_left: int) -> FloatArray:
        """(462,): the expected future points of each keep with ``rolls_left`` rolls left."""
        state = SheetState.of(sheet)
        self._future(state)
        mask, upper, flag = state.arrays()
        joker_points, joker_bonus = joker_rows(sheet)
        workspace = Workspace(1)
        keeps, best = workspace.keeps(1), workspace.best(1)
        final = roll_values(
            self._values,
            mask,
            upper,
            flag,
            joker_points,
            joker_bonus,
            keeps[ROLL_START:],
            workspace,
        )
        keep_values(final, keeps, workspace)
        for _ in range(rolls_left - 1):
            keep_values(best_keep_values(keeps, best, workspace), keeps, workspace)
        return keeps[:, 0].copy()


def _held_flags(dice: Dice, kept: tuple[int, ...]) -> tuple[bool, ...]:
    """Hold the leftmost die showing each kept value, as many times as it is kept."""
    wanted = list(kept)
    held = []
    for value in dice:
        is_kept = value in wanted
        if is_kept:
            wanted.remove(value)
        held.append(is_kept)
    return tuple(held)


class OptimalStrategy(TablePlayer):
    """Optimal solitaire play: every choice maximises the expected final total.

    ``values`` is the table made by :func:`app.strategy.build.build_values` (or loaded from
    its cache). Sheets that no legal game reaches raise :class:`ValueError`.
    """

    is_optimal = True


class GreedyStrategy(TablePlayer):
    """The fallback: maximise what this turn adds to the sheet, with no thought of later turns.

    A box is worth the sheet's total after recording it (points, Penta bonus and upper bonus
    once reached); a hold is worth the expected total after this turn when the rest of the turn
    is played the same way. Ties as in the module docstring. It needs no table, so it is ready
    at once.
    """

    is_optimal = False

    def __init__(self) -> None:
        super().__init__(np.zeros(STATE_COUNT))
