"""Random whole games as a Hypothesis state machine, with the game's invariants after each step.

The machine keeps its own record of what happened (the log, every box's points, the bonuses,
the number of scored turns) and checks the game against it, so a game that forgot or changed
anything is caught at the step that did it.
"""

from __future__ import annotations

import copy
import itertools
from typing import ClassVar

import pytest
from hypothesis import currently_in_test_context, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from app.rules import (
    BOXES,
    MAX_ROLLS,
    ROUNDS,
    UPPER_BOXES,
    Action,
    Box,
    Game,
    Hold,
    IllegalActionError,
    Roll,
    Score,
)
from tests.rules.strategies import dice_strategy, holds


def count(name: str) -> None:
    """Record a Hypothesis event (the machine also runs by hand, outside Hypothesis)."""
    if currently_in_test_context():
        event(name)


class PentaGame(RuleBasedStateMachine):
    finished_games: ClassVar[int] = 0
    jokers_scored: ClassVar[int] = 0

    def __init__(self) -> None:
        super().__init__()
        self.players = 1
        self.game = Game.new(1)
        self.log: list[Action] = []
        self.points: list[dict[Box, int]] = [{}]
        self.bonuses = [0]
        self.scored_turns = 0
        self.holds_since_roll = 0

    @initialize(players=st.integers(min_value=1, max_value=2))
    def start(self, players: int) -> None:
        self.players = players
        self.game = Game.new(players)
        self.points = [{} for _ in range(players)]
        self.bonuses = [0] * players

    def apply(self, action: Action) -> None:
        self.game = self.game.apply(action)
        self.log.append(action)
        self.holds_since_roll = self.holds_since_roll + 1 if isinstance(action, Hold) else 0

    @precondition(lambda self: self.game.can_roll())
    @rule(new=dice_strategy)
    def roll(self, new: tuple[int, ...]) -> None:
        turn = self.game.turn
        old = turn.dice or new
        self.apply(Roll(tuple(o if h else n for h, o, n in zip(turn.held, old, new, strict=True))))

    # Holding again before rolling is legal (the last hold counts), but endless holds would
    # use up the steps a game needs to finish.
    @precondition(lambda self: self.game.can_hold() and self.holds_since_roll < 2)
    @rule(held=holds)
    def hold(self, held: tuple[bool, ...]) -> None:
        self.apply(Hold(held))

    @precondition(lambda self: self.game.can_score())
    @rule(pick=st.integers(min_value=0, max_value=len(BOXES) - 1))
    def score(self, pick: int) -> None:
        options = list(self.game.legal_boxes())
        self.record(options[pick % len(options)])

    @precondition(lambda self: self.game.can_score())
    @rule()
    def score_greedily(self) -> None:
        """The box worth most now: Pentas go to the Penta box, so later Pentas are jokers."""
        options = self.game.legal_boxes()
        self.record(max(options, key=lambda box: options[box].total))

    def record(self, box: Box) -> None:
        seat, options = self.game.seat, self.game.legal_boxes()
        assert seat is not None
        self.apply(Score(box))
        self.points[seat][box] = options[box].points
        self.bonuses[seat] += options[box].bonus
        self.scored_turns += 1
        if options[box].bonus:
            PentaGame.jokers_scored += 1
            count("scored a Penta with the bonus")
        if self.game.is_over:
            PentaGame.finished_games += 1
            count(f"game of {self.players} finished")

    @rule(pick=st.integers(min_value=0, max_value=4 * len(BOXES)), dice=dice_strategy, held=holds)
    def try_an_illegal_action(
        self, pick: int, dice: tuple[int, ...], held: tuple[bool, ...]
    ) -> None:
        illegal = self.illegal_actions(dice, held)
        if not illegal:
            count("no illegal action here")
            return
        action, message = illegal[pick % len(illegal)]
        before = copy.deepcopy(self.game)

        with pytest.raises(IllegalActionError) as raised:
            self.game.apply(action)

        assert type(raised.value) is IllegalActionError
        assert str(raised.value).startswith(message), (action, raised.value)
        assert self.game == before
        count(f"refused: {message}")

    def illegal_actions(
        self, dice: tuple[int, ...], held: tuple[bool, ...]
    ) -> list[tuple[Action, str]]:
        game, turn = self.game, self.game.turn
        if game.is_over:
            return [(action, "the game is over") for action in (Roll(dice), Hold(held))] + [
                (Score(box), "the game is over") for box in BOXES
            ]
        illegal: list[tuple[Action, str]] = []
        if turn.dice is None:
            illegal += [(Hold(held), "roll before holding dice")]
            illegal += [(Score(box), "roll before choosing a box") for box in BOXES]
            return illegal
        if turn.rolls_left == 0:
            illegal += [(Roll(dice), "no rolls left"), (Hold(held), "no rolls left")]
        else:
            for index, is_held in enumerate(turn.held):
                if is_held:
                    changed = list(turn.dice)
                    changed[index] = changed[index] % 6 + 1
                    illegal.append((Roll(tuple(changed)), f"die {index + 1} is held"))
        sheet, legal = game.sheet, game.legal_boxes()
        assert sheet is not None
        for box in BOXES:
            if not sheet.is_free(box):
                illegal.append((Score(box), f"the box {box.value} is already used"))
            elif box not in legal:
                illegal.append((Score(box), f"the joker forbids {box.value}"))
        return illegal

    @invariant()
    def sheets_hold_what_was_recorded_and_add_up(self) -> None:
        for sheet, points, bonus in zip(self.game.sheets, self.points, self.bonuses, strict=True):
            assert {box: sheet[box] for box in BOXES if not sheet.is_free(box)} == points
            assert sheet.penta_bonus == bonus
            upper = sum(points.get(box, 0) for box in UPPER_BOXES)
            assert sheet.upper_subtotal == upper
            assert sheet.upper_bonus == (35 if upper >= 63 else 0)
            assert sheet.total == sum(points.values()) + sheet.upper_bonus + bonus
            assert sheet.total == (
                sheet.upper_subtotal + sheet.upper_bonus + sheet.lower_total + sheet.penta_bonus
            )

    @invariant()
    def seat_and_round_follow_the_scored_turns(self) -> None:
        game, scored = self.game, self.scored_turns
        assert game.scored_turns == scored
        assert game.is_over is (scored == ROUNDS * self.players)
        assert game.seat == (None if game.is_over else scored % self.players)
        assert game.round == min(scored // self.players + 1, ROUNDS)

    @invariant()
    def turn_is_consistent(self) -> None:
        turn = self.game.turn
        assert 0 <= turn.rolls_used <= MAX_ROLLS
        assert (turn.dice is None) is (turn.rolls_used == 0)
        assert self.game.can_score() is (turn.dice is not None and not self.game.is_over)
        if self.game.can_score():
            options = self.game.legal_boxes()
            assert options
            assert self.game.sheet is not None
            assert set(options) <= set(self.game.sheet.free_boxes)
            assert self.game.must_sacrifice() is all(o.points == 0 for o in options.values())

    @invariant()
    def replaying_the_log_rebuilds_the_game(self) -> None:
        assert Game.replay(self.players, self.log) == self.game

    @invariant()
    def outcome_only_at_the_end(self) -> None:
        outcome = self.game.outcome()
        if not self.game.is_over:
            assert outcome is None
            return
        assert outcome is not None
        totals = tuple(sheet.total for sheet in self.game.sheets)
        assert outcome.totals == totals
        assert outcome.winners == tuple(s for s, t in enumerate(totals) if t == max(totals))
        assert outcome.is_draw is (len(outcome.winners) > 1)


INVARIANTS = (
    PentaGame.sheets_hold_what_was_recorded_and_add_up,
    PentaGame.seat_and_round_follow_the_scored_turns,
    PentaGame.turn_is_consistent,
    PentaGame.replaying_the_log_rebuilds_the_game,
    PentaGame.outcome_only_at_the_end,
)


def test_the_machine_plays_a_whole_game_deterministically() -> None:
    """The machine's rules and invariants, driven by hand through a two-player game to its end.

    This makes sure the end-of-game checks run whatever Hypothesis happens to generate.
    """
    machine = PentaGame()
    machine.start(players=2)
    faces = itertools.cycle(range(1, 7))
    for turn in range(ROUNDS * 2):
        face = next(faces)
        machine.roll((face, face, face, face, face))
        machine.hold((True, False, True, False, False))
        machine.roll((face, 1, face, 2, 3))
        for pick in range(4):
            machine.try_an_illegal_action(pick * 7, (1, 2, 3, 4, 5), (False,) * 5)
        machine.score(turn)
        for check in INVARIANTS:
            check(machine)

    assert machine.game.is_over
    for pick in range(15):
        machine.try_an_illegal_action(pick, (1, 2, 3, 4, 5), (True,) * 5)
    for check in INVARIANTS:
        check(machine)
    outcome = machine.game.outcome()
    assert outcome is not None
    assert len(outcome.totals) == 2


def test_random_games_keep_their_invariants_and_some_finish() -> None:
    PentaGame.finished_games = PentaGame.jokers_scored = 0

    run_state_machine_as_test(
        PentaGame, settings=settings(max_examples=50, stateful_step_count=100, deadline=None)
    )

    assert PentaGame.finished_games > 0
    assert PentaGame.jokers_scored > 0
