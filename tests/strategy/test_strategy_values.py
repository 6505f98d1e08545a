"""The table's values: the known optimum of the empty sheet, and an independent enumeration."""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import combinations_with_replacement
from math import factorial

import pytest

from app.rules import BOXES, LOWER_BOXES, UPPER_BOXES, Box, Scoresheet
from app.strategy import OptimalStrategy

OPTIMAL_EMPTY_SHEET = 254.4848


def test_expected_total_of_the_empty_sheet_is_the_known_optimum(optimal: OptimalStrategy) -> None:
    assert optimal.expected_total(Scoresheet()) == pytest.approx(OPTIMAL_EMPTY_SHEET, abs=1e-4)


def test_a_full_sheet_expects_its_own_total(optimal: OptimalStrategy) -> None:
    sheet = Scoresheet.from_mapping({box: 0 for box in BOXES} | {Box.SIXES: 30}, penta_bonus=100)

    assert optimal.expected_total(sheet) == 130


@cache
def outcomes(count: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Every multiset of ``count`` dice with its exact probability."""
    result = []
    for faces in combinations_with_replacement(range(1, 7), count):
        ways = factorial(count)
        for times in Counter(faces).values():
            ways //= factorial(times)
        result.append((faces, ways / 6**count))
    return tuple(result)


def sub_multisets(dice: tuple[int, ...]) -> set[tuple[int, ...]]:
    return {tuple(sorted(dice[i] for i in range(5) if bits >> i & 1)) for bits in range(32)}


def reference_expected_total(sheet: Scoresheet) -> float:
    """The expected final total of a sheet with one free box, by enumerating the whole turn.

    Every first roll, every hold, every reroll with its exact probability; the points come
    from recording the final dice with the rules (score_options through ``record``).
    """
    (box,) = sheet.free_boxes

    @cache
    def scored(dice: tuple[int, ...]) -> float:
        return float(sheet.record(box, dice).total)

    @cache
    def best(dice: tuple[int, ...], rolls_left: int) -> float:
        if rolls_left == 0:
            return scored(dice)
        return max(hold_worth(kept, rolls_left) for kept in sub_multisets(dice))

    @cache
    def hold_worth(kept: tuple[int, ...], rolls_left: int) -> float:
        return sum(
            probability * best(tuple(sorted(kept + rolled)), rolls_left - 1)
            for rolled, probability in outcomes(5 - len(kept))
        )

    return hold_worth((), 3)


def last_box_sheets() -> list[tuple[str, Scoresheet]]:
    """Sheets with one free box: each box, upper subtotals around 63, Penta 50 or 0."""
    sheets = []
    for last in BOXES:
        for counts in (
            (3, 3, 3, 3, 3, 3),
            (2, 3, 3, 3, 3, 4),
            (3, 3, 3, 3, 3, 2),
            (1, 1, 1, 1, 1, 1),
        ):
            for penta in (50, 0):
                if last is Box.PENTA and penta == 0:
                    continue
                scores = {
                    box: face * count
                    for face, (box, count) in enumerate(zip(UPPER_BOXES, counts, strict=True), 1)
                }
                scores |= {box: 0 for box in LOWER_BOXES}
                scores[Box.PENTA] = penta
                del scores[last]
                sheet = Scoresheet.from_mapping(scores)
                label = f"{last.value}-upper{sheet.upper_subtotal}-penta{penta}"
                sheets.append((label, sheet))
    return sheets


@pytest.mark.parametrize(
    ("label", "sheet"), last_box_sheets(), ids=[label for label, _ in last_box_sheets()]
)
def test_one_box_left_matches_a_plain_enumeration(
    optimal: OptimalStrategy, label: str, sheet: Scoresheet
) -> None:
    assert optimal.expected_total(sheet) == pytest.approx(reference_expected_total(sheet), abs=1e-9)
