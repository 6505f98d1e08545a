"""Every row of the worked-examples table in RULES.md, as an exact test."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from app.rules import (
    BOXES,
    JOKER_LOWER_BOXES,
    Box,
    Game,
    Roll,
    Score,
    ScoreOption,
    Scoresheet,
)

EMPTY = Scoresheet()
ONLY_FULL_HOUSE_AND_LARGE_STRAIGHT_FREE = Scoresheet.from_mapping(
    {box: 0 for box in BOXES if box not in (Box.FULL_HOUSE, Box.LARGE_STRAIGHT)}
)
PENTA_FIFTY = Scoresheet.from_mapping({Box.PENTA: 50})
PENTA_FIFTY_FOURS_USED = Scoresheet.from_mapping({Box.PENTA: 50, Box.FOURS: 12})
PENTA_FIFTY_FOURS_AND_LOWER_USED = Scoresheet.from_mapping(
    {Box.PENTA: 50, Box.FOURS: 12} | {box: 0 for box in JOKER_LOWER_BOXES}
)
PENTA_SACRIFICED = Scoresheet.from_mapping({Box.PENTA: 0})


@dataclass(frozen=True)
class Example:
    sheet: Scoresheet
    dice: tuple[int, ...]
    points: dict[Box, int]
    """Every legal box with its points; a box missing here must not be legal."""
    bonus: int
    must_sacrifice: bool | None
    """None where RULES.md does not say (see test_joker_into_upper_box_counts_as_sacrifice)."""


def _zero_elsewhere(sheet: Scoresheet, points: dict[Box, int]) -> dict[Box, int]:
    """``points`` plus 0 in every other free box of ``sheet`` ("every other box 0")."""
    return {box: points.get(box, 0) for box in sheet.free_boxes}


EXAMPLES = {
    "empty 13244 small straight": Example(
        EMPTY,
        (1, 3, 2, 4, 4),
        _zero_elsewhere(
            EMPTY,
            {
                Box.ONES: 1,
                Box.TWOS: 2,
                Box.THREES: 3,
                Box.FOURS: 8,
                Box.SMALL_STRAIGHT: 30,
                Box.CHANCE: 14,
            },
        ),
        bonus=0,
        must_sacrifice=False,
    ),
    "empty 11346 no full house or large straight": Example(
        EMPTY,
        (1, 1, 3, 4, 6),
        _zero_elsewhere(
            EMPTY,
            {Box.ONES: 2, Box.THREES: 3, Box.FOURS: 4, Box.SIXES: 6, Box.CHANCE: 15},
        ),
        bonus=0,
        must_sacrifice=False,
    ),
    "only full house and large straight free 11346 sacrifice": Example(
        ONLY_FULL_HOUSE_AND_LARGE_STRAIGHT_FREE,
        (1, 1, 3, 4, 6),
        {Box.FULL_HOUSE: 0, Box.LARGE_STRAIGHT: 0},
        bonus=0,
        must_sacrifice=True,
    ),
    "empty 22333 full house": Example(
        EMPTY,
        (2, 2, 3, 3, 3),
        _zero_elsewhere(
            EMPTY,
            {
                Box.TWOS: 4,
                Box.THREES: 9,
                Box.THREE_OF_A_KIND: 13,
                Box.FULL_HOUSE: 25,
                Box.CHANCE: 13,
            },
        ),
        bonus=0,
        must_sacrifice=False,
    ),
    "empty 44444 first penta": Example(
        EMPTY,
        (4, 4, 4, 4, 4),
        _zero_elsewhere(
            EMPTY,
            {
                Box.FOURS: 20,
                Box.THREE_OF_A_KIND: 20,
                Box.FOUR_OF_A_KIND: 20,
                Box.CHANCE: 20,
                Box.PENTA: 50,
            },
        ),
        bonus=0,
        must_sacrifice=False,
    ),
    "penta 50 fours free: joker only fours": Example(
        PENTA_FIFTY,
        (4, 4, 4, 4, 4),
        {Box.FOURS: 20},
        bonus=100,
        must_sacrifice=False,
    ),
    "penta 50 fours used lower free: joker lower": Example(
        PENTA_FIFTY_FOURS_USED,
        (4, 4, 4, 4, 4),
        {
            Box.THREE_OF_A_KIND: 20,
            Box.FOUR_OF_A_KIND: 20,
            Box.FULL_HOUSE: 25,
            Box.SMALL_STRAIGHT: 30,
            Box.LARGE_STRAIGHT: 40,
            Box.CHANCE: 20,
        },
        bonus=100,
        must_sacrifice=False,
    ),
    "penta 50 fours and lower used: joker upper at 0": Example(
        PENTA_FIFTY_FOURS_AND_LOWER_USED,
        (4, 4, 4, 4, 4),
        {Box.ONES: 0, Box.TWOS: 0, Box.THREES: 0, Box.FIVES: 0, Box.SIXES: 0},
        bonus=100,
        must_sacrifice=None,
    ),
    "penta sacrificed: ordinary scoring no bonus": Example(
        PENTA_SACRIFICED,
        (4, 4, 4, 4, 4),
        _zero_elsewhere(
            PENTA_SACRIFICED,
            {
                Box.FOURS: 20,
                Box.THREE_OF_A_KIND: 20,
                Box.FOUR_OF_A_KIND: 20,
                Box.CHANCE: 20,
            },
        ),
        bonus=0,
        must_sacrifice=False,
    ),
}


def test_examples_state_their_zero_boxes_exactly() -> None:
    """Spot checks that the helper spelled out the table's zeros as RULES.md states them."""
    assert EXAMPLES["empty 11346 no full house or large straight"].points[Box.FULL_HOUSE] == 0
    assert EXAMPLES["empty 11346 no full house or large straight"].points[Box.LARGE_STRAIGHT] == 0
    assert EXAMPLES["empty 44444 first penta"].points[Box.FULL_HOUSE] == 0
    assert EXAMPLES["penta sacrificed: ordinary scoring no bonus"].points[Box.LARGE_STRAIGHT] == 0
    assert len(EXAMPLES["empty 13244 small straight"].points) == 13
    assert len(EXAMPLES["penta sacrificed: ordinary scoring no bonus"].points) == 12


