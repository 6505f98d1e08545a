"""Simulated games: legal, scored as the rules score them, and decided as the API decides."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

import app.strategy.__main__ as command_line
from app.rules import BOXES, ROUNDS, Scoresheet
from app.strategy import (
    GreedyStrategy,
    OptimalStrategy,
    play_game,
    resolve_table_path,
    simulate,
)
from app.strategy.__main__ import main
from app.strategy.tables import KEEPS, ROLLS, FloatArray


def numpy_dice(seed: int):  # type: ignore[no-untyped-def]
    generator = np.random.default_rng(seed)
    return lambda count: generator.integers(1, 7, count)


@pytest.mark.parametrize("player_name", ["optimal", "greedy"])
def test_lockstep_games_replay_through_the_rules(
    optimal: OptimalStrategy, player_name: str
) -> None:
    player = optimal if player_name == "optimal" else GreedyStrategy()
    totals, history = simulate(player, 12, numpy_dice(7), record=True)

    assert history is not None
    for game in range(12):
        sheet = Scoresheet()
        for turn in range(ROUNDS):
            first = ROLLS[history.first_rolls[game, turn]]
            second = ROLLS[history.second_rolls[game, turn]]
            final = ROLLS[history.final_rolls[game, turn]]
            kept = KEEPS[history.first_keeps[game, turn]]
            kept_again = KEEPS[history.second_keeps[game, turn]]
            box = BOXES[history.boxes[game, turn]]

            assert player.hold_values(sheet, first, 2)[0].kept == kept
            assert player.hold_values(sheet, second, 1)[0].kept == kept_again
            assert player.best_box(sheet, final) is box
            sheet = sheet.record(box, final)
        assert sheet.is_full
        assert sheet.total == totals[game]


def test_the_same_seed_gives_the_same_games(optimal: OptimalStrategy) -> None:
    first, _ = simulate(optimal, 50, numpy_dice(3))
    second, _ = simulate(optimal, 50, numpy_dice(3))

    assert np.array_equal(first, second)


def test_many_games_average_near_the_optimum(optimal: OptimalStrategy) -> None:
    games = 3000
    totals, _ = simulate(optimal, games, numpy_dice(11))

    # Fixed seed, so this is a fixed number; the margin is four standard errors.
    assert abs(totals.mean() - 254.4848) < 4 * 59.6 / games**0.5


def test_play_game_through_the_rules(optimal: OptimalStrategy) -> None:
    source = random.Random(5)
    sheet = play_game(optimal, lambda count: np.array([source.randint(1, 6) for _ in range(count)]))

    assert sheet.is_full
    assert sheet.total >= 0


def test_command_line_simulates_with_a_saved_table(
    table_folder: object, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["simulate", "--games", "20", "--seed", "1", "--path", str(table_folder)])
    output = capsys.readouterr().out

    assert "loaded" in output
    assert "optimal: 20 games" in output


def test_command_line_builds_and_saves(
    tmp_path: Path,
    table: FloatArray,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(command_line, "build_values", table.copy)
    main(["build", "--path", str(tmp_path)])
    output = capsys.readouterr().out

    assert resolve_table_path(tmp_path).is_file()
    assert "built the table in" in output
    assert "V(empty sheet) = 254.484846" in output
