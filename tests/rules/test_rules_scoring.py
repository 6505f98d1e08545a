"""Ordinary scoring of each box, golden roll counts, the upper bonus and the total."""

from __future__ import annotations

from itertools import product

import pytest

from app.rules import (
    BOXES,
    LOWER_BOXES,
    UPPER_BOXES,
    Box,
    Game,
    Roll,
    Score,
    Scoresheet,
    box_points,
    distinct_rolls,
    is_penta,
)

ORDINARY_POINTS = [
    # Full house: exactly three of one value and two of another.
    ((2, 2, 3, 3, 3), Box.FULL_HOUSE, 25),
    ((6, 1, 6, 1, 6), Box.FULL_HOUSE, 25),
    ((5, 5, 5, 5, 5), Box.FULL_HOUSE, 0),
    ((5, 5, 5, 5, 2), Box.FULL_HOUSE, 0),
    ((5, 5, 5, 2, 3), Box.FULL_HOUSE, 0),
    ((5, 5, 2, 2, 3), Box.FULL_HOUSE, 0),
    # Small straight: four consecutive values among the dice.
    ((1, 2, 3, 4, 6), Box.SMALL_STRAIGHT, 30),
    ((4, 2, 5, 3, 2), Box.SMALL_STRAIGHT, 30),
    ((3, 4, 5, 6, 6), Box.SMALL_STRAIGHT, 30),
    ((1, 2, 3, 4, 5), Box.SMALL_STRAIGHT, 30),
    ((1, 2, 3, 5, 6), Box.SMALL_STRAIGHT, 0),
    ((1, 2, 4, 5, 6), Box.SMALL_STRAIGHT, 0),
    ((3, 3, 3, 3, 3), Box.SMALL_STRAIGHT, 0),
    # Large straight: five consecutive values.
    ((1, 2, 3, 4, 5), Box.LARGE_STRAIGHT, 40),
    ((6, 2, 5, 3, 4), Box.LARGE_STRAIGHT, 40),
    ((1, 2, 3, 4, 6), Box.LARGE_STRAIGHT, 0),
    ((1, 3, 4, 5, 6), Box.LARGE_STRAIGHT, 0),
    ((2, 3, 4, 5, 5), Box.LARGE_STRAIGHT, 0),
    ((4, 4, 4, 4, 4), Box.LARGE_STRAIGHT, 0),
    # Three / four of a kind: at least that many equal dice, the sum of all five.
    ((3, 3, 3, 1, 2), Box.THREE_OF_A_KIND, 12),
    ((6, 6, 6, 6, 5), Box.THREE_OF_A_KIND, 29),
    ((2, 2, 2, 2, 2), Box.THREE_OF_A_KIND, 10),
    ((2, 2, 1, 3, 4), Box.THREE_OF_A_KIND, 0),
    ((5, 5, 5, 5, 2), Box.FOUR_OF_A_KIND, 22),
    ((1, 1, 1, 1, 1), Box.FOUR_OF_A_KIND, 5),
    ((5, 5, 5, 2, 2), Box.FOUR_OF_A_KIND, 0),
    # Chance: the sum of any dice.
    ((1, 1, 1, 1, 2), Box.CHANCE, 6),
    ((6, 6, 6, 6, 6), Box.CHANCE, 30),
    # Penta: five equal dice.
    ((6, 6, 6, 6, 6), Box.PENTA, 50),
    ((1, 1, 1, 1, 1), Box.PENTA, 50),
    ((6, 6, 6, 6, 5), Box.PENTA, 0),
    # Upper boxes: the sum of the dice showing that value.
    ((1, 3, 1, 1, 5), Box.ONES, 3),
    ((6, 3, 6, 1, 6), Box.SIXES, 18),
    ((6, 3, 6, 1, 6), Box.FIVES, 0),
    ((5, 5, 5, 5, 5), Box.FIVES, 25),
]


@pytest.mark.parametrize(("dice", "box", "points"), ORDINARY_POINTS)
def test_box_points(dice: tuple[int, ...], box: Box, points: int) -> None:
    assert box_points(box, dice) == points


def _ordered_rolls_scoring(box: Box) -> int:
    return sum(box_points(box, dice) > 0 for dice in product(range(1, 7), repeat=5))


@pytest.mark.parametrize(
    ("box", "ordered_rolls"),
    [
        # The classic counts out of 6**5 = 7776 ordered rolls.
        (Box.THREE_OF_A_KIND, 1656),  # 1500 exactly three + 150 four + 6 five
        (Box.FOUR_OF_A_KIND, 156),  # 150 four + 6 five
        (Box.FULL_HOUSE, 300),  # 6 * 5 * C(5, 2)
        (Box.SMALL_STRAIGHT, 1200),
        (Box.LARGE_STRAIGHT, 240),  # 2 * 5!
        (Box.PENTA, 6),
        (Box.CHANCE, 7776),
        (Box.ONES, 7776 - 5**5),
        (Box.SIXES, 7776 - 5**5),
    ],
)
def test_golden_counts_of_scoring_rolls(box: Box, ordered_rolls: int) -> None:
    assert _ordered_rolls_scoring(box) == ordered_rolls


