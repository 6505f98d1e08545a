"""Hypothesis properties of scoring, sheets and whole games."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules import (
    BOXES,
    ROUNDS,
    UPPER_BOXES,
    Action,
    Box,
    Game,
    Hold,
    IllegalActionError,
    Roll,
    Score,
    ScoreOption,
    Scoresheet,
    box_points,
)
from tests.rules.strategies import dice_strategy, holds


@st.composite
def played_sheets(draw: st.DrawFn) -> tuple[Scoresheet, list[tuple[Box, ScoreOption]]]:
    """A sheet after some random legal recordings, and what each recording was offered."""
    sheet = Scoresheet()
    recorded: list[tuple[Box, ScoreOption]] = []
    for _ in range(draw(st.integers(min_value=0, max_value=ROUNDS))):
        dice = draw(dice_strategy)
        options = sheet.score_options(dice)
        box = draw(st.sampled_from(list(options)))
        recorded.append((box, options[box]))
        sheet = sheet.record(box, dice)
    return sheet, recorded


def random_game(data: st.DataObject, players: int, *, holds_and_rerolls: bool) -> list[Action]:
    """The actions of a random legal game played to its end."""
    game, log = Game.new(players), []
    while not game.is_over:
        choices = ["score"] if game.can_score() else []
        if holds_and_rerolls or not game.turn.has_rolled:
            choices += ["roll"] if game.can_roll() else []
            choices += ["hold"] if game.can_hold() and holds_and_rerolls else []
        action: Action
        match data.draw(st.sampled_from(choices)):
            case "roll":
                new = data.draw(dice_strategy)
                held, old = game.turn.held, game.turn.dice or new
                action = Roll(tuple(o if h else n for h, o, n in zip(held, old, new, strict=True)))
            case "hold":
                action = Hold(data.draw(holds))
            case _:
                action = Score(data.draw(st.sampled_from(list(game.legal_boxes()))))
        game = game.apply(action)
        log.append(action)
    return log


@settings(max_examples=100, deadline=None)
@given(played_sheets(), dice_strategy, st.data())
def test_points_do_not_depend_on_dice_order(
    played: tuple[Scoresheet, list[tuple[Box, ScoreOption]]],
    dice: tuple[int, ...],
    data: st.DataObject,
) -> None:
    sheet, _ = played
    shuffled = tuple(data.draw(st.permutations(dice)))

    assert [box_points(box, shuffled) for box in BOXES] == [box_points(box, dice) for box in BOXES]
    assert sheet.score_options(shuffled) == sheet.score_options(dice)
    assert sheet.must_sacrifice(shuffled) is sheet.must_sacrifice(dice)


@settings(max_examples=100, deadline=None)
@given(played_sheets())
def test_total_is_the_sum_of_its_parts_and_of_what_was_recorded(
    played: tuple[Scoresheet, list[tuple[Box, ScoreOption]]],
) -> None:
    sheet, recorded = played
    upper = sum(option.points for box, option in recorded if box in UPPER_BOXES)

    assert sheet.total == (
        sheet.upper_subtotal + sheet.upper_bonus + sheet.lower_total + sheet.penta_bonus
    )
    assert sheet.upper_subtotal == upper
    assert sheet.penta_bonus == sum(option.bonus for _, option in recorded)
    assert sheet.total == sum(option.total for _, option in recorded) + sheet.upper_bonus


@settings(max_examples=100, deadline=None)
@given(played_sheets())
def test_upper_bonus_appears_exactly_when_the_subtotal_reaches_63(
    played: tuple[Scoresheet, list[tuple[Box, ScoreOption]]],
) -> None:
    sheet, _ = played

    assert sheet.upper_bonus == (35 if sheet.upper_subtotal >= 63 else 0)


@settings(max_examples=100, deadline=None)
@given(played_sheets(), dice_strategy)
def test_no_box_is_ever_filled_twice(
    played: tuple[Scoresheet, list[tuple[Box, ScoreOption]]], dice: tuple[int, ...]
) -> None:
    sheet, recorded = played
    boxes = [box for box, _ in recorded]

    assert len(set(boxes)) == len(boxes) == sheet.used_count
    assert [sheet[box] for box in boxes] == [option.points for _, option in recorded]
    options = sheet.score_options(dice)
    assert set(options) <= set(sheet.free_boxes)
    assert bool(options) is not sheet.is_full
    for box in boxes:
        with pytest.raises(IllegalActionError, match=f"^the box {box.value} is already used$"):
            sheet.record(box, dice)


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=1, max_value=6), st.data())
def test_a_game_ends_after_exactly_13_turns_per_player(players: int, data: st.DataObject) -> None:
    log = random_game(data, players, holds_and_rerolls=False)
    assert sum(isinstance(action, Score) for action in log) == ROUNDS * players

    game = Game.new(players)
    for action in log:
        assert not game.is_over
        assert game.outcome() is None
        game = game.apply(action)

    assert game.is_over
    assert game.scored_turns == ROUNDS * players
    assert all(sheet.is_full for sheet in game.sheets)
    assert (game.seat, game.round) == (None, ROUNDS)


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=1, max_value=3), st.data())
def test_replaying_the_log_rebuilds_the_game(players: int, data: st.DataObject) -> None:
    log = random_game(data, players, holds_and_rerolls=True)
    cut = data.draw(st.integers(min_value=0, max_value=len(log)))

    game = Game.new(players)
    for action in log[:cut]:
        game = game.apply(action)

    assert Game.replay(players, log[:cut]) == game
    assert Game.replay(players, log).is_over
