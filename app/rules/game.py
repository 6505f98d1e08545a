"""Turns, actions and a whole game, immutable: ``apply`` returns a new game or raises."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from app.rules.boxes import DICE_COUNT, MAX_ROLLS, ROUNDS, Box
from app.rules.dice import Dice, validate_dice
from app.rules.errors import IllegalActionError, MalformedActionError
from app.rules.sheet import ScoreOption, Scoresheet

MAX_PLAYERS = 6
NO_HOLDS: tuple[bool, ...] = (False,) * DICE_COUNT


@dataclass(frozen=True)
class Roll:
    """A roll: the five dice as they lie afterwards (held dice keep their values)."""

    dice: Dice

    def __post_init__(self) -> None:
        object.__setattr__(self, "dice", validate_dice(self.dice))


@dataclass(frozen=True)
class Hold:
    """Which of the five dice are held for the next roll."""

    held: tuple[bool, ...]

    def __post_init__(self) -> None:
        try:
            held = tuple(self.held)
        except TypeError:
            raise MalformedActionError("hold_flags") from None
        if len(held) != DICE_COUNT or not all(type(flag) is bool for flag in held):
            raise MalformedActionError("hold_flags")
        object.__setattr__(self, "held", held)

    @classmethod
    def of_indices(cls, indices: Iterable[int]) -> Hold:
        """The hold of the dice at ``indices`` (0 to 4, each at most once).

        >>> Hold.of_indices([0, 3]).held
        (True, False, False, True, False)
        """
        try:
            chosen = list(indices)
        except TypeError:
            raise MalformedActionError("die_numbers") from None
        # Types first: a duplicate check on unhashable or bool indices would misreport.
        if any(type(i) is not int or not 0 <= i < DICE_COUNT for i in chosen):
            raise MalformedActionError("die_numbers")
        if len(set(chosen)) != len(chosen):
            raise MalformedActionError("held_twice")
        return cls(tuple(i in chosen for i in range(DICE_COUNT)))


@dataclass(frozen=True)
class Score:
    """Record the current dice in a box."""

    box: Box

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "box", Box(self.box))
        except ValueError:
            raise MalformedActionError("no_such_box", box=self.box) from None


Action = Roll | Hold | Score


@dataclass(frozen=True)
class Turn:
    """The turn in progress: the dice on the table (None before the first roll) and the holds."""

    dice: Dice | None = None
    held: tuple[bool, ...] = NO_HOLDS
    rolls_used: int = 0

    @property
    def rolls_left(self) -> int:
        """How many rolls the player may still make this turn."""
        return MAX_ROLLS - self.rolls_used

    @property
    def has_rolled(self) -> bool:
        """Whether there are dice on the table to score."""
        return self.dice is not None


@dataclass(frozen=True)
class Outcome:
    """The end of a game: every seat's total and the seats that share the highest."""

    totals: tuple[int, ...]
    winners: tuple[int, ...]

    @property
    def is_draw(self) -> bool:
        """Whether several seats share the highest total."""
        return len(self.winners) > 1


