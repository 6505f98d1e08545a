"""The game service: every change to a game goes through here, in one write transaction."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, select, text

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
from app.service.advice import Advice, advise
from app.service.computers import next_action
from app.service.dice import DiceSource, roll
from app.service.errors import ConflictError, ForbiddenError, InvalidError
from app.service.lobby import Lobby
from app.service.records import now, seat_of, seconds_left
from app.service.views import GameView
from app.store.database import Database
from app.store.models import GameRecord, GameStatus
from app.store.rows import GameRow
from app.store.snapshots import Snapshot, StaleWriteError, write_actions
from app.strategy import StrategyProvider


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


class GameService(Lobby):
    """The lobby, plus play: applies each seat's actions, refusing what is not allowed."""

    def __init__(self, database: Database, dice: DiceSource, strategy: StrategyProvider) -> None:
        super().__init__(database)
        self.dice = dice
        self.strategy = strategy

    # -- reading -------------------------------------------------------------------------

    def get(self, game_id: str) -> GameView:
        """The game as it is now, or 404."""
        with self.database.read_connection() as connection:
            snapshot = self._snapshot(connection, game_id)
        return GameView.of(snapshot.record, snapshot.state)

    def check_database(self) -> None:
        """Raise unless the database answers."""
        with self.database.reading() as session:
            session.execute(text("SELECT 1"))

    def advice(self, game_id: str, secret: str | None) -> Advice | None:
        """The optimal player's advice, for the player to move only (else None)."""
        with self.database.read_connection() as connection:
            snapshot = self._snapshot(connection, game_id)
        record, state = snapshot.record, snapshot.state
        seat = seat_of(record, secret)
        if record.status != GameStatus.PLAYING or seat is None or seat != state.seat:
            return None
        return advise(self.strategy.current(), state)

    def seat_of(self, game_id: str, secret: str | None) -> int | None:
        """The seat that ``secret`` holds in the game, if any."""
        if not secret:
            return None
        with self.database.read_connection() as connection:
            return seat_of(self._snapshot(connection, game_id).record, secret)

    def set_hints(self, game_id: str, secret: str | None, enabled: bool) -> GameView:
        """Turn the optimal player's hints on or off for one's own seat.

        A game in which a player turned hints on is marked so in its result.
        """

        def toggle(record: GameRecord) -> None:
            seat = seat_of(record, secret)
            if seat is None:
                raise ForbiddenError("not_your_seat", "you do not hold a seat in this game")
            if record.status == GameStatus.FINISHED:
                raise ConflictError("finished", "the game is over")
            player = record.players[seat]
            player.hints = enabled
            player.used_hints = player.used_hints or enabled

        return self._change_records(game_id, toggle)

    def play_for_computer(self, game_id: str) -> float | None:
        """Take one step for a computer player, or for a person whose turn timer ran out.

        Returns the seconds until the next step may be due (a computer's next step, or the
        moment the current turn's timer runs out), or None when nothing is pending.
        """
        # Most games have nobody for the server to play for: find out without the write lock.
        with self.database.read_connection() as connection:
            due_in = _step_due_in(self._snapshot(connection, game_id))
        if due_in is None or due_in > 0:
            return due_in
        with self.database.write_connection() as connection:
            snapshot = self._snapshot(connection, game_id)
            due_in = _step_due_in(snapshot)
            if due_in is None or due_in > 0:
                return due_in
            state = snapshot.state
            assert state.seat is not None
            action = next_action(state, self.strategy.current(), self.dice)
            snapshot = self._record(connection, snapshot, state.seat, [action], by_computer=True)
        self._committed(snapshot)
        return _step_due_in(snapshot)

    def may_need_the_server(self, game_id: str) -> bool:
        """Whether the server may ever have to act in the game: it is being played and has a
        computer seat, a seat the computer stands in for, or a turn timer. Answered from
        memory, without the database (the kept snapshot is the newest committed here, and a
        hand-over is a commit); True for a game not in memory."""
        snapshot = self.snapshots.peek(game_id)
        if snapshot is None:
            return True
        record = snapshot.record
        return record.status == GameStatus.PLAYING and (
            record.turn_seconds is not None
            or any(player.computer or player.stand_in for player in record.players)
        )

    def playing_games(self) -> list[str]:
        """The ids of every game being played (for the runner after a restart)."""
        with self.database.reading() as session:
            return list(
                session.scalars(
                    select(GameRecord.id).where(GameRecord.status == GameStatus.PLAYING)
                )
            )

    # -- play ----------------------------------------------------------------------------

    def roll(
        self,
        game_id: str,
        secret: str | None,
        *,
        hold: Sequence[int] | None = None,
        expect: Expect = Expect(),
    ) -> GameView:
        """Roll the dice that are not held; ``hold`` (dice indices) first sets the holds."""

        def actions(state: Game) -> list[Action]:
            planned: list[Action] = []
            held = state.turn.held
            if hold is not None and state.turn.has_rolled:
                held = _hold(hold).held
                if held != state.turn.held:
                    planned.append(Hold(held))
            elif hold:
                raise ConflictError("illegal", "roll before holding dice")
            if not state.can_roll():
                raise ConflictError("illegal", "no rolls left: choose a box")
            planned.append(Roll(roll(self.dice, state.turn.dice, held)))
            return planned

        return self._play(game_id, secret, expect, actions)

    def set_hold(
        self, game_id: str, secret: str | None, die: int, held: bool, *, expect: Expect = Expect()
    ) -> GameView:
        """Hold or release one die (0 to 4)."""

        def actions(state: Game) -> list[Action]:
            if not 0 <= die < len(state.turn.held):
                raise InvalidError("invalid_die", "dice are numbered 0 to 4")
            if state.turn.held[die] == held:
                # A second click, or another tab, asking for what the first one did:
                # refused as stale like any repeated action, so that it logs nothing.
                raise ConflictError(
                    "stale", "the game has moved on since you saw it: here it is now"
                )
            holds = list(state.turn.held)
            holds[die] = held
            return [Hold(tuple(holds))]

        return self._play(game_id, secret, expect, actions)

    def score(
        self, game_id: str, secret: str | None, box: str, *, expect: Expect = Expect()
    ) -> GameView:
        """Record the dice in ``box``."""
        action = _score(box)
        return self._play(game_id, secret, expect, lambda _state: [action])

    def auto(self, game_id: str, secret: str | None, *, expect: Expect = Expect()) -> GameView:
        """After the third roll, record the dice in the box the computer would choose."""

        def actions(state: Game) -> list[Action]:
            if not (state.turn.has_rolled and state.turn.rolls_left == 0):
                raise ConflictError("illegal", "the computer chooses only after the third roll")
            return [Score(self._best_box(state))]

        return self._play(game_id, secret, expect, actions, by_computer=True)

    def _best_box(self, state: Game) -> Box:
        assert state.sheet is not None
        assert state.turn.dice is not None
        return self.strategy.current().best_box(state.sheet, state.turn.dice)

    def _play(
        self,
        game_id: str,
        secret: str | None,
        expect: Expect,
        plan: Callable[[Game], list[Action]],
        *,
        by_computer: bool = False,
        seat: int | None = None,
    ) -> GameView:
        with self.database.write_connection() as connection:
            snapshot = self._snapshot(connection, game_id)
            record, state = snapshot.record, snapshot.state
            if record.status == GameStatus.WAITING:
                raise ConflictError("not_started", "the game has not started yet")
            if record.status == GameStatus.FINISHED:
                raise ConflictError("finished", "the game is over")
            acting = seat if seat is not None else seat_of(record, secret)
            if acting is None:
                raise ForbiddenError("not_your_seat", "you do not hold a seat in this game")
            if acting != state.seat:
                raise ForbiddenError("not_your_turn", "it is not your turn")
            _check(expect, record, state)
            snapshot = self._record(
                connection, snapshot, acting, plan(state), by_computer=by_computer
            )
        return self._committed(snapshot)

    @staticmethod
    def _record(
        connection: Connection,
        snapshot: Snapshot,
        seat: int,
        actions: list[Action],
        *,
        by_computer: bool,
    ) -> Snapshot:
        """Apply ``actions`` to the game and log them, or raise 409 having changed nothing."""
        before = state = snapshot.state
        try:
            for action in actions:
                state = state.apply(action)
        except IllegalActionError as error:
            raise ConflictError("illegal", str(error)) from None
        moment = now()
        changes: dict[str, object] = {"version": snapshot.version + 1, "updated_at": moment}
        if state.scored_turns != before.scored_turns:
            changes["turn_started_at"] = moment
        totals = None
        if state.is_over:
            changes.update(status=GameStatus.FINISHED.value, finished_at=moment)
            totals = {
                player.seat: state.sheets[player.seat].total for player in snapshot.record.players
            }
        try:
            return write_actions(
                connection,
                snapshot,
                seat,
                actions,
                state,
                changes,
                by_computer=by_computer,
                final_totals=totals,
            )
        except StaleWriteError:
            raise ConflictError(
                "stale", "the game has moved on since you saw it: here it is now"
            ) from None


def _step_due_in(snapshot: Snapshot) -> float | None:
    """Seconds until the server has to act in the game (0 or less: now), None if it never does.

    It plays every turn of a computer seat, and the turn of a person whose timer ran out.
    """
    record, state = snapshot.record, snapshot.state
    if record.status != GameStatus.PLAYING or state.seat is None:
        return None
    seat = record.players[state.seat]
    if seat.computer or seat.stand_in:  # a stand-in seat is played as a computer's
        return 0.0
    return seconds_left(record)


def _check(expect: Expect, record: GameRow, state: Game) -> None:
    stale = (
        (expect.version is not None and expect.version != record.version)
        or (expect.turn is not None and expect.turn != state.scored_turns)
        or (expect.roll is not None and expect.roll != state.turn.rolls_used)
    )
    if stale:
        raise ConflictError("stale", "the game has moved on since you saw it: here it is now")


def _hold(indices: Sequence[int]) -> Hold:
    try:
        return Hold.of_indices(indices)
    except MalformedActionError as error:
        raise InvalidError("invalid_hold", str(error)) from None


def _score(box: str) -> Score:
    try:
        return Score(Box(box))
    except ValueError:
        raise InvalidError("invalid_box", f"there is no box {box!r}") from None
