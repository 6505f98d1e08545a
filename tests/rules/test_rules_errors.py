"""Illegal actions (not allowed now) and malformed ones (never well formed), exactly."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest

from app.rules import (
    BOXES,
    Action,
    Box,
    Game,
    Hold,
    IllegalActionError,
    MalformedActionError,
    Roll,
    RulesError,
    Score,
    validate_dice,
)


def play(game: Game, *actions: Action) -> Game:
    for action in actions:
        game = game.apply(action)
    return game


def finished_game(players: int) -> Game:
    game = Game.new(players)
    for box in BOXES:
        for _ in range(players):
            game = play(game, Roll((1, 2, 3, 4, 5)), Score(box))
    assert game.is_over
    return game


def rolled_three_times() -> Game:
    return play(Game.new(1), Roll((1, 1, 1, 1, 1)), Roll((2, 2, 2, 2, 2)), Roll((3, 3, 3, 3, 3)))


def second_seat_before_rolling() -> Game:
    return play(Game.new(2), Roll((1, 2, 3, 4, 5)), Score(Box.CHANCE))


def chance_used_and_rolled() -> Game:
    return play(Game.new(1), Roll((1, 2, 3, 4, 5)), Score(Box.CHANCE), Roll((6, 6, 1, 2, 3)))


def joker_with_fours_free() -> Game:
    return play(Game.new(1), Roll((4, 4, 4, 4, 4)), Score(Box.PENTA), Roll((4, 4, 4, 4, 4)))


def die_two_held() -> Game:
    return play(Game.new(1), Roll((6, 5, 4, 3, 2)), Hold.of_indices([1]))


ILLEGAL = {
    "fourth roll": (rolled_three_times, Roll((4, 4, 4, 4, 4)), "no rolls left: choose a box"),
    "score before roll": (lambda: Game.new(1), Score(Box.CHANCE), "roll before choosing a box"),
    "score before the next seat rolls": (
        second_seat_before_rolling,
        Score(Box.ONES),
        "roll before choosing a box",
    ),
    "hold before roll": (lambda: Game.new(1), Hold.of_indices([0]), "roll before holding dice"),
    "hold after third roll": (
        rolled_three_times,
        Hold.of_indices([0]),
        "no rolls left: choose a box",
    ),
    "changing a held die": (die_two_held, Roll((6, 6, 4, 3, 2)), "die 2 is held and cannot change"),
    "used box": (chance_used_and_rolled, Score(Box.CHANCE), "the box chance is already used"),
    "box the joker forbids": (
        joker_with_fours_free,
        Score(Box.CHANCE),
        "the joker forbids chance for this Penta; allowed: fours",
    ),
    "roll after game over": (lambda: finished_game(1), Roll((1, 2, 3, 4, 5)), "the game is over"),
    "hold after game over": (lambda: finished_game(2), Hold.of_indices([]), "the game is over"),
    "score after game over": (lambda: finished_game(1), Score(Box.CHANCE), "the game is over"),
}


@pytest.mark.parametrize(("make_game", "action", "message"), ILLEGAL.values(), ids=ILLEGAL.keys())
def test_illegal_action_raises_and_changes_nothing(
    make_game: Callable[[], Game], action: Action, message: str
) -> None:
    game = make_game()
    before = copy.deepcopy(game)

    with pytest.raises(IllegalActionError) as raised:
        game.apply(action)

    assert type(raised.value) is IllegalActionError
    assert str(raised.value) == message
    assert game == before


def test_held_dice_may_keep_their_values_and_free_dice_change() -> None:
    game = play(die_two_held(), Roll((1, 5, 1, 1, 1)))

    assert game.turn.dice == (1, 5, 1, 1, 1)
    assert game.turn.held == (False, True, False, False, False)
    assert game.turn.rolls_left == 1


def test_released_die_may_change() -> None:
    game = play(die_two_held(), Hold.of_indices([]), Roll((1, 1, 1, 1, 1)))

    assert game.turn.dice == (1, 1, 1, 1, 1)


def test_scoring_right_after_the_first_roll_is_allowed() -> None:
    game = play(Game.new(1), Roll((2, 2, 3, 3, 3)), Score(Box.FULL_HOUSE))

    assert game.sheets[0][Box.FULL_HOUSE] == 25
    assert game.turn.dice is None
    assert game.turn.rolls_left == 3


MALFORMED: dict[str, tuple[Callable[[], object], str]] = {
    "die 0": (lambda: Roll((0, 1, 2, 3, 4)), "a die shows 1 to 6, not 0"),
    "die 7": (lambda: Roll((1, 2, 3, 4, 7)), "a die shows 1 to 6, not 7"),
    "4 dice": (lambda: Roll((1, 2, 3, 4)), "a roll has 5 dice, not 4"),
    "6 dice": (lambda: Roll((1, 2, 3, 4, 5, 6)), "a roll has 5 dice, not 6"),
    "no dice": (lambda: Roll(()), "a roll has 5 dice, not 0"),
    "float die": (lambda: Roll((1, 2, 3, 4, 5.0)), "a die shows 1 to 6, not 5.0"),  # type: ignore[arg-type]
    "string die": (lambda: Roll((1, 2, "3", 4, 5)), "a die shows 1 to 6, not '3'"),  # type: ignore[arg-type]
    "bool die": (lambda: Roll((1, 2, True, 4, 5)), "a die shows 1 to 6, not True"),
    "dice not a sequence": (lambda: Roll(None), "a roll is 5 dice, not None"),  # type: ignore[arg-type]
    "dice a number": (lambda: Roll(12345), "a roll is 5 dice, not 12345"),  # type: ignore[arg-type]
    "unknown box": (lambda: Score("yahtzee"), "there is no box 'yahtzee'"),  # type: ignore[arg-type]
    "box by English name": (lambda: Score("Ones"), "there is no box 'Ones'"),  # type: ignore[arg-type]
    "box by position": (lambda: Score(0), "there is no box 0"),  # type: ignore[arg-type]
    "hold of 4": (lambda: Hold((True,) * 4), "holds are 5 true/false flags"),
    "hold of 6": (lambda: Hold((False,) * 6), "holds are 5 true/false flags"),
    "hold of ints": (lambda: Hold((1, 0, 0, 0, 0)), "holds are 5 true/false flags"),  # type: ignore[arg-type]
    "hold not a sequence": (lambda: Hold(None), "holds are 5 true/false flags"),  # type: ignore[arg-type]
    "hold index twice": (lambda: Hold.of_indices([1, 1]), "a die is held at most once"),
    "hold index 5": (lambda: Hold.of_indices([5]), "dice are numbered 0 to 4"),
    "hold index -1": (lambda: Hold.of_indices([-1]), "dice are numbered 0 to 4"),
    "hold index bool": (lambda: Hold.of_indices([True]), "dice are numbered 0 to 4"),
    "hold index list": (lambda: Hold.of_indices([[0]]), "dice are numbered 0 to 4"),  # type: ignore[list-item]
    "hold indices a number": (lambda: Hold.of_indices(3), "dice are numbered 0 to 4"),  # type: ignore[arg-type]
    "0 players": (lambda: Game.new(0), "a game has 1 to 6 players, not 0"),
    "7 players": (lambda: Game.new(7), "a game has 1 to 6 players, not 7"),
    "-1 players": (lambda: Game.new(-1), "a game has 1 to 6 players, not -1"),
    "2.0 players": (lambda: Game.new(2.0), "a game has 1 to 6 players, not 2.0"),  # type: ignore[arg-type]
    "True players": (lambda: Game.new(True), "a game has 1 to 6 players, not True"),
    "'2' players": (lambda: Game.new("2"), "a game has 1 to 6 players, not '2'"),  # type: ignore[arg-type]
    "not an action": (lambda: Game.new(1).apply("roll"), "not an action: 'roll'"),  # type: ignore[arg-type]
    "not an action after the game": (
        lambda: finished_game(1).apply(Box.CHANCE),  # type: ignore[arg-type]
        "not an action: <Box.CHANCE: 'chance'>",
    ),
}


@pytest.mark.parametrize(("make", "message"), MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_action_raises(make: Callable[[], object], message: str) -> None:
    with pytest.raises(MalformedActionError) as raised:
        make()

    assert type(raised.value) is MalformedActionError
    assert str(raised.value) == message


def test_malformed_dice_are_refused_before_any_game_sees_them() -> None:
    with pytest.raises(MalformedActionError, match="a die shows 1 to 6, not 7"):
        validate_dice([7, 1, 1, 1, 1])
    assert validate_dice(iter([6, 5, 4, 3, 2])) == (6, 5, 4, 3, 2)
    assert Roll([1, 2, 3, 4, 5]) == Roll((1, 2, 3, 4, 5))  # type: ignore[arg-type]
    assert Hold([True, False, False, False, True]).held == (True, False, False, False, True)  # type: ignore[arg-type]
    assert Score("chance") == Score(Box.CHANCE)  # type: ignore[arg-type]


def test_errors_are_value_errors_and_distinct() -> None:
    assert issubclass(IllegalActionError, RulesError)
    assert issubclass(MalformedActionError, RulesError)
    assert issubclass(RulesError, ValueError)
    assert not issubclass(IllegalActionError, MalformedActionError)
    assert not issubclass(MalformedActionError, IllegalActionError)
