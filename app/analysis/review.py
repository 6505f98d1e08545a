"""Game review: every decision of every player against the optimal strategy.

A decision is a hold (after the first and the second roll: the dice kept for the next roll,
or all five when the player stopped rolling) or a box. Its worth is the expected final total
of the sheet if the rest is played optimally; the loss is the best option's worth minus the
chosen one's. Luck is the final total minus what the player's decisions were worth on
average: the expected total of an empty sheet minus the total loss.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.rules import Action, Box, Dice, Game, Roll, Score
from app.strategy import Strategy

COSTLIEST = 3
OPTIMAL_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Decision:
    """One choice: where it was made, what was chosen, what was best, and what it cost."""

    seat: int
    round: int
    roll: int
    kind: str
    """``"hold"`` or ``"box"``."""
    dice: Dice
    chosen: str
    """The box key, or the kept dice as digits (``"335"``; ``""`` for a full reroll)."""
    best: str
    chosen_expected: float
    best_expected: float

    @property
    def loss(self) -> float:
        """Expected points lost against the best choice (0 when the choice was best)."""
        lost = self.best_expected - self.chosen_expected
        return lost if lost > OPTIMAL_TOLERANCE else 0.0

    @property
    def is_optimal(self) -> bool:
        return self.loss == 0.0


@dataclass(frozen=True)
class PlayerReview:
    """One player's decisions and the figures drawn from them."""

    seat: int
    total: int
    start_expected: float
    decisions: tuple[Decision, ...]

    @property
    def expected_loss(self) -> float:
        return sum(decision.loss for decision in self.decisions)

    @property
    def optimal_share(self) -> float:
        if not self.decisions:
            return 1.0
        return sum(decision.is_optimal for decision in self.decisions) / len(self.decisions)

    @property
    def costliest(self) -> tuple[Decision, ...]:
        mistakes = [decision for decision in self.decisions if not decision.is_optimal]
        mistakes.sort(key=lambda decision: -decision.loss)
        return tuple(mistakes[:COSTLIEST])

    @property
    def luck(self) -> float:
        """Final total minus the expected worth of the player's decisions."""
        return self.total - (self.start_expected - self.expected_loss)

    @property
    def path(self) -> tuple[float, ...]:
        """The expected final total before the game and after each decision."""
        return (self.start_expected, *(d.chosen_expected for d in self.decisions))


def _kept(dice: Iterable[int]) -> str:
    return "".join(str(value) for value in sorted(dice))


def review(players: int, actions: Iterable[Action], strategy: Strategy) -> tuple[PlayerReview, ...]:
    """Review a game from its action log (the moves of every seat, in order)."""
    game = Game.new(players)
    decisions: list[list[Decision]] = [[] for _ in range(players)]
    start = strategy.expected_total(game.sheets[0])
    for action in actions:
        seat, sheet, turn = game.seat, game.sheet, game.turn
        assert seat is not None
        assert sheet is not None
        if turn.dice is not None and isinstance(action, Roll | Score) and turn.rolls_left > 0:
            held = turn.held if isinstance(action, Roll) else (True,) * len(turn.dice)
            kept = _kept(value for value, keep in zip(turn.dice, held, strict=True) if keep)
            options = strategy.hold_values(sheet, turn.dice, turn.rolls_left)
            chosen = next(option for option in options if _kept(option.kept) == kept)
            decisions[seat].append(
                Decision(
                    seat,
                    game.round,
                    turn.rolls_used,
                    "hold",
                    turn.dice,
                    kept,
                    _kept(options[0].kept),
                    chosen.expected,
                    options[0].expected,
                )
            )
        if isinstance(action, Score):
            assert turn.dice is not None
            values = strategy.box_values(sheet, turn.dice)
            best: Box = strategy.best_box(sheet, turn.dice)
            decisions[seat].append(
                Decision(
                    seat,
                    game.round,
                    turn.rolls_used,
                    "box",
                    turn.dice,
                    action.box.value,
                    best.value,
                    values[action.box],
                    values[best],
                )
            )
        game = game.apply(action)
    return tuple(
        PlayerReview(seat, game.sheets[seat].total, start, tuple(decisions[seat]))
        for seat in range(players)
    )
