"""The rules of Penta, pure and deterministic: no I/O, no clock, no randomness.

Rolled values come in as data (:class:`Roll`), so every game replays exactly from its
actions. :meth:`Scoresheet.score_options` is the single source of legality for boxes.

>>> actions = [Roll((6, 6, 2, 6, 1)), Hold.of_indices([0, 1, 3]), Roll((6, 6, 5, 6, 6))]
>>> game = Game.replay(1, actions)
>>> game.legal_boxes()[Box.SIXES], game.turn.rolls_left
(ScoreOption(box=<Box.SIXES: 'sixes'>, points=24, bonus=0), 1)
>>> Game.replay(1, [*actions, Score(Box.SIXES)]).sheets[0].total
24
"""

from app.rules.boxes import (
    BOXES,
    DICE_COUNT,
    FACES,
    JOKER_LOWER_BOXES,
    LOWER_BOXES,
    MAX_ROLLS,
    PENTA_BONUS,
    PENTA_POINTS,
    ROUNDS,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    UPPER_BOXES,
    Box,
)
from app.rules.dice import Dice, box_points, distinct_rolls, is_penta, validate_dice
from app.rules.errors import IllegalActionError, MalformedActionError, RulesError
from app.rules.game import MAX_PLAYERS, Action, Game, Hold, Outcome, Roll, Score, Turn
from app.rules.sheet import ScoreOption, Scoresheet

__all__ = [
    "BOXES",
    "DICE_COUNT",
    "FACES",
    "JOKER_LOWER_BOXES",
    "LOWER_BOXES",
    "MAX_PLAYERS",
    "MAX_ROLLS",
    "PENTA_BONUS",
    "PENTA_POINTS",
    "ROUNDS",
    "UPPER_BONUS",
    "UPPER_BONUS_THRESHOLD",
    "UPPER_BOXES",
    "Action",
    "Box",
    "Dice",
    "Game",
    "Hold",
    "IllegalActionError",
    "MalformedActionError",
    "Outcome",
    "Roll",
    "RulesError",
    "Score",
    "ScoreOption",
    "Scoresheet",
    "Turn",
    "box_points",
    "distinct_rolls",
    "is_penta",
    "validate_dice",
]
