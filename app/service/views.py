"""What a page or an API client sees of a game: its record and its replayed state together."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from app.rules import MAX_ROLLS, Box, Dice, Game, ScoreOption, Scoresheet, is_penta
from app.service.fairness import Fairness
from app.service.records import seconds_left
from app.store.models import GameStatus
from app.store.rows import GameRow


@dataclass(frozen=True)
class PlayerView:
    """A seat and its scoresheet."""

    seat: int
    name: str
    computer: bool
    sheet: Scoresheet
    used_hints: bool
    hints: bool = False
    stand_in: bool = False
    """The computer plays this person's seat until they open the game again."""


@dataclass(frozen=True)
class GameView:
    """A game as of one version: everything the templates and the API need, nothing mutable."""

    id: str
    status: GameStatus
    version: int
    turn_seconds: int | None
    turn_seconds_left: float | None
    """Seconds before the turn timer runs out, when the game has one and is being played."""
    rematch_id: str | None
    players: tuple[PlayerView, ...]
    state: Game
    fairness: Fairness
    """The dice's commitment and seeds (the server seed only once the game is over)."""

    @classmethod
    def of(cls, record: GameRow, state: Game) -> GameView:
        """The view of ``record`` whose replayed state is ``state``."""
        sheets = state.sheets if record.status != GameStatus.WAITING else None
        return cls(
            id=record.id,
            status=GameStatus(record.status),
            version=record.version,
            turn_seconds=record.turn_seconds,
            turn_seconds_left=(
                max(seconds_left(record) or 0.0, 0.0)
                if record.turn_seconds and record.status == GameStatus.PLAYING
                else None
            ),
            rematch_id=record.rematch_id,
            players=tuple(
                PlayerView(
                    player.seat,
                    player.name,
                    player.computer,
                    sheets[player.seat] if sheets else Scoresheet(),
                    player.used_hints,
                    player.hints,
                    player.stand_in,
                )
                for player in record.players
            ),
            state=state,
            fairness=Fairness.of(record),
        )

    @property
    def is_playing(self) -> bool:
        return self.status == GameStatus.PLAYING

    @property
    def is_waiting(self) -> bool:
        return self.status == GameStatus.WAITING

    @property
    def is_finished(self) -> bool:
        return self.status == GameStatus.FINISHED

    @property
    def is_abandoned(self) -> bool:
        return self.status == GameStatus.ABANDONED

    @property
    def turn(self) -> int | None:
        """The seat to move, or None unless the game is being played."""
        return self.state.seat if self.is_playing else None

    @property
    def current_player(self) -> PlayerView | None:
        return None if self.turn is None else self.players[self.turn]

    @property
    def round(self) -> int:
        return self.state.round

    @property
    def rolls_left(self) -> int:
        return self.state.turn.rolls_left if self.is_playing else MAX_ROLLS

    @property
    def rolls_used(self) -> int:
        return self.state.turn.rolls_used if self.is_playing else 0

    @property
    def scored_turns(self) -> int:
        return self.state.scored_turns

    @property
    def dice(self) -> Dice | None:
        return self.state.turn.dice if self.is_playing else None

    @property
    def held(self) -> tuple[bool, ...]:
        return self.state.turn.held

    @cached_property
    def options(self) -> dict[Box, ScoreOption]:
        """The legal boxes for the current dice; {} before a roll or outside play.

        Kept once computed (a view never changes): the bonus, the API and the templates
        each ask for it."""
        return self.state.legal_boxes() if self.is_playing else {}

    @property
    def bonus(self) -> int:
        """The Penta bonus that scoring the current dice earns (0 or 100)."""
        return max((option.bonus for option in self.options.values()), default=0)

    @property
    def shows_penta(self) -> bool:
        """Whether the dice on the table are five of a kind (the board celebrates it)."""
        return self.is_playing and self.dice is not None and is_penta(self.dice)

    @property
    def must_sacrifice(self) -> bool:
        return self.is_playing and self.state.must_sacrifice()

    @property
    def is_auto_due(self) -> bool:
        """After the third roll: the computer records the roll unless a box is chosen in time."""
        return self.is_playing and self.state.turn.has_rolled and self.rolls_left == 0

    @property
    def winners(self) -> tuple[int, ...]:
        outcome = self.state.outcome() if self.is_finished else None
        return outcome.winners if outcome else ()

    @property
    def is_draw(self) -> bool:
        return len(self.winners) > 1

    def standings(self) -> list[PlayerView]:
        """Players by total, highest first, then by seat."""
        return sorted(self.players, key=lambda player: (-player.sheet.total, player.seat))
