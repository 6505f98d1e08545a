"""When the server must next act in a game: the one rule behind every ``due_at``.

The server plays computer seats, finishes the turn of a person whose turn timer ran out, and
records the computer's box when nobody chose one in time after the third roll. Each move
stores the next such moment with the game (``games.due_at``, in the same UPDATE), so that
the scheduler (:mod:`app.service.runner`) needs nothing but that column, even after a restart.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from app.rules import Game
from app.service.clock import as_utc, now, seconds_left
from app.store.models import GameStatus, Reason
from app.store.rows import GameRow
from app.store.snapshots import Snapshot


@dataclass(frozen=True)
class Deadlines:
    """The settings that place deadlines, in seconds."""

    auto_confirm: float = 3.0
    """After the third roll: the rule's time to choose a box."""
    grace: float = 1.0
    """Added to ``auto_confirm`` before the server acts, for a choice still on the network."""
    pace: float = 1.0
    """Between the server's visible steps (a computer's, or a timed-out player's)."""
    fast_pace: float = 0.25
    """The same in a game whose computers play fast (``games.computer_pace``)."""

    def pace_of(self, computer_pace: str | None) -> float:
        """The pace of a game's server steps, by its ``computer_pace`` column."""
        return self.fast_pace if computer_pace == FAST else self.pace

    def next_due(
        self,
        state: Game,
        *,
        playing: bool,
        computer_to_move: bool,
        turn_seconds: int | None,
        turn_started_at: datetime | None,
        moment: datetime,
        pace: float | None = None,
    ) -> datetime | None:
        """The next moment the server must act after a move made at ``moment`` that left the
        game at ``state``; None when nothing is pending (the game waits, is over, or a person
        is to move with no timer and dice still to roll). ``pace``: the game's, by default
        the normal one."""
        if not playing or state.seat is None:
            return None
        step = timedelta(seconds=self.pace if pace is None else pace)
        if computer_to_move:
            return moment + step
        candidates = []
        if turn_seconds is not None and turn_started_at is not None:
            candidates.append(turn_started_at + timedelta(seconds=turn_seconds))
        if is_choosing(state):
            candidates.append(moment + timedelta(seconds=self.auto_confirm + self.grace))
        if not candidates:
            return None
        due = min(candidates)
        # Past already: the server is playing a timed-out turn, step by visible step.
        return max(due, moment + step) if due < moment else due

    def auto_deadline(self, due_at: datetime | None) -> datetime | None:
        """The rule's deadline to choose a box, shown to players: the server acts ``grace``
        after it. (If a turn timer runs out sooner, it is that timer's end, less the grace.)"""
        return None if due_at is None else due_at - timedelta(seconds=self.grace)


DEFAULT_DEADLINES = Deadlines()

FAST = "fast"
"""``games.computer_pace`` of a game whose computers play at the fast pace (NULL: normal)."""
PACES = (None, FAST)


def is_choosing(state: Game) -> bool:
    """Whether the player to move has rolled three times and only a box remains to choose."""
    return state.seat is not None and state.turn.has_rolled and state.turn.rolls_left == 0


def reason_for(state: Game, *, computer_to_move: bool, timer_ran_out: bool) -> Reason:
    """Why the server acts now in a game where it is due."""
    if computer_to_move:
        return Reason.COMPUTER
    if timer_ran_out:
        return Reason.TURN_TIMER
    return Reason.DEADLINE


def is_due(snapshot: Snapshot, at: datetime | None = None) -> bool:
    """Whether the server has to act in the game now. A computer seat, a seat the computer
    stands in for, or a person whose turn timer ran out, is played whenever asked (the
    scheduler keeps the pace, from ``due_at``); a person who has rolled three times, once the
    auto-confirm deadline is past (at ``at``: the database's clock in a claim; default now)."""
    record, state = snapshot.record, snapshot.state
    if record.status != GameStatus.PLAYING or state.seat is None:
        return False
    player = record.players[state.seat]
    if player.computer or player.stand_in or timer_ran_out(record, at):
        return True
    # Only a box is left to choose: a due_at placed otherwise (a migration's look at every
    # game in play, a seat taken back) plays nothing for a person who still has rolls.
    due = record.due_at
    return is_choosing(state) and due is not None and as_utc(due) <= (at or now())


def pending(snapshot: Snapshot, at: datetime | None = None) -> datetime | None:
    """When the server must act in a game where nothing is due now: its ``due_at`` if that
    is still ahead, else None (a moment already past that is not due is not pending)."""
    due = snapshot.record.due_at
    return as_utc(due) if due is not None and as_utc(due) > (at or now()) else None


def timer_ran_out(record: GameRow, at: datetime | None = None) -> bool:
    """Whether the game's turn timer has run out for the player to move (at ``at``)."""
    left = seconds_left(record, at)
    return left is not None and left <= 0


def server_just_recorded(snapshot: Snapshot, seat: int) -> bool:
    """Whether the newest action is the server recording ``seat``'s roll in its place: a
    choice arriving now came too late, and says so rather than "not your turn"."""
    newest = snapshot.activity[-1] if snapshot.activity else None
    return (
        newest is not None
        and newest.number == snapshot.logged
        and newest.seat == seat
        and newest.reason in (Reason.DEADLINE, Reason.TURN_TIMER, Reason.STAND_IN)
    )
