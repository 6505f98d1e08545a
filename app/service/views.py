"""What a page or an API client sees of a game: its record and its replayed state together."""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property

from app.rules import MAX_ROLLS, Box, Dice, Game, ScoreOption, Scoresheet, is_penta
from app.service.clock import as_utc, seconds_left
from app.service.fairness import Fairness
from app.service.labels import short_labels
from app.service.seats import hash_secret
from app.store.log import ScoreEntry
from app.store.models import ClosedReason, GameStatus, RematchAnswer
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
    rematch: str | None = None
    """This player's part in the rematch offered after the game (a ``RematchAnswer``)."""
    player_id: str | None = None
    """The player (app/service/people.py) who holds the seat: their profile's id."""


@dataclass(frozen=True)
class GameView:
    """A game as of one version: everything the templates and the API need, nothing mutable."""

    id: str
    status: GameStatus
    version: int
    turn_seconds: int | None
    turn_seconds_left: float | None
    """Seconds before the turn timer runs out, when the game has one and is being played."""
    computer_pace: str | None
    """``fast`` when the game's computer players move fast; None: the normal pace."""
    rematch_id: str | None
    players: tuple[PlayerView, ...]
    closed_reason: ClosedReason | None
    state: Game
    fairness: Fairness
    """The dice's commitment and seeds (the server seed only once the game is over)."""
    activity: tuple[ScoreEntry, ...] = ()
    """The newest boxes recorded, oldest first."""
    scored_now: bool = False
    """Whether the change that made this version recorded the newest box of ``activity``."""
    auto_deadline: datetime | None = None
    """After the third roll: when the rule's time to choose a box runs out (the server
    records the computer's box a short grace later)."""
    seat_hashes: tuple[str | None, ...] = field(default=(), repr=False)
    """Each seat's secret hash: a live stream finds its browser's seat in memory."""
    moved_hashes: tuple[str | None, ...] = field(default=(), repr=False)
    """Each seat's previous secret hash, once it moved to another device."""
    public: bool = False
    """Listed for anyone to join or watch, and rated."""

    @classmethod
    def of(
        cls,
        record: GameRow,
        state: Game,
        *,
        activity: tuple[ScoreEntry, ...] = (),
        scored_now: bool = False,
        auto_deadline: datetime | None = None,
    ) -> GameView:
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
            computer_pace=record.computer_pace,
            rematch_id=record.rematch_id,
            closed_reason=_closed_reason(record),
            players=tuple(
                PlayerView(
                    player.seat,
                    player.name,
                    player.computer,
                    sheets[player.seat] if sheets else Scoresheet(),
                    player.used_hints,
                    player.hints,
                    player.stand_in,
                    player.rematch,
                    player.person_id,
                )
                for player in record.players
            ),
            state=state,
            fairness=Fairness.of(record),
            activity=activity,
            scored_now=scored_now,
            auto_deadline=as_utc(auto_deadline) if auto_deadline else None,
            seat_hashes=tuple(player.secret_hash for player in record.players),
            moved_hashes=tuple(player.moved_hash for player in record.players),
            public=record.public,
        )

    def seat_of_hash(self, hashed: str | None) -> int | None:
        """The seat whose secret has the hash ``hashed``, if any."""
        return _find(self.seat_hashes, hashed)

    def seat_of_secret(self, secret: str | None) -> int | None:
        """The seat that ``secret`` holds at this version, if any (read here, not again)."""
        return self.seat_of_hash(hash_secret(secret) if secret else None)

    def has_moved_from(self, hashed: str | None) -> bool:
        """Whether a seat once held by the secret hashed ``hashed`` has moved elsewhere."""
        return _find(self.moved_hashes, hashed) is not None

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

    @cached_property
    def turn(self) -> int | None:
        """The seat to move, or None unless the game is being played (kept: a scoresheet
        asks for it in each of its cells)."""
        return self.state.seat if self.is_playing else None

    @cached_property
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

    @cached_property
    def labels(self) -> tuple[str, ...]:
        """Each seat's short label (its initials, told apart): the scoresheet's columns."""
        return short_labels([player.name for player in self.players])

    @property
    def bonus(self) -> int:
        """The Penta bonus that scoring the current dice earns (0 or 100)."""
        return max((option.bonus for option in self.options.values()), default=0)

    @property
    def shows_penta(self) -> bool:
        """Whether the dice on the table are five of a kind (the board celebrates it)."""
        return self.is_playing and self.dice is not None and is_penta(self.dice)

    @cached_property  # a live board asks every version (the sacrifice warning shows it)
    def must_sacrifice(self) -> bool:
        """Whether no box offered scores more than 0 (:meth:`Game.must_sacrifice`), read off
        the boxes offered, computed once (the rules' own would score the dice again)."""
        options = self.options  # {} before a roll and outside play
        return bool(options) and all(option.points == 0 for option in options.values())

    @property
    def is_auto_due(self) -> bool:
        """After the third roll: the computer records the roll unless a box is chosen in time."""
        return self.is_playing and self.state.turn.has_rolled and self.rolls_left == 0

    @property
    def deadline(self) -> datetime | None:
        """The auto-confirm deadline while a person has a box to choose, else None."""
        player = self.current_player
        if not self.is_auto_due or player is None or player.computer:
            return None
        return self.auto_deadline

    @property
    def deadline_ms(self) -> int | None:
        """:attr:`deadline` in milliseconds since the epoch, as a page's script counts."""
        deadline = self.deadline
        return None if deadline is None else round(deadline.timestamp() * 1000)

    @property
    def fresh_score(self) -> ScoreEntry | None:
        """The box this version's change recorded, if it recorded one: highlighted and
        announced once, not again by the versions that follow (a hints toggle, a rematch)."""
        return self.activity[-1] if self.scored_now and self.activity else None

    @property
    def rematch_offerer(self) -> PlayerView | None:
        """The player who offered the rematch, once one is offered."""
        return next((p for p in self.players if p.rematch == RematchAnswer.OFFERED), None)

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


def _find(hashes: tuple[str | None, ...], hashed: str | None) -> int | None:
    if not hashed:
        return None
    for seat, candidate in enumerate(hashes):
        if candidate and hmac.compare_digest(candidate, hashed):
            return seat
    return None


def _closed_reason(record: GameRow) -> ClosedReason | None:
    """Why an abandoned game was closed (a game closed before reasons were kept: idle)."""
    if record.status != GameStatus.ABANDONED:
        return None
    return ClosedReason(record.closed_reason or ClosedReason.IDLE)
