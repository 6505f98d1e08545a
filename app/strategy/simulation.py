"""Whole solo games played by a strategy, with dice from a source the caller provides.

No randomness lives here: ``roll(count)`` returns ``count`` die faces, so a seeded source
replays exactly. :func:`simulate` plays many games in lockstep, one turn of every game at a
time, and batches the turn computations of games that share a state; :func:`play_game` plays
one game through :class:`app.rules.Game` and the public strategy interface.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from app.rules import (
    BOXES,
    DICE_COUNT,
    FACES,
    PENTA_POINTS,
    ROUNDS,
    UPPER_BONUS,
    Box,
    Game,
    Hold,
    Roll,
    Score,
    Scoresheet,
)
from app.strategy.strategy import TIE_TOLERANCE, Strategy, TablePlayer
from app.strategy.tables import (
    KEEP_COUNTS,
    KEEP_SIZES,
    NO_OPTION,
    ORDINARY_POINTS,
    PENTA_ROLLS,
    ROLL_FACE_COUNTS,
    ROLL_START,
    SUB_KEEPS,
    UPPER_LEVELS,
    FloatArray,
    IntArray,
    joker_tables,
    keep_of_counts,
    reaches_upper_bonus,
    state_index,
)
from app.strategy.turn import Workspace, best_keep_values, keep_values, roll_values

RollDice = Callable[[int], NDArray[np.integer[Any]]]
"""``roll(count)``: ``count`` die faces, each 1 to 6."""

CHUNK = 512
_BITS = np.array([1 << box.position for box in BOXES], dtype=np.int64)
_IS_UPPER = np.array([box.is_upper for box in BOXES])
_IS_PENTA_BOX = np.array([box is Box.PENTA for box in BOXES])
_IS_PENTA_ROLL = np.isin(np.arange(ROLL_FACE_COUNTS.shape[0]), PENTA_ROLLS)


@dataclass(frozen=True)
class History:
    """Every game's turns, shape (games, 13) each: rolls index ``ROLLS``, keeps ``KEEPS``."""

    first_rolls: IntArray
    first_keeps: IntArray
    second_rolls: IntArray
    second_keeps: IntArray
    final_rolls: IntArray
    boxes: IntArray
    """The position of the box chosen in each turn."""


@dataclass
class _Games:
    mask: IntArray
    upper: IntArray
    flag: IntArray
    total: IntArray


def simulate(
    player: TablePlayer, games: int, roll: RollDice, *, record: bool = False
) -> tuple[IntArray, History | None]:
    """Play ``games`` solo games; return their final totals and, if ``record``, every turn.

    Each game makes the choices ``player`` would make through its methods (same values, same
    tie rules), but the games that share a turn-start state share one turn computation.
    """
    state = _Games(*(np.zeros(games, dtype=np.int64) for _ in range(4)))
    history = [np.zeros((games, ROUNDS), dtype=np.int64) for _ in range(6)] if record else None
    workspace = Workspace(CHUNK)
    for turn in range(ROUNDS):
        index = state_index(state.mask, state.upper, state.flag)
        unique, inverse = np.unique(index, return_inverse=True)
        order = np.argsort(inverse, kind="stable")
        starts = np.concatenate([[0], np.cumsum(np.bincount(inverse))])
        for first in range(0, unique.size, CHUNK):
            last = min(first + CHUNK, unique.size)
            chosen = order[starts[first] : starts[last]]
            one_left, two_left = _keep_tables(player, unique[first:last], workspace)
            columns = inverse[chosen] - first
            first_rolls = _reroll(np.zeros(chosen.size, dtype=np.int64), roll)
            first_keeps = _choose_keeps(two_left, first_rolls, columns)
            second_rolls = _reroll(first_keeps, roll)
            second_keeps = _choose_keeps(one_left, second_rolls, columns)
            final = _reroll(second_keeps, roll)
            boxes = _choose_and_record(player.values, state, chosen, final)
            if history is not None:
                steps = (first_rolls, first_keeps, second_rolls, second_keeps, final, boxes)
                for column, step in zip(history, steps, strict=True):
                    column[chosen, turn] = step
    return state.total, History(*history) if history is not None else None


