"""What a computer player does next: one visible step at a time, by the optimal strategy."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from app.rules import Action, Dice, Game, Hold, Roll, Score
from app.strategy import Strategy

Roller = Callable[[Dice | None, Sequence[bool]], Dice]
"""Rolls the dice not held (all of them on a turn's first roll): the dice after the roll."""


def next_action(state: Game, strategy: Strategy, roll: Roller) -> Action:
    """The next step of the player to move: roll, hold the best dice, or score the best box.

    Holding and rolling are separate steps so that people watching see both.
    """
    sheet, turn = state.sheet, state.turn
    assert sheet is not None, "the game is over"
    if turn.dice is None:
        return Roll(roll(None, turn.held))
    if turn.rolls_left > 0:
        held = strategy.best_hold(sheet, turn.dice, turn.rolls_left)
        if not all(held):
            if held != turn.held:
                return Hold(held)
            return Roll(roll(turn.dice, held))
    return Score(strategy.best_box(sheet, turn.dice))
