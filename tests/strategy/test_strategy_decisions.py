"""Decisions are legal, deterministic, consistent with each other, and respect the joker."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules import (
    BOXES,
    JOKER_LOWER_BOXES,
    ROUNDS,
    UPPER_BOXES,
    Box,
    IllegalActionError,
    MalformedActionError,
    Scoresheet,
    is_penta,
)
from app.strategy import TIE_TOLERANCE, GreedyStrategy, OptimalStrategy, Strategy, tables, turn
from app.strategy.state import SheetState

die = st.integers(min_value=1, max_value=6)
dice_strategy = st.one_of(st.tuples(die, die, die, die, die), die.map(lambda face: (face,) * 5))


@st.composite
def played_sheets(draw: st.DrawFn) -> Scoresheet:
    """A sheet with 0 to 12 boxes used, each recorded legally from random dice."""
    sheet = Scoresheet()
    for _ in range(draw(st.integers(min_value=0, max_value=ROUNDS - 1))):
        options = sorted(sheet.score_options(draw(dice_strategy)), key=lambda box: box.position)
        box = draw(st.sampled_from(options))
        sheet = sheet.record(box, _dice_for(sheet, box, draw))
    return sheet


def _dice_for(sheet: Scoresheet, box: Box, draw: st.DrawFn) -> tuple[int, ...]:
    """Dice that ``box`` may take on ``sheet`` (redrawn when the joker forbids it)."""
    while True:
        dice = draw(dice_strategy)
        if box in sheet.score_options(dice):
            return dice


def strategies(optimal: OptimalStrategy) -> list[Strategy]:
    return [optimal, GreedyStrategy()]


@settings(max_examples=150, deadline=None)
@given(sheet=played_sheets(), dice=dice_strategy)
def test_best_box_is_legal_and_best(
    optimal: OptimalStrategy, sheet: Scoresheet, dice: tuple[int, ...]
) -> None:
    for strategy in strategies(optimal):
        options = sheet.score_options(dice)
        values = strategy.box_values(sheet, dice)
        best = strategy.best_box(sheet, dice)

        assert list(values) == list(options)
        assert best in options
        for box, value in values.items():
            after = sheet.record(box, dice)
            assert value == pytest.approx(strategy.expected_total(after), abs=1e-9)
        assert values[best] >= max(values.values()) - TIE_TOLERANCE
        first_best = [box for box, value in values.items() if value >= values[best] - TIE_TOLERANCE]
        assert best == first_best[0]


@settings(max_examples=100, deadline=None)
@given(
    sheet=played_sheets(),
    dice=dice_strategy,
    rolls_left=st.sampled_from([1, 2]),
    order=st.permutations(range(5)),
)
def test_holds_are_consistent(
    optimal: OptimalStrategy,
    sheet: Scoresheet,
    dice: tuple[int, ...],
    rolls_left: int,
    order: list[int],
) -> None:
    dice = tuple(dice[i] for i in order)
    for strategy in strategies(optimal):
        options = strategy.hold_values(sheet, dice, rolls_left)
        held = strategy.best_hold(sheet, dice, rolls_left)
        kept = [option.kept for option in options]

        assert held == options[0].held
        assert len(kept) == len(set(kept)) == len(_distinct_sub_multisets(dice))
        for option in options:
            assert option.kept == tuple(
                sorted(d for d, h in zip(dice, option.held, strict=True) if h)
            )
        assert options[0].expected >= max(o.expected for o in options) - TIE_TOLERANCE
        for before, after in itertools.pairwise(options):
            assert before.expected >= after.expected - TIE_TOLERANCE
        keep_all = next(option for option in options if all(option.held))
        if rolls_left == 1:
            # Holding everything with one roll left is scoring now in the best box.
            assert keep_all.expected == pytest.approx(
                max(strategy.box_values(sheet, dice).values()), abs=1e-9
            )


def _distinct_sub_multisets(dice: tuple[int, ...]) -> set[tuple[int, ...]]:
    return {tuple(sorted(dice[i] for i in range(5) if bits >> i & 1)) for bits in range(32)}


@settings(max_examples=60, deadline=None)
@given(sheet=played_sheets(), dice=dice_strategy, order=st.permutations(range(5)))
def test_hold_does_not_depend_on_the_order_of_the_dice(
    optimal: OptimalStrategy, sheet: Scoresheet, dice: tuple[int, ...], order: list[int]
) -> None:
    shuffled = tuple(dice[i] for i in order)
    for rolls_left in (1, 2):
        first = optimal.hold_values(sheet, dice, rolls_left)[0]
        second = optimal.hold_values(sheet, shuffled, rolls_left)[0]
        assert first.kept == second.kept
        assert first.expected == second.expected


def test_hold_ties_keep_more_dice_then_the_smallest(optimal: OptimalStrategy) -> None:
    # Only Penta is left: from 1 2 3 4 5 with one roll left, keeping any one die is exactly as
    # good as keeping none (1/1296 of a Penta); the rule keeps one die, the smallest.
    sheet = Scoresheet.from_mapping({box: 0 for box in BOXES if box is not Box.PENTA})
    for strategy in strategies(optimal):
        options = strategy.hold_values(sheet, (3, 5, 1, 4, 2), 1)

        tied = [option.kept for option in options[:6]]
        assert tied == [(1,), (2,), (3,), (4,), (5,), ()]
        assert options[0].held == (False, False, True, False, False)
        assert options[0].expected == pytest.approx(50 / 1296, abs=1e-12)


def test_box_ties_go_to_the_first_box_in_sheet_order(optimal: OptimalStrategy) -> None:
    # Only Full house and Large straight are free and 1 1 3 4 6 scores 0 in both.
    sheet = Scoresheet.from_mapping(
        {box: 0 for box in BOXES if box not in (Box.FULL_HOUSE, Box.LARGE_STRAIGHT)}
    )
    greedy = GreedyStrategy()

    assert greedy.box_values(sheet, (1, 1, 3, 4, 6)) == {Box.FULL_HOUSE: 0, Box.LARGE_STRAIGHT: 0}
    assert greedy.best_box(sheet, (1, 1, 3, 4, 6)) is Box.FULL_HOUSE
    assert optimal.best_box(sheet, (1, 1, 3, 4, 6)) in (Box.FULL_HOUSE, Box.LARGE_STRAIGHT)


@pytest.mark.parametrize(
    ("used", "expected"),
    [
        ({Box.PENTA: 50}, Box.FOURS),
        (
            {Box.PENTA: 50, Box.ONES: 3, Box.TWOS: 6, Box.THREES: 9, Box.FIVES: 15, Box.SIXES: 18},
            Box.FOURS,
        ),
    ],
)
def test_joker_forces_the_upper_box(
    optimal: OptimalStrategy, used: dict[Box, int], expected: Box
) -> None:
    sheet = Scoresheet.from_mapping(used)

    assert optimal.best_box(sheet, (4, 4, 4, 4, 4)) is expected
    assert list(optimal.box_values(sheet, (4, 4, 4, 4, 4))) == [expected]


def test_joker_with_its_upper_box_used_goes_to_a_lower_box(optimal: OptimalStrategy) -> None:
    sheet = Scoresheet.from_mapping({Box.PENTA: 50, Box.FOURS: 12})

    assert list(optimal.box_values(sheet, (4, 4, 4, 4, 4))) == list(JOKER_LOWER_BOXES)
    assert optimal.best_box(sheet, (4, 4, 4, 4, 4)) in JOKER_LOWER_BOXES


def test_joker_with_the_lower_section_full_takes_another_upper_box(
    optimal: OptimalStrategy,
) -> None:
    sheet = Scoresheet.from_mapping(
        {Box.PENTA: 50, Box.FOURS: 12} | {box: 0 for box in JOKER_LOWER_BOXES}
    )
    free_upper = [box for box in UPPER_BOXES if box is not Box.FOURS]

    assert list(optimal.box_values(sheet, (4, 4, 4, 4, 4))) == free_upper
    assert optimal.best_box(sheet, (4, 4, 4, 4, 4)) in free_upper


def test_penta_box_sacrificed_means_no_joker(optimal: OptimalStrategy) -> None:
    sheet = Scoresheet.from_mapping({Box.PENTA: 0})
    values = optimal.box_values(sheet, (4, 4, 4, 4, 4))

    assert list(values) == list(BOXES[:-1])
    assert optimal.best_box(sheet, (4, 4, 4, 4, 4)) in values


def test_box_values_are_expected_final_totals(optimal: OptimalStrategy) -> None:
    sheet = Scoresheet.from_mapping(
        {box: 0 for box in BOXES if box is not Box.CHANCE} | {Box.SIXES: 24}
    )

    assert optimal.box_values(sheet, (1, 2, 3, 4, 6)) == {Box.CHANCE: 24 + 16}


def test_greedy_takes_the_most_points_now() -> None:
    greedy = GreedyStrategy()

    assert greedy.best_box(Scoresheet(), (1, 3, 2, 4, 4)) is Box.SMALL_STRAIGHT
    assert greedy.best_box(Scoresheet(), (4, 4, 4, 4, 4)) is Box.PENTA
    assert greedy.best_box(Scoresheet(), (2, 2, 3, 3, 3)) is Box.FULL_HOUSE
    assert greedy.is_optimal is False


def test_the_optimal_player_gives_up_points_now_for_later(optimal: OptimalStrategy) -> None:
    # Three 1s and two 6s: greedy takes the 15 of Chance, the optimal player the Ones.
    assert GreedyStrategy().best_box(Scoresheet(), (1, 1, 1, 6, 6)) is Box.FULL_HOUSE
    assert optimal.best_box(Scoresheet(), (1, 1, 1, 6, 6)) is Box.FULL_HOUSE
    assert optimal.best_box(Scoresheet(), (1, 1, 1, 2, 6)) is Box.ONES
    assert GreedyStrategy().best_box(Scoresheet(), (1, 1, 1, 2, 6)) is Box.THREE_OF_A_KIND


def test_errors(optimal: OptimalStrategy) -> None:
    full = Scoresheet.from_mapping({box: 0 for box in BOXES})

    with pytest.raises(IllegalActionError):
        optimal.best_box(full, (1, 2, 3, 4, 5))
    with pytest.raises(IllegalActionError):
        optimal.best_hold(full, (1, 2, 3, 4, 5), 1)
    with pytest.raises(MalformedActionError):
        optimal.best_box(Scoresheet(), (1, 2, 3, 4, 7))
    with pytest.raises(ValueError, match="1 or 2 rolls left"):
        optimal.best_hold(Scoresheet(), (1, 2, 3, 4, 5), 3)
    with pytest.raises(ValueError, match="no legal game"):
        optimal.expected_total(Scoresheet.from_mapping({Box.ONES: 7}))


@pytest.mark.parametrize("states", [1, 3, 8])
def test_small_batches_compute_the_same_bits_as_large_ones(
    states: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Decisions for one sheet and the lockstep simulation must agree to the last bit.
    final = np.random.default_rng(states).random((252, states)) * 300
    results = []
    for few in (0, states):
        monkeypatch.setattr(turn, "FEW_STATES", few)
        workspace = turn.Workspace(states)
        one_left = turn.keep_values(final, np.empty((462, states)), workspace).copy()
        best = turn.best_keep_values(one_left, np.empty((462, states)), workspace).copy()
        results.append((one_left, best))

    assert np.array_equal(results[0][0], results[1][0])
    assert np.array_equal(results[0][1], results[1][1])


@settings(max_examples=100, deadline=None)
@given(sheet=played_sheets(), dice=dice_strategy)
def test_the_tables_agree_with_the_rules_on_any_sheet(
    sheet: Scoresheet, dice: tuple[int, ...]
) -> None:
    # The table build reads ordinary points from an empty sheet and the joker cases from
    # synthetic sheets; the rules must give the same options on every sheet of play.
    options = sheet.score_options(dice)
    roll = tables.KEEP_INDEX[tuple(sorted(dice))] - tables.ROLL_START
    state = SheetState.of(sheet)
    if is_penta(dice) and sheet.has_penta_fifty:
        points, bonus = tables.joker_tables()
        expected = {
            box: (
                int(points[state.mask, dice[0] - 1, box.position]),
                int(bonus[state.mask, dice[0] - 1]),
            )
            for box in BOXES
            if points[state.mask, dice[0] - 1, box.position] != tables.NO_OPTION
        }
    else:
        expected = {
            box: (int(tables.ORDINARY_POINTS[box.position, roll]), 0)
            for box in BOXES
            if sheet.is_free(box)
        }

    assert {box: (option.points, option.bonus) for box, option in options.items()} == expected


def test_roll_probabilities_sum_to_one() -> None:
    assert tables.ROLL_PROBABILITIES.sum() == pytest.approx(1.0, abs=1e-15)
    assert len(tables.ROLLS) == len(set(tables.ROLLS)) == 252
