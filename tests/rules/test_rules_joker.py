"""Legal boxes for all 252 distinct rolls, with the Penta box free, holding 50 or sacrificed.

For a roll that is not a joker every free box is legal with its ordinary points. A Penta rolled
while the Penta box holds 50 follows the three joker cases of RULES.md, always with the
100-point bonus.
"""

from __future__ import annotations

from itertools import combinations

import pytest

from app.rules import (
    BOXES,
    JOKER_LOWER_BOXES,
    UPPER_BOXES,
    Box,
    IllegalActionError,
    ScoreOption,
    Scoresheet,
    box_points,
    distinct_rolls,
    is_penta,
)

PENTA_ROLLS = [dice for dice in distinct_rolls() if is_penta(dice)]
OTHER_ROLLS = [dice for dice in distinct_rolls() if not is_penta(dice)]

PENTA_BOX = {"penta free": None, "penta 50": 50, "penta sacrificed": 0}
UPPER_USED = {
    "upper free": (),
    "fours used": (Box.FOURS,),
    "ones to threes used": (Box.ONES, Box.TWOS, Box.THREES),
    "evens used": (Box.TWOS, Box.FOURS, Box.SIXES),
    "all but sixes used": UPPER_BOXES[:-1],
    "upper full": UPPER_BOXES,
}
LOWER_USED = {
    "lower free": (),
    "lower partly full": (Box.THREE_OF_A_KIND, Box.FULL_HOUSE, Box.LARGE_STRAIGHT),
    "lower partly full other half": (Box.FOUR_OF_A_KIND, Box.SMALL_STRAIGHT, Box.CHANCE),
    "lower all but chance": JOKER_LOWER_BOXES[:-1],
    "lower full": JOKER_LOWER_BOXES,
}
SHEETS = {
    f"{penta_name}, {upper_name}, {lower_name}": Scoresheet.from_mapping(
        {box: 0 for box in upper + lower} | ({} if penta is None else {Box.PENTA: penta})
    )
    for penta_name, penta in PENTA_BOX.items()
    for upper_name, upper in UPPER_USED.items()
    for lower_name, lower in LOWER_USED.items()
}


def ordinary_options(sheet: Scoresheet, dice: tuple[int, ...]) -> dict[Box, ScoreOption]:
    return {box: ScoreOption(box, box_points(box, dice), 0) for box in sheet.free_boxes}


def joker_options(sheet: Scoresheet, face: int) -> dict[Box, ScoreOption]:
    """The joker cases of RULES.md for five dice showing ``face``, spelled out."""
    own_box = UPPER_BOXES[face - 1]
    if sheet.is_free(own_box):
        return {own_box: ScoreOption(own_box, 5 * face, 100)}
    joker_points = {
        Box.THREE_OF_A_KIND: 5 * face,
        Box.FOUR_OF_A_KIND: 5 * face,
        Box.FULL_HOUSE: 25,
        Box.SMALL_STRAIGHT: 30,
        Box.LARGE_STRAIGHT: 40,
        Box.CHANCE: 5 * face,
    }
    free_lower = {box: points for box, points in joker_points.items() if sheet.is_free(box)}
    if free_lower:
        return {box: ScoreOption(box, points, 100) for box, points in free_lower.items()}
    return {box: ScoreOption(box, 0, 100) for box in UPPER_BOXES if sheet.is_free(box)}


def every_sheet_with_penta_fifty() -> list[Scoresheet]:
    """The 2**12 - 1 sheets with Penta 50 and any other boxes used, bar the full sheet."""
    others = [box for box in BOXES if box is not Box.PENTA]
    return [
        Scoresheet.from_mapping({box: 0 for box in used} | {Box.PENTA: 50})
        for size in range(len(others))
        for used in combinations(others, size)
    ]