@pytest.mark.parametrize("example", EXAMPLES.values(), ids=EXAMPLES.keys())
def test_worked_example_legal_boxes_points_and_bonus(example: Example) -> None:
    options = example.sheet.score_options(example.dice)

    assert options == {
        box: ScoreOption(box, points, example.bonus) for box, points in example.points.items()
    }
    assert list(options) == [box for box in BOXES if box in example.points]  # sheet order


@pytest.mark.parametrize(
    "example",
    [example for example in EXAMPLES.values() if example.must_sacrifice is not None],
    ids=[name for name, example in EXAMPLES.items() if example.must_sacrifice is not None],
)
def test_worked_example_must_sacrifice(example: Example) -> None:
    assert example.sheet.must_sacrifice(example.dice) is example.must_sacrifice


def test_joker_into_upper_box_counts_as_sacrifice() -> None:
    """RULES.md does not say; the module counts box points only, not the Penta bonus."""
    example = EXAMPLES["penta 50 fours and lower used: joker upper at 0"]
    assert example.sheet.must_sacrifice(example.dice) is True


@pytest.mark.parametrize("example", EXAMPLES.values(), ids=EXAMPLES.keys())
def test_worked_example_recording_adds_points_and_bonus(example: Example) -> None:
    for box, points in example.points.items():
        after = example.sheet.record(box, example.dice)

        assert after[box] == points
        assert after.penta_bonus == example.sheet.penta_bonus + example.bonus
        assert after.free_boxes == tuple(b for b in example.sheet.free_boxes if b != box)


def test_second_penta_through_a_game_earns_fours_and_bonus() -> None:
    game = Game.new(1)
    for action in (Roll((4, 4, 4, 4, 4)), Score(Box.PENTA), Roll((4, 4, 4, 4, 4))):
        game = game.apply(action)
    assert game.legal_boxes() == {Box.FOURS: ScoreOption(Box.FOURS, 20, 100)}

    game = game.apply(Score(Box.FOURS))

    sheet = game.sheets[0]
    assert (sheet[Box.PENTA], sheet[Box.FOURS]) == (50, 20)
    assert (sheet.penta_bonus, sheet.total) == (100, 170)


def test_only_full_house_and_large_straight_free_through_a_game() -> None:
    """The third row as the player meets it: the game says a box must be sacrificed."""
    game = Game.new(1)
    for box in BOXES:
        if box not in (Box.FULL_HOUSE, Box.LARGE_STRAIGHT):
            game = game.apply(Roll((1, 1, 3, 4, 6))).apply(Score(box))
    game = game.apply(Roll((1, 1, 3, 4, 6)))

    assert game.must_sacrifice() is True
    assert set(game.legal_boxes()) == {Box.FULL_HOUSE, Box.LARGE_STRAIGHT}
    assert game.apply(Score(Box.LARGE_STRAIGHT)).sheets[0][Box.LARGE_STRAIGHT] == 0
