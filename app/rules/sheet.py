"""A player's scoresheet and the one source of truth for which boxes a roll may take."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from app.rules.boxes import (
    BOXES,
    FULL_HOUSE_POINTS,
    JOKER_LOWER_BOXES,
    LARGE_STRAIGHT_POINTS,
    LOWER_BOXES,
    PENTA_BONUS,
    PENTA_POINTS,
    SMALL_STRAIGHT_POINTS,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    UPPER_BOXES,
    Box,
)
from app.rules.dice import box_points, is_penta
from app.rules.errors import IllegalActionError

_JOKER_FIXED_POINTS = {
    Box.FULL_HOUSE: FULL_HOUSE_POINTS,
    Box.SMALL_STRAIGHT: SMALL_STRAIGHT_POINTS,
    Box.LARGE_STRAIGHT: LARGE_STRAIGHT_POINTS,
}


@dataclass(frozen=True)
class ScoreOption:
    """A legal box for a roll: the points the box gets and the Penta bonus the roll earns."""

    box: Box
    points: int
    bonus: int = 0

    @property
    def total(self) -> int:
        """What recording the roll here adds to the sheet's total (before the upper bonus)."""
        return self.points + self.bonus


@dataclass(frozen=True)
class Scoresheet:
    """The thirteen boxes of one player, each empty (None) or holding its points.

    ``scores`` follows the order of :data:`BOXES`; ``penta_bonus`` is the sum of the 100-point
    bonuses earned by Pentas after the first.

    >>> sheet = Scoresheet().record(Box.FULL_HOUSE, (2, 2, 3, 3, 3))
    >>> sheet[Box.FULL_HOUSE], sheet.total
    (25, 25)
    """

    scores: tuple[int | None, ...] = field(default=(None,) * len(BOXES))
    penta_bonus: int = 0

    def __post_init__(self) -> None:
        if len(self.scores) != len(BOXES):
            raise ValueError(f"a scoresheet has {len(BOXES)} boxes, not {len(self.scores)}")

    @classmethod
    def from_mapping(cls, scores: Mapping[Box, int], penta_bonus: int = 0) -> Scoresheet:
        """A sheet whose used boxes are those in ``scores`` (handy in tests and analysis)."""
        return cls(tuple(scores.get(box) for box in BOXES), penta_bonus)

    def __getitem__(self, box: Box) -> int | None:
        return self.scores[box.position]

    def is_free(self, box: Box) -> bool:
        """Whether ``box`` is still empty."""
        return self[box] is None

    @property
    def free_boxes(self) -> tuple[Box, ...]:
        """The empty boxes, in sheet order."""
        return tuple(box for box in BOXES if self.is_free(box))

    @property
    def used_count(self) -> int:
        """How many boxes hold a score."""
        return len(self.scores) - self.scores.count(None)

    @property
    def is_full(self) -> bool:
        """Whether every box holds a score: the player has played all 13 rounds."""
        return self.used_count == len(BOXES)

    @cached_property
    def upper_subtotal(self) -> int:
        """The sum of Ones to Sixes."""
        return sum(self[box] or 0 for box in UPPER_BOXES)

    @cached_property
    def upper_bonus(self) -> int:
        """35 once the upper subtotal reaches 63, else 0."""
        return UPPER_BONUS if self.upper_subtotal >= UPPER_BONUS_THRESHOLD else 0

    @cached_property
    def lower_total(self) -> int:
        """The sum of Three of a kind to Penta."""
        return sum(self[box] or 0 for box in LOWER_BOXES)

    @cached_property
    def total(self) -> int:
        """Upper section, upper bonus, lower section and Penta bonuses."""
        return self.upper_subtotal + self.upper_bonus + self.lower_total + self.penta_bonus

    @property
    def has_penta_fifty(self) -> bool:
        """Whether the Penta box holds 50, so that further Pentas earn the bonus and the joker."""
        return self[Box.PENTA] == PENTA_POINTS

    def score_options(self, dice: Sequence[int]) -> dict[Box, ScoreOption]:
        """Every legal box for ``dice``, in sheet order, with its points and bonus.

        This is the single source of legality: the web layer, the computer player and the
        tests all ask it. A Penta rolled while the Penta box holds 50 is a joker
        (RULES.md, "The joker"); otherwise every free box is legal with its ordinary points.

        >>> options = Scoresheet.from_mapping({Box.PENTA: 50}).score_options((4, 4, 4, 4, 4))
        >>> list(options.values())
        [ScoreOption(box=<Box.FOURS: 'fours'>, points=20, bonus=100)]
        """
        if not (is_penta(dice) and self.has_penta_fifty):
            return {box: ScoreOption(box, box_points(box, dice)) for box in self.free_boxes}
        own_box = Box.for_face(dice[0])
        if self.is_free(own_box):
            return {own_box: ScoreOption(own_box, box_points(own_box, dice), PENTA_BONUS)}
        lower = [box for box in JOKER_LOWER_BOXES if self.is_free(box)]
        if lower:
            return {
                box: ScoreOption(box, _JOKER_FIXED_POINTS.get(box, sum(dice)), PENTA_BONUS)
                for box in lower
            }
        return {box: ScoreOption(box, 0, PENTA_BONUS) for box in self.free_boxes}

    def must_sacrifice(self, dice: Sequence[int]) -> bool:
        """Whether no legal box scores more than 0 for ``dice``: one must be sacrificed.

        Only the box's points count, not a Penta bonus the roll may still earn.
        """
        return all(option.points == 0 for option in self.score_options(dice).values())

    def record(self, box: Box, dice: Sequence[int]) -> Scoresheet:
        """The sheet after recording ``dice`` in ``box``.

        Raises :class:`IllegalActionError` when the box is used or the joker forbids it.
        """
        options = self.score_options(dice)
        option = options.get(box)
        if option is None:
            if not self.is_free(box):
                raise IllegalActionError("box_used", box=box)
            raise IllegalActionError("joker_forbids", box=box, allowed=tuple(options))
        scores = list(self.scores)
        scores[box.position] = option.points
        return Scoresheet(tuple(scores), self.penta_bonus + option.bonus)