@pytest.mark.parametrize("sheet", SHEETS.values(), ids=SHEETS.keys())
def test_every_roll_that_is_not_a_penta_may_take_every_free_box(sheet: Scoresheet) -> None:
    for dice in OTHER_ROLLS:
        assert sheet.score_options(dice) == ordinary_options(sheet, dice), dice


@pytest.mark.parametrize(
    "sheet",
    [sheet for name, sheet in SHEETS.items() if not name.startswith("penta 50")],
    ids=[name for name in SHEETS if not name.startswith("penta 50")],
)
def test_a_penta_without_fifty_in_the_penta_box_is_an_ordinary_roll(sheet: Scoresheet) -> None:
    for dice in PENTA_ROLLS:
        options = sheet.score_options(dice)

        assert options == ordinary_options(sheet, dice), dice
        assert all(option.bonus == 0 for option in options.values())
        for box in (Box.FULL_HOUSE, Box.SMALL_STRAIGHT, Box.LARGE_STRAIGHT):
            if sheet.is_free(box):
                assert options[box].points == 0, (dice, box)
        if sheet.is_free(Box.PENTA):
            assert options[Box.PENTA] == ScoreOption(Box.PENTA, 50, 0)


def test_sheets_cover_every_joker_case() -> None:
    cases = {
        (sheet.is_free(UPPER_BOXES[dice[0] - 1]), any(map(sheet.is_free, JOKER_LOWER_BOXES)))
        for name, sheet in SHEETS.items()
        if name.startswith("penta 50")
        for dice in PENTA_ROLLS
    }
    assert cases == {(True, True), (True, False), (False, True), (False, False)}


def test_a_penta_with_fifty_in_the_penta_box_is_a_joker_on_every_sheet() -> None:
    sheets = every_sheet_with_penta_fifty()
    assert len(sheets) == 4095
    for sheet in sheets:
        for dice in PENTA_ROLLS:
            assert sheet.score_options(dice) == joker_options(sheet, dice[0]), (sheet, dice)


@pytest.mark.parametrize(
    "sheet",
    [sheet for name, sheet in SHEETS.items() if name.startswith("penta 50")],
    ids=[name for name in SHEETS if name.startswith("penta 50")],
)
def test_recording_a_joker_adds_the_bonus_and_refuses_other_boxes(sheet: Scoresheet) -> None:
    for dice in PENTA_ROLLS:
        options = joker_options(sheet, dice[0])
        for box in BOXES:
            if box in options:
                after = sheet.record(box, dice)
                assert after[box] == options[box].points
                assert after.penta_bonus == sheet.penta_bonus + 100
                assert after.total == sheet.total + options[box].points + 100 + (
                    after.upper_bonus - sheet.upper_bonus
                )
            elif sheet.is_free(box):
                with pytest.raises(IllegalActionError, match=f"the joker forbids {box.value}"):
                    sheet.record(box, dice)
            else:
                with pytest.raises(IllegalActionError, match=f"the box {box.value} is already"):
                    sheet.record(box, dice)


def test_joker_refusal_names_the_allowed_boxes() -> None:
    sheet = Scoresheet.from_mapping({Box.PENTA: 50, Box.SIXES: 30})

    with pytest.raises(IllegalActionError) as raised:
        sheet.record(Box.ONES, (6, 6, 6, 6, 6))

    assert str(raised.value) == (
        "the joker forbids ones for this Penta; allowed: three_of_a_kind, four_of_a_kind, "
        "full_house, small_straight, large_straight, chance"
    )


def test_a_sacrificed_penta_box_never_earns_a_bonus() -> None:
    sheet = Scoresheet.from_mapping({Box.PENTA: 0})
    for box in sheet.free_boxes:
        sheet = sheet.record(box, (5, 5, 5, 5, 5))

    assert sheet.is_full
    assert sheet.penta_bonus == 0
    # Fives, Three of a kind, Four of a kind and Chance score 25 each; the rest 0; 25 < 63.
    assert sheet.total == 4 * 25