def _keep_tables(
    player: TablePlayer, states: IntArray, workspace: Workspace
) -> tuple[FloatArray, FloatArray]:
    """(462, B) twice: keep values with one roll left, then with two, for each state."""
    mask, upper, flag = states // (2 * UPPER_LEVELS), states // 2 % UPPER_LEVELS, states % 2
    joker_points, joker_bonus = joker_tables()
    keeps, best = workspace.keeps(states.size), workspace.best(states.size)
    final = roll_values(
        player.values,
        mask,
        upper,
        flag,
        joker_points[mask],
        joker_bonus[mask],
        keeps[ROLL_START:],
        workspace,
    )
    one_left = keep_values(final, keeps, workspace).copy()
    two_left = keep_values(best_keep_values(keeps, best, workspace), keeps, workspace)
    return one_left, two_left


def _reroll(keeps: IntArray, roll: RollDice) -> IntArray:
    """The roll index after keeping ``keeps`` and rolling the other dice of each game."""
    games = keeps.size
    faces = np.asarray(roll(games * DICE_COUNT), dtype=np.int64).reshape(games, DICE_COUNT)
    wanted = np.arange(DICE_COUNT) < (DICE_COUNT - KEEP_SIZES[keeps])[:, None]
    cells = (np.arange(games)[:, None] * len(FACES) + faces - 1)[wanted]
    fresh = np.bincount(cells, minlength=games * len(FACES)).reshape(games, len(FACES))
    return keep_of_counts(KEEP_COUNTS[keeps] + fresh) - ROLL_START


def _first_within_tolerance(values: FloatArray) -> IntArray:
    best = values.max(axis=1, keepdims=True)
    result: IntArray = np.argmax(values >= best - TIE_TOLERANCE, axis=1)
    return result


def _choose_keeps(table: FloatArray, rolls: IntArray, columns: IntArray) -> IntArray:
    """The keep each game holds, by the tie rule of :mod:`app.strategy.strategy`."""
    candidates = SUB_KEEPS[rolls]
    pick = _first_within_tolerance(table[candidates, columns[:, None]])
    result: IntArray = candidates[np.arange(rolls.size), pick]
    return result


def _choose_and_record(
    values: FloatArray, state: _Games, chosen: IntArray, rolls: IntArray
) -> IntArray:
    """Choose each game's box for its final roll, record it, and return the box positions."""
    mask, upper, flag = state.mask[chosen], state.upper[chosen], state.flag[chosen]
    points = ORDINARY_POINTS[:, rolls].T.copy()
    legal = (mask[:, None] & _BITS) == 0
    bonus = np.zeros(chosen.size, dtype=np.int64)
    jokers = np.nonzero((flag == 1) & _IS_PENTA_ROLL[rolls])[0]
    if jokers.size:
        joker_points, joker_bonus = joker_tables()
        face = ROLL_FACE_COUNTS[rolls[jokers]].argmax(axis=1)
        points[jokers] = joker_points[mask[jokers], face]
        legal[jokers] = points[jokers] != NO_OPTION
        bonus[jokers] = joker_bonus[mask[jokers], face]
    gained = np.where(legal, points, 0)
    raised = np.where(_IS_UPPER, upper[:, None] + gained, upper[:, None])
    reached = _IS_UPPER & reaches_upper_bonus(upper[:, None], raised)
    gained = gained + bonus[:, None] + reached * UPPER_BONUS
    raised = np.minimum(raised, UPPER_LEVELS - 1)
    fifty = flag[:, None] | (_IS_PENTA_BOX & (points == PENTA_POINTS))
    after = state_index(mask[:, None] | _BITS, raised, fifty)
    worth = np.where(legal, gained + values[after], -np.inf)
    boxes = _first_within_tolerance(worth)
    rows = np.arange(chosen.size)
    state.mask[chosen] = mask | _BITS[boxes]
    state.upper[chosen] = raised[rows, boxes]
    state.flag[chosen] = fifty[rows, boxes]
    state.total[chosen] += gained[rows, boxes]
    return boxes


def play_game(strategy: Strategy, roll: RollDice) -> Scoresheet:
    """One solo game through :class:`app.rules.Game`, every action checked by the rules."""
    game = Game.new(1)
    while not game.is_over:
        game = game.apply(Roll(tuple(int(face) for face in roll(DICE_COUNT))))
        while game.turn.rolls_left > 0:
            sheet, dice = game.sheets[0], game.turn.dice
            assert dice is not None
            held = strategy.best_hold(sheet, dice, game.turn.rolls_left)
            if all(held):
                break
            fresh = [int(face) for face in roll(DICE_COUNT)]
            game = game.apply(Hold(held))
            dice = tuple(
                old if keep else new for old, keep, new in zip(dice, held, fresh, strict=True)
            )
            game = game.apply(Roll(dice))
        assert game.turn.dice is not None
        game = game.apply(Score(strategy.best_box(game.sheets[0], game.turn.dice)))
    return game.sheets[0]
