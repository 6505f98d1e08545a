"""Advice of the optimal player for the player to move: what hints and the API show."""

from __future__ import annotations

from dataclasses import dataclass

from app.rules import Box, Game
from app.strategy import HoldOption, Strategy

SHOWN_HOLDS = 3


@dataclass(frozen=True)
class Advice:
    """The computer's choice and the expected final total of each legal box and best holds."""

    best_box: Box | None
    best_hold: tuple[int, ...] | None
    boxes: dict[Box, tuple[int, float]]
    holds: tuple[HoldOption, ...] = ()
    expected: float | None = None
    """The expected final total before the first roll of the turn."""


def advise(strategy: Strategy, state: Game) -> Advice:
    """Advice for the dice on the table; empty before the first roll."""
    sheet, dice = state.sheet, state.turn.dice
    if sheet is None:
        return Advice(None, None, {})
    if dice is None:
        return Advice(None, None, {}, expected=strategy.expected_total(sheet))
    values = strategy.box_values(sheet, dice)
    options = sheet.score_options(dice)
    best_hold: tuple[int, ...] | None = None
    holds: tuple[HoldOption, ...] = ()
    if state.turn.rolls_left > 0:
        holds = tuple(strategy.hold_values(sheet, dice, state.turn.rolls_left)[:SHOWN_HOLDS])
        best_hold = tuple(index for index, keep in enumerate(holds[0].held) if keep)
    return Advice(
        best_box=strategy.best_box(sheet, dice),
        best_hold=best_hold,
        boxes={box: (options[box].points, values[box]) for box in options},
        holds=holds,
    )
