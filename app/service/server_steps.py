"""The steps the server owes a game, each at the moment stored with it: a computer seat's next
action, a step of the turn of a person whose timer ran out, the box the computer records
after the auto-confirm deadline. The scheduler (:mod:`app.service.runner`) calls them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from time import perf_counter

from app import metrics
from app.rules import Action, Score
from app.service.changes import Changes
from app.service.clock import as_utc, now
from app.service.computers import next_action
from app.service.deadlines import is_choosing, is_due, pending, reason_for, timer_ran_out
from app.service.dice import DiceSource, roll
from app.service.fairness import next_roll_seeds
from app.service.play import Play, played_by_computer
from app.store.models import Reason
from app.strategy import StrategyProvider


class ServerSteps:
    """Plays what is due in a game through :class:`Play`, as the seat it plays for."""

    def __init__(
        self, changes: Changes, dice: DiceSource, strategy: StrategyProvider, play: Play
    ) -> None:
        self.changes = changes
        self.dice = dice
        self.strategy = strategy
        self.play = play

    def play_due(self, game_id: str) -> datetime | None:
        """Take the one step the server owes the game if it is due: a computer seat's next
        action, a step of the turn of a person whose timer ran out, or the computer's box
        for a person who let the auto-confirm deadline pass.

        Returns when the server must next act in the game (None: nothing is pending).
        """
        started = perf_counter()
        # Most looks find nothing due (a person acted in time): no write lock for those.
        with self.changes.store.reading() as reading:
            snapshot = self.changes.snapshot(reading, game_id)
        if not is_due(snapshot):
            return pending(snapshot)
        with self.changes.store.writing() as writing:
            # Claimed before it is read: a game another worker is playing is skipped, not
            # waited for; that worker schedules what follows. Looked at again a step later.
            moment = writing.claim_due(game_id)
            if moment is None:
                return now() + timedelta(seconds=self.changes.deadlines.pace)
            snapshot = self.changes.snapshot(writing, game_id)
            record, state = snapshot.record, snapshot.state
            if not is_due(snapshot, moment) or state.seat is None:
                return pending(snapshot, moment)
            player = record.players[state.seat]
            computer = played_by_computer(record, state.seat)
            ran_out = timer_ran_out(record, moment)
            if is_choosing(state) and not computer:
                action: Action = Score(self.play.best_box(state))
            else:
                seeds = next_roll_seeds(snapshot)
                action = next_action(
                    state,
                    self.strategy.current(),
                    lambda dice, held: roll(self.dice, dice, held, seeds),
                )
            reason = (
                Reason.STAND_IN
                if player.stand_in
                else reason_for(state, computer_to_move=computer, timer_ran_out=ran_out)
            )
            due = record.due_at
            snapshot = self.play.record(
                writing, snapshot, state.seat, [action], reason=reason, moment=moment
            )
        self.changes.committed(snapshot)
        lateness = (moment - as_utc(due)).total_seconds() if due is not None else 0.0
        metrics.server_step("server", lateness, perf_counter() - started)
        return snapshot.record.due_at

    def play_for_computer(self, game_id: str) -> float | None:
        """:meth:`play_due`, in seconds from now (negative or 0: due already)."""
        due = self.play_due(game_id)
        return None if due is None else (due - now()).total_seconds()

    def due_at(self, game_id: str) -> datetime | None:
        """When the server must next act in the game, as far as memory knows (a game not in
        memory is looked at now)."""
        snapshot = self.changes.store.peek(game_id)
        if snapshot is None:
            return now()
        due = snapshot.record.due_at
        return None if due is None else as_utc(due)

    def due_games(self) -> list[tuple[str, datetime]]:
        """Every game where the server has something pending, and when (after a restart)."""
        with self.changes.store.reading() as reading:
            return [(game_id, as_utc(due)) for game_id, due in reading.due_games()]

    def overdue_games(self, late: float, limit: int) -> list[tuple[str, datetime]]:
        """The games (``limit`` at most, the most overdue first) whose step is more than
        ``late`` seconds overdue, and when it was due: the worker that was to play it has
        not (it may have died).

        A deadline found past with nothing due (placed by a migration's look at every game
        in play, or left by a seat taken back) is cleared instead, all of them in one write:
        else every worker would find it again at every look, and it would hide the others."""
        before = now() - timedelta(seconds=late)
        with self.changes.store.reading() as reading:
            overdue = reading.due_games(before=before, limit=limit)
            snapshots = [self.changes.snapshot(reading, game_id) for game_id, _ in overdue]
        stale = [snapshot for snapshot in snapshots if not is_due(snapshot)]
        if stale:
            with self.changes.store.writing() as writing:
                for snapshot in stale:
                    writing.forget_due(snapshot)
        cleared = {snapshot.record.id for snapshot in stale}
        return [(game_id, as_utc(when)) for game_id, when in overdue if game_id not in cleared]

    def load_games(self, game_ids: Sequence[str]) -> None:
        """Load (and replay) the games into memory, ahead of their use on the event loop:
        a restart with 3,000 games in play froze the loop for 0.6 s replaying them there."""
        self.changes.store.load(game_ids)
