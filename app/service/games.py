"""The game service: every change to a game goes through here, in one write transaction."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, select

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
from app.service.errors import ConflictError, ForbiddenError, InvalidError, TooManyError
from app.service.fairness import LoggedRoll, next_roll_seeds, roll_log
from app.service.lobby import Lobby
from app.service.records import now, seat_of, seconds_left
from app.service.views import GameView
from app.store.database import Database
from app.store.models import GameRecord, GameStatus
from app.store.rows import GameRow
from app.store.snapshots import Snapshot, StaleWriteError, read_actions, write_actions
from app.strategy import StrategyProvider

MAX_HOLDS_PER_TURN = 40
ABANDONED_MESSAGE = "this game was closed after a long pause"


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

    def __init__(
        self,
        database: Database,
        dice: DiceSource,
        strategy: StrategyProvider,
        *,
        max_holds_per_turn: int = MAX_HOLDS_PER_TURN,
    ) -> None:
        super().__init__(database, dice)
        self.strategy = strategy
        self.max_holds_per_turn = max_holds_per_turn
        """Hold changes a person may log in one turn (0: no cap). A person needs a few;
        without a cap one browser logged 28,000 in a minute, each a row to keep."""

    # -- reading -------------------------------------------------------------------------

    def get(self, game_id: str) -> GameView:
        """The game as it is now, or 404."""
        with self.database.read_connection() as connection:
            snapshot = self._snapshot(connection, game_id)
        return GameView.of(snapshot.record, snapshot.state)

    def roll_log(self, game_id: str) -> tuple[GameView, list[LoggedRoll]]:
        """The game as it is now and every roll made in it, for anyone to verify; or 404."""
        with self.database.read_connection() as connection:
            # The log first: its read begins the transaction in which the version is read.
            actions = read_actions(connection, game_id)
            snapshot = self._snapshot(connection, game_id)
        view = GameView.of(snapshot.record, snapshot.state)
        if view.is_waiting:
            return view, []
        return view, roll_log(len(snapshot.record.players), actions)

    def database_problem(self) -> str | None:
        """Why changes cannot be saved now (disk full, read-only, locked), or None.
        Waits a few tens of milliseconds at most; call it off the event loop."""
        return self.database.problem()

    def log_bytes(self) -> int:
        """The size of the database's write-ahead log (kept small by the checkpointer)."""
        return self.database.wal_bytes()

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
            seeds = next_roll_seeds(snapshot)
            action = next_action(
                state,
                self.strategy.current(),
                lambda dice, held: roll(self.dice, dice, held, seeds),
            )
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

    def load_games(self, game_ids: Sequence[str]) -> None:
        """Load (and replay) the games into memory, ahead of their use on the event loop:
        a restart with 3,000 games in play froze the loop for 0.6 s replaying them there."""
        with self.database.read_connection() as connection:
            for game_id in game_ids[: self.snapshots.size]:
                self.snapshots.load(connection, game_id)

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

        def actions(snapshot: Snapshot) -> list[Action]:
            state = snapshot.state
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

        def actions(snapshot: Snapshot) -> list[Action]:
            state = snapshot.state
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
        plan: Callable[[Snapshot], list[Action]],
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
            if record.status == GameStatus.ABANDONED:
                raise ConflictError("abandoned", ABANDONED_MESSAGE)
            acting = seat if seat is not None else seat_of(record, secret)
            if acting is None:
                raise ForbiddenError("not_your_seat", "you do not hold a seat in this game")
            if acting != state.seat:
                raise ForbiddenError("not_your_turn", "it is not your turn")
            _check(expect, record, state)
            actions = plan(snapshot)
            if not by_computer:
                self._check_holds(snapshot, actions)
            snapshot = self._record(connection, snapshot, acting, actions, by_computer=by_computer)
        return self._committed(snapshot)

    def _check_holds(self, snapshot: Snapshot, actions: list[Action]) -> None:
        holds = sum(isinstance(action, Hold) for action in actions)
        cap = self.max_holds_per_turn
        if cap and holds and snapshot.turn_holds + holds > cap:
            raise TooManyError(
                "too_many_holds", "too many hold changes this turn: roll or choose a box"
            )

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
