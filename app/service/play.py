"""Play: each seat's actions (roll, hold, score, hints, advice), refused when not allowed,
each applied and logged in one write."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from app.analysis.advice import Advice, advise
from app.request_context import note_seat
from app.rules import (
    Action,
    Box,
    Game,
    Hold,
    IllegalActionError,
    MalformedActionError,
    Roll,
    Score,
)
from app.service import ratings
from app.service.changes import Changes
from app.service.clock import as_utc, now
from app.service.deadlines import server_just_recorded
from app.service.dice import DiceSource, roll
from app.service.errors import ConflictError, ForbiddenError, InvalidError, TooManyError
from app.service.fairness import next_roll_seeds
from app.service.seats import seat_of
from app.service.status import require_not_abandoned, require_playing
from app.service.views import GameView
from app.store.game_store import Writing
from app.store.models import GameRecord, GameStatus, Reason
from app.store.rows import GameRow
from app.store.snapshots import Snapshot, StaleWriteError
from app.strategy import StrategyProvider

MAX_HOLDS_PER_TURN = 40


@dataclass(frozen=True)
class Expect:
    """What the client saw when it acted; an action on anything newer is stale (409).

    ``version`` is the game's version (strict, as the API may send it); ``turn`` and ``roll``
    name the turn (scored turns so far) and the rolls used in it, which is what tells a
    double click from a new action even while holds move the version on.
    """

    version: int | None = None
    turn: int | None = None
    roll: int | None = None


class Play:
    """Applies each seat's actions and the server's due steps, refusing what is not allowed."""

    def __init__(
        self,
        changes: Changes,
        dice: DiceSource,
        strategy: StrategyProvider,
        *,
        max_holds_per_turn: int = MAX_HOLDS_PER_TURN,
    ) -> None:
        self.changes = changes
        self.dice = dice
        self.strategy = strategy
        self.max_holds_per_turn = max_holds_per_turn
        """Hold changes a person may log in one turn (0: no cap). A person needs a few;
        without a cap one browser logged 28,000 in a minute, each a row to keep."""

    # -- a seat's own -------------------------------------------------------------------

    def advice(self, game_id: str, secret: str | None) -> Advice | None:
        """The optimal player's advice, for the player to move only (else None)."""
        with self.changes.store.reading() as reading:
            snapshot = self.changes.snapshot(reading, game_id)
        record, state = snapshot.record, snapshot.state
        seat = seat_of(record, secret)
        if record.status != GameStatus.PLAYING or seat is None or seat != state.seat:
            return None
        return advise(self.strategy.current(), state)

    def set_hints(self, game_id: str, secret: str | None, enabled: bool) -> GameView:
        """Turn the optimal player's hints on or off for one's own seat.

        A game in which a player turned hints on is marked so in its result.
        """

        def toggle(record: GameRecord) -> None:
            seat = seat_of(record, secret)
            if seat is None:
                raise ForbiddenError("not_your_seat")
            if record.status == GameStatus.FINISHED:
                raise ConflictError("finished")
            require_not_abandoned(record)
            player = record.players[seat]
            player.hints = enabled
            player.used_hints = player.used_hints or enabled

        return self.changes.change_records(game_id, toggle)

    # -- moves -----------------------------------------------------------------------------

    def roll(
        self,
        game_id: str,
        secret: str | None,
        *,
        hold: Sequence[int] | None = None,
        expect: Expect = Expect(),
    ) -> GameView:
        """Roll the dice that are not held; ``hold`` (dice indices) first sets the holds."""

        def actions(snapshot: Snapshot) -> list[Action]:
            state = snapshot.state
            planned: list[Action] = []
            held = state.turn.held
            if hold is not None and state.turn.has_rolled:
                held = _hold(hold).held
                if held != state.turn.held:
                    planned.append(Hold(held))
            elif hold:
                raise ConflictError("illegal", "roll_before_hold")
            if not state.can_roll():
                raise ConflictError("illegal", "no_rolls_left")
            dealt = roll(self.dice, state.turn.dice, held, next_roll_seeds(snapshot))
            planned.append(Roll(dealt))
            return planned

        return self._play(game_id, secret, expect, actions)

    def set_hold(
        self, game_id: str, secret: str | None, die: int, held: bool, *, expect: Expect = Expect()
    ) -> GameView:
        """Hold or release one die (0 to 4)."""

        def actions(snapshot: Snapshot) -> list[Action]:
            state = snapshot.state
            if not 0 <= die < len(state.turn.held):
                raise InvalidError("invalid_die", "die_numbers")
            if state.turn.held[die] == held:
                # A second click, or another tab, asking for what the first one did:
                # refused as stale like any repeated action, so that it logs nothing.
                raise stale_refusal()
            holds = list(state.turn.held)
            holds[die] = held
            return [Hold(tuple(holds))]

        return self._play(game_id, secret, expect, actions)

    def score(
        self, game_id: str, secret: str | None, box: str, *, expect: Expect = Expect()
    ) -> GameView:
        """Record the dice in ``box``."""
        action = _score(box)
        return self._play(game_id, secret, expect, lambda _state: [action], late="refuse")

    def auto(self, game_id: str, secret: str | None, *, expect: Expect = Expect()) -> GameView:
        """After the third roll, record the dice in the box the computer would choose."""

        def actions(snapshot: Snapshot) -> list[Action]:
            state = snapshot.state
            if not (state.turn.has_rolled and state.turn.rolls_left == 0):
                raise ConflictError("illegal", "auto_too_early")
            return [Score(self.best_box(state))]

        # Asked once the server has done just that at the deadline: done, not refused.
        return self._play(game_id, secret, expect, actions, reason=Reason.DEADLINE, late="done")

    def best_box(self, state: Game) -> Box:
        assert state.sheet is not None
        assert state.turn.dice is not None
        return self.strategy.current().best_box(state.sheet, state.turn.dice)

    def _play(
        self,
        game_id: str,
        secret: str | None,
        expect: Expect,
        plan: Callable[[Snapshot], list[Action]],
        *,
        reason: Reason | None = None,
        seat: int | None = None,
        late: Literal["refuse", "done"] | None = None,
    ) -> GameView:
        """Apply ``plan``'s actions for the acting seat. ``late`` says what a request arriving
        just after the server recorded that seat's roll gets: 409 ``too_late``, or the game
        as it is (for a request asking for what the server did)."""
        with self.changes.store.writing() as writing:
            snapshot = self.changes.snapshot(writing, game_id)
            record, state = snapshot.record, snapshot.state
            require_playing(record)
            acting = seat if seat is not None else seat_of(record, secret)
            if acting is None:
                raise ForbiddenError("not_your_seat")
            if late is not None and server_just_recorded(snapshot, acting):
                if late == "done" and expect.turn in (None, state.scored_turns - 1):
                    return self.changes.view(snapshot)
                raise ConflictError("too_late")
            note_seat(game_id, acting)
            if acting != state.seat:
                raise ForbiddenError("not_your_turn")
            _check(expect, record, state)
            actions = plan(snapshot)
            if reason is None:  # a person's own actions (the server's holds are not capped)
                self._check_holds(snapshot, actions)
            snapshot = self.record(writing, snapshot, acting, actions, reason=reason)
        return self.changes.committed(snapshot)

    def _check_holds(self, snapshot: Snapshot, actions: list[Action]) -> None:
        holds = sum(isinstance(action, Hold) for action in actions)
        cap = self.max_holds_per_turn
        if cap and holds and snapshot.turn_holds + holds > cap:
            raise TooManyError("too_many_holds")

    def record(
        self,
        writing: Writing,
        snapshot: Snapshot,
        seat: int,
        actions: list[Action],
        *,
        reason: Reason | None,
        moment: datetime | None = None,
    ) -> Snapshot:
        """Apply ``actions`` to the game and log them, or raise 409 having changed nothing.
        ``moment`` is when (default now; the database's clock for the server's own steps)."""
        before = state = snapshot.state
        try:
            for action in actions:
                state = state.apply(action)
        except IllegalActionError as error:
            raise ConflictError.of_rules("illegal", error) from None
        moment = moment or now()
        changes: dict[str, object] = {"version": snapshot.version + 1, "updated_at": moment}
        turn_started_at = snapshot.record.turn_started_at
        if state.scored_turns != before.scored_turns:
            changes["turn_started_at"] = turn_started_at = moment
        record = snapshot.record
        changes["due_at"] = self.changes.deadlines.next_due(
            state,
            playing=not state.is_over,
            computer_to_move=state.seat is not None and played_by_computer(record, state.seat),
            turn_seconds=record.turn_seconds,
            turn_started_at=turn_started_at and as_utc(turn_started_at),
            moment=moment,
            pace=self.changes.deadlines.pace_of(record.computer_pace),
        )
        totals = None
        if state.is_over:
            changes.update(status=GameStatus.FINISHED.value, finished_at=moment)
            totals = {
                player.seat: state.sheets[player.seat].total for player in snapshot.record.players
            }
        try:
            snapshot = writing.append(
                snapshot,
                seat,
                actions,
                state,
                changes,
                reason=reason,
                final_totals=totals,
            )
        except StaleWriteError:
            raise stale_refusal() from None
        if state.is_over:  # in the same transaction: rated once, with the last move
            snapshot = ratings.settle(writing, snapshot, moment)
        return snapshot


def stale_refusal() -> ConflictError:
    """The one refusal of an action planned on a game that has moved on since (a double
    click, another tab, another worker's write): 409 ``stale``, and the game as it is now."""
    return ConflictError("stale")


def played_by_computer(record: GameRow, seat: int) -> bool:
    """Whether the server plays ``seat``: a computer's, or one the computer stands in for."""
    player = record.players[seat]
    return player.computer or player.stand_in


def _check(expect: Expect, record: GameRow, state: Game) -> None:
    stale = (
        (expect.version is not None and expect.version != record.version)
        or (expect.turn is not None and expect.turn != state.scored_turns)
        or (expect.roll is not None and expect.roll != state.turn.rolls_used)
    )
    if stale:
        raise stale_refusal()


def _hold(indices: Sequence[int]) -> Hold:
    try:
        return Hold.of_indices(indices)
    except MalformedActionError as error:
        raise InvalidError.of_rules("invalid_hold", error) from None


def _score(box: str) -> Score:
    try:
        return Score(Box(box))
    except ValueError:
        raise InvalidError("invalid_box", "no_such_box", box=box) from None
