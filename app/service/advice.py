"""Advice of the optimal player for the player to move: what hints and the API show."""

from __future__ import annotations

from dataclasses import dataclass

from app.rules import Box, Game
from app.strategy import Strategy


@dataclass(frozen=True)
class Advice:
    """The computer's choice and the expected final total of each legal box."""

    best_box: Box | None
    best_hold: tuple[int, ...] | None
    boxes: dict[Box, tuple[int, float]]


def advise(strategy: Strategy, state: Game) -> Advice:
    """Advice for the dice on the table; empty before the first roll."""
    sheet, dice = state.sheet, state.turn.dice
    if sheet is None or dice is None:
        return Advice(None, None, {})
    values = strategy.box_values(sheet, dice)
    options = sheet.score_options(dice)
    best_hold = None
    if state.turn.rolls_left > 0:
        held = strategy.best_hold(sheet, dice, state.turn.rolls_left)
        best_hold = tuple(index for index, keep in enumerate(held) if keep)
    return Advice(
        best_box=strategy.best_box(sheet, dice),
        best_hold=best_hold,
        boxes={box: (options[box].points, values[box]) for box in options},
    )