def test_distinct_rolls_are_the_252_sorted_multisets() -> None:
    rolls = distinct_rolls()

    assert len(rolls) == 252 == len(set(rolls))
    assert all(list(dice) == sorted(dice) and len(dice) == 5 for dice in rolls)
    assert set(rolls) == {tuple(sorted(dice)) for dice in product(range(1, 7), repeat=5)}
    assert [dice for dice in rolls if is_penta(dice)] == [(face,) * 5 for face in range(1, 7)]


def test_upper_points_sum_to_the_dice_total() -> None:
    for dice in distinct_rolls():
        assert sum(box_points(box, dice) for box in UPPER_BOXES) == sum(dice)
        assert box_points(Box.CHANCE, dice) == sum(dice)


def test_box_faces_and_sections() -> None:
    assert [box.face for box in UPPER_BOXES] == [1, 2, 3, 4, 5, 6]
    assert [Box.for_face(face) for face in range(1, 7)] == list(UPPER_BOXES)
    assert all(box.face is None and not box.is_upper for box in LOWER_BOXES)
    assert [box.position for box in BOXES] == list(range(13))
    assert [box.value for box in BOXES] == [
        "ones",
        "twos",
        "threes",
        "fours",
        "fives",
        "sixes",
        "three_of_a_kind",
        "four_of_a_kind",
        "full_house",
        "small_straight",
        "large_straight",
        "chance",
        "penta",
    ]


@pytest.mark.parametrize("face", [0, 7, -1])
def test_for_face_rejects_a_value_no_die_shows(face: int) -> None:
    with pytest.raises(ValueError, match=f"not {face}"):
        Box.for_face(face)


@pytest.mark.parametrize(
    ("dice_per_face", "subtotal", "bonus"),
    [
        # How many dice of each face (Ones first) each upper box holds; None: the box is free.
        ((None, None, None, None, None, None), 0, 0),
        ((2, 3, 3, 3, 3, 3), 62, 0),
        ((3, 3, 3, 3, 3, 3), 63, 35),
        ((4, 3, 3, 3, 3, 3), 64, 35),
        ((None, None, None, 5, 5, 3), 63, 35),  # the bonus before the section is full
        ((5, None, None, 5, 5, 2), 62, 0),
        ((5, 5, 5, 5, 5, 5), 105, 35),
    ],
)
def test_upper_bonus_exactly_at_63(
    dice_per_face: tuple[int | None, ...], subtotal: int, bonus: int
) -> None:
    upper = {
        box: count * face
        for box, face, count in zip(UPPER_BOXES, range(1, 7), dice_per_face, strict=True)
        if count is not None
    }
    sheet = Scoresheet.from_mapping(upper | {Box.CHANCE: 7, Box.PENTA: 50})

    assert sheet.upper_subtotal == subtotal
    assert sheet.upper_bonus == bonus
    assert sheet.lower_total == 57
    assert sheet.total == subtotal + bonus + 57


def test_upper_bonus_earned_by_the_recording_that_reaches_63() -> None:
    game = Game.new(1)
    for face in (1, 2, 3, 4, 5):
        game = game.apply(Roll((face, face, face, 1 if face != 1 else 2, 6))).apply(
            Score(Box.for_face(face))
        )
    # Ones 3 + Twos 6 + Threes 9 + Fours 12 + Fives 15 = 45: 18 short of the bonus.
    assert (game.sheets[0].upper_subtotal, game.sheets[0].upper_bonus) == (45, 0)

    two_sixes = game.apply(Roll((6, 6, 5, 1, 1))).apply(Score(Box.SIXES))
    three_sixes = game.apply(Roll((6, 6, 6, 1, 2))).apply(Score(Box.SIXES))

    assert (two_sixes.sheets[0].upper_subtotal, two_sixes.sheets[0].upper_bonus) == (57, 0)
    assert (three_sixes.sheets[0].upper_subtotal, three_sixes.sheets[0].upper_bonus) == (63, 35)
    assert three_sixes.sheets[0].total == 63 + 35


def test_penta_bonuses_add_to_the_total() -> None:
    sheet = Scoresheet.from_mapping({Box.PENTA: 50, Box.FOURS: 8, Box.CHANCE: 20}, penta_bonus=200)

    assert (sheet.upper_subtotal, sheet.upper_bonus, sheet.lower_total) == (8, 0, 70)
    assert sheet.total == 8 + 70 + 200


def test_empty_sheet() -> None:
    sheet = Scoresheet()

    assert sheet.free_boxes == BOXES
    assert (sheet.used_count, sheet.is_full, sheet.total) == (0, False, 0)
    assert sheet.has_penta_fifty is False


def test_full_sheet_has_no_options() -> None:
    sheet = Scoresheet.from_mapping({box: 0 for box in BOXES})

    assert sheet.is_full
    assert sheet.score_options((1, 2, 3, 4, 5)) == {}


def test_scoresheet_needs_thirteen_boxes() -> None:
    with pytest.raises(ValueError, match="a scoresheet has 13 boxes, not 12"):
        Scoresheet((None,) * 12)