@dataclass(frozen=True)
class Game:
    """A game of Penta for one to six players in seat order.

    Whose turn it is and which round follows from the sheets: a game is its sheets and the
    turn in progress, and any game is rebuilt by replaying its actions.

    >>> game = Game.new(1).apply(Roll((2, 2, 3, 3, 3))).apply(Score(Box.FULL_HOUSE))
    >>> game.sheets[0].total, game.round, game.turn.rolls_left
    (25, 2, 3)
    """

    sheets: tuple[Scoresheet, ...]
    turn: Turn = field(default_factory=Turn)
    _scored_turns: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Whose turn it is, which round, whether it is over: all follow from this count,
        # which a move asks for a score of times. Counted once, when the game is made.
        object.__setattr__(self, "_scored_turns", sum(sheet.used_count for sheet in self.sheets))

    @classmethod
    def new(cls, players: int) -> Game:
        """A game at its start for ``players`` seats."""
        if type(players) is not int or not 1 <= players <= MAX_PLAYERS:
            raise MalformedActionError("player_count", most=MAX_PLAYERS, players=players)
        return cls(tuple(Scoresheet() for _ in range(players)))

    @classmethod
    def replay(cls, players: int, actions: Iterable[Action]) -> Game:
        """The game after applying ``actions`` in order to a new game of ``players`` seats."""
        game = cls.new(players)
        for action in actions:
            game = game.apply(action)
        return game

    @property
    def players(self) -> int:
        """The number of seats."""
        return len(self.sheets)

    @property
    def scored_turns(self) -> int:
        """How many turns have been recorded on all sheets together."""
        return self._scored_turns

    @property
    def is_over(self) -> bool:
        """Whether every player has played all 13 rounds."""
        return self.scored_turns == ROUNDS * self.players

    @property
    def seat(self) -> int | None:
        """The seat to move, or None when the game is over."""
        return None if self.is_over else self.scored_turns % self.players

    @property
    def round(self) -> int:
        """The round being played, 1 to 13 (13 once the game is over)."""
        return min(self.scored_turns // self.players + 1, ROUNDS)

    @property
    def sheet(self) -> Scoresheet | None:
        """The sheet of the player to move."""
        return None if self.seat is None else self.sheets[self.seat]

    def can_roll(self) -> bool:
        """Whether the player to move may roll now."""
        return not self.is_over and self.turn.rolls_left > 0

    def can_hold(self) -> bool:
        """Whether the player to move may hold or release dice now (after a roll, rolls left)."""
        return not self.is_over and self.turn.has_rolled and self.turn.rolls_left > 0

    def can_score(self) -> bool:
        """Whether the player to move may record the dice now."""
        return not self.is_over and self.turn.has_rolled

    def legal_boxes(self) -> dict[Box, ScoreOption]:
        """The boxes the current dice may go into, with points and bonus; {} before a roll."""
        if self.sheet is None or self.turn.dice is None:
            return {}
        return self.sheet.score_options(self.turn.dice)

    def must_sacrifice(self) -> bool:
        """Whether the current dice score nothing in any legal box."""
        if self.sheet is None or self.turn.dice is None:
            return False
        return self.sheet.must_sacrifice(self.turn.dice)

    def outcome(self) -> Outcome | None:
        """The result once the game is over, else None."""
        if not self.is_over:
            return None
        totals = tuple(sheet.total for sheet in self.sheets)
        best = max(totals)
        return Outcome(totals, tuple(seat for seat, total in enumerate(totals) if total == best))

    def apply(self, action: Action) -> Game:
        """The game after ``action``, or :class:`IllegalActionError` saying why not.

        Anything but a Roll, Hold or Score is :class:`MalformedActionError`, even once it is over.
        """
        if not isinstance(action, Roll | Hold | Score):
            raise MalformedActionError("not_an_action", action=action)
        if self.is_over:
            raise IllegalActionError("finished")
        match action:
            case Roll(dice):
                return self._roll(dice)
            case Hold(held):
                return self._hold(held)
            case Score(box):
                return self._score(box)

    def _roll(self, dice: Dice) -> Game:
        turn = self.turn
        if turn.rolls_left == 0:
            raise IllegalActionError("no_rolls_left")
        if turn.dice is not None:
            for index, (held, before, after) in enumerate(
                zip(turn.held, turn.dice, dice, strict=True)
            ):
                if held and before != after:
                    raise IllegalActionError("die_held", number=index + 1)
        return Game(self.sheets, Turn(dice, turn.held, turn.rolls_used + 1))

    def _hold(self, held: Sequence[bool]) -> Game:
        if not self.turn.has_rolled:
            raise IllegalActionError("roll_before_hold")
        if self.turn.rolls_left == 0:
            raise IllegalActionError("no_rolls_left")
        return Game(self.sheets, Turn(self.turn.dice, tuple(held), self.turn.rolls_used))

    def _score(self, box: Box) -> Game:
        seat, dice = self.seat, self.turn.dice
        assert seat is not None
        if dice is None:
            raise IllegalActionError("roll_before_score")
        sheets = list(self.sheets)
        sheets[seat] = sheets[seat].record(box, dice)
        return Game(tuple(sheets))
